//! Process-group operations: signalling a whole group and finding who is still in it.
//!
//! Owns: `killpg`, a scan of `/proc` for live (non-zombie) members of a group, what the group's
//! live members cost together (CPU time and resident memory, [`group_usage`]), and telling a
//! group Sonde started from a later one given the same id (the leader's start time).
//! Refuses: deciding when to signal; the shutdown ladder does that.

use std::fs;
use std::io;
use std::time::{Duration, Instant};

/// Sends `signal` to every process in group `pgid`.
pub fn signal(pgid: i32, signal: i32) -> io::Result<()> {
    // SAFETY: killpg has no memory-safety preconditions.
    if unsafe { libc::killpg(pgid, signal) } == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// The pids in group `pgid` that are still running (zombies, already dead, are left out).
pub fn live_members(pgid: i32) -> Vec<i32> {
    let Ok(dir) = fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|d| d.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter(|&pid| member_state(pid, pgid).is_some_and(|state| state != 'Z' && state != 'X'))
        .collect()
}

/// What a group's live members have cost so far, summed: CPU time (user and system) and the
/// memory resident now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct GroupUsage {
    pub cpu: Duration,
    pub rss_bytes: u64,
}

/// What group `pgid`'s live members cost (see [`GroupUsage`]), from `/proc/PID/stat`; `None`
/// when the group has no live member left.
pub fn group_usage(pgid: i32) -> Option<GroupUsage> {
    // SAFETY: sysconf has no preconditions.
    let (ticks, page) = unsafe { (libc::sysconf(libc::_SC_CLK_TCK), libc::sysconf(libc::_SC_PAGESIZE)) };
    let (ticks, page) = (u64::try_from(ticks).ok().filter(|&t| t > 0)?, u64::try_from(page).ok()?);
    let mut found = false;
    let (mut cpu_ticks, mut pages) = (0u64, 0u64);
    for pid in fs::read_dir("/proc").ok()?.filter_map(|d| d.ok()?.file_name().to_str()?.parse::<i32>().ok()) {
        let Ok(stat) = fs::read_to_string(format!("/proc/{pid}/stat")) else { continue };
        let Some(rest) = stat.rfind(')').and_then(|at| stat.get(at + 2..)) else { continue };
        let fields: Vec<&str> = rest.split(' ').collect();
        // After the name: state (field 3), ppid, pgrp (5), … utime (14), stime (15), … rss (24).
        let field = |n: usize| fields.get(n - 3).and_then(|f| f.parse::<u64>().ok());
        if field(5) != u64::try_from(pgid).ok() || matches!(fields.first(), Some(&"Z" | &"X")) {
            continue;
        }
        found = true;
        cpu_ticks += field(14).unwrap_or(0) + field(15).unwrap_or(0);
        pages += field(24).unwrap_or(0);
    }
    found.then(|| GroupUsage {
        cpu: Duration::from_micros(cpu_ticks * 1_000_000 / ticks),
        rss_bytes: pages * page,
    })
}

/// When `pid` started, in clock ticks since boot (`/proc/PID/stat` field 22): with the pid, what
/// tells a process from a later one that was given the same pid.
pub fn start_time(pid: i32) -> Option<u64> {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the command name: state is field 3, so field 22 is the 20th of these.
    stat[stat.rfind(')')? + 2..].split(' ').nth(19)?.parse().ok()
}

/// Whether group `pgid` still holds processes of the group Sonde started with a leader that
/// began at `leader_start`. Once a group is empty its id may be reused, and only by a new
/// leader whose pid is that id: a live process with that pid and another start time means the
/// group is someone else's now. While any member is left the id cannot be reused, so members
/// without such a leader are the server's own (its grandchildren).
pub fn still_ours(pgid: i32, leader_start: Option<u64>) -> bool {
    if let (Some(start), Some(_)) = (start_time(pgid), member_state(pgid, pgid)) {
        if Some(start) != leader_start {
            return false;
        }
    }
    !live_members(pgid).is_empty()
}

/// The state letter of `pid` if it belongs to group `pgid`.
fn member_state(pid: i32, pgid: i32) -> Option<char> {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name may hold spaces and parentheses; the fields start after the last ')'.
    let rest = &stat[stat.rfind(')')? + 2..];
    let mut fields = rest.split(' ');
    let state = fields.next()?.chars().next()?;
    let _ppid = fields.next()?;
    let group: i32 = fields.next()?.parse().ok()?;
    (group == pgid).then_some(state)
}

/// Waits until group `pgid` has no live member, up to `limit`. True when it emptied.
pub async fn wait_empty(pgid: i32, limit: Duration) -> bool {
    let deadline = Instant::now() + limit;
    loop {
        if live_members(pgid).is_empty() {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        // Group membership has no event to wait on; polling /proc is the portable way on Linux.
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::process::CommandExt;

    #[test]
    fn a_group_is_ours_while_its_leader_is_the_one_we_started_and_not_after() {
        let mut child = std::process::Command::new("sleep").arg("30").process_group(0).spawn().unwrap();
        let pgid = child.id() as i32;
        let start = start_time(pgid);
        assert!(start.is_some());
        assert!(still_ours(pgid, start), "our leader, alive");
        // The same pgid with a leader that started at another time is a reused id.
        assert!(!still_ours(pgid, start.map(|s| s + 1)), "another process with that pid");
        child.kill().unwrap();
        child.wait().unwrap();
        assert!(!still_ours(pgid, start), "an empty group is nobody's to signal");
    }
}
