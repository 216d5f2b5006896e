//! Process-group operations: signalling a whole group and finding who is still in it.
//!
//! Owns: `killpg` and a scan of `/proc` for live (non-zombie) members of a group.
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
