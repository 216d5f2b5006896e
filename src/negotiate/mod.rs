//! Opening a connection, over stdio or HTTP, in the right era (design.md §5), with the
//! evidence in words.
//!
//! Owns: the order of the opening exchange for each `EraPolicy`: a cached verdict first, then
//! `server/discover` as a marked probe raced against a short deadline, one retry after a usable
//! `-32022`, then `initialize` on the same connection, or over stdio on a fresh process if the
//! probe killed it. A probe's deadline ends the wait for it, never the probe: over stdio its
//! late answer still races the `initialize` sent after it (`race`), and over HTTP, where
//! silence is an outage rather than a legacy server, Sonde keeps waiting for it until the
//! connect deadline. An `initialize` refused without a JSON-RPC body (400, 404, 405) is tried
//! again over the 2024-11-05 HTTP+SSE transport.
//! A dual-era server pins its era on the first message, so `initialize` is never sent after a
//! probe that succeeded in time, and one sent before a late success is expected to be refused.
//! Refuses: the classification itself (pure, in `era`) and remembering verdicts (the hub).

mod race;

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use crate::connection::deadline::within;
use crate::connection::{Connection, RequestError};
use crate::era::{classify_probe, EraPolicy, ProbeOutcome, Verdict, MODERN_REVISION};
use crate::log::{Direction, Entry, Kind};
use crate::process::duration_words;
use crate::saved::era_cache::CachedEra;
use crate::session::{self, ServerDescription};

/// What the opening needs besides the connection.
pub struct Plan<'a> {
    pub policy: EraPolicy,
    pub probe_timeout: Duration,
    /// The timeout of a `server/discover` that is not a probe (era pinned to modern), and how
    /// long a probe is heard at all.
    pub request_timeout: Duration,
    pub cached: Option<&'a CachedEra>,
    /// Over HTTP, silence is an outage rather than a legacy server, and a refused
    /// `initialize` leads to the 2024-11-05 HTTP+SSE transport.
    pub http: bool,
}

/// What decided the era: an answer on the wire, or a deadline (the probe got no reply and
/// `initialize` answered). Only an answer is worth remembering for the next connect: a slow
/// start says nothing about the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReachedBy {
    Answer,
    Deadline,
}

/// A connection whose era is decided, or the reason there is none (with the connection that
/// is left, to be shut down).
pub type Opened = Result<(Connection, ServerDescription, ReachedBy), (Connection, String)>;

/// A reply still to come, as a future that can be raced and handed on.
type Reply = Pin<Box<dyn Future<Output = Result<serde_json::Value, RequestError>> + Send>>;

/// Runs the opening exchange. `respawn` starts the server again when the probe killed it
/// (stdio), or opens the 2024-11-05 HTTP+SSE transport when `initialize` was refused (HTTP).
pub async fn open(
    conn: Connection,
    plan: Plan<'_>,
    respawn: impl FnOnce() -> std::io::Result<Connection>,
) -> Opened {
    match plan.policy {
        EraPolicy::Legacy => {
            legacy(conn, format!("{FORCED}legacy; initialize"), &plan, Some(respawn), ReachedBy::Answer).await
        }
        EraPolicy::Modern => {
            let outcome = session::discover(&conn, MODERN_REVISION, plan.request_timeout, false).await;
            match settle(&conn, outcome, &plan, false).await {
                (Verdict::Modern { version }, result) => {
                    let server = described(result, &version, &format!("{FORCED}modern; server/discover"));
                    Ok((conn, server, ReachedBy::Answer))
                }
                (Verdict::Fail { reason }, _) => Err((conn, reason)),
                (Verdict::Legacy { evidence } | Verdict::RespawnLegacy { evidence }, _) => {
                    Err((conn, format!("the server does not speak {MODERN_REVISION} ({evidence}), and --era modern allows no fallback")))
                }
                (Verdict::RetryAt { .. }, _) => unreachable!("settle resolves retries"),
            }
        }
        EraPolicy::Auto => auto(conn, plan, respawn).await,
    }
}

async fn auto(
    conn: Connection,
    plan: Plan<'_>,
    respawn: impl FnOnce() -> std::io::Result<Connection>,
) -> Opened {
    if let Some(cached) = plan.cached {
        if cached.era == crate::era::Era::Legacy {
            let how = "cached verdict; initialize".into();
            return legacy(conn, how, &plan, Some(respawn), ReachedBy::Answer).await;
        }
        // A cached modern verdict is checked by the discover that modern needs anyway; if it
        // no longer holds, that same answer is the probe's evidence.
        let outcome = session::discover(&conn, &cached.version, plan.request_timeout, false).await;
        if let (ProbeOutcome::Result(result), Verdict::Modern { version }) =
            (&outcome, classify_probe(&outcome, false))
        {
            let server = described(Some(result.clone()), &version, "cached verdict; server/discover");
            return Ok((conn, server, ReachedBy::Answer));
        }
        let how = How { prefix: "the cached modern verdict no longer holds: ", late: String::new() };
        return decide(conn, outcome, &plan, respawn, how).await;
    }
    // The probe is heard for as long as any request; the deadline only ends the wait for it.
    let mut reply: Reply = match session::start_discover(&conn, MODERN_REVISION, plan.request_timeout, true) {
        Ok(call) => Box::pin(call.outcome()),
        Err(e) => Box::pin(std::future::ready(Err(e))),
    };
    // A person authorizing in a browser is not the server's silence: the deadline stops meanwhile.
    let in_time = within(plan.probe_timeout, conn.authorizing(), &mut reply).await;
    match in_time {
        Ok(reply) => {
            let outcome = session::probe_outcome(&conn, reply).await;
            decide(conn, outcome, &plan, respawn, How::default()).await
        }
        Err(_) if plan.http => {
            note(
                &conn,
                format!(
                    "server/discover got no reply within the {} probe deadline; over HTTP silence is not \
                     legacy evidence, so Sonde keeps waiting for it until the connect deadline",
                    duration_words(plan.probe_timeout)
                ),
            );
            let outcome = session::probe_outcome(&conn, reply.await).await;
            decide(conn, outcome, &plan, respawn, How::late(&plan)).await
        }
        Err(_) => race::after_deadline(conn, &plan, respawn, reply).await,
    }
}

/// How the evidence is worded: what came before the probe, and whether its answer came after
/// the deadline.
#[derive(Default)]
struct How {
    prefix: &'static str,
    /// `" after the 3 s probe deadline"`, or empty.
    late: String,
}

impl How {
    fn late(plan: &Plan<'_>) -> How {
        How { prefix: "", late: format!(" after the {} probe deadline", duration_words(plan.probe_timeout)) }
    }

    /// The words for a modern verdict from a `DiscoverResult`.
    fn discovered(&self) -> String {
        let answered = if self.late.is_empty() { String::new() } else { format!(" answered{}", self.late) };
        format!("{}server/discover{answered}", self.prefix)
    }

    /// The words for evidence that leads to `initialize`.
    fn evidence(&self, evidence: &str) -> String {
        format!("{}{evidence}{}", self.prefix, self.late)
    }
}

async fn decide(
    conn: Connection,
    outcome: ProbeOutcome,
    plan: &Plan<'_>,
    respawn: impl FnOnce() -> std::io::Result<Connection>,
    how: How,
) -> Opened {
    let by = if outcome == ProbeOutcome::Timeout { ReachedBy::Deadline } else { ReachedBy::Answer };
    match settle(&conn, outcome, plan, true).await {
        (Verdict::Modern { version }, result) => {
            Ok((conn, described(result, &version, &how.discovered()), ReachedBy::Answer))
        }
        (Verdict::Legacy { evidence }, _) => {
            legacy(conn, format!("{}; initialize", how.evidence(&evidence)), plan, Some(respawn), by).await
        }
        (Verdict::RespawnLegacy { evidence }, _) => {
            respawn_legacy(conn, &how.evidence(&evidence), plan, respawn).await
        }
        (Verdict::Fail { reason }, _) => Err((conn, reason)),
        (Verdict::RetryAt { .. }, _) => unreachable!("settle resolves retries"),
    }
}

/// How `decided_by` begins when the client forced the era (`--era legacy`, `--era modern`):
/// a snapshot records that choice, not the server's.
pub const FORCED: &str = "--era ";

/// How `decided_by` ends when the server died on the era probe and was started again.
pub const RESPAWNED: &str = "; respawned; initialize";

/// The server died on the probe: start it again and send `initialize` to the fresh process.
async fn respawn_legacy(
    conn: Connection,
    evidence: &str,
    plan: &Plan<'_>,
    respawn: impl FnOnce() -> std::io::Result<Connection>,
) -> Opened {
    let _ = conn.shutdown().await;
    match respawn() {
        Ok(fresh) => {
            let how = format!("{evidence}{RESPAWNED}");
            legacy(fresh, how, plan, None::<fn() -> std::io::Result<Connection>>, ReachedBy::Answer).await
        }
        Err(e) => Err((conn, format!("{evidence}, and starting it again failed: {e}"))),
    }
}

/// Records a note about the opening in the log.
fn note(conn: &Connection, detail: String) {
    conn.log().append(Entry::new(conn.id(), Kind::Note, Direction::Meta).with_detail(detail));
}

/// Classifies an outcome, running the one retry a usable `-32022` allows. Returns the final
/// verdict and, for a modern one, the `DiscoverResult`.
async fn settle(
    conn: &Connection,
    outcome: ProbeOutcome,
    plan: &Plan<'_>,
    probe: bool,
) -> (Verdict, Option<serde_json::Value>) {
    let mut outcome = outcome;
    let mut verdict = classify_http(&outcome, plan, plan.request_timeout)
        .unwrap_or_else(|| classify_probe(&outcome, false));
    if let Verdict::RetryAt { version } = &verdict {
        let timeout = if probe { plan.probe_timeout } else { plan.request_timeout };
        outcome = session::discover(conn, version, timeout, probe).await;
        verdict = classify_http(&outcome, plan, timeout).unwrap_or_else(|| classify_probe(&outcome, true));
        if let Verdict::RetryAt { .. } = verdict {
            unreachable!("classify_probe never retries twice");
        }
    }
    let result = match outcome {
        ProbeOutcome::Result(r) => Some(r),
        _ => None,
    };
    (verdict, result)
}

/// Over HTTP a `server/discover` that got no reply within `waited` is an outage, not a legacy
/// server (protocol.md §8 item 3).
fn classify_http(outcome: &ProbeOutcome, plan: &Plan<'_>, waited: Duration) -> Option<Verdict> {
    (plan.http && *outcome == ProbeOutcome::Timeout).then(|| Verdict::Fail {
        reason: format!(
            "server/discover got no reply within {}; over HTTP silence is an outage, not a legacy server",
            duration_words(waited)
        ),
    })
}

fn described(result: Option<serde_json::Value>, version: &str, how: &str) -> ServerDescription {
    session::describe_discovered(&result.unwrap_or_default(), version, how.to_owned())
}

/// `initialize`. Over HTTP, a refusal without a JSON-RPC body (400, 404, 405) means the URL
/// may speak the 2024-11-05 HTTP+SSE transport instead: `fallback` opens that and tries again.
async fn legacy(
    conn: Connection,
    decided_by: String,
    plan: &Plan<'_>,
    fallback: Option<impl FnOnce() -> std::io::Result<Connection>>,
    by: ReachedBy,
) -> Opened {
    let error = match session::initialize(&conn, decided_by.clone()).await {
        Ok(server) => return Ok((conn, server, by)),
        Err(e) => e,
    };
    let refused = matches!(error, RequestError::Http { status: 400 | 404 | 405, .. });
    let Some(fallback) = fallback.filter(|_| plan.http && refused) else {
        return Err((conn, error.to_string()));
    };
    let _ = conn.shutdown().await;
    let how = format!("{decided_by}; {error}; 2024-11-05 HTTP+SSE");
    match fallback() {
        Ok(old) => match session::initialize(&old, how).await {
            Ok(server) => Ok((old, server, by)),
            Err(e) => Err((old, format!("{error}; and as 2024-11-05 HTTP+SSE: {e}"))),
        },
        Err(e) => Err((conn, format!("{error}; and opening it as 2024-11-05 HTTP+SSE failed: {e}"))),
    }
}
