//! Load testing (`sonde load`, the window's Load test…): calls sent at a rate or by a number of
//! callers, every one measured and recorded in the wire log like any other, and the run reported
//! as a budget can be held to.
//!
//! Owns: the plan and its words (`plan`), `{{seq}}`/`{{rand}}` (`template`), pacing and sending
//! (`run`: an open loop paced by a thread of its own, each latency from when the call was due,
//! so a stall shows in the tail; or a closed loop), counting (`tally`), the server's CPU and
//! memory each second where Sonde owns its process, the report ([`LoadReport`]) and the budget
//! (`slo`), and the runs a person saved to compare (`runs`). Refuses: connecting (the hub's),
//! the report as CI reads it (`report::load_cases`), the exit code and the progress line's
//! looks (the CLI's), drawing (the window's).

mod plan;
mod run;
mod runs;
mod settings;
mod slo;
mod tally;
mod template;
mod usage;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

pub use plan::{
    parse_duration, parse_mix, parse_rate, parse_steps, LoadOp, LoadPlan, LoadWordsError, Pacing, Step,
    Weighted,
};
pub use run::{run_load, LoadControl, LoadError};
pub use runs::{LoadRuns, SavedRun};
pub use settings::LoadSettings;
pub use slo::{ms_words, Slo};
pub use tally::{LatencyBucket, LoadSecond, Percentiles};

/// A load run, whole: what `--json` prints and the window draws.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LoadReport {
    /// Counted calls sent (the warm-up's are not).
    #[cfg_attr(feature = "bindings", specta(type = f64))]
    pub count: u64,
    /// Counted calls that ended badly, of every kind.
    #[cfg_attr(feature = "bindings", specta(type = f64))]
    pub errors: u64,
    #[cfg_attr(feature = "bindings", specta(type = BTreeMap<String, f64>))]
    pub errors_by_kind: BTreeMap<String, u64>,
    /// Calls a second reached: counted calls over the time they took to send.
    pub rate: f64,
    pub latency_ms: Percentiles,
    /// Each second of the counted run.
    pub seconds: Vec<LoadSecond>,
    pub histogram: Vec<LatencyBucket>,
    /// `open` (paced; latency from when each call was due) or `closed` (callers; from when it was sent).
    #[serde(rename = "loop")]
    pub pacing: String,
    /// The rate asked for at each step (open loop), or the callers (closed loop), in words.
    pub asked: String,
    /// How long the counted run lasted, in seconds.
    pub duration_s: f64,
    pub warmup_s: f64,
    /// Counted calls never answered: the run was stopped and they outlasted the wait for them.
    #[cfg_attr(feature = "bindings", specta(type = f64))]
    pub unfinished: u64,
    /// Stopped before its end (Ctrl-C, the window's Stop).
    pub interrupted: bool,
    /// When the server died, in seconds into the counted run; sending stopped then.
    pub server_died_s: Option<f64>,
    /// Which calls the session log holds: every one, or a sample and why.
    pub recorded: String,
    /// The budget's terms, each with its verdict, when one was given.
    pub slo: Vec<SloVerdict>,
}

/// One budget term's verdict, as the report carries it.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SloVerdict {
    pub term: String,
    pub measured: String,
    pub held: bool,
}

impl LoadReport {
    /// The latency at a percentile (0–100, 100 the maximum), in milliseconds, from the figures
    /// the report keeps.
    pub fn latency_at(&self, percentile: f64) -> f64 {
        let p = &self.latency_ms;
        match percentile {
            x if x >= 100.0 => p.max,
            x if x >= 99.9 => p.p999,
            x if x >= 99.0 => p.p99,
            x if x >= 90.0 => p.p90,
            _ => p.p50,
        }
    }

    /// Errors over counted calls (0 with no calls).
    pub fn error_share(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            self.errors as f64 / self.count as f64
        }
    }

    /// The report with `slo`'s verdicts; whether every term held.
    pub fn judged(mut self, slo: &Slo) -> (LoadReport, bool) {
        self.slo = slo
            .judge(&self)
            .into_iter()
            .map(|h| SloVerdict { term: h.term, measured: h.measured, held: h.held })
            .collect();
        let held = self.slo.iter().all(|v| v.held);
        (self, held)
    }
}

/// `3 timeout, 1 isError`.
pub fn kinds_words(kinds: &BTreeMap<String, u64>) -> String {
    kinds.iter().map(|(k, n)| format!("{n} {k}")).collect::<Vec<_>>().join(", ")
}
