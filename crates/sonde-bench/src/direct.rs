//! The baseline: a minimal JSON-RPC client over the same pipes, with no log, no task, no map.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use serde_json::Value;

pub struct Direct {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    line: Vec<u8>,
}

impl Direct {
    /// Starts the fixture with `args` and runs the handshake.
    pub fn start(args: &[&str]) -> Direct {
        let argv = crate::fixture_argv(args);
        let mut command = Command::new(&argv[0]);
        command.args(&argv[1..]);
        Direct::start_command(command)
    }

    /// Starts `command` (a server, or a proxy in front of one) and runs the handshake.
    pub fn start_command(mut command: Command) -> Direct {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start the fixture");
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::with_capacity(64 * 1024, child.stdout.take().unwrap());
        let mut d = Direct { child, stdin, stdout, line: Vec::new() };
        d.send(r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"direct","version":"0"}}}"#);
        d.read_until_id(0);
        d.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        d
    }

    pub fn send(&mut self, line: &str) {
        self.stdin.write_all(line.as_bytes()).unwrap();
        self.stdin.write_all(b"\n").unwrap();
        self.stdin.flush().unwrap();
    }

    /// `n` sequential `tools/call`s of `echo`, ids 1 to `n`: each one's round trip in ms.
    pub fn echo_calls(&mut self, n: usize) -> Vec<f64> {
        let mut ms = Vec::with_capacity(n);
        for i in 1..=n as u64 {
            let started = std::time::Instant::now();
            self.send(&format!(
                r#"{{"jsonrpc":"2.0","id":{i},"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"x"}}}}}}"#
            ));
            self.read_until_id(i);
            ms.push(started.elapsed().as_secs_f64() * 1000.0);
        }
        ms
    }

    /// `n` `tools/call`s of `echo` paced at `rate` a second, each sent when due (the thread's
    /// timer slack lowered, as the load generator's pacer does) and its latency from when it was
    /// due, in ms: the floor of an open loop on this pipe.
    pub fn paced_echo_calls(&mut self, n: usize, rate: f64) -> Vec<f64> {
        // SAFETY: PR_SET_TIMERSLACK changes only this thread's timer slack.
        unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1_u64, 0_u64, 0_u64, 0_u64) };
        let start = std::time::Instant::now();
        let mut ms = Vec::with_capacity(n);
        for i in 1..=n as u64 {
            let due = start + std::time::Duration::from_secs_f64((i - 1) as f64 / rate);
            if let Some(wait) = due.checked_duration_since(std::time::Instant::now()) {
                std::thread::sleep(wait);
            }
            self.send(&format!(
                r#"{{"jsonrpc":"2.0","id":{i},"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"x"}}}}}}"#
            ));
            self.read_until_id(i);
            ms.push(due.elapsed().as_secs_f64() * 1000.0);
        }
        ms
    }

    /// Reads and parses lines until the reply with `id`; returns how many lines were read.
    pub fn read_until_id(&mut self, id: u64) -> u64 {
        let mut lines = 0;
        loop {
            self.line.clear();
            let n = self.stdout.read_until(b'\n', &mut self.line).unwrap();
            assert!(n > 0, "the fixture closed stdout");
            lines += 1;
            let v: Value = serde_json::from_slice(&self.line).expect("JSON");
            if v.get("id").and_then(Value::as_u64) == Some(id) && v.get("method").is_none() {
                return lines;
            }
        }
    }
}

impl Drop for Direct {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The same loop as [`Direct::echo_calls`] written with tokio's pipes in one task on the
/// runtime Sonde runs on: the floor any async client pays (a wake-up through epoll per reply),
/// with no log, no second task and no map. It tells Sonde's own share of the request overhead
/// from the runtime's.
pub async fn tokio_echo_calls(n: usize) -> Vec<f64> {
    let argv = crate::fixture_argv(&[]);
    let mut child = tokio::process::Command::new(&argv[0])
        .args(&argv[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("start the fixture");
    let mut pipes = TokioPipes {
        stdin: child.stdin.take().unwrap(),
        stdout: tokio::io::BufReader::with_capacity(64 * 1024, child.stdout.take().unwrap()),
        line: Vec::new(),
    };
    pipes.send(r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"direct","version":"0"}}}"#).await;
    pipes.read_until_id(0).await;
    pipes.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).await;
    let mut ms = Vec::with_capacity(n);
    for i in 1..=n as u64 {
        let started = std::time::Instant::now();
        pipes
            .send(&format!(
                r#"{{"jsonrpc":"2.0","id":{i},"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"x"}}}}}}"#
            ))
            .await;
        pipes.read_until_id(i).await;
        ms.push(started.elapsed().as_secs_f64() * 1000.0);
    }
    ms
}

struct TokioPipes {
    stdin: tokio::process::ChildStdin,
    stdout: tokio::io::BufReader<tokio::process::ChildStdout>,
    line: Vec<u8>,
}

impl TokioPipes {
    async fn send(&mut self, line: &str) {
        use tokio::io::AsyncWriteExt;
        let mut framed = Vec::with_capacity(line.len() + 1);
        framed.extend_from_slice(line.as_bytes());
        framed.push(b'\n');
        self.stdin.write_all(&framed).await.unwrap();
    }

    async fn read_until_id(&mut self, id: u64) {
        use tokio::io::AsyncBufReadExt;
        loop {
            self.line.clear();
            let n = self.stdout.read_until(b'\n', &mut self.line).await.unwrap();
            assert!(n > 0, "the fixture closed stdout");
            let v: Value = serde_json::from_slice(&self.line).expect("JSON");
            if v.get("id").and_then(Value::as_u64) == Some(id) && v.get("method").is_none() {
                return;
            }
        }
    }
}
