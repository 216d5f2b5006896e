//! What a load run counts as calls end: latencies in an HDR histogram (1 µs to an hour, three
//! significant digits), errors by kind, and each second's own figures.
//!
//! Owns: the kinds an ending is counted as (`isError`, `timeout`, `server died`, `rpc -32603`,
//! `http 503`, …), the histogram, and each second's record. Refuses: pacing and sending (`run`).

use std::collections::BTreeMap;
use std::time::Duration;

use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::connection::RequestError;

/// How one call ended, when it did not end well.
pub fn error_kind(outcome: &Result<Value, RequestError>) -> Option<String> {
    match outcome {
        Ok(result) if result.get("isError").and_then(Value::as_bool) == Some(true) => Some("isError".into()),
        Ok(_) => None,
        Err(RequestError::Rpc { error, .. }) => Some(format!("rpc {}", error.code)),
        Err(RequestError::Timeout { .. }) => Some("timeout".into()),
        Err(RequestError::Gone(_)) => Some(SERVER_DIED.into()),
        Err(RequestError::Http { status, .. }) => Some(format!("http {status}")),
        Err(RequestError::Unreachable { .. }) => Some("unreachable".into()),
        Err(RequestError::Cancelled { .. }) => Some("cancelled".into()),
        Err(RequestError::TooLarge { .. } | RequestError::Protocol(_)) => Some("protocol".into()),
    }
}

/// The kind of a call its server's death ended.
pub const SERVER_DIED: &str = "server died";

/// Latencies and errors, for the whole run or one second of it.
#[derive(Debug, Clone)]
pub struct Tally {
    /// Microseconds.
    pub latency: Histogram<u64>,
    pub answered: u64,
    pub errors: u64,
    pub errors_by_kind: BTreeMap<String, u64>,
}

impl Default for Tally {
    fn default() -> Tally {
        Tally {
            latency: Histogram::new_with_bounds(1, 3_600_000_000, 3).expect("the bounds are valid"),
            answered: 0,
            errors: 0,
            errors_by_kind: BTreeMap::new(),
        }
    }
}

impl Tally {
    /// A call that ended after `latency`, as `error` says (`None`: a result that is no error).
    pub fn add(&mut self, latency: Duration, error: Option<&str>) {
        let micros = u64::try_from(latency.as_micros()).unwrap_or(u64::MAX).max(1);
        self.latency.saturating_record(micros);
        self.answered += 1;
        if let Some(kind) = error {
            self.errors += 1;
            *self.errors_by_kind.entry(kind.to_owned()).or_default() += 1;
        }
    }

    /// The latency at `percentile` (0–100), in milliseconds; 100 is the maximum.
    pub fn ms_at(&self, percentile: f64) -> f64 {
        if self.latency.is_empty() {
            return 0.0;
        }
        let micros = if percentile >= 100.0 {
            self.latency.max()
        } else {
            self.latency.value_at_quantile(percentile / 100.0)
        };
        micros as f64 / 1000.0
    }

    /// The five figures the reports give.
    pub fn percentiles(&self) -> Percentiles {
        Percentiles {
            p50: self.ms_at(50.0),
            p90: self.ms_at(90.0),
            p99: self.ms_at(99.0),
            p999: self.ms_at(99.9),
            max: self.ms_at(100.0),
        }
    }

    /// The histogram in buckets that double from 0.1 ms, each with its count, up to the one
    /// that holds the maximum.
    pub fn buckets(&self) -> Vec<LatencyBucket> {
        if self.latency.is_empty() {
            return Vec::new();
        }
        self.latency
            .iter_log(100, 2.0)
            .map(|v| LatencyBucket {
                le_ms: (v.value_iterated_to() + 1) as f64 / 1000.0,
                count: v.count_since_last_iteration(),
            })
            .collect()
    }
}

/// Latency percentiles in milliseconds.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
pub struct Percentiles {
    pub p50: f64,
    pub p90: f64,
    pub p99: f64,
    pub p999: f64,
    pub max: f64,
}

/// One bar of the histogram: the calls at or below `le_ms` and above the bar before.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LatencyBucket {
    pub le_ms: f64,
    #[cfg_attr(feature = "bindings", specta(type = f64))]
    pub count: u64,
}

/// One second of a run: what was sent and what ended in it, and what the server cost.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LoadSecond {
    /// Which second of the counted run this is, from 1 (the warm-up is not counted).
    pub t: u32,
    /// Calls sent in it.
    pub sent: u32,
    /// Calls that ended in it, errors included.
    pub answered: u32,
    pub errors: u32,
    pub errors_by_kind: BTreeMap<String, u32>,
    /// Latency of the calls that ended in it, in milliseconds.
    pub p50_ms: f64,
    pub p99_ms: f64,
    /// Calls sent in it: the rate reached that second.
    pub rate: f64,
    /// The server's CPU use in it, in percent of one CPU, where Sonde owns its process.
    pub cpu_percent: Option<f64>,
    /// The server's resident memory at its end, in bytes.
    #[cfg_attr(feature = "bindings", specta(type = Option<f64>))]
    pub rss_bytes: Option<u64>,
}

impl LoadSecond {
    /// A second's record from what ended in it.
    pub fn of(t: u32, sent: u32, tally: &Tally) -> LoadSecond {
        LoadSecond {
            t,
            sent,
            answered: u32::try_from(tally.answered).unwrap_or(u32::MAX),
            errors: u32::try_from(tally.errors).unwrap_or(u32::MAX),
            errors_by_kind: tally
                .errors_by_kind
                .iter()
                .map(|(k, n)| (k.clone(), u32::try_from(*n).unwrap_or(u32::MAX)))
                .collect(),
            p50_ms: tally.ms_at(50.0),
            p99_ms: tally.ms_at(99.0),
            rate: f64::from(sent),
            cpu_percent: None,
            rss_bytes: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::ErrorObject;

    #[test]
    fn each_ending_counts_as_its_kind() {
        let rpc = RequestError::Rpc {
            method: "tools/call".into(),
            error: Box::new(ErrorObject { code: -32603, message: "boom".into(), data: None }),
        };
        assert_eq!(error_kind(&Err(rpc)).as_deref(), Some("rpc -32603"));
        assert_eq!(error_kind(&Ok(serde_json::json!({"isError": true}))).as_deref(), Some("isError"));
        assert_eq!(error_kind(&Ok(serde_json::json!({"content": []}))), None);
        assert_eq!(error_kind(&Err(RequestError::Gone("exited".into()))).as_deref(), Some(SERVER_DIED));
    }

    #[test]
    fn percentiles_come_from_the_histogram() {
        let mut tally = Tally::default();
        for ms in 1..=100 {
            tally.add(Duration::from_millis(ms), (ms % 10 == 0).then_some("isError"));
        }
        let p = tally.percentiles();
        assert!((p.p50 - 50.0).abs() < 0.1, "{p:?}");
        assert!((p.p99 - 99.0).abs() < 0.1, "{p:?}");
        assert!((p.max - 100.0).abs() < 0.1, "{p:?}");
        assert_eq!((tally.answered, tally.errors), (100, 10));
        assert_eq!(tally.buckets().iter().map(|b| b.count).sum::<u64>(), 100);
    }
}
