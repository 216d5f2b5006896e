//! The build step of Restart on change (`sonde watch --build`, a saved server's build command):
//! a command line run through `sh -c` before the server starts again.
//!
//! Owns: running it in its own process group (so nothing it started outlives it: a build the
//! watch stops, or drops, takes its whole group with it), its output (both streams, in the order
//! they came, each line told as it comes and the last [`KEPT_MAX`] bytes kept for the report of a
//! failure), and its verdict. Refuses: deciding when to build and what a failure means for the
//! running server (the restart loop's).

use std::path::PathBuf;
use std::process::Stdio;

use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};
use tokio::sync::mpsc;

/// The build's output kept for a failure's report, at most: the end of it, where compilers say
/// what went wrong last.
pub const KEPT_MAX: usize = 64 * 1024;

/// A build command, and the folder it runs in (the server's working directory).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuildStep {
    pub command: String,
    pub cwd: Option<PathBuf>,
}

/// A build that did not succeed: how it ended (`exit status: 2`, or why it could not run) and
/// the end of its output.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the build ({command}) failed: {status}")]
pub struct BuildFailed {
    pub command: String,
    pub status: String,
    pub output: String,
}

impl BuildStep {
    /// Runs the build to its end, telling `line` each line of its output as it comes.
    pub async fn run(&self, line: &(dyn Fn(&str) + Send + Sync)) -> Result<(), BuildFailed> {
        let failed =
            |status: String, output: String| BuildFailed { command: self.command.clone(), status, output };
        let mut command = tokio::process::Command::new("sh");
        command
            .arg("-c")
            .arg(&self.command)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        command.process_group(0);
        if let Some(cwd) = &self.cwd {
            command.current_dir(cwd);
        }
        let mut child = command.spawn().map_err(|e| failed(format!("cannot run it: {e}"), String::new()))?;
        let mut group = Group(child.id());
        let (tx, mut rx) = mpsc::unbounded_channel();
        if let Some(out) = child.stdout.take() {
            tokio::spawn(lines(out, tx.clone()));
        }
        if let Some(err) = child.stderr.take() {
            tokio::spawn(lines(err, tx));
        }
        let mut kept = String::new();
        let mut keep = |text: String| {
            line(&text);
            kept.push_str(&text);
            kept.push('\n');
            if kept.len() > KEPT_MAX {
                let mut cut = kept.len() - KEPT_MAX;
                while !kept.is_char_boundary(cut) {
                    cut += 1;
                }
                kept.drain(..cut);
            }
        };
        // The build ends when `sh` does; what it left running in its group (holding the output
        // open, perhaps) goes then, and the output read so far is drained.
        let status = loop {
            tokio::select! {
                Some(text) = rx.recv() => keep(text),
                status = child.wait() => break status,
            }
        };
        group.kill();
        while let Some(text) = rx.recv().await {
            keep(text);
        }
        match status {
            Ok(status) if status.success() => Ok(()),
            Ok(status) => Err(failed(status.to_string(), kept)),
            Err(e) => Err(failed(format!("cannot wait for it: {e}"), kept)),
        }
    }
}

/// Each line of `from` (bytes that are not UTF-8 replaced, never a reason to stop reading),
/// sent until it ends (or nobody listens).
async fn lines(from: impl AsyncRead + Unpin, to: mpsc::UnboundedSender<String>) {
    let mut from = BufReader::new(from);
    let mut line = Vec::new();
    loop {
        line.clear();
        match from.read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => return,
            Ok(_) => {
                let text = String::from_utf8_lossy(line.strip_suffix(b"\n").unwrap_or(&line));
                if to.send(text.trim_end_matches('\r').to_owned()).is_err() {
                    return;
                }
            }
        }
    }
}

/// The build's process group, killed at the build's end, and when the build is dropped
/// half-way (the watch stopped).
struct Group(Option<u32>);

impl Group {
    fn kill(&mut self) {
        if let Some(pgid) = self.0.take().and_then(|id| i32::try_from(id).ok()) {
            // SAFETY: killpg only sends a signal; a group that is gone gives ESRCH, which is fine.
            unsafe {
                libc::killpg(pgid, libc::SIGKILL);
            }
        }
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        self.kill();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    fn step(command: &str) -> BuildStep {
        BuildStep { command: command.into(), cwd: None }
    }

    #[tokio::test]
    async fn a_build_that_succeeds_tells_each_line() {
        let seen = Mutex::new(Vec::new());
        step("echo one; echo two >&2").run(&|l| seen.lock().unwrap().push(l.to_owned())).await.unwrap();
        let mut seen = seen.into_inner().unwrap();
        seen.sort();
        assert_eq!(seen, ["one", "two"]);
    }

    #[tokio::test]
    async fn a_failed_build_keeps_its_status_and_output() {
        let e = step("echo 'main.rs:3: expected ;' >&2; exit 2").run(&|_| {}).await.unwrap_err();
        assert_eq!(e.status, "exit status: 2");
        assert_eq!(e.output, "main.rs:3: expected ;\n");
        assert_eq!(
            e.to_string(),
            "the build (echo 'main.rs:3: expected ;' >&2; exit 2) failed: exit status: 2"
        );
    }

    #[tokio::test]
    async fn only_the_end_of_a_long_output_is_kept() {
        let e = step("seq 1 100000; exit 1").run(&|_| {}).await.unwrap_err();
        assert!(e.output.len() <= KEPT_MAX, "{}", e.output.len());
        assert!(e.output.ends_with("99999\n100000\n"));
    }

    #[tokio::test]
    async fn what_a_build_started_does_not_outlive_it() {
        let dir = tempfile::tempdir().unwrap();
        let pid_file = dir.path().join("pid");
        // The build leaves a sleeper behind (its output closed, so the build's end is not held).
        let command = format!("sleep 60 >/dev/null 2>&1 & echo $! > {}", pid_file.display());
        step(&command).run(&|_| {}).await.unwrap();
        let pid: i32 = std::fs::read_to_string(&pid_file).unwrap().trim().parse().unwrap();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        // SAFETY: signal 0 only asks whether the process exists.
        while unsafe { libc::kill(pid, 0) } == 0 && !zombie(pid) {
            assert!(std::time::Instant::now() < deadline, "the build's sleeper {pid} still runs");
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }

    #[tokio::test]
    async fn a_build_that_leaves_a_child_holding_its_output_ends_with_sh() {
        let started = std::time::Instant::now();
        step("sleep 60 & echo done").run(&|_| {}).await.unwrap();
        assert!(started.elapsed() < std::time::Duration::from_secs(30), "the build waited for its child");
    }

    #[tokio::test]
    async fn output_that_is_not_utf8_is_kept_replaced_and_read_to_the_end() {
        let e = step("printf 'bad \\377 byte\\nlast\\n'; exit 1").run(&|_| {}).await.unwrap_err();
        assert_eq!(e.output, "bad \u{fffd} byte\nlast\n");
    }

    fn zombie(pid: i32) -> bool {
        std::fs::read_to_string(format!("/proc/{pid}/stat")).map_or(true, |s| s.contains(") Z "))
    }
}
