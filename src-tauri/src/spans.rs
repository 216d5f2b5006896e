//! The window's spans sent live to an OpenTelemetry collector: the one Settings names, else the
//! one the environment's OTEL variables name, from the moment the window opens until it quits.
//!
//! Owns: starting and stopping the core's `LiveSpans` on the window's session as the setting
//! changes, and what the Settings dialog shows of it (where spans go, how many were sent and
//! dropped, and why). Refuses: the spans and the sending (the core's `otel`), and the commands
//! (`settings_cmd`).

use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;
use sonde_core::{LiveReport, LiveSpans, OtlpTarget, WireLog};

/// How long quitting waits for the collector to take the last spans.
const LAST_SPANS_WITHIN: Duration = Duration::from_secs(2);

/// The spans on their way, and why none are when a setting cannot be used.
#[derive(Clone, Default)]
pub struct Spans(Arc<tokio::sync::Mutex<Sending>>);

#[derive(Default)]
struct Sending {
    live: Option<LiveSpans>,
    problem: Option<String>,
}

/// What Settings shows of the window's spans.
#[derive(Debug, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct SpansView {
    /// The collector Settings names, if it names one.
    pub setting: Option<String>,
    /// Whether the environment names a collector (used when Settings names none).
    pub from_env: bool,
    /// Where spans go and how it has gone so far; `None` when they go nowhere.
    pub status: Option<LiveReport>,
    /// Why no spans are sent although a collector is named.
    pub problem: Option<String>,
}

impl Spans {
    /// Sends the spans of `log` to the collector `setting` names (else the environment's),
    /// after the last ones of the collector before.
    pub async fn restart(&self, log: Arc<WireLog>, setting: Option<&str>, secrets: Vec<String>) {
        let mut sending = self.0.lock().await;
        if let Some(before) = sending.live.take() {
            before.finish(LAST_SPANS_WITHIN).await;
        }
        sending.problem = None;
        match OtlpTarget::from_env_with(setting) {
            Ok(Some(target)) => {
                let shown = target.shown();
                let live = LiveSpans::start(log, target, secrets, move |words| tracing::warn!("{words}"));
                tracing::info!("sending spans to {shown}");
                sending.live = Some(live);
            }
            Ok(None) => {}
            Err(e) => sending.problem = Some(e.to_string()),
        }
    }

    /// Sends the last spans, waiting a moment for the collector.
    pub async fn finish(&self) {
        if let Some(live) = self.0.lock().await.live.take() {
            let report = live.finish(LAST_SPANS_WITHIN).await;
            tracing::info!("{}", report.words());
        }
    }

    pub async fn view(&self, setting: Option<String>) -> SpansView {
        let sending = self.0.lock().await;
        SpansView {
            setting,
            from_env: OtlpTarget::from_env().ok().flatten().is_some(),
            status: sending.live.as_ref().map(LiveSpans::status),
            problem: sending.problem.clone(),
        }
    }
}
