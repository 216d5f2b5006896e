//! A load run: calls paced and sent, each ending counted, a record each second, the report.
//!
//! Owns: the open loop's pacer, a thread of its own with a fine timer slack that sends each call
//! when it falls due (behind schedule, at once: the lateness is the server's to answer for, so
//! each latency runs from when the call was due, as wrk2 and HdrHistogram measure); the closed
//! loop's callers; the collector that counts endings as they come and closes each second; the
//! server's CPU and memory sampled on a thread of its own (a `/proc` scan never delays a count);
//! stopping (sending ends, what is in flight is waited for, bounded) and the server's death.
//! Refuses: reading the plan's words (`plan`) and the budget (`slo`).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::future::BoxFuture;
use futures_util::stream::{FuturesUnordered, StreamExt};
use serde_json::{json, Value};
use tokio::sync::{mpsc, Notify};

use super::plan::{LoadOp, LoadPlan, Pacing, Step};
use super::tally::{error_kind, LoadSecond, Tally, SERVER_DIED};
use super::template::{filled, has_placeholders, Fill, Random};
use super::usage::Sampler;
use super::LoadReport;
use crate::connection::{AnsweredAt, Call, Request, RequestError};
use crate::process::GroupUsage;
use crate::session::listing::ListKind;
use crate::session::Session;

/// Stops a run from outside it (Ctrl-C, the window's Stop): sending ends, what is in flight is
/// waited for (at most five seconds; each call also ends at the connection's request timeout),
/// and the report comes back marked interrupted.
#[derive(Debug, Clone, Default)]
pub struct LoadControl {
    stop: Arc<AtomicBool>,
    notify: Arc<Notify>,
}

impl LoadControl {
    pub fn new() -> LoadControl {
        LoadControl::default()
    }

    pub fn stop(&self) {
        self.stop.store(true, Ordering::SeqCst);
        self.notify.notify_waiters();
    }

    pub fn stopped(&self) -> bool {
        self.stop.load(Ordering::SeqCst)
    }
}

/// The longest a stopped run waits for its calls in flight.
const DRAIN_LIMIT: Duration = Duration::from_secs(5);

/// Why a run could not begin.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// A tool of the plan is not among those the server lists.
    #[error("the server does not list {name:?}; it lists {}", if .listed.is_empty() { "no tools".to_owned() } else { .listed.join(", ") })]
    NotListed { name: String, listed: Vec<String> },
    #[error(transparent)]
    Request(#[from] RequestError),
}

/// A call of the mix ready to be filled and sent.
struct Prepared {
    method: &'static str,
    params: Value,
    /// The schema `params` is for, where placeholders become numbers or stay text.
    schema: Option<Value>,
    templated: bool,
}

impl Prepared {
    fn request(&self, fill: Fill, answered_at: AnsweredAt) -> Request {
        let params = if self.templated {
            filled(&self.params, self.schema.as_ref(), fill)
        } else {
            self.params.clone()
        };
        Request { answered_at: Some(answered_at), ..Request::new(self.method, Some(params)) }
    }
}

/// Runs `plan` on `sessions` (a call each in turn), telling `on_second` each second's record as
/// it closes. Tools of the plan must be listed: the first thing done is the listing.
pub async fn run_load(
    sessions: &[Session],
    plan: &LoadPlan,
    control: &LoadControl,
    mut on_second: impl FnMut(&LoadSecond) + Send,
) -> Result<LoadReport, LoadError> {
    let first = sessions.first().expect("a load run has a session");
    let prepared = Arc::new(prepare(first, plan).await?);
    let pid = first.conn.pid().await;
    let usage = pid.map(|pid| Sampler::start(pid as i32));
    let start = Instant::now();
    let counted_start = start + plan.warmup;
    let mut run = Collector::new(counted_start, usage.as_ref());
    let order = Rotation::new(plan.mix.iter().map(|w| w.weight).collect());
    let sends =
        Sends { sessions: sessions.to_vec(), prepared, order, random: Random::new(plan.seed), seq: 0 };
    let ended = match &plan.pacing {
        Pacing::Open { steps, count } => {
            run.open(sends, phases(plan.warmup, steps), *count, control, &mut on_second).await
        }
        Pacing::Closed { concurrency, duration, count } => {
            let until = duration.map(|d| counted_start + d);
            run.closed(sends, *concurrency, until, *count, control, &mut on_second).await
        }
    };
    if let Some(usage) = &usage {
        usage.done.store(true, Ordering::SeqCst);
    }
    let interrupted = control.stopped();
    Ok(run.report(plan, ended, interrupted))
}

/// The tools listed, each plan entry checked against them and made ready.
async fn prepare(session: &Session, plan: &LoadPlan) -> Result<Vec<Prepared>, LoadError> {
    let needs_tools = plan.mix.iter().any(|w| matches!(w.op, LoadOp::Tool { .. }));
    let mut schemas: HashMap<String, Option<Value>> = HashMap::new();
    if needs_tools {
        for tool in session.list_all(ListKind::Tools).await?.items {
            if let Some(name) = tool.get("name").and_then(Value::as_str) {
                schemas.insert(name.to_owned(), tool.get("inputSchema").cloned());
            }
        }
    }
    plan.mix
        .iter()
        .map(|w| {
            Ok(match &w.op {
                LoadOp::Tool { name, arguments } => {
                    let Some(schema) = schemas.get(name) else {
                        let mut listed: Vec<String> = schemas.keys().cloned().collect();
                        listed.sort();
                        return Err(LoadError::NotListed { name: name.clone(), listed });
                    };
                    let mut params = json!({ "name": name });
                    if let Some(args) = arguments {
                        params["arguments"] = args.clone();
                    }
                    let schema = schema.clone().map(|s| json!({ "properties": { "arguments": s } }));
                    Prepared { method: "tools/call", templated: has_placeholders(&params), params, schema }
                }
                LoadOp::Resource { uri } => Prepared {
                    method: "resources/read",
                    templated: has_placeholders(&json!(uri)),
                    params: json!({ "uri": uri }),
                    schema: Some(json!({ "properties": { "uri": { "type": "string" } } })),
                },
                LoadOp::Prompt { name, arguments } => {
                    let mut params = json!({ "name": name });
                    // A prompt's arguments are strings, whatever they hold.
                    let mut strings = json!({});
                    if let Some(Value::Object(args)) = arguments {
                        for key in args.keys() {
                            strings[key] = json!({ "type": "string" });
                        }
                        params["arguments"] = Value::Object(args.clone());
                    }
                    let schema = json!({ "properties": { "arguments": { "properties": strings } } });
                    Prepared {
                        method: "prompts/get",
                        templated: has_placeholders(&params),
                        params,
                        schema: Some(schema),
                    }
                }
            })
        })
        .collect()
}

/// A stretch of the open loop: a rate for a while, counted or warm-up.
#[derive(Debug, Clone, Copy)]
struct Phase {
    rate: f64,
    duration: Duration,
    counted: bool,
}

fn phases(warmup: Duration, steps: &[Step]) -> Vec<Phase> {
    let mut phases = Vec::new();
    if !warmup.is_zero() {
        phases.push(Phase { rate: steps[0].rate, duration: warmup, counted: false });
    }
    phases.extend(steps.iter().map(|s| Phase { rate: s.rate, duration: s.duration, counted: true }));
    phases
}

/// The weights taken in turn, each as often as its share, spread evenly (smooth weighted
/// round-robin): the same plan sends the same sequence.
#[derive(Debug, Clone)]
struct Rotation {
    weights: Vec<i64>,
    current: Vec<i64>,
}

impl Rotation {
    fn new(weights: Vec<u32>) -> Rotation {
        let weights: Vec<i64> = weights.into_iter().map(i64::from).collect();
        Rotation { current: vec![0; weights.len()], weights }
    }

    fn next(&mut self) -> usize {
        let total: i64 = self.weights.iter().sum();
        let mut best = 0;
        for (i, w) in self.weights.iter().enumerate() {
            self.current[i] += w;
            if self.current[i] > self.current[best] {
                best = i;
            }
        }
        self.current[best] -= total;
        best
    }
}

/// What sends calls: the sessions in turn, the mix in its rotation, the fills.
struct Sends {
    sessions: Vec<Session>,
    prepared: Arc<Vec<Prepared>>,
    order: Rotation,
    random: Random,
    seq: u64,
}

impl Sends {
    /// The next call sent, and where its reply's arrival will be stamped.
    fn send(&mut self) -> Sending {
        let fill = Fill { seq: self.seq, rand: self.random.next() };
        let session = &self.sessions[(self.seq % self.sessions.len() as u64) as usize];
        self.seq += 1;
        let answered_at = AnsweredAt::default();
        let request = self.prepared[self.order.next()].request(fill, answered_at.clone());
        Sending { call: session.start(request), answered_at }
    }
}

/// A call just sent (or why it could not be), and where the loop stamps its reply's arrival.
struct Sending {
    call: Result<Call, RequestError>,
    answered_at: AnsweredAt,
}

/// A call handed from the pacer: when it was due, whether it counts, and the call (or why it
/// could not be sent).
struct Sent {
    due: Instant,
    counted: bool,
    sending: Sending,
}

/// The open loop's pacer: each call sent when due, on a thread whose sleeps wake within
/// microseconds (its timer slack lowered), until the phases end, `count` counted calls were
/// sent, the run is stopped, or the server cannot be sent to.
fn pace(
    mut sends: Sends,
    phases: Vec<Phase>,
    count: Option<u64>,
    start: Instant,
    stop: Arc<AtomicBool>,
    out: mpsc::UnboundedSender<Sent>,
) {
    // SAFETY: PR_SET_TIMERSLACK changes only this thread's timer slack.
    unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1_u64, 0_u64, 0_u64, 0_u64) };
    let mut counted_sent = 0u64;
    let mut from = Duration::ZERO;
    'phases: for phase in phases {
        let calls = (phase.duration.as_secs_f64() * phase.rate + 1e-9).floor() as u64;
        for k in 0..calls {
            if phase.counted && count.is_some_and(|n| counted_sent >= n) {
                break 'phases;
            }
            let due = start + from + Duration::from_secs_f64(k as f64 / phase.rate);
            loop {
                if stop.load(Ordering::Relaxed) {
                    break 'phases;
                }
                let now = Instant::now();
                if now >= due {
                    break;
                }
                std::thread::sleep((due - now).min(Duration::from_millis(50)));
            }
            let sending = sends.send();
            let failed = sending.call.is_err();
            if out.send(Sent { due, counted: phase.counted, sending }).is_err() || failed {
                break 'phases;
            }
            counted_sent += u64::from(phase.counted);
        }
        from += phase.duration;
    }
}

/// How the sending ended, for the rate and the report.
struct Ended {
    /// When the last counted call was sent.
    last_sent: Option<Instant>,
    /// When the collecting ended.
    at: Instant,
}

/// A call's ending: when its latency runs from, whether it counts, its outcome, when it ended.
type Ending = (Instant, bool, Result<Value, RequestError>, Instant);

/// The ending of a call, its latency from `from` to its reply's arrival (when a reply came;
/// else to when its caller heard how it ended).
fn ending(from: Instant, counted: bool, sending: Sending) -> BoxFuture<'static, Ending> {
    Box::pin(async move {
        let outcome = match sending.call {
            Ok(call) => call.outcome().await,
            Err(e) => Err(e),
        };
        let ended = sending.answered_at.get().copied().unwrap_or_else(Instant::now);
        (from, counted, outcome, ended)
    })
}

/// Counts endings as they come and closes each second.
struct Collector<'u> {
    counted_start: Instant,
    whole: Tally,
    second: Tally,
    sent_in_second: u32,
    count: u64,
    seconds: Vec<LoadSecond>,
    died: Option<Instant>,
    unfinished: u64,
    usage: Option<&'u Sampler>,
    last_usage: Option<(Instant, GroupUsage)>,
}

impl<'u> Collector<'u> {
    fn new(counted_start: Instant, usage: Option<&'u Sampler>) -> Collector<'u> {
        Collector {
            counted_start,
            whole: Tally::default(),
            second: Tally::default(),
            sent_in_second: 0,
            count: 0,
            seconds: Vec::new(),
            died: None,
            unfinished: 0,
            usage,
            last_usage: usage.and_then(Sampler::latest),
        }
    }

    fn sent(&mut self, counted: bool) {
        if counted {
            self.count += 1;
            self.sent_in_second += 1;
        }
    }

    fn ended(&mut self, (from, counted, outcome, at): Ending, control: &LoadControl) {
        let kind = error_kind(&outcome);
        if kind.as_deref() == Some(SERVER_DIED) && self.died.is_none() {
            self.died = Some(at);
            control.stop();
        }
        if counted {
            let latency = at.saturating_duration_since(from);
            self.whole.add(latency, kind.as_deref());
            self.second.add(latency, kind.as_deref());
        }
    }

    /// Closes the second that ends now: its record, told and kept.
    fn close_second(&mut self, on_second: &mut (impl FnMut(&LoadSecond) + Send)) {
        let t = u32::try_from(self.seconds.len() + 1).unwrap_or(u32::MAX);
        let mut second = LoadSecond::of(t, self.sent_in_second, &self.second);
        if let Some(sampler) = self.usage {
            if let Some((taken, usage)) = sampler.latest() {
                if let Some((before, was)) = self.last_usage.filter(|(before, _)| *before < taken) {
                    let wall = (taken - before).as_secs_f64();
                    second.cpu_percent =
                        Some((usage.cpu.saturating_sub(was.cpu)).as_secs_f64() / wall * 100.0);
                }
                second.rss_bytes = Some(usage.rss_bytes);
                self.last_usage = Some((taken, usage));
            }
        }
        on_second(&second);
        self.seconds.push(second);
        self.second = Tally::default();
        self.sent_in_second = 0;
    }

    async fn open(
        &mut self,
        sends: Sends,
        phases: Vec<Phase>,
        count: Option<u64>,
        control: &LoadControl,
        on_second: &mut (impl FnMut(&LoadSecond) + Send),
    ) -> Ended {
        let (tx, mut rx) = mpsc::unbounded_channel();
        let start =
            self.counted_start - phases.iter().filter(|p| !p.counted).map(|p| p.duration).sum::<Duration>();
        let stop = control.stop.clone();
        let pacer = std::thread::Builder::new()
            .name("load-pacer".into())
            .spawn(move || pace(sends, phases, count, start, stop, tx))
            .expect("a thread starts");
        let mut inflight: FuturesUnordered<BoxFuture<'static, Ending>> = FuturesUnordered::new();
        let mut ticker = tokio::time::interval_at(
            (self.counted_start + Duration::from_secs(1)).into(),
            Duration::from_secs(1),
        );
        let mut sending = true;
        let mut last_sent = None;
        let mut drain_until: Option<Instant> = None;
        loop {
            if !sending && inflight.is_empty() {
                break;
            }
            if drain_until.is_none() && control.stopped() {
                drain_until = Some(Instant::now() + DRAIN_LIMIT);
            }
            let drain = drain_until.unwrap_or_else(|| Instant::now() + Duration::from_secs(3600));
            tokio::select! {
                biased;
                Some(ending) = inflight.next() => self.ended(ending, control),
                sent = rx.recv(), if sending => match sent {
                    Some(Sent { due, counted, sending }) => {
                        self.sent(counted);
                        if counted {
                            last_sent = Some(Instant::now());
                        }
                        inflight.push(ending(due, counted, sending));
                    }
                    None => sending = false,
                },
                _ = ticker.tick() => self.close_second(on_second),
                () = control.notify.notified(), if drain_until.is_none() => {}
                () = tokio::time::sleep_until(drain.into()), if drain_until.is_some() => break,
            }
        }
        let _ = pacer.join();
        self.unfinished = inflight.len() as u64;
        self.finish(on_second);
        Ended { last_sent, at: Instant::now() }
    }

    async fn closed(
        &mut self,
        mut sends: Sends,
        concurrency: usize,
        until: Option<Instant>,
        count: Option<u64>,
        control: &LoadControl,
        on_second: &mut (impl FnMut(&LoadSecond) + Send),
    ) -> Ended {
        let mut inflight: FuturesUnordered<BoxFuture<'static, Ending>> = FuturesUnordered::new();
        let mut ticker = tokio::time::interval_at(
            (self.counted_start + Duration::from_secs(1)).into(),
            Duration::from_secs(1),
        );
        let mut last_sent = None;
        let mut drain_until: Option<Instant> = None;
        let mut begin =
            |this: &mut Collector,
             sends: &mut Sends,
             inflight: &mut FuturesUnordered<BoxFuture<'static, Ending>>| {
                let now = Instant::now();
                let counted = now >= this.counted_start;
                if (counted && count.is_some_and(|n| this.count >= n))
                    || until.is_some_and(|u| now >= u)
                    || control.stopped()
                {
                    return;
                }
                let sending = sends.send();
                if sending.call.is_err() {
                    control.stop();
                }
                this.sent(counted);
                if counted {
                    last_sent = Some(now);
                }
                inflight.push(ending(now, counted, sending));
            };
        for _ in 0..concurrency.max(1) {
            begin(self, &mut sends, &mut inflight);
        }
        loop {
            if inflight.is_empty() {
                break;
            }
            if drain_until.is_none() && control.stopped() {
                drain_until = Some(Instant::now() + DRAIN_LIMIT);
            }
            let drain = drain_until.unwrap_or_else(|| Instant::now() + Duration::from_secs(3600));
            tokio::select! {
                biased;
                Some(ending) = inflight.next() => {
                    self.ended(ending, control);
                    begin(self, &mut sends, &mut inflight);
                }
                _ = ticker.tick() => self.close_second(on_second),
                () = control.notify.notified(), if drain_until.is_none() => {}
                () = tokio::time::sleep_until(drain.into()), if drain_until.is_some() => break,
            }
        }
        self.unfinished = inflight.len() as u64;
        self.finish(on_second);
        Ended { last_sent, at: Instant::now() }
    }

    /// Closes the last, partial second when anything happened in it.
    fn finish(&mut self, on_second: &mut (impl FnMut(&LoadSecond) + Send)) {
        let now = Instant::now();
        if now <= self.counted_start {
            return;
        }
        let elapsed = (now - self.counted_start).as_secs_f64() - self.seconds.len() as f64;
        if self.sent_in_second > 0 || self.second.answered > 0 {
            self.close_second(on_second);
            if let Some(last) = self.seconds.last_mut() {
                last.rate = f64::from(last.sent) / elapsed.clamp(0.001, 1.0);
            }
        }
    }

    fn report(self, plan: &LoadPlan, ended: Ended, interrupted: bool) -> LoadReport {
        let span = |at: Instant| at.saturating_duration_since(self.counted_start).as_secs_f64();
        let duration_s = span(ended.at);
        let stopped_early = interrupted || self.died.is_some();
        let (pacing, asked, window) = match &plan.pacing {
            Pacing::Open { steps, .. } => {
                let asked = steps
                    .iter()
                    .map(|s| format!("{}/s for {}", s.rate, crate::lifecycle::duration_words(s.duration)))
                    .collect::<Vec<_>>()
                    .join(", then ");
                let planned = plan.pacing.planned().map_or(duration_s, |d| d.as_secs_f64());
                let window = if stopped_early { duration_s.min(planned) } else { planned };
                ("open", asked, window)
            }
            Pacing::Closed { concurrency, .. } => ("closed", format!("{concurrency} callers"), duration_s),
        };
        let sending = ended.last_sent.map_or(0.0, span).max(window);
        let rate = if sending > 0.0 { self.count as f64 / sending } else { 0.0 };
        LoadReport {
            count: self.count,
            errors: self.whole.errors,
            errors_by_kind: self.whole.errors_by_kind.clone(),
            rate,
            latency_ms: self.whole.percentiles(),
            histogram: self.whole.buckets(),
            seconds: self.seconds,
            pacing: pacing.into(),
            asked,
            duration_s,
            warmup_s: plan.warmup.as_secs_f64(),
            unfinished: self.unfinished,
            interrupted: interrupted && self.died.is_none(),
            server_died_s: self.died.map(span),
            recorded: "every call".into(),
            slo: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rotation_gives_each_its_share_spread_out() {
        let mut r = Rotation::new(vec![3, 1]);
        let picks: Vec<usize> = (0..8).map(|_| r.next()).collect();
        assert_eq!(picks.iter().filter(|&&p| p == 1).count(), 2);
        assert_eq!(picks, vec![0, 0, 1, 0, 0, 0, 1, 0]);
    }

    #[test]
    fn a_warmup_runs_at_the_first_rate_uncounted() {
        let steps = [Step { rate: 10.0, duration: Duration::from_secs(2) }];
        let p = phases(Duration::from_secs(1), &steps);
        assert_eq!(p.len(), 2);
        assert!(!p[0].counted && p[1].counted);
        assert_eq!(p[0].rate, 10.0);
    }
}
