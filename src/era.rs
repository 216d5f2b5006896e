//! The two protocol eras and how Sonde tells which one a server speaks.
//!
//! Owns: `ProtocolVersion` (keeps strings it does not know), `Era`, `EraPolicy`, the `_meta`
//! envelope of 2026-07-28 requests, and the pure classifier of a `server/discover` probe
//! (the table in protocol.md §1.3, one test case per row).
//! Refuses: I/O. `negotiate` sends the probe and acts on the verdict; the hub remembers it.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::wire::ErrorObject;

/// The modern revision Sonde speaks.
pub const MODERN_REVISION: &str = "2026-07-28";
/// The legacy revision Sonde asks for in `initialize`.
pub const LEGACY_REVISION: &str = "2025-11-25";
/// Every legacy revision Sonde accepts back from `initialize`.
pub const LEGACY_ACCEPTED: [&str; 4] = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// A protocol version string, kept as the peer wrote it even when Sonde does not know it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ProtocolVersion(pub String);

impl ProtocolVersion {
    /// The era of a version Sonde knows; `None` for one it does not.
    pub fn era(&self) -> Option<Era> {
        if self.0 == MODERN_REVISION {
            Some(Era::Modern)
        } else if LEGACY_ACCEPTED.contains(&self.0.as_str()) {
            Some(Era::Legacy)
        } else {
            None
        }
    }
}

impl fmt::Display for ProtocolVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Legacy: the `initialize` handshake (2025-11-25 and before). Modern: stateless, `_meta` on
/// every request (2026-07-28).
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Era {
    Legacy,
    Modern,
}

/// What the user asked for.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EraPolicy {
    /// Probe with `server/discover` (or use a cached verdict), fall back to `initialize`.
    #[default]
    Auto,
    /// Send `initialize`; never probe.
    Legacy,
    /// 2026-07-28 only; no fallback.
    Modern,
}

impl FromStr for EraPolicy {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "auto" => Ok(EraPolicy::Auto),
            "legacy" | "2025-11-25" => Ok(EraPolicy::Legacy),
            "modern" | "2026-07-28" => Ok(EraPolicy::Modern),
            _ => Err(format!("{s:?} is not an era policy; use auto, legacy or modern")),
        }
    }
}

impl fmt::Display for EraPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            EraPolicy::Auto => "auto",
            EraPolicy::Legacy => "legacy",
            EraPolicy::Modern => "modern",
        })
    }
}

/// Whether request params carry the 2026-07-28 `_meta` protocol version (what a proxy reads to
/// know which era a client speaks).
pub fn carries_modern_meta(params: &Value) -> bool {
    params.pointer("/_meta/io.modelcontextprotocol~1protocolVersion").and_then(Value::as_str)
        == Some(MODERN_REVISION)
}

/// The `_meta` every 2026-07-28 request carries.
pub fn request_meta(version: &str, capabilities: &Value, client_info: &Value) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": version,
        "io.modelcontextprotocol/clientCapabilities": capabilities,
        "io.modelcontextprotocol/clientInfo": client_info,
    })
}

/// Puts `_meta` into a request's params (creating params when there are none), keeping any
/// `_meta` keys already there (a progress token, say).
pub fn with_meta(params: Option<Value>, meta: &Value) -> Value {
    let mut params = match params {
        Some(Value::Object(o)) => Value::Object(o),
        _ => json!({}),
    };
    let slot = params.as_object_mut().expect("an object").entry("_meta").or_insert_with(|| json!({}));
    if let (Some(slot), Some(meta)) = (slot.as_object_mut(), meta.as_object()) {
        for (k, v) in meta {
            slot.insert(k.clone(), v.clone());
        }
    }
    params
}

/// What came back from a `server/discover` probe.
#[derive(Debug, Clone, PartialEq)]
pub enum ProbeOutcome {
    Result(Value),
    Error(ErrorObject),
    /// No reply within the probe timeout.
    Timeout,
    /// The server process ended during the probe.
    Died(String),
    /// HTTP: a status with no JSON-RPC reply in the body.
    Http {
        status: u16,
        detail: String,
    },
    /// HTTP: no response at all (refused, a timeout, a broken stream).
    Unreachable(String),
}

/// What to do next, and the evidence in words.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// Speak 2026-07-28 at this version.
    Modern { version: String },
    /// Probe once more at this version (the server named it in `-32022`).
    RetryAt { version: String },
    /// Send `initialize` on the same process.
    Legacy { evidence: String },
    /// Start the server again, then send `initialize` (it died on the probe).
    RespawnLegacy { evidence: String },
    /// No era can work; the words say why.
    Fail { reason: String },
}

fn modern_shared(versions: &[String]) -> Option<String> {
    versions.iter().find(|v| v.as_str() == MODERN_REVISION).cloned()
}

fn strings(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).map(str::to_owned).collect())
        .unwrap_or_default()
}

/// Classifies a probe outcome. `retried` is true for the outcome of the one retry allowed
/// after a `-32022`, so a server that keeps refusing can never cause a loop.
pub fn classify_probe(outcome: &ProbeOutcome, retried: bool) -> Verdict {
    match outcome {
        ProbeOutcome::Result(result) => {
            let supported = strings(result.get("supportedVersions"));
            match modern_shared(&supported) {
                Some(version) => Verdict::Modern { version },
                None if supported.is_empty() => {
                    Verdict::Legacy { evidence: "server/discover answered without supportedVersions".into() }
                }
                None => Verdict::Legacy {
                    evidence: format!("server/discover listed only {}", supported.join(", ")),
                },
            }
        }
        ProbeOutcome::Error(e) if e.code == -32022 => {
            let supported = strings(e.data.as_ref().and_then(|d| d.get("supported")));
            let legacy = supported.iter().any(|v| ProtocolVersion(v.clone()).era() == Some(Era::Legacy));
            match modern_shared(&supported) {
                Some(version) if !retried => Verdict::RetryAt { version },
                Some(version) => Verdict::Legacy {
                    evidence: format!("server/discover at {version} answered -32022 again"),
                },
                None if supported.is_empty() => Verdict::Legacy {
                    evidence: "server/discover answered -32022 without a usable supported list".into(),
                },
                None if legacy => Verdict::Legacy {
                    evidence: format!("server/discover answered -32022 listing {}", supported.join(", ")),
                },
                None => Verdict::Fail {
                    reason: format!(
                        "the server speaks only {} and Sonde speaks {MODERN_REVISION} and {LEGACY_REVISION}",
                        supported.join(", ")
                    ),
                },
            }
        }
        // -32020 / -32021 are not era evidence (the TypeScript SDK's reading): fall back.
        ProbeOutcome::Error(e) => {
            Verdict::Legacy { evidence: format!("server/discover answered {}", e.code) }
        }
        ProbeOutcome::Timeout => Verdict::Legacy { evidence: "server/discover got no reply".into() },
        ProbeOutcome::Died(how) => {
            Verdict::RespawnLegacy { evidence: format!("the server {how} on server/discover") }
        }
        // protocol.md §8 item 4: 401, 403 and 5xx are never era evidence; nor is a redirect
        // that was not followed.
        ProbeOutcome::Http { status, detail }
            if matches!(status, 300..=399 | 401 | 403 | 407) || *status >= 500 =>
        {
            let detail = if detail.is_empty() { String::new() } else { format!(": {detail}") };
            Verdict::Fail {
                reason: format!(
                    "server/discover got HTTP {status}{detail}, which says nothing about the era"
                ),
            }
        }
        ProbeOutcome::Http { status, .. } => {
            Verdict::Legacy { evidence: format!("server/discover got HTTP {status} without a JSON-RPC body") }
        }
        ProbeOutcome::Unreachable(why) => Verdict::Fail { reason: why.clone() },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(code: i64, data: Option<Value>) -> ProbeOutcome {
        ProbeOutcome::Error(ErrorObject { code, message: "x".into(), data })
    }

    /// protocol.md §1.3, "How the SDKs classify the probe result", one row each.
    #[test]
    fn every_row_of_the_probe_table() {
        use Verdict::*;
        let modern = || Modern { version: MODERN_REVISION.into() };
        let legacy = |e: &str| Legacy { evidence: e.into() };
        let rows: Vec<(ProbeOutcome, bool, Verdict)> = vec![
            (ProbeOutcome::Result(json!({"supportedVersions": ["2026-07-28"]})), false, modern()),
            (
                ProbeOutcome::Result(json!({"supportedVersions": ["2025-11-25"]})),
                false,
                legacy("server/discover listed only 2025-11-25"),
            ),
            (
                err(-32022, Some(json!({"supported": ["2026-07-28"], "requested": "x"}))),
                false,
                RetryAt { version: MODERN_REVISION.into() },
            ),
            (
                err(-32022, Some(json!({"supported": ["2026-07-28"]}))),
                true,
                legacy("server/discover at 2026-07-28 answered -32022 again"),
            ),
            (
                err(-32022, Some(json!({"supported": ["2027-01-01"]}))),
                false,
                Fail {
                    reason: "the server speaks only 2027-01-01 and Sonde speaks 2026-07-28 and 2025-11-25"
                        .into(),
                },
            ),
            (
                err(-32022, Some(json!({"supported": ["2025-11-25"]}))),
                false,
                legacy("server/discover answered -32022 listing 2025-11-25"),
            ),
            (
                err(-32022, None),
                false,
                legacy("server/discover answered -32022 without a usable supported list"),
            ),
            (
                err(-32022, Some(json!({"supported": []}))),
                false,
                legacy("server/discover answered -32022 without a usable supported list"),
            ),
            (err(-32020, None), false, legacy("server/discover answered -32020")),
            (err(-32021, None), false, legacy("server/discover answered -32021")),
            (err(-32601, None), false, legacy("server/discover answered -32601")),
            (err(-32602, None), false, legacy("server/discover answered -32602")),
            (err(-32000, None), false, legacy("server/discover answered -32000")),
            (err(-32001, None), false, legacy("server/discover answered -32001")),
            (ProbeOutcome::Timeout, false, legacy("server/discover got no reply")),
            (
                ProbeOutcome::Died("exited with code 1".into()),
                false,
                RespawnLegacy { evidence: "the server exited with code 1 on server/discover".into() },
            ),
            (
                ProbeOutcome::Http { status: 404, detail: String::new() },
                false,
                legacy("server/discover got HTTP 404 without a JSON-RPC body"),
            ),
            (
                ProbeOutcome::Http { status: 405, detail: String::new() },
                false,
                legacy("server/discover got HTTP 405 without a JSON-RPC body"),
            ),
            (
                ProbeOutcome::Http { status: 401, detail: "Unauthorized".into() },
                false,
                Fail {
                    reason: "server/discover got HTTP 401: Unauthorized, which says nothing about the era"
                        .into(),
                },
            ),
            (
                ProbeOutcome::Http { status: 503, detail: String::new() },
                false,
                Fail { reason: "server/discover got HTTP 503, which says nothing about the era".into() },
            ),
            (ProbeOutcome::Unreachable("refused".into()), false, Fail { reason: "refused".into() }),
        ];
        for (outcome, retried, want) in rows {
            assert_eq!(classify_probe(&outcome, retried), want, "{outcome:?} retried={retried}");
        }
    }

    #[test]
    fn versions_keep_unknown_strings_and_know_their_era() {
        assert_eq!(ProtocolVersion("2026-07-28".into()).era(), Some(Era::Modern));
        assert_eq!(ProtocolVersion("2024-11-05".into()).era(), Some(Era::Legacy));
        let odd: ProtocolVersion = serde_json::from_str("\"2026-06-30\"").unwrap();
        assert_eq!((odd.era(), odd.to_string()), (None, "2026-06-30".into()));
    }

    #[test]
    fn meta_is_merged_into_params_keeping_what_is_there() {
        let meta = request_meta(MODERN_REVISION, &json!({}), &json!({"name": "sonde", "version": "1"}));
        let params = with_meta(Some(json!({"name": "echo", "_meta": {"progressToken": 7}})), &meta);
        assert_eq!(params["_meta"]["progressToken"], 7);
        assert_eq!(params["_meta"]["io.modelcontextprotocol/protocolVersion"], MODERN_REVISION);
        assert_eq!(with_meta(None, &meta)["_meta"]["io.modelcontextprotocol/clientInfo"]["name"], "sonde");
    }

    #[test]
    fn policies_parse_from_their_names() {
        assert_eq!("auto".parse::<EraPolicy>(), Ok(EraPolicy::Auto));
        assert_eq!("legacy".parse::<EraPolicy>(), Ok(EraPolicy::Legacy));
        assert_eq!("modern".parse::<EraPolicy>(), Ok(EraPolicy::Modern));
        assert!("new".parse::<EraPolicy>().is_err());
    }
}
