//! `sonde replay`: a recorded session's requests sent again to a server, one line a request
//! (`same`; `differs` with each differing path and both values; `gone`; `changed` with each
//! change of a listing and its verdict; `page`; `unsent`), or `{"replayed":[…]}` with
//! `--json`. Exit 5 when a request fails the replay (contracts).
//!
//! Owns: reading the session and the rules given, the words and the exit code. Refuses:
//! replaying and judging (`sonde_core::replay`).

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{json, Value};
use sonde_core::{
    recorded_requests, replay, RecordedRequests, ReplayVerdict, Replayed, Rules, Session, WireLog,
    IGNORED_BY_DEFAULT, REPLAY_RULES_FILE,
};

use crate::exit::{FOUND, OK};

/// What the session `given` (a path, a name in the sessions folder, or `last`) replays; a usage
/// error says what was expected.
pub fn read(given: &str) -> Result<RecordedRequests, String> {
    let path = if Path::new(given).is_file() {
        Path::new(given).to_owned()
    } else {
        crate::log_cmd::find(given).map_err(|e| format!("{e}; a session to replay was expected"))?
    };
    let log = WireLog::open(&path).map_err(|e| format!("cannot read {given}: {e}"))?;
    if log.is_empty() || !log.is_a_session() {
        return Err(format!("{given} is not a session file; a session to replay was expected"));
    }
    let recording = recorded_requests(&log).map_err(|why| format!("{given} is {why}"))?;
    if recording.requests.is_empty() {
        return Err(format!("{given} has no answered request to replay"));
    }
    Ok(recording)
}

/// The rules of the replay: the file given, else `.sonde-replay.yaml` in the working
/// directory when there is one (said), then the flags.
pub fn rules(
    file: Option<&Path>,
    ignore: &[String],
    values: &[String],
    strict: bool,
    skip_gone: bool,
) -> Result<Rules, String> {
    let found = Path::new(REPLAY_RULES_FILE);
    let file = match file {
        Some(file) => Some(file),
        None if found.is_file() => {
            noteln!("sonde replay: rules from {}", REPLAY_RULES_FILE);
            Some(found)
        }
        None => None,
    };
    Rules::new(file, ignore, values, strict, skip_gone).map_err(|e| e.to_string())
}

/// Replays `recording` on `session`, saying each request as it is known; 5 when one fails.
pub async fn run(session: &Session, recording: &RecordedRequests, rules: &Rules, json: bool) -> i32 {
    let each = |r: &Replayed| {
        if !json {
            line(r);
        }
    };
    let done = replay(session, &recording.requests, rules, each).await;
    let replayed = &done.replayed;
    if json {
        outln!("{}", json!({ "replayed": replayed, "failed": done.failed, "unmatched": done.unmatched }));
    }
    // Each ignored path once, with how often it was.
    let mut ignored: BTreeMap<&str, usize> = BTreeMap::new();
    for path in replayed.iter().flat_map(|r| &r.ignored) {
        *ignored.entry(path.as_str()).or_default() += 1;
    }
    for (path, times) in &ignored {
        let default = IGNORED_BY_DEFAULT.iter().any(|p| sonde_core::pattern_covers(p, path));
        let why = match (default, !path.contains("_meta")) {
            (true, true) => "the era's envelope",
            (true, false) => "the server's _meta",
            (false, _) => "a rule",
        };
        noteln!("sonde replay: ignored {path} ({}, {why})", times_words(*times));
    }
    for rule in &done.unmatched {
        noteln!(
            "sonde replay: {rule} matched nothing{}",
            if rules.strict { " (a failure with --strict)" } else { "" }
        );
    }
    let carried = replayed.iter().map(|r| r.carried.len()).sum::<usize>();
    if carried > 0 {
        noteln!(
            "sonde replay: {carried} {} the server gave (cursors, task ids) differed, as they do; the new server's were sent on",
            if carried == 1 { "token" } else { "tokens" }
        );
    }
    if done.pages_followed > 0 {
        noteln!(
            "sonde replay: followed {} more {} of the server's listings than were recorded, to judge each whole",
            done.pages_followed,
            if done.pages_followed == 1 { "page" } else { "pages" }
        );
    }
    if recording.not_sent > 0 {
        noteln!(
            "sonde replay: {} of the session (a listen, or one never answered) {} not sent: there is no answer to compare with",
            requests_words(recording.not_sent),
            if recording.not_sent == 1 { "was" } else { "were" }
        );
    }
    noteln!("sonde replay: {}", tally(replayed, done.failed));
    if done.failed > 0 {
        FOUND
    } else {
        OK
    }
}

/// `7 requests, 6 same, 1 differs`, each verdict that occurred, and how many failed when that
/// is not plain from the verdicts.
fn tally(replayed: &[Replayed], failed: u32) -> String {
    let mut parts = vec![requests_words(replayed.len())];
    for verdict in [
        ReplayVerdict::Same,
        ReplayVerdict::Changed,
        ReplayVerdict::Gone,
        ReplayVerdict::Differs,
        ReplayVerdict::Page,
        ReplayVerdict::Unsent,
    ] {
        let n = replayed.iter().filter(|r| r.verdict == verdict).count();
        if n > 0 || verdict == ReplayVerdict::Same {
            let word = match (verdict, n) {
                (ReplayVerdict::Differs, 1) => "differs".to_owned(),
                (ReplayVerdict::Differs, _) => "differ".to_owned(),
                (ReplayVerdict::Page, 1) => "page judged with its listing".to_owned(),
                (ReplayVerdict::Page, _) => "pages judged with their listing".to_owned(),
                (other, _) => other.name().to_owned(),
            };
            parts.push(format!("{n} {word}"));
        }
    }
    let plain =
        replayed.iter().filter(|r| matches!(r.verdict, ReplayVerdict::Differs | ReplayVerdict::Gone)).count();
    if failed as usize != plain {
        parts.push(format!("{failed} failed"));
    }
    parts.join(", ")
}

fn line(r: &Replayed) {
    let what = match &r.name {
        Some(name) => format!("{} {name}", r.method),
        None => r.method.clone(),
    };
    let verdict = r.verdict.name();
    match &r.why {
        Some(why) => outln!("{verdict:<8} {what}: {why} (seq {})", r.seq),
        None if r.verdict == ReplayVerdict::Changed && r.changes.is_empty() => outln!(
            "{verdict:<8} {what} (seq {}): as said above ({} {})",
            r.seq,
            r.changes_said_before,
            if r.changes_said_before == 1 { "change" } else { "changes" }
        ),
        None => outln!("{verdict:<8} {what} (seq {})", r.seq),
    }
    for c in &r.changes {
        outln!("         {} {}: {}", c.severity.name(), c.path, c.detail);
    }
    if !r.changes.is_empty() && r.changes_said_before > 0 {
        outln!("         and {} said above", r.changes_said_before);
    }
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
