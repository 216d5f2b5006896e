//! The keeper: a tiny process that outlives a crashed Sonde just long enough to stop its servers.
//!
//! A parent-death signal reaches only a direct child, and a server's grandchildren (`npx`,
//! `uvx`, `sh -c`) are not Sonde's children at all. So Sonde starts one `/bin/sh` keeper in a
//! process group of its own and tells it, over a pipe, each server group it starts (`+PGID`)
//! and reaps (`-PGID`). When Sonde dies for any reason, even SIGKILL, the pipe closes; the
//! keeper then sends SIGTERM to the groups still listed and SIGKILL half a second later.
//!
//! Owns: starting the keeper once per process and the register/forget messages.
//! Refuses: graceful shutdown; that is the supervisor's ladder while Sonde is alive.

use crate::sync::Lock;
use std::io::Write;
use std::os::unix::process::CommandExt;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::Mutex;

const SCRIPT: &str = r#"
groups=" "
while IFS= read -r line; do
  case "$line" in
    +*) groups="$groups${line#+} " ;;
    -*) groups=$(printf '%s' "$groups" | sed "s/ ${line#-} / /") ;;
  esac
done
[ "$groups" = " " ] && exit 0
for g in $groups; do kill -TERM "-$g" 2>/dev/null; done
sleep 0.5
for g in $groups; do kill -KILL "-$g" 2>/dev/null; done
exit 0
"#;

struct Keeper {
    /// Never waited on: the keeper lives exactly as long as Sonde does.
    _child: Child,
    pipe: ChildStdin,
}

static KEEPER: Mutex<Option<Keeper>> = Mutex::new(None);

fn send(line: &str) -> std::io::Result<()> {
    let mut guard = KEEPER.locked();
    if guard.is_none() {
        let mut child = Command::new("/bin/sh")
            .arg("-c")
            .arg(SCRIPT)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            // Its own group: a Ctrl-C meant for Sonde's terminal group must not reach it.
            .process_group(0)
            .spawn()?;
        let pipe = child.stdin.take().expect("stdin was piped");
        *guard = Some(Keeper { _child: child, pipe });
    }
    let keeper = guard.as_mut().expect("started above");
    keeper.pipe.write_all(line.as_bytes())?;
    keeper.pipe.flush()
}

/// Records a server group that must die if Sonde dies.
pub fn register(pgid: i32) -> std::io::Result<()> {
    send(&format!("+{pgid}\n"))
}

/// Removes a group that Sonde has emptied itself.
pub fn forget(pgid: i32) {
    let _ = send(&format!("-{pgid}\n"));
}
