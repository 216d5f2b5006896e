//! What the CLI says when its session log stops taking entries, and when it takes them again:
//! on stderr, at once and once each (`sonde: the session log stopped at entry 12: No space left
//! on device; the connection goes on unrecorded`), and in a command's `--json` document as its
//! `"log"` field, only when it happened.
//!
//! Owns: those words, following the log's recording while a command runs, the session's spans
//! sent live when the OpenTelemetry variables name a collector (said once if they do not
//! arrive, and counted at the end), ending the session (`WireLog::close`, then the sessions
//! folder pruned to its budget again, said when it removed something) when it is over, and
//! the field. Refuses: `sonde proxy`'s stderr, which
//! belongs to the client that started it (the proxy has no `--verbose`): there the gap note in
//! its session log is where it is said.

use std::sync::Arc;

use serde_json::{json, Value};
use sonde_core::{LiveSpans, OtlpTarget, Recording, Session, WireLog};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// The recording followed while a command runs.
pub struct Teller {
    stop: oneshot::Sender<()>,
    task: JoinHandle<Told>,
    live: Option<LiveSpans>,
}

/// How long the end of a command waits for the collector to take the last spans.
const LAST_SPANS_WITHIN: std::time::Duration = std::time::Duration::from_secs(3);

/// The session's spans on their way to the collector the environment names, if it names one;
/// `tell` says (once) what keeps them from it.
pub fn live_spans(log: &Arc<WireLog>, tell: impl Fn(String) + Send + Sync + 'static) -> Option<LiveSpans> {
    let target = match OtlpTarget::from_env() {
        Ok(target) => target?,
        Err(words) => {
            tell(format!("no spans are sent: {words}"));
            return None;
        }
    };
    // Without the secrets nothing could be redacted: no spans rather than spans that leak.
    let secrets = match crate::export_cmd::saved_secrets() {
        Ok(secrets) => secrets,
        Err(e) => {
            tell(format!("no spans are sent: cannot read the saved servers, whose secrets spans hide: {e}"));
            return None;
        }
    };
    Some(LiveSpans::start(log.clone(), target, secrets, tell))
}

/// Sends the last spans, waiting a moment for the collector; what was sent and dropped.
pub async fn last_spans(live: LiveSpans) -> sonde_core::LiveReport {
    live.finish(LAST_SPANS_WITHIN).await
}

/// What has been said so far.
#[derive(Default)]
struct Told {
    /// The stop told, by the entry it began at.
    stop: Option<u64>,
    /// How many gaps were told closed.
    gaps: u64,
}

impl Told {
    fn tell(&mut self, recording: &Recording) {
        if recording.gaps > self.gaps {
            if let Some(gap) = &recording.last_gap {
                // A stop and its end may both have come since the last look.
                if self.stop != Some(gap.first) {
                    stopped(gap.first, &gap.error);
                }
                errln!("sonde: {}", gap.resumed_words());
            }
            self.gaps = recording.gaps;
            self.stop = None;
        }
        if let Some(stop) = &recording.stopped {
            if self.stop != Some(stop.at) {
                stopped(stop.at, &stop.error);
                self.stop = Some(stop.at);
            }
        }
    }
}

fn stopped(at: u64, error: &str) {
    errln!("sonde: {}", sonde_core::stopped_words(at, error));
}

/// Tells on stderr each stop of `log` and each gap closed, as they happen, and sends its spans
/// when the environment names a collector, until [`finish`].
pub fn start(log: &Arc<WireLog>) -> Teller {
    let mut feed = log.follow_recording();
    let (stop, mut stopped) = oneshot::channel::<()>();
    let mut told = Told::default();
    for recording in feed.now() {
        told.tell(&recording);
    }
    let task = tokio::spawn(async move {
        loop {
            // Both cancellation-safe: a feed's next loses nothing when dropped unfinished.
            let items = tokio::select! {
                items = feed.next() => items,
                _ = &mut stopped => break,
            };
            let Some(items) = items else { break };
            for recording in items {
                told.tell(&recording);
            }
        }
        told
    });
    Teller { stop, task, live: live_spans(log, |words| errln!("sonde: {words}")) }
}

/// Ends the session: stops telling, closes the log (its last entries and the end of the
/// session written, or a last try of a stopped file), and tells what was not told yet.
pub async fn finish(log: &WireLog, teller: Teller) {
    let _ = teller.stop.send(());
    let mut told = teller.task.await.unwrap_or_default();
    if let Some(live) = teller.live {
        let report = last_spans(live).await;
        if report.dropped > 0 {
            errln!("sonde: {}", report.words());
        } else {
            noteln!("sonde: {}", report.words());
        }
    }
    told.tell(&log.close());
    // The folder is pruned again now that the session is whole; a session larger than the
    // whole budget is kept, and said once.
    if let Some(words) = log.outgrown() {
        errln!("sonde: {words}");
    }
    match log.prune_again() {
        Some(Ok(pruned)) => pruned.words().into_iter().for_each(|words| noteln!("sonde: {words}")),
        Some(Err(e)) => errln!("sonde: could not prune old sessions: {e}"),
        None => {}
    }
}

/// The `"log"` field of a `--json` document, when the session log has stopped: where it
/// stopped first, why, how many entries it has lost so far, whether it took entries again.
/// The log is written out first, so the field covers the entries of the document's own answer.
pub fn field(log: &WireLog) -> Option<Value> {
    let _ = log.flush();
    let recording = log.recording();
    let first = recording.first_stop?;
    Some(json!({
        "stopped_at": first.at,
        "error": first.error,
        "lost": recording.lost,
        "resumed": recording.stopped.is_none(),
    }))
}

/// Prints a command's one JSON document, with the `"log"` field when the session log has
/// stopped (a document without one is printed as it is: a large result is not copied).
pub fn document(session: &Session, document: &Value) {
    match field(session.conn.log()).filter(|_| document.is_object()) {
        Some(field) => {
            let mut document = document.clone();
            document["log"] = field;
            crate::print::json_line(&document);
        }
        None => crate::print::json_line(document),
    }
}
