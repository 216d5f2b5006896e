//! A session at a glance: every request as a span from sent to settled, the operations that
//! span several requests, and the marks around them (notifications, lifecycle steps, the era
//! decided, stderr bursts), built from the log's index as data before anything draws them.
//!
//! Owns: [`Timeline`], built incrementally from [`WireLog::visit_rows`] (only the rows added
//! since the last look are read; lifecycle steps and notes, which are rare, are read whole),
//! spans and their outcome (the log's one [`RequestOutcome`]), operations (`input_required`
//! rounds and a task's requests, linked by the `part_of` their entries carry; an OAuth flow, from
//! its first step's note to its last), the windowed view a front end draws (`view`) and latency
//! by method and by tool (`latency`), and the call history (`calls`).
//! Refuses: pixels and colours (a front end's), pairing replies (the connection recorded it in
//! `answers`), and reading entries' bytes beyond the few rare kinds above.

mod calls;
mod detail;
mod latency;
mod view;

#[cfg(test)]
mod tests;

pub use calls::{RecordedCall, HISTORY_LIMIT};
pub use detail::SpanDetail;
pub use latency::Latency;
pub use view::{LaneView, Shown, TimelineView, ViewQuery};

use std::collections::HashMap;
use std::sync::Arc;

use serde::Serialize;

use crate::lifecycle::Lifecycle;
use crate::log::{Direction, IndexRow, Kind, RequestOutcome, Rpc, WireLog};

/// How many requests of one lane are drawn one above the other before they share the last track.
pub const TRACKS: u8 = 6;
/// Stderr chunks closer than this to the one before are one burst.
const BURST_GAP_MS: f64 = 250.0;
/// The prefix of the notes the OAuth client writes (`auth::record`).
const OAUTH_NOTE: &str = "authorization · ";

/// A request from sent to settled: by its reply, or by the note that says it never got one.
#[derive(Debug, Clone, PartialEq)]
pub struct Span {
    pub seq: u64,
    pub conn: u64,
    pub start: f64,
    /// When it settled; `None` while it waits.
    pub end: Option<f64>,
    /// The entry that settled it: its reply, or the note.
    pub settled_by: Option<u64>,
    pub method: Arc<str>,
    pub target: Option<Arc<str>>,
    /// `None` while it waits.
    pub outcome: Option<RequestOutcome>,
    /// Answered with a result that says `isError: true`: the tool failed.
    pub is_error: bool,
    /// The server asked it of Sonde (sampling, elicitation, roots), rather than Sonde of it.
    pub from_server: bool,
    /// The operation it belongs to, by its first request's seq (its own for the first).
    pub operation: Option<u64>,
    /// The row in its lane it is drawn on, so that requests in flight together do not overlap.
    pub track: u8,
    /// Progress updates it had.
    pub progress: u32,
}

/// What a mark on a lane stands for.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MarkKind {
    /// A notification, either way.
    Notification,
    /// A process step: spawned, stdin closed, a signal, exited, a restart.
    Lifecycle,
    /// The reply that decided the era (`initialize` answered, or `server/discover`).
    Era,
    /// A note Sonde wrote that settles nothing (a finding, a round of input).
    Note,
    /// A burst of stderr: from its first chunk to its last.
    Stderr,
    /// A message between an MCP App's frame and Sonde.
    App,
}

/// A mark: something that happened at one time (or, for stderr, a burst between two).
#[derive(Debug, Clone, PartialEq)]
pub struct Mark {
    pub seq: u64,
    pub conn: u64,
    pub at: f64,
    pub until: f64,
    pub kind: MarkKind,
    /// The method, the lifecycle step, the era, or how many chunks a burst had.
    pub label: Arc<str>,
    /// Stderr chunks in a burst, 1 otherwise.
    pub count: u32,
}

/// What an operation is.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OperationKind {
    /// A request retried after `input_required` (2026-07-28), round after round.
    Rounds,
    /// A tool call that became a task, and every request about the task.
    Task,
    /// An OAuth authorization, from its first step to its last.
    Authorization,
}

/// Several requests (or steps) that are one thing to the person: one span with its parts inside.
#[derive(Debug, Clone, PartialEq)]
pub struct Operation {
    /// Its first request's seq (the first note's, for an authorization).
    pub head: u64,
    pub conn: u64,
    pub kind: OperationKind,
    pub start: f64,
    pub end: f64,
    /// The requests in it, the first included, by seq.
    pub parts: Vec<u64>,
    pub label: Arc<str>,
}

/// A session's spans, operations and marks, grown by [`Timeline::update`] as the log grows.
#[derive(Default)]
pub struct Timeline {
    /// The next index row to read.
    read: u64,
    /// Every connection seen, in order, with its tracks' state.
    lanes: Vec<Lane>,
    pub(crate) spans: Vec<Span>,
    pub(crate) marks: Vec<Mark>,
    pub(crate) operations: Vec<Operation>,
    /// Spans by their request's seq.
    by_seq: HashMap<u64, usize>,
    /// The newest request with each id on each connection, for `part_of`.
    by_id: HashMap<(u64, Box<str>), usize>,
    operation_of: HashMap<u64, usize>,
    /// The last stderr burst of each connection, to extend.
    burst: HashMap<u64, usize>,
    /// The authorization under way on each connection.
    authorizing: HashMap<u64, usize>,
    /// The latest time anything happened.
    pub(crate) last_ms: f64,
    /// The longest a settled span took: a view looks this far back for spans it still covers.
    pub(crate) longest: f64,
    /// Spans still waiting, by index: a view draws them to its end.
    pub(crate) waiting: Vec<usize>,
}

#[derive(Default)]
struct Lane {
    conn: u64,
    /// Each track's time it is free from (`f64::INFINITY` while a span on it waits).
    free_from: Vec<f64>,
}

impl Timeline {
    /// An empty timeline; [`Timeline::update`] fills it.
    pub fn new() -> Timeline {
        Timeline::default()
    }

    /// The timeline of `log` as it is now.
    pub fn of(log: &WireLog) -> Timeline {
        let mut timeline = Timeline::new();
        timeline.update(log);
        timeline
    }

    /// Reads the rows the log took since the last update, in order, each once. The few whose
    /// entry must be read whole (lifecycle steps, notes that settle nothing) stop the walk
    /// through the index while they are read, so the log's lock is never held over a read.
    pub fn update(&mut self, log: &WireLog) {
        loop {
            let mut whole: Option<(u64, IndexRow)> = None;
            self.read = log.visit_rows(self.read, |seq, row| {
                let rare =
                    matches!(row.kind, Kind::Lifecycle) || (row.kind == Kind::Note && row.answers.is_none());
                if rare {
                    whole = Some((seq, row.clone()));
                    return false;
                }
                self.take(seq, row);
                true
            });
            let Some((seq, row)) = whole else { return };
            // A row the file cannot give back is left out of the picture, never guessed at.
            let Ok(entry) = log.read_index_row(&row) else { continue };
            if row.kind == Kind::Lifecycle {
                let label = entry.lifecycle.as_ref().map_or("lifecycle", step_word);
                self.mark(seq, &row, MarkKind::Lifecycle, label.into());
            } else if entry.detail.as_deref().is_some_and(|d| d.starts_with(OAUTH_NOTE)) {
                self.authorization(seq, &row);
            } else {
                self.mark(seq, &row, MarkKind::Note, "note".into());
            }
        }
    }

    /// One row that the index tells all about.
    fn take(&mut self, seq: u64, row: &IndexRow) {
        match (row.kind, row.rpc) {
            (Kind::Note, _) => self.settle(row.answers.unwrap_or(0), seq, row),
            (Kind::Stderr, _) => self.stderr(seq, row),
            (Kind::App, _) => {
                self.mark(seq, row, MarkKind::App, row.method.clone().unwrap_or_else(|| "app".into()))
            }
            (Kind::Message, Some(Rpc::Request)) => self.request(seq, row),
            (Kind::Message, Some(Rpc::Result | Rpc::Error)) => match row.answers {
                Some(request) => self.settle(request, seq, row),
                None => self.touch(row.ms),
            },
            (Kind::Message, Some(Rpc::Notification)) => self.notification(seq, row),
            _ => self.touch(row.ms),
        }
    }

    /// The spans, in the order their requests were sent.
    pub fn spans(&self) -> &[Span] {
        &self.spans
    }

    pub fn marks(&self) -> &[Mark] {
        &self.marks
    }

    pub fn operations(&self) -> &[Operation] {
        &self.operations
    }

    /// The connections seen, in the order they first appeared.
    pub fn connections(&self) -> Vec<u64> {
        self.lanes.iter().map(|l| l.conn).collect()
    }

    /// The span of the request at `seq`.
    pub fn span(&self, seq: u64) -> Option<&Span> {
        self.by_seq.get(&seq).map(|&i| &self.spans[i])
    }

    /// The operation the span of `seq` is a part of.
    pub fn operation_of(&self, seq: u64) -> Option<&Operation> {
        let head = self.span(seq)?.operation?;
        self.operation_of.get(&head).map(|&i| &self.operations[i])
    }

    fn touch(&mut self, ms: f64) {
        self.last_ms = self.last_ms.max(ms);
    }

    fn lane(&mut self, conn: u64) -> &mut Lane {
        match self.lanes.iter().position(|l| l.conn == conn) {
            Some(i) => &mut self.lanes[i],
            None => {
                self.lanes.push(Lane { conn, free_from: Vec::new() });
                self.lanes.last_mut().expect("pushed")
            }
        }
    }

    fn request(&mut self, seq: u64, row: &IndexRow) {
        self.touch(row.ms);
        // An authorization's steps come while the request that needed it waits; the next
        // request Sonde sends on the connection comes after the flow.
        if row.dir == Direction::Out {
            self.authorizing.remove(&row.conn);
        }
        let track = self.lane(row.conn).take_track(row.ms);
        let span = Span {
            seq,
            conn: row.conn,
            start: row.ms,
            end: None,
            settled_by: None,
            method: row.method.clone().unwrap_or_else(|| "request".into()),
            target: row.target.clone(),
            outcome: None,
            is_error: false,
            from_server: row.dir == Direction::In,
            operation: None,
            track,
            progress: 0,
        };
        let index = self.spans.len();
        self.spans.push(span);
        self.by_seq.insert(seq, index);
        self.waiting.push(index);
        if let Some(id) = &row.id {
            if row.dir == Direction::Out {
                self.by_id.insert((row.conn, id.clone()), index);
            }
        }
        if let Some(head) = row.part_of.as_ref().and_then(|id| self.by_id.get(&(row.conn, id.clone()))) {
            self.join(*head, index);
        }
    }

    /// Makes the span at `part` a part of the operation the span at `head` began (or is in).
    fn join(&mut self, head: usize, part: usize) {
        let root = self.spans[head].operation.unwrap_or(self.spans[head].seq);
        let kind = match &*self.spans[part].method {
            m if m.starts_with("tasks/") => OperationKind::Task,
            _ => OperationKind::Rounds,
        };
        let op = match self.operation_of.get(&root) {
            Some(&op) => op,
            None => {
                let first = &self.spans[self.by_seq[&root]];
                let label = match &first.target {
                    Some(target) => format!("{} {target}", first.method),
                    None => first.method.to_string(),
                };
                self.operations.push(Operation {
                    head: root,
                    conn: first.conn,
                    kind,
                    start: first.start,
                    end: first.end.unwrap_or(first.start),
                    parts: vec![root],
                    label: label.into(),
                });
                self.spans[self.by_seq[&root]].operation = Some(root);
                self.operation_of.insert(root, self.operations.len() - 1);
                self.operations.len() - 1
            }
        };
        let span = &mut self.spans[part];
        span.operation = Some(root);
        let operation = &mut self.operations[op];
        // A task's requests make the whole a task, whatever came first.
        if kind == OperationKind::Task {
            operation.kind = OperationKind::Task;
        }
        operation.parts.push(span.seq);
        operation.end = operation.end.max(span.start);
    }

    /// The request at `request` settled at `seq`: by a reply, or by a note that says how.
    fn settle(&mut self, request: u64, seq: u64, row: &IndexRow) {
        self.touch(row.ms);
        let Some(&index) = self.by_seq.get(&request) else { return };
        if row.kind == Kind::Message && row.rpc.is_none() {
            return;
        }
        let span = &mut self.spans[index];
        if span.end.is_some() {
            return;
        }
        span.outcome = Some(match (row.kind, row.rpc) {
            (Kind::Note, _) => RequestOutcome::of_note(row.ends),
            (_, Some(Rpc::Error)) => RequestOutcome::Error,
            _ => RequestOutcome::Result,
        });
        span.is_error = row.rpc == Some(Rpc::Result) && row.is_error;
        span.end = Some(row.ms);
        span.settled_by = Some(seq);
        let (conn, track, start, end) = (span.conn, span.track, span.start, row.ms);
        let (method, outcome) = (span.method.clone(), span.outcome);
        self.longest = self.longest.max(end - start);
        self.waiting.retain(|&i| i != index);
        self.lane(conn).free(track, end);
        if let Some(op) = self.spans[index].operation.and_then(|head| self.operation_of.get(&head)) {
            let operation = &mut self.operations[*op];
            operation.end = operation.end.max(end);
            self.longest = self.longest.max(operation.end - operation.start);
        }
        // The answer that decides the era is a moment worth seeing.
        if outcome == Some(RequestOutcome::Result) && matches!(&*method, "initialize" | "server/discover") {
            self.mark(seq, row, MarkKind::Era, format!("{method} answered").into());
        }
    }

    fn notification(&mut self, seq: u64, row: &IndexRow) {
        // A progress update belongs to its request's span; any other is a mark.
        if let Some(&index) = row.answers.as_ref().and_then(|r| self.by_seq.get(r)) {
            if row.method.as_deref() == Some("notifications/progress") {
                self.spans[index].progress += 1;
                self.touch(row.ms);
                return;
            }
        }
        let label = row.method.clone().unwrap_or_else(|| "notification".into());
        self.mark(seq, row, MarkKind::Notification, label);
    }

    fn mark(&mut self, seq: u64, row: &IndexRow, kind: MarkKind, label: Arc<str>) {
        self.touch(row.ms);
        self.lane(row.conn);
        self.marks.push(Mark { seq, conn: row.conn, at: row.ms, until: row.ms, kind, label, count: 1 });
    }

    fn stderr(&mut self, seq: u64, row: &IndexRow) {
        if let Some(&i) = self.burst.get(&row.conn) {
            let burst = &mut self.marks[i];
            if row.ms - burst.until <= BURST_GAP_MS {
                burst.until = row.ms;
                burst.count += 1;
                self.touch(row.ms);
                return;
            }
        }
        self.mark(seq, row, MarkKind::Stderr, "stderr".into());
        self.burst.insert(row.conn, self.marks.len() - 1);
    }

    /// A step of an OAuth authorization: the first opens the operation, the rest extend it.
    fn authorization(&mut self, seq: u64, row: &IndexRow) {
        self.touch(row.ms);
        self.lane(row.conn);
        let op = match self.authorizing.get(&row.conn) {
            Some(&op) => op,
            None => {
                self.operations.push(Operation {
                    head: seq,
                    conn: row.conn,
                    kind: OperationKind::Authorization,
                    start: row.ms,
                    end: row.ms,
                    parts: Vec::new(),
                    label: "authorization".into(),
                });
                self.authorizing.insert(row.conn, self.operations.len() - 1);
                self.operations.len() - 1
            }
        };
        self.operations[op].end = row.ms;
        self.longest = self.longest.max(row.ms - self.operations[op].start);
    }
}

impl Lane {
    /// The lowest track free at `at`, taken until its span settles; the last one when all are busy.
    fn take_track(&mut self, at: f64) -> u8 {
        let track = match self.free_from.iter().position(|&free| free <= at) {
            Some(t) => t,
            None if self.free_from.len() < usize::from(TRACKS) => {
                self.free_from.push(0.0);
                self.free_from.len() - 1
            }
            None => usize::from(TRACKS) - 1,
        };
        self.free_from[track] = f64::INFINITY;
        track as u8
    }

    fn free(&mut self, track: u8, at: f64) {
        if let Some(free) = self.free_from.get_mut(usize::from(track)) {
            // A shared last track stays busy while any of its spans waits; this one ended.
            *free = if *free == f64::INFINITY { at } else { free.max(at) };
        }
    }
}

/// A lifecycle step in a word or two, for its mark.
fn step_word(step: &Lifecycle) -> &'static str {
    match step {
        Lifecycle::Server { .. } => "saved server",
        Lifecycle::Spawned { .. } => "spawned",
        Lifecycle::SpawnFailed { .. } => "spawn failed",
        Lifecycle::StdoutClosed => "stdout closed",
        Lifecycle::StdinClosed { .. } => "stdin closed",
        Lifecycle::Signalled { signal, .. } => signal.name(),
        Lifecycle::Exited(_) => "exited",
        Lifecycle::GroupGone { .. } => "group gone",
        Lifecycle::GroupStuck { .. } => "group stuck",
        Lifecycle::Replaces { .. } => "restart",
        Lifecycle::RestartWait { .. } => "restart wait",
        Lifecycle::CrashLoop { .. } => "crash loop",
    }
}
