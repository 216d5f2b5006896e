//! `sonde replay`: a recorded session's requests sent again to a server, one line a request
//! (`same`, or `differs` with each differing path and both values), or `{"replayed":[…]}` with
//! `--json`. Exit 5 when an answer differs (contracts).
//!
//! Owns: reading the session given, the words and the exit code. Refuses: replaying and
//! comparing (`sonde_core::replay`).

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{json, Value};
use sonde_core::replay::{recording, replay, Recording, Replayed, IGNORED_BY_DEFAULT};
use sonde_core::{Session, WireLog};

use crate::exit::{FOUND, OK};

/// What the session `given` (a path, a name in the sessions folder, or `last`) replays; a usage
/// error says what was expected.
pub fn read(given: &str) -> Result<Recording, String> {
    let path = if Path::new(given).is_file() {
        Path::new(given).to_owned()
    } else {
        crate::log_cmd::find(given).map_err(|e| format!("{e}; a session to replay was expected"))?
    };
    let log = WireLog::open(&path).map_err(|e| format!("cannot read {given}: {e}"))?;
    if log.is_empty() || !log.is_a_session() {
        return Err(format!("{given} is not a session file; a session to replay was expected"));
    }
    let recording = recording(&log).map_err(|why| format!("{given} is {why}"))?;
    if recording.requests.is_empty() {
        return Err(format!("{given} has no answered request to replay"));
    }
    Ok(recording)
}

/// Replays `recording` on `session`, saying each request as it is known; 5 when one differs.
pub async fn run(session: &Session, recording: &Recording, ignore: &[String], json: bool) -> i32 {
    let (requests, unanswered) = (&recording.requests, recording.not_sent);
    let each = |r: &Replayed| {
        if !json {
            line(r);
        }
    };
    let replayed = replay(session, requests, ignore, each).await;
    let differ = replayed.iter().filter(|r| !r.differences.is_empty()).count();
    if json {
        outln!("{}", json!({ "replayed": replayed }));
    }
    // Each ignored path once, with how often it was.
    let mut ignored: BTreeMap<&str, usize> = BTreeMap::new();
    for path in replayed.iter().flat_map(|r| &r.ignored) {
        *ignored.entry(path.as_str()).or_default() += 1;
    }
    for (path, times) in &ignored {
        let default = IGNORED_BY_DEFAULT.iter().any(|p| sonde_core::interface::values::names(p, path));
        let why = match (default, !path.contains("_meta")) {
            (true, true) => "the era's envelope",
            (true, false) => "the server's _meta",
            (false, _) => "--ignore",
        };
        noteln!("sonde replay: ignored {path} ({}, {why})", times_words(*times));
    }
    let carried = replayed.iter().map(|r| r.carried.len()).sum::<usize>();
    if carried > 0 {
        noteln!(
            "sonde replay: {carried} {} the server gave and the client sent back (cursors, ids) differed, as they do; the new server's were sent on",
            if carried == 1 { "value" } else { "values" }
        );
    }
    if unanswered > 0 {
        noteln!(
            "sonde replay: {} of the session (a listen, or one never answered) {} not sent: there is no answer to compare with",
            requests_words(unanswered),
            if unanswered == 1 { "was" } else { "were" }
        );
    }
    noteln!(
        "sonde replay: {}, {} same, {differ} {}",
        requests_words(replayed.len()),
        replayed.len() - differ,
        if differ == 1 { "differs" } else { "differ" }
    );
    if differ > 0 {
        FOUND
    } else {
        OK
    }
}

fn line(r: &Replayed) {
    let what = match &r.name {
        Some(name) => format!("{} {name}", r.method),
        None => r.method.clone(),
    };
    if r.differences.is_empty() {
        outln!("same     {what} (seq {})", r.seq);
        return;
    }
    outln!("differs  {what} (seq {})", r.seq);
    for d in &r.differences {
        outln!("         {}: {} → {}", d.path, shown(d.old.as_ref()), shown(d.new.as_ref()));
    }
}

/// A value in one line: its JSON, or "nothing" where a side lacks the place.
fn shown(value: Option<&Value>) -> String {
    value.map_or("nothing".to_owned(), |v| {
        let text = v.to_string();
        if text.chars().count() > 200 {
            format!("{}…", text.chars().take(200).collect::<String>())
        } else {
            text
        }
    })
}

fn requests_words(n: usize) -> String {
    if n == 1 {
        "1 request".to_owned()
    } else {
        format!("{n} requests")
    }
}

fn times_words(n: usize) -> String {
    if n == 1 {
        "once".to_owned()
    } else {
        format!("{n} times")
    }
}
