//! What the session log shows after the probes: the findings the rules recorded on the frames,
//! what stdout carried, how the server ended when asked to, and an HTTP session's end; and the
//! seqs that point at each piece of evidence.
//!
//! Owns: turning recorded entries into checks. Refuses: sending anything (`probes` does) and
//! judging frames anew (the findings were made as they were recorded).

use serde_json::Value;

use super::{is_stdio, Check, CheckStatus};
use crate::diagnose::Severity;
use crate::hub::ServerConfig;
use crate::lifecycle::{ExitInfo, Lifecycle, Signal};
use crate::log::{Direction, Entry, Filter, Kind, WireLog};
use crate::wire::RequestId;

/// Every entry of connection `conn`, in order.
pub fn entries(log: &WireLog, conn: u64) -> Vec<Entry> {
    log.entries(&Filter { conn: Some(conn), ..Filter::default() }).unwrap_or_default()
}

/// Whether `e` is a reply (a result or an error) that came in.
fn is_reply(e: &Entry) -> bool {
    e.dir == Direction::In && e.summary.as_ref().is_some_and(|s| s.kind == "result" || s.kind == "error")
}

/// The reply that settled the era: the last `initialize` or `server/discover` result.
pub fn handshake_reply(entries: &[Entry]) -> Option<u64> {
    entries
        .iter()
        .rev()
        .find(|e| {
            is_reply(e)
                && e.summary
                    .as_ref()
                    .and_then(|s| s.method.as_deref())
                    .is_some_and(|m| m == "initialize" || m == "server/discover")
        })
        .map(|e| e.seq)
}

/// The seq of the reply to request `id` on `conn`, or of the request when no reply came.
pub fn reply_seq(log: &WireLog, conn: u64, id: &RequestId) -> Option<u64> {
    let entries =
        log.entries(&Filter { conn: Some(conn), id: Some(id.to_string()), ..Filter::default() }).ok()?;
    entries.iter().find(|e| is_reply(e)).or_else(|| entries.first()).map(|e| e.seq)
}

/// Whether the server's `server/discover` result lists 2025-11-25 among its versions.
pub fn claims_legacy(entries: &[Entry]) -> bool {
    entries
        .iter()
        .filter(|e| {
            is_reply(e) && e.summary.as_ref().and_then(|s| s.method.as_deref()) == Some("server/discover")
        })
        .filter_map(|e| serde_json::from_str::<Value>(e.text.as_deref()?).ok())
        .any(|reply| {
            reply["result"]["supportedVersions"].as_array().is_some_and(|v| {
                v.iter().any(|v| v.as_str().is_some_and(|v| crate::era::LEGACY_ACCEPTED.contains(&v)))
            })
        })
}

/// The checks the log answers: the frames' findings by rule, stdout, the shutdown, the HTTP
/// session's end.
pub fn read(entries: &[Entry], conn: u64, exit: Option<&ExitInfo>, config: &ServerConfig) -> Vec<Check> {
    let mut checks = findings(entries, conn);
    if is_stdio(config) {
        checks.push(stdout(entries, conn));
        checks.push(shutdown(entries, conn, exit));
    } else if let Some(check) = http_session(entries, conn) {
        checks.push(check);
    }
    checks
}

/// The checks the log of an opening that failed answers: its frames' findings and stdout (the
/// server was stopped by the failure, not asked to end).
pub fn read_opening(entries: &[Entry], conn: u64, config: &ServerConfig) -> Vec<Check> {
    let mut checks = findings(entries, conn);
    if is_stdio(config) {
        checks.push(stdout(entries, conn));
    }
    checks
}

/// One check per rule the frames broke (stdout lines have a check of their own), or one pass.
fn findings(entries: &[Entry], conn: u64) -> Vec<Check> {
    let groups: Vec<_> =
        crate::diagnose::group_findings(entries.iter().map(|e| (e.seq, e.findings.as_slice())))
            .into_iter()
            .filter(|g| g.rule != "stdout-not-protocol")
            .collect();
    if groups.is_empty() {
        let frames = read_from_server(entries);
        // A server that sent nothing broke no rule, but nothing was checked either.
        let (status, detail) = match frames {
            0 => (CheckStatus::Skip, "no frame from the server was read".to_owned()),
            n => (
                CheckStatus::Pass,
                format!("no frame broke a protocol rule ({n} frames from the server read)"),
            ),
        };
        return vec![Check::new("frames", status, detail, None, conn)];
    }
    groups
        .into_iter()
        .map(|g| {
            let status = if g.severity == Severity::Error { CheckStatus::Fail } else { CheckStatus::Warn };
            Check::new(&g.rule, status, every_frame(entries, &g.rule), g.seqs.first().copied(), conn)
        })
        .collect()
}

/// What every frame that broke `rule` broke, each different detail once with the seqs of its
/// frames: "7 frames" alone would hide that every `tools/call` lacks its content.
fn every_frame(entries: &[Entry], rule: &str) -> String {
    const SHOWN: usize = 5;
    let mut details: Vec<(&str, Vec<u64>)> = Vec::new();
    for e in entries {
        for f in e.findings.iter().filter(|f| f.rule == rule) {
            match details.iter_mut().find(|(d, _)| *d == f.detail) {
                Some((_, seqs)) => seqs.push(e.seq),
                None => details.push((&f.detail, vec![e.seq])),
            }
        }
    }
    let at = |seqs: &[u64]| {
        let shown: Vec<String> = seqs.iter().take(SHOWN).map(u64::to_string).collect();
        let more =
            if seqs.len() > SHOWN { format!(" and {} more", seqs.len() - SHOWN) } else { String::new() };
        format!("seq {}{more}", shown.join(", "))
    };
    match details.as_slice() {
        [(detail, seqs)] if seqs.len() == 1 => detail.to_string(),
        [(detail, seqs)] => format!("{detail} ({} frames: {})", seqs.len(), at(seqs)),
        several => {
            let findings: usize = several.iter().map(|(_, s)| s.len()).sum();
            let mut seqs: Vec<u64> = several.iter().flat_map(|(_, s)| s.iter().copied()).collect();
            seqs.sort_unstable();
            seqs.dedup();
            let each: Vec<String> = several.iter().map(|(d, s)| format!("{d} ({})", at(s))).collect();
            match (findings, seqs.len()) {
                (n, frames) if n == frames => format!("{frames} frames: {}", each.join("; ")),
                (n, 1) => format!("{n} findings on one frame: {}", each.join("; ")),
                (n, frames) => format!("{n} findings on {frames} frames: {}", each.join("; ")),
            }
        }
    }
}

/// How many entries the server's side of the wire produced (its stderr aside).
fn read_from_server(entries: &[Entry]) -> usize {
    entries.iter().filter(|e| e.dir == Direction::In && e.kind != Kind::Stderr).count()
}

fn stdout(entries: &[Entry], conn: u64) -> Check {
    let stray: Vec<&Entry> = entries.iter().filter(|e| e.kind == Kind::NonProtocol).collect();
    match stray.first() {
        None if read_from_server(entries) == 0 => {
            Check::new("stdout", CheckStatus::Skip, "the server wrote nothing on stdout", None, conn)
        }
        None => Check::new("stdout", CheckStatus::Pass, "stdout carried only protocol lines", None, conn),
        Some(first) => {
            let line = first.text.as_deref().unwrap_or("").chars().take(60).collect::<String>();
            // A MUST of the stdio transport, so a fail: a client fails or drops such lines.
            let lines = if stray.len() == 1 { "1 line".to_owned() } else { format!("{} lines", stray.len()) };
            let detail = format!(
                "{lines} on stdout not protocol, the first {line:?}: the stdio transport says a server MUST NOT \
                 write anything else there (clients fail or drop it); log to stderr"
            );
            Check::new("stdout", CheckStatus::Fail, detail, Some(first.seq), conn)
        }
    }
}

/// How the server ended when Sonde closed its stdin: within the grace (pass), only on SIGTERM
/// (warn: every client waits, then signals), only on SIGKILL (fail).
fn shutdown(entries: &[Entry], conn: u64, exit: Option<&ExitInfo>) -> Check {
    // The last process of the connection is the one asked to end: one the era probe killed was
    // started again on the same connection, and its end is not this one's.
    let last = entries.iter().rposition(|e| matches!(e.lifecycle, Some(Lifecycle::Spawned { .. })));
    let entries = &entries[last.unwrap_or(0)..];
    let exited = entries.iter().find(|e| matches!(e.lifecycle, Some(Lifecycle::Exited(_))));
    let asked = entries.iter().position(|e| matches!(e.lifecycle, Some(Lifecycle::StdinClosed { .. })));
    let signals: Vec<Signal> = entries
        .iter()
        .skip(asked.unwrap_or(entries.len()))
        .take_while(|e| !matches!(e.lifecycle, Some(Lifecycle::Exited(_))))
        .filter_map(|e| match &e.lifecycle {
            Some(Lifecycle::Signalled { signal, .. }) => Some(*signal),
            _ => None,
        })
        .collect();
    let seq = exited.map(|e| e.seq);
    // What the server asked once stdin was closed: a question that cannot be answered, which a
    // server may wait on (a request timer keeps a Node process alive) instead of ending.
    let unanswerable: Vec<&str> = entries
        .iter()
        .skip(asked.unwrap_or(entries.len()))
        .take_while(|e| !matches!(e.lifecycle, Some(Lifecycle::Exited(_))))
        .filter(|e| e.dir == Direction::In)
        .filter_map(|e| e.summary.as_ref().filter(|s| s.kind == "request")?.method.as_deref())
        .collect();
    let waited = match unanswerable.as_slice() {
        [] => String::new(),
        methods => format!(
            " (it asked {} after stdin was closed, which could not be answered: a question of its own must not keep it running)",
            methods.join(", ")
        ),
    };
    let how = exit.map_or("its end is unknown".to_owned(), ExitInfo::describe);
    let (status, detail) = if asked.is_none() {
        (CheckStatus::Fail, format!("the server had ended before it was asked to: {how}"))
    } else if signals.contains(&Signal::Kill) {
        (
            CheckStatus::Fail,
            format!("{how}: the server ignored stdin closing and SIGTERM; exit when stdin closes{waited}"),
        )
    } else if signals.contains(&Signal::Term) {
        (
            CheckStatus::Warn,
            format!("{how}: clients close stdin, wait, then signal; exit when stdin closes{waited}"),
        )
    } else {
        (CheckStatus::Pass, format!("{how}, within the grace"))
    };
    Check::new("shutdown", status, detail, seq, conn)
}

/// 2025-11-25 over HTTP: a session the server issued ends with DELETE answered 2xx, or 404/405.
fn http_session(entries: &[Entry], conn: u64) -> Option<Check> {
    let issued = entries.iter().any(|e| {
        e.http
            .as_ref()
            .is_some_and(|h| h.headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("mcp-session-id")))
    });
    if !issued {
        return None;
    }
    let delete = entries.iter().find_map(|e| {
        let h = e.http.as_ref()?;
        (h.method.as_deref() == Some("DELETE")).then_some(h.exchange)
    });
    let answer = delete.and_then(|exchange| {
        entries.iter().find(|e| e.http.as_ref().is_some_and(|h| h.exchange == exchange && h.status.is_some()))
    });
    let (status, detail, seq) = match answer {
        None => {
            (CheckStatus::Pass, "the server issued a session; it was not ended by DELETE".to_owned(), None)
        }
        Some(e) => {
            let code = e.http.as_ref().and_then(|h| h.status).unwrap_or(0);
            if (200..300).contains(&code) || code == 404 || code == 405 {
                (
                    CheckStatus::Pass,
                    format!("the session the server issued was ended by DELETE, answered {code}"),
                    Some(e.seq),
                )
            } else {
                (CheckStatus::Warn, format!("DELETE of the session was answered {code}; answer 2xx, or 405 if sessions are not ended by clients"), Some(e.seq))
            }
        }
    };
    Some(Check::new("http-session", status, detail, seq, conn))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnose::Finding;

    fn frame(seq: u64, detail: &str) -> Entry {
        let mut e = Entry::new(1, Kind::Message, Direction::In);
        e.seq = seq;
        e.findings = vec![Finding {
            rule: "result-shape".into(),
            severity: Severity::Error,
            detail: detail.into(),
            spec: String::new(),
        }];
        e
    }

    #[test]
    fn a_rule_broken_by_several_frames_names_each_different_detail_with_its_frames() {
        let one = [frame(4, "no content")];
        assert_eq!(every_frame(&one, "result-shape"), "no content");
        let same: Vec<Entry> = (1..=7).map(|n| frame(n * 3, "tools/call: no content")).collect();
        assert_eq!(
            every_frame(&same, "result-shape"),
            "tools/call: no content (7 frames: seq 3, 6, 9, 12, 15 and 2 more)"
        );
        let mixed = [frame(3, "no content"), frame(5, "isError is \"yes\""), frame(8, "no content")];
        assert_eq!(
            every_frame(&mixed, "result-shape"),
            "3 frames: no content (seq 3, 8); isError is \"yes\" (seq 5)"
        );
    }
}
