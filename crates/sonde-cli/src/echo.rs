//! What the server says as it goes, copied to Sonde's stderr: its stderr lines (`--stderr`,
//! each prefixed `server: `) and its log messages (`notifications/message`, asked for with
//! `--log-level`, each with its level and logger).
//!
//! Owns: following the session log for those entries and their wording. Refuses: stdout, which
//! is for results only.

use std::collections::HashMap;

use serde_json::Value;
use sonde_core::{clean_last_words, Direction, Entry, Followed, Kind, Lifecycle, WireLog};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// What to copy.
#[derive(Debug, Clone, Copy)]
pub struct Echo {
    pub stderr: bool,
    pub messages: bool,
}

/// Copies what `echo` asks for to Sonde's stderr as it is recorded, until `stop` is sent; then
/// prints what was recorded before it and any unfinished last line. Followed from the call on,
/// so call it before connecting.
pub fn start(log: &WireLog, echo: Echo) -> (oneshot::Sender<()>, JoinHandle<()>) {
    let mut live = log.follow();
    let (stop, mut stopped) = oneshot::channel::<()>();
    let task = tokio::spawn(async move {
        let mut partial: HashMap<u64, String> = HashMap::new();
        loop {
            let followed = tokio::select! {
                followed = live.next() => followed,
                _ = &mut stopped => break,
            };
            match followed {
                Some(f) => show(f, echo, &mut partial),
                None => break,
            }
        }
        while let Some(f) = live.try_next() {
            show(f, echo, &mut partial);
        }
        for rest in partial.values().filter(|r| !r.is_empty()) {
            print_lines(rest);
        }
    });
    (stop, task)
}

fn show(followed: Followed, echo: Echo, partial: &mut HashMap<u64, String>) {
    let entry = match followed {
        Followed::Entry(entry, _) if echo.messages && is_log_message(&entry) => {
            if let Some(line) = log_message(&entry) {
                errln!("{line}");
            }
            return;
        }
        Followed::Entry(entry, _) if echo.stderr && entry.kind == Kind::Stderr => entry,
        // A respawn (the era fallback) starts a new process: the old one's unfinished line ends.
        Followed::Entry(entry, _) if matches!(entry.lifecycle, Some(Lifecycle::Spawned { .. })) => {
            if let Some(rest) = partial.remove(&entry.conn).filter(|r| !r.is_empty()) {
                print_lines(&rest);
            }
            return;
        }
        Followed::Entry(_, _) => return,
        Followed::Skipped(n) => {
            errln!("sonde: {n} log entries went by too fast to copy; see sonde log");
            return;
        }
    };
    let bytes = entry.bytes().unwrap_or_default();
    let buffer = partial.entry(entry.conn).or_default();
    buffer.push_str(&String::from_utf8_lossy(&bytes));
    // Whole lines only, so a colour code or a line split across chunks is cleaned whole.
    if let Some(end) = buffer.rfind('\n') {
        let whole: String = buffer.drain(..=end).collect();
        print_lines(&whole);
    }
}

fn print_lines(raw: &str) {
    for line in clean_last_words(raw).trim_end_matches('\n').split('\n') {
        errln!("server: {line}");
    }
}

fn is_log_message(entry: &Entry) -> bool {
    entry.kind == Kind::Message
        && entry.dir == Direction::In
        && entry.summary.as_ref().and_then(|s| s.method.as_deref()) == Some("notifications/message")
}

/// `server log [level] logger: data`, the data as text when it is a string, else as JSON.
fn log_message(entry: &Entry) -> Option<String> {
    let message: Value = serde_json::from_str(entry.text.as_deref()?).ok()?;
    let params = message.get("params")?;
    let level = params["level"].as_str().unwrap_or("?");
    let logger = params["logger"].as_str().map(|l| format!(" {l}:")).unwrap_or_default();
    let data = match &params["data"] {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    };
    Some(format!("server log [{level}]{logger} {}", clean_last_words(&data).trim_end()))
}
