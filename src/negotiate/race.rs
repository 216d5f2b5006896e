//! After the probe deadline over stdio: `initialize` goes out on the same process, and the
//! first answer on the wire decides the era, not the deadline (issue 16).
//!
//! A server that starts slowly (`npx -y`, `uvx` on a cold cache) reads both requests once it
//! is up, in the order they were sent. A dual-era or modern-only server then answers the probe
//! and refuses `initialize`; a legacy server answers `initialize` (and perhaps the probe with
//! an error first); a server silent on unknown methods answers only `initialize`.
//!
//! Owns: racing the probe's late reply against the reply to `initialize`, reading a `-32022`
//! refusal of `initialize` that names a modern version as evidence, and what the losing reply
//! means, written in the log as a note when it comes (an expected refusal, a reply ignored).
//! Refuses: classification (`era`), the paths that answer in time (`negotiate`), and timing
//! out either request (the connection does, and says so in the log).

use std::sync::Arc;

use super::{note, respawn_legacy, Opened, Plan, ReachedBy, Reply};
use crate::connection::deadline::within;
use crate::connection::{Connection, RequestError};
use crate::era::{classify_probe, ProbeOutcome, Verdict};
use crate::log::{Direction, Entry, Kind, WireLog};
use crate::process::duration_words;
use crate::session;

/// Sends `initialize` after a probe that got no reply in time, and lets whichever reply comes
/// first decide.
pub(super) async fn after_deadline(
    conn: Connection,
    plan: &Plan<'_>,
    respawn: impl FnOnce() -> std::io::Result<Connection>,
    mut probe: Reply,
) -> Opened {
    let deadline = duration_words(plan.probe_timeout);
    note(
        &conn,
        format!(
            "server/discover got no reply within the {deadline} probe deadline; sending initialize on \
             the same process: the first answer decides the era"
        ),
    );
    let mut init: Reply = match session::start_initialize(&conn) {
        Ok(call) => Box::pin(call.outcome()),
        Err(e) => return Err((conn, e.to_string())),
    };
    let late = format!(" after the {deadline} probe deadline");
    // Biased: when both replies are in, the probe's came first on the wire (the connection
    // hands replies on in the order it reads them).
    tokio::select! {
        biased;
        reply = &mut probe => probe_first(conn, plan, respawn, reply, init, &late).await,
        reply = &mut init => initialize_first(conn, plan, respawn, reply, probe, &late).await,
    }
}

/// The probe answered first: a `DiscoverResult` with a shared modern version is the server's
/// choice, and the `initialize` sent meanwhile is expected to be refused. Any other answer
/// leaves the decision to `initialize`.
async fn probe_first(
    conn: Connection,
    plan: &Plan<'_>,
    respawn: impl FnOnce() -> std::io::Result<Connection>,
    reply: Result<serde_json::Value, RequestError>,
    init: Reply,
    late: &str,
) -> Opened {
    let outcome = session::probe_outcome(&conn, reply).await;
    // `initialize` is already on its way, so there is no second probe after a `-32022`.
    match (classify_probe(&outcome, true), outcome) {
        (Verdict::Modern { version }, ProbeOutcome::Result(result)) => {
            expect_refusal(conn.log().clone(), conn.id(), init, version.clone());
            let server =
                session::describe_discovered(&result, &version, format!("server/discover answered{late}"));
            Ok((conn, server, ReachedBy::Answer))
        }
        (Verdict::RespawnLegacy { evidence }, _) => {
            respawn_legacy(conn, &format!("{evidence}{late}"), plan, respawn).await
        }
        (Verdict::Fail { reason }, _) => Err((conn, reason)),
        (Verdict::Legacy { evidence }, _) => {
            let how = format!("{evidence}{late}; initialize");
            match session::initialized(&conn, init.await, how) {
                Ok(server) => Ok((conn, server, ReachedBy::Answer)),
                Err(e) => Err((conn, e.to_string())),
            }
        }
        (verdict, _) => {
            unreachable!("a retried classification is final, and only a result is modern: {verdict:?}")
        }
    }
}

/// `initialize` answered first. A success means 2025-11-25, reached because the probe's
/// deadline passed; the probe's reply, if one comes, is noted and ignored. A `-32022` that
/// names a modern version Sonde speaks means the server chose it from the probe: its answer to
/// the probe is owed, and a fresh `server/discover` at that version stands in if it does not
/// come. A server that died on the two is started again and initialized.
async fn initialize_first(
    conn: Connection,
    plan: &Plan<'_>,
    respawn: impl FnOnce() -> std::io::Result<Connection>,
    reply: Result<serde_json::Value, RequestError>,
    probe: Reply,
    late: &str,
) -> Opened {
    let error = match reply {
        Ok(result) => {
            let Verdict::Legacy { evidence } = classify_probe(&ProbeOutcome::Timeout, false) else {
                unreachable!("a probe without a reply means legacy")
            };
            return match session::initialized(&conn, Ok(result), format!("{evidence}; initialize")) {
                Ok(server) => {
                    ignore_late_probe(conn.log().clone(), conn.id(), probe);
                    Ok((conn, server, ReachedBy::Deadline))
                }
                Err(e) => Err((conn, e.to_string())),
            };
        }
        Err(error) => error,
    };
    if let RequestError::Rpc { error: refusal, .. } = &error {
        if let Verdict::RetryAt { version } = classify_probe(&ProbeOutcome::Error((**refusal).clone()), false)
        {
            let words = format!("initialize answered {} naming {version}", refusal.code);
            return modern_after_refusal(conn, plan, probe, &version, &words, late).await;
        }
    }
    match conn.exit_info().await {
        Some(exit) => {
            let evidence = format!("the server {} on server/discover and initialize", exit.after_subject());
            respawn_legacy(conn, &evidence, plan, respawn).await
        }
        None => Err((conn, error.to_string())),
    }
}

/// `initialize` was refused in favour of the modern `version`: the probe's own answer decides
/// if it comes within another probe deadline, otherwise a fresh `server/discover` does.
async fn modern_after_refusal(
    conn: Connection,
    plan: &Plan<'_>,
    probe: Reply,
    version: &str,
    words: &str,
    late: &str,
) -> Opened {
    let owed = match within(plan.probe_timeout, conn.authorizing(), probe).await {
        Ok(reply) => session::probe_outcome(&conn, reply).await,
        Err(_) => ProbeOutcome::Timeout,
    };
    let (outcome, how) = match &owed {
        ProbeOutcome::Result(_) => (owed, format!("{words}; server/discover answered{late}")),
        _ => {
            let fresh = session::discover(&conn, version, plan.request_timeout, false).await;
            (fresh, format!("{words}; server/discover"))
        }
    };
    match (classify_probe(&outcome, true), outcome) {
        (Verdict::Modern { version }, ProbeOutcome::Result(result)) => {
            Ok((conn, session::describe_discovered(&result, &version, how), ReachedBy::Answer))
        }
        (Verdict::Legacy { evidence } | Verdict::RespawnLegacy { evidence }, _)
        | (Verdict::Fail { reason: evidence }, _) => {
            Err((conn, format!("{words}, but server/discover at {version} did not confirm it ({evidence})")))
        }
        (verdict, _) => {
            unreachable!("a retried classification is final, and only a result is modern: {verdict:?}")
        }
    }
}

/// The `initialize` sent before a late probe answered: its reply is expected to be a refusal,
/// and the log says so when it comes. A timeout or the end of the connection is logged by the
/// connection itself.
fn expect_refusal(log: Arc<WireLog>, conn: u64, init: Reply, version: String) {
    tokio::spawn(async move {
        let words = match init.await {
            Err(RequestError::Rpc { error, .. }) => format!(
                "initialize was refused with {}, as expected: server/discover had already settled {version} \
                 on this process",
                error.code
            ),
            Ok(_) => format!(
                "initialize succeeded after server/discover had settled {version} on this process; \
                 ignored, and notifications/initialized is not sent"
            ),
            Err(_) => return,
        };
        log.append(Entry::new(conn, Kind::Note, Direction::Meta).with_detail(words));
    });
}

/// The probe that `initialize` overtook: its reply, if one comes, is noted and ignored.
fn ignore_late_probe(log: Arc<WireLog>, conn: u64, probe: Reply) {
    tokio::spawn(async move {
        let what = match probe.await {
            Ok(_) => "a result".to_owned(),
            Err(RequestError::Rpc { error, .. }) => format!("error {}", error.code),
            Err(_) => return,
        };
        let words = format!(
            "server/discover answered ({what}) after initialize had: ignored, this process speaks the \
             2025-11-25 handshake"
        );
        log.append(Entry::new(conn, Kind::Note, Direction::Meta).with_detail(words));
    });
}
