//! Opening a connection, over stdio or HTTP, in the right era (design.md §5), with the
//! evidence in words.
//!
//! Owns: the order of the opening exchange for each `EraPolicy`: a cached verdict first, then
//! `server/discover` as a marked probe with a short timeout, one retry after a usable
//! `-32022`, then `initialize` on the same connection, or over stdio on a fresh process if the
//! probe killed it. Over HTTP, a probe that got no reply is an outage rather than a legacy
//! server, and an `initialize` refused without a JSON-RPC body (400, 404, 405) is tried again
//! over the 2024-11-05 HTTP+SSE transport.
//! A dual-era server pins its era on the first message, so `initialize` is never sent after a
//! probe that succeeded.
//! Refuses: the classification itself (pure, in `era`) and remembering verdicts (the hub).

use std::time::Duration;

use crate::connection::{Connection, RequestError};
use crate::era::{classify_probe, EraPolicy, ProbeOutcome, Verdict, MODERN};
use crate::era_cache::CachedEra;
use crate::mcp::{self, ServerDescription};

/// What the opening needs besides the connection.
pub struct Plan<'a> {
    pub policy: EraPolicy,
    pub probe_timeout: Duration,
    /// The timeout of a `server/discover` that is not a probe (era pinned to modern).
    pub request_timeout: Duration,
    pub cached: Option<&'a CachedEra>,
    /// Over HTTP, silence is an outage rather than a legacy server, and a refused
    /// `initialize` leads to the 2024-11-05 HTTP+SSE transport.
    pub http: bool,
}

/// A connection whose era is decided, or the reason there is none (with the connection that
/// is left, to be shut down).
pub type Opened = Result<(Connection, ServerDescription), (Connection, String)>;

/// Runs the opening exchange. `respawn` starts the server again when the probe killed it
/// (stdio), or opens the 2024-11-05 HTTP+SSE transport when `initialize` was refused (HTTP).
pub async fn open(
    conn: Connection,
    plan: Plan<'_>,
    respawn: impl FnOnce() -> std::io::Result<Connection>,
) -> Opened {
    match plan.policy {
        EraPolicy::Legacy => legacy(conn, "--era legacy; initialize".into(), &plan, Some(respawn)).await,
        EraPolicy::Modern => {
            let outcome = mcp::discover(&conn, MODERN, plan.request_timeout, false).await;
            match settle(&conn, outcome, &plan, false).await {
                (Verdict::Modern { version }, result) => Ok((conn, described(result, &version, "--era modern; server/discover"))),
                (Verdict::Fail { reason }, _) => Err((conn, reason)),
                (Verdict::Legacy { evidence } | Verdict::RespawnLegacy { evidence }, _) => {
                    Err((conn, format!("the server does not speak {MODERN} ({evidence}), and --era modern allows no fallback")))
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
            return legacy(conn, "cached verdict; initialize".into(), &plan, Some(respawn)).await;
        }
        // A cached modern verdict is checked by the discover that modern needs anyway; if it
        // no longer holds, that same answer is the probe's evidence.
        let outcome = mcp::discover(&conn, &cached.version, plan.request_timeout, false).await;
        if let (ProbeOutcome::Result(result), Verdict::Modern { version }) =
            (&outcome, classify_probe(&outcome, false))
        {
            return Ok((conn, described(Some(result.clone()), &version, "cached verdict; server/discover")));
        }
        return decide(conn, outcome, &plan, respawn, "the cached modern verdict no longer holds: ").await;
    }
    let outcome = mcp::discover(&conn, MODERN, plan.probe_timeout, true).await;
    decide(conn, outcome, &plan, respawn, "").await
}

async fn decide(
    conn: Connection,
    outcome: ProbeOutcome,
    plan: &Plan<'_>,
    respawn: impl FnOnce() -> std::io::Result<Connection>,
    prefix: &str,
) -> Opened {
    match settle(&conn, outcome, plan, true).await {
        (Verdict::Modern { version }, result) => {
            let how = if prefix.is_empty() {
                "server/discover".to_owned()
            } else {
                format!("{prefix}server/discover")
            };
            Ok((conn, described(result, &version, &how)))
        }
        (Verdict::Legacy { evidence }, _) => {
            legacy(conn, format!("{prefix}{evidence}; initialize"), plan, Some(respawn)).await
        }
        (Verdict::RespawnLegacy { evidence }, _) => {
            let _ = conn.shutdown().await;
            match respawn() {
                Ok(fresh) => {
                    let how = format!("{prefix}{evidence}; respawned; initialize");
                    legacy(fresh, how, plan, None::<fn() -> std::io::Result<Connection>>).await
                }
                Err(e) => Err((conn, format!("{evidence}, and starting it again failed: {e}"))),
            }
        }
        (Verdict::Fail { reason }, _) => Err((conn, reason)),
        (Verdict::RetryAt { .. }, _) => unreachable!("settle resolves retries"),
    }
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
    let mut verdict = classify_http(&outcome, plan).unwrap_or_else(|| classify_probe(&outcome, false));
    if let Verdict::RetryAt { version } = &verdict {
        let timeout = if probe { plan.probe_timeout } else { plan.request_timeout };
        outcome = mcp::discover(conn, version, timeout, probe).await;
        verdict = classify_http(&outcome, plan).unwrap_or_else(|| classify_probe(&outcome, true));
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

/// Over HTTP a probe that got no reply in time is an outage, not a legacy server
/// (protocol.md §8 item 3).
fn classify_http(outcome: &ProbeOutcome, plan: &Plan<'_>) -> Option<Verdict> {
    (plan.http && *outcome == ProbeOutcome::Timeout).then(|| Verdict::Fail {
        reason: format!(
            "server/discover got no reply within {}; over HTTP silence is an outage, not a legacy server",
            crate::process::duration_words(plan.probe_timeout)
        ),
    })
}

fn described(result: Option<serde_json::Value>, version: &str, how: &str) -> ServerDescription {
    mcp::describe_discovered(&result.unwrap_or_default(), version, how.to_owned())
}

/// `initialize`. Over HTTP, a refusal without a JSON-RPC body (400, 404, 405) means the URL
/// may speak the 2024-11-05 HTTP+SSE transport instead: `fallback` opens that and tries again.
async fn legacy(
    conn: Connection,
    decided_by: String,
    plan: &Plan<'_>,
    fallback: Option<impl FnOnce() -> std::io::Result<Connection>>,
) -> Opened {
    let error = match mcp::initialize(&conn, decided_by.clone()).await {
        Ok(server) => return Ok((conn, server)),
        Err(e) => e,
    };
    let refused = matches!(error, RequestError::Http { status: 400 | 404 | 405, .. });
    let Some(fallback) = fallback.filter(|_| plan.http && refused) else {
        return Err((conn, error.to_string()));
    };
    let _ = conn.shutdown().await;
    let how = format!("{decided_by}; {error}; 2024-11-05 HTTP+SSE");
    match fallback() {
        Ok(old) => match mcp::initialize(&old, how).await {
            Ok(server) => Ok((old, server)),
            Err(e) => Err((old, format!("{error}; and as 2024-11-05 HTTP+SSE: {e}"))),
        },
        Err(e) => Err((conn, format!("{error}; and opening it as 2024-11-05 HTTP+SSE failed: {e}"))),
    }
}
