//! Spans sent live, as a session is recorded, to the collector the environment names.
//!
//! Owns: following a session's log for requests that have settled (and operations that have
//! gone quiet), sending them batched as OTLP/HTTP (protobuf, or JSON when asked) from a task of
//! their own, and what a collector that is down, refuses or is slow costs: spans, counted and
//! said once (`tell`), never a frame or a moment of a call — nothing here is on the wire's
//! path: the log is read as any reader reads it, and a full queue drops a batch rather than
//! wait. Refuses: what a span holds (`spans`), and where the words go (the front end's `tell`:
//! a command's stderr, a proxy's session log, the window's status).

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use prost::Message;
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

use super::spans::{Batch, Server, Session};
use super::target::OtlpTarget;
use crate::log::{secret_words, IndexRow, Kind, Rpc, WireLog};
use crate::timeline::{OperationKind, Timeline};

/// How often the log is looked at for requests that have settled.
const TICK: Duration = Duration::from_millis(250);
/// Batches waiting to be sent; a batch more is dropped, not waited for.
const QUEUE: usize = 16;
/// How long an operation stays open after its last request settled before its span is sent
/// (a task polled every few seconds is not over between two polls); the rest go when the
/// session ends.
const OPERATION_QUIET_MS: f64 = 30_000.0;

/// What was sent, and what was not.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct LiveReport {
    /// The endpoint, as shown (credentials redacted).
    pub endpoint: String,
    pub sent: u64,
    /// Spans the collector never took: refused, unreachable, too slow, or still queued at the end.
    pub dropped: u64,
    /// The first reason spans were dropped.
    pub trouble: Option<String>,
}

impl LiveReport {
    /// `12 spans sent to http://…/v1/traces` (`; 3 dropped: …` when some were).
    pub fn words(&self) -> String {
        let spans = |n: u64| if n == 1 { "1 span".to_owned() } else { format!("{n} spans") };
        let mut words = format!("{} sent to {}", spans(self.sent), self.endpoint);
        if self.dropped > 0 {
            words += &format!("; {} dropped", spans(self.dropped));
            if let Some(why) = &self.trouble {
                words += &format!(" ({why})");
            }
        }
        words
    }
}

/// The counts the sender keeps, shared with whoever finishes it.
#[derive(Default)]
struct Counts {
    sent: AtomicU64,
    dropped: AtomicU64,
    /// Spans handed to the queue and not yet sent or dropped.
    queued: AtomicU64,
    trouble: std::sync::Mutex<Option<String>>,
}

impl Counts {
    fn report(&self, endpoint: String) -> LiveReport {
        let counts = self;
        LiveReport {
            endpoint,
            sent: counts.sent.load(Ordering::Relaxed),
            dropped: counts.dropped.load(Ordering::Relaxed),
            trouble: counts.trouble.lock().unwrap_or_else(|e| e.into_inner()).clone(),
        }
    }
    /// Counts `n` spans dropped for `why`; the first reason is told, once.
    fn drop_spans(&self, n: u64, why: String, tell: &(dyn Fn(String) + Send + Sync), endpoint: &str) {
        self.dropped.fetch_add(n, Ordering::Relaxed);
        let mut trouble = self.trouble.lock().unwrap_or_else(|e| e.into_inner());
        if trouble.is_none() {
            tell(format!(
                "spans are not reaching {endpoint}: {why}; the session goes on, and spans that do not \
                 arrive are counted"
            ));
            *trouble = Some(why);
        }
    }
}

/// Spans of one session on their way to a collector, until [`LiveSpans::finish`].
pub struct LiveSpans {
    stop: oneshot::Sender<()>,
    builder: JoinHandle<()>,
    sender: JoinHandle<()>,
    counts: Arc<Counts>,
    endpoint: String,
}

impl LiveSpans {
    /// Starts following `log`, sending its requests' spans to `target`, every one of `secrets`
    /// redacted; `tell` hears, once, that spans are being dropped and why. Must be called
    /// inside a Tokio runtime.
    pub fn start(
        log: Arc<WireLog>,
        target: OtlpTarget,
        secrets: Vec<String>,
        tell: impl Fn(String) + Send + Sync + 'static,
    ) -> LiveSpans {
        let tell: Arc<dyn Fn(String) + Send + Sync> = Arc::new(tell);
        let counts = Arc::new(Counts::default());
        let endpoint = target.shown();
        let (batches, queue) = mpsc::channel::<(Vec<u8>, u64)>(QUEUE);
        let sender = tokio::spawn(send(queue, target.clone(), counts.clone(), tell.clone()));
        let (stop, stopped) = oneshot::channel();
        let follower = Follower {
            log,
            secrets,
            target,
            counts: counts.clone(),
            tell,
            timeline: Timeline::new(),
            servers: HashMap::new(),
            rows: 0,
            events: HashMap::new(),
            seen: 0,
            waiting: Vec::new(),
            operations: HashSet::new(),
        };
        let builder = tokio::spawn(follower.run(batches, stopped));
        LiveSpans { stop, builder, sender, counts, endpoint }
    }

    /// Sends what is left (every request, settled or not, and every operation) and waits up to
    /// `within` for the collector to take it; what it has not taken by then is dropped.
    pub async fn finish(self, within: Duration) -> LiveReport {
        let LiveSpans { stop, builder, sender, counts, endpoint } = self;
        let _ = stop.send(());
        let done = async {
            let _ = builder.await;
            let _ = sender.await;
        };
        let timed_out = tokio::time::timeout(within, done).await.is_err();
        if timed_out {
            let left = counts.queued.swap(0, Ordering::Relaxed);
            counts.dropped.fetch_add(left, Ordering::Relaxed);
            let mut trouble = counts.trouble.lock().unwrap_or_else(|e| e.into_inner());
            trouble.get_or_insert_with(|| format!("the collector had not taken them within {within:?}"));
        }
        counts.report(endpoint)
    }

    /// What has been sent so far, and dropped.
    pub fn status(&self) -> LiveReport {
        self.counts.report(self.endpoint.clone())
    }
}

/// Reads the log as it grows and makes the spans of what settled.
struct Follower {
    log: Arc<WireLog>,
    secrets: Vec<String>,
    target: OtlpTarget,
    counts: Arc<Counts>,
    tell: Arc<dyn Fn(String) + Send + Sync>,
    timeline: Timeline,
    servers: HashMap<u64, Server>,
    /// The index rows read so far, and the notifications that answer each request not sent yet.
    rows: u64,
    events: HashMap<u64, Vec<IndexRow>>,
    /// Spans (by index in the timeline) looked at, and those still waiting among them.
    seen: usize,
    waiting: Vec<usize>,
    /// Operations sent, by head.
    operations: HashSet<u64>,
}

impl Follower {
    async fn run(mut self, batches: mpsc::Sender<(Vec<u8>, u64)>, mut stopped: oneshot::Receiver<()>) {
        loop {
            let last = tokio::select! {
                _ = tokio::time::sleep(TICK) => false,
                _ = &mut stopped => true,
            };
            // The log's file is read here, off the runtime's threads that carry frames.
            let (follower, batch) = tokio::task::spawn_blocking(move || {
                let batch = self.collect(last);
                (self, batch)
            })
            .await
            .expect("the span builder does not panic");
            self = follower;
            if let Some(batch) = batch {
                self.queue(&batches, batch);
            }
            if last {
                return;
            }
        }
    }

    fn queue(&self, batches: &mpsc::Sender<(Vec<u8>, u64)>, (body, n): (Vec<u8>, u64)) {
        self.counts.queued.fetch_add(n, Ordering::Relaxed);
        if batches.try_send((body, n)).is_err() {
            self.counts.queued.fetch_sub(n, Ordering::Relaxed);
            let why = format!("the collector is slower than the session ({QUEUE} batches were waiting)");
            self.counts.drop_spans(n, why, &*self.tell, &self.target.shown());
        }
    }

    /// The body of the spans that are ready (at the `last` look: all of them), and how many.
    fn collect(&mut self, last: bool) -> Option<(Vec<u8>, u64)> {
        self.timeline.update(&self.log);
        self.rows = self.log.visit_rows(self.rows, |_, row| {
            if row.kind == Kind::Message && row.rpc == Some(Rpc::Notification) {
                if let Some(request) = row.answers {
                    self.events.entry(request).or_default().push(row.clone());
                }
            }
            true
        });
        let secrets = secret_words(&self.secrets);
        let session = Session::of(&self.log, secrets, self.timeline.last_ms).ok().flatten()?;
        // A span that cannot be read is left out, as the timeline leaves out what it cannot read.
        let _ = session.learn_servers(&self.timeline, &mut self.servers);
        let spans = self.timeline.spans();
        self.waiting.extend(self.seen..spans.len());
        self.seen = spans.len();
        let mut ready = Vec::new();
        self.waiting.retain(|&i| {
            let settled = spans[i].end.is_some();
            if settled || last {
                ready.push(i);
            }
            !(settled || last)
        });
        let mut batch = Batch::default();
        for i in ready {
            let s = &spans[i];
            let events = self.events.remove(&s.seq).unwrap_or_default();
            if let Ok(span) = session.request_span(s, &self.timeline, &events, &self.servers) {
                batch.add(s.conn, span);
            }
        }
        for op in self.timeline.operations() {
            let settled = op.parts.iter().all(|p| self.timeline.span(*p).is_some_and(|s| s.end.is_some()));
            // Quiet by the clock, not by the next entry: a session that goes idle after a task
            // still sends it.
            let quiet = self.log.elapsed_ms() - op.end >= OPERATION_QUIET_MS;
            if op.kind == OperationKind::Authorization
                || self.operations.contains(&op.head)
                || !(last || (settled && quiet))
            {
                continue;
            }
            if let Ok(span) = session.operation_span(op, &self.timeline) {
                batch.add(op.conn, span);
                self.operations.insert(op.head);
            }
        }
        // A notification that comes after its request's span was sent belongs to no span: only
        // those of requests still waiting are kept.
        let timeline = &self.timeline;
        self.events.retain(|request, _| timeline.span(*request).is_some_and(|s| s.end.is_none()));
        let n = batch.len();
        if n == 0 {
            return None;
        }
        let request = batch.request(&self.timeline.connections(), &self.servers);
        let body = if self.target.json {
            serde_json::to_vec(&request).expect("spans serialize")
        } else {
            request.encode_to_vec()
        };
        Some((body, n))
    }
}

/// Sends each batch as it comes, one at a time.
async fn send(
    mut queue: mpsc::Receiver<(Vec<u8>, u64)>,
    target: OtlpTarget,
    counts: Arc<Counts>,
    tell: Arc<dyn Fn(String) + Send + Sync>,
) {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let endpoint = target.shown();
    let client = match reqwest::Client::builder()
        .timeout(target.timeout)
        .user_agent(concat!("sonde/", env!("CARGO_PKG_VERSION")))
        .build()
    {
        Ok(client) => client,
        Err(e) => {
            // Nothing can be sent: every batch is counted as it comes.
            while let Some((_, n)) = queue.recv().await {
                counts.queued.fetch_sub(n, Ordering::Relaxed);
                counts.drop_spans(n, format!("no HTTP client: {e}"), &*tell, &endpoint);
            }
            return;
        }
    };
    let content_type = if target.json { "application/json" } else { "application/x-protobuf" };
    while let Some((body, n)) = queue.recv().await {
        let mut request =
            client.post(target.endpoint.clone()).header("Content-Type", content_type).body(body);
        for (name, value) in &target.headers {
            request = request.header(name, value);
        }
        let outcome = match request.send().await {
            Ok(response) if response.status().is_success() => Ok(()),
            Ok(response) => Err(format!("the collector answered {}", response.status())),
            Err(e) if e.is_timeout() => Err(format!("no answer within {:?}", target.timeout)),
            Err(e) if e.is_connect() => Err("nothing answers there".to_owned()),
            Err(e) => Err(crate::transport::sse::error_chain(&e)),
        };
        counts.queued.fetch_sub(n, Ordering::Relaxed);
        match outcome {
            Ok(()) => {
                counts.sent.fetch_add(n, Ordering::Relaxed);
            }
            Err(why) => counts.drop_spans(n, why, &*tell, &endpoint),
        }
    }
}
