//! What a front end draws of a timeline: the part between two times, at a width in columns,
//! with only what a filter shows.
//!
//! Owns: [`ViewQuery`] and [`TimelineView`]: per lane, the spans, operations and marks that
//! fall in the window, each drawn alone while there is room, and the rest as buckets (one per
//! column: how many, and the worst outcome among them), so that a million entries cost a
//! bounded answer; and [`Shown`], a filter's matches kept as a bitset by seq.
//! Refuses: pixels and colours, and the filter grammar (`log::Filter` decides what matches).

use std::io;

use serde::Serialize;

use super::{Mark, MarkKind, OperationKind, Span, Timeline};
use crate::log::{Filter, MatchCount, RequestOutcome, WireLog};

/// At most this many spans (and as many marks) of one lane are sent one by one; past it, the
/// short ones are sent as buckets. Spans at least [`WIDE_COLUMNS`] wide are always sent alone.
pub const MAX_ALONE: usize = 500;
const WIDE_COLUMNS: f64 = 3.0;
/// How many entries a filter's matches are looked for per view, at most (see `log::matches`).
const MATCH_BUDGET: usize = crate::log::COUNT_BUDGET;

/// The part of a session to draw: times in ms after it started, and how many columns wide.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
pub struct ViewQuery {
    #[cfg_attr(feature = "bindings", specta(type = serde_json::Number))]
    pub from: f64,
    #[cfg_attr(feature = "bindings", specta(type = serde_json::Number))]
    pub to: f64,
    pub columns: u32,
    /// The connections alive, when the others (those that ended) are to be folded into one
    /// lane out of the way; `None` draws every connection in a lane of its own. The session's
    /// own lane (connection 0) is never folded.
    #[serde(default)]
    pub live: Option<Vec<u64>>,
}

/// One request as drawn.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SpanView {
    pub seq: u64,
    #[cfg_attr(feature = "bindings", specta(type = serde_json::Number))]
    pub start: f64,
    /// When it settled; `None` while it waits (drawn to the session's end).
    #[cfg_attr(feature = "bindings", specta(type = Option<serde_json::Number>))]
    pub end: Option<f64>,
    pub track: u8,
    pub method: String,
    pub target: Option<String>,
    pub outcome: Option<RequestOutcome>,
    pub from_server: bool,
    pub operation: Option<u64>,
    /// Held open on purpose (`subscriptions/listen`): a long one is not a slow call.
    pub stream: bool,
}

/// Several short spans or marks in one column, too many to draw alone.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Bucket {
    pub column: u32,
    pub count: u32,
    /// The worst outcome among them (none when some wait and none failed, and for marks).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub worst: Option<RequestOutcome>,
}

#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MarkView {
    pub seq: u64,
    #[cfg_attr(feature = "bindings", specta(type = serde_json::Number))]
    pub at: f64,
    #[cfg_attr(feature = "bindings", specta(type = serde_json::Number))]
    pub until: f64,
    pub kind: MarkKind,
    pub label: String,
    pub count: u32,
}

#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OperationView {
    pub head: u64,
    pub kind: OperationKind,
    #[cfg_attr(feature = "bindings", specta(type = serde_json::Number))]
    pub start: f64,
    #[cfg_attr(feature = "bindings", specta(type = serde_json::Number))]
    pub end: f64,
    pub parts: u32,
    pub label: String,
}

/// One connection's part of the view.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LaneView {
    /// Its connection; for the folded lane, the first of the connections it holds.
    pub conn: u64,
    /// The connections the lane holds when it is the folded one (empty for any other).
    pub folded: Vec<u64>,
    /// How many tracks its spans use (at most [`super::TRACKS`]).
    pub tracks: u8,
    pub spans: Vec<SpanView>,
    pub span_buckets: Vec<Bucket>,
    pub marks: Vec<MarkView>,
    pub mark_buckets: Vec<Bucket>,
    pub operations: Vec<OperationView>,
}

/// What to draw.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TimelineView {
    /// The session so far: from 0 to `end` ms.
    #[cfg_attr(feature = "bindings", specta(type = serde_json::Number))]
    pub end: f64,
    pub lanes: Vec<LaneView>,
    /// Requests the filter shows in the whole session, and in the window.
    pub shown: u64,
    pub in_window: u64,
    /// Where the filter's matches have been looked for (a free text is looked for a bounded
    /// amount at a time; ask again to go on).
    pub matched: Option<MatchCount>,
    /// The slowest request the filter shows that has settled, in the whole session: what a
    /// person opening the timeline looks for first. A stream held open on purpose
    /// (`subscriptions/listen`) is never it.
    pub slowest: Option<SpanView>,
}

/// A filter's matches as a bitset by seq, grown as the log is.
#[derive(Default)]
pub struct Shown {
    filter: Option<Filter>,
    bits: Vec<u64>,
    known: usize,
    pub count: Option<MatchCount>,
}

impl Shown {
    /// What `filter` shows of `log`; an empty filter shows everything.
    pub fn new(filter: Filter) -> Shown {
        let filter = (filter != Filter::default()).then_some(filter);
        Shown { filter, ..Shown::default() }
    }

    pub fn filter(&self) -> Option<&Filter> {
        self.filter.as_ref()
    }

    /// Looks for more matches (a bounded amount).
    pub fn update(&mut self, log: &WireLog) -> io::Result<()> {
        let Some(filter) = &self.filter else { return Ok(()) };
        let (seqs, count) = log.matches_since(filter, self.known, u64::MAX, MATCH_BUDGET)?;
        self.known += seqs.len();
        for seq in seqs {
            let word = (seq / 64) as usize;
            if self.bits.len() <= word {
                self.bits.resize(word + 1, 0);
            }
            self.bits[word] |= 1 << (seq % 64);
        }
        self.count = Some(count);
        Ok(())
    }

    pub fn has(&self, seq: u64) -> bool {
        self.filter.is_none()
            || self.bits.get((seq / 64) as usize).is_some_and(|w| w & (1 << (seq % 64)) != 0)
    }

    /// A span is shown when its request or the entry that settled it matches.
    pub fn span(&self, span: &Span) -> bool {
        self.has(span.seq) || span.settled_by.is_some_and(|s| self.has(s))
    }
}

impl Timeline {
    /// The part of the timeline `query` asks for, with what `shown` shows.
    pub fn view(&self, query: &ViewQuery, shown: &Shown) -> TimelineView {
        let columns = query.columns.clamp(1, 10_000);
        let (from, to) = (query.from.min(query.to), query.from.max(query.to));
        let per_column = ((to - from) / f64::from(columns)).max(1e-6);
        let column = |at: f64| (((at - from) / per_column).floor().clamp(0.0, f64::from(columns - 1))) as u32;
        // The folded connections share the lane of the first of them, where it would be.
        let ended = |c: &u64| *c != 0 && query.live.as_ref().is_some_and(|live| !live.contains(c));
        let folded: Vec<u64> = self.connections().into_iter().filter(ended).collect();
        let mut lanes: Vec<LaneView> = self
            .connections()
            .into_iter()
            .filter(|conn| folded.first().is_none_or(|first| conn == first || !folded.contains(conn)))
            .map(|conn| LaneView {
                conn,
                folded: if folded.first() == Some(&conn) { folded.clone() } else { Vec::new() },
                tracks: 0,
                spans: Vec::new(),
                span_buckets: Vec::new(),
                marks: Vec::new(),
                mark_buckets: Vec::new(),
                operations: Vec::new(),
            })
            .collect();
        let lane_of = |conn: u64, lanes: &[LaneView]| {
            lanes.iter().position(|l| l.conn == conn || l.folded.contains(&conn))
        };

        // Spans that start in the window, or before it by no more than the longest one took,
        // and those still waiting: no span that covers the window is missed.
        let first = self.spans.partition_point(|s| s.start < from - self.longest);
        let candidates = self.spans[first..]
            .iter()
            .take_while(|s| s.start <= to)
            .chain(self.waiting.iter().map(|&i| &self.spans[i]).filter(|s| s.start < from - self.longest));
        let mut in_window: Vec<Vec<&Span>> = vec![Vec::new(); lanes.len()];
        for span in candidates {
            let end = span.end.unwrap_or(self.last_ms);
            if end < from || !shown.span(span) {
                continue;
            }
            if let Some(lane) = lane_of(span.conn, &lanes) {
                in_window[lane].push(span);
            }
        }
        let mut total_in_window = 0;
        for (lane, spans) in lanes.iter_mut().zip(in_window) {
            total_in_window += spans.len() as u64;
            let crowded = spans.len() > MAX_ALONE;
            let mut buckets = Columns::new(columns);
            for span in spans {
                lane.tracks = lane.tracks.max(span.track + 1);
                let wide = (span.end.unwrap_or(self.last_ms) - span.start) / per_column >= WIDE_COLUMNS;
                if crowded && (!wide || lane.spans.len() >= MAX_ALONE) {
                    let bucket = buckets.at(column(span.start.max(from)));
                    bucket.count += 1;
                    bucket.worst = worse(bucket.worst, span.outcome);
                } else {
                    lane.spans.push(span_view(span));
                }
            }
            lane.span_buckets = buckets.used();
        }

        let first_mark = self.marks.partition_point(|m| m.at < from - self.longest.max(1.0));
        let mut marks_in: Vec<Vec<&Mark>> = vec![Vec::new(); lanes.len()];
        for mark in self.marks[first_mark..].iter().take_while(|m| m.at <= to) {
            if mark.until < from || !shown.has(mark.seq) {
                continue;
            }
            if let Some(lane) = lane_of(mark.conn, &lanes) {
                marks_in[lane].push(mark);
            }
        }
        for (lane, marks) in lanes.iter_mut().zip(marks_in) {
            let crowded = marks.len() > MAX_ALONE;
            let mut buckets = Columns::new(columns);
            for mark in marks {
                // Lifecycle steps and the era are few and always worth seeing alone.
                let rare = matches!(mark.kind, MarkKind::Lifecycle | MarkKind::Era);
                if crowded && !rare {
                    buckets.at(column(mark.at.max(from))).count += mark.count;
                } else {
                    lane.marks.push(MarkView {
                        seq: mark.seq,
                        at: mark.at,
                        until: mark.until,
                        kind: mark.kind,
                        label: mark.label.to_string(),
                        count: mark.count,
                    });
                }
            }
            lane.mark_buckets = buckets.used();
        }

        for operation in &self.operations {
            if operation.end < from || operation.start > to {
                continue;
            }
            let any_shown = shown.filter().is_none()
                || shown.has(operation.head)
                || operation.parts.iter().any(|&p| self.span(p).is_some_and(|s| shown.span(s)));
            if !any_shown {
                continue;
            }
            if let Some(lane) = lane_of(operation.conn, &lanes) {
                lanes[lane].operations.push(OperationView {
                    head: operation.head,
                    kind: operation.kind,
                    start: operation.start,
                    end: operation.end,
                    parts: operation.parts.len() as u32,
                    label: operation.label.to_string(),
                });
            }
        }

        let shown_total = match shown.filter() {
            None => self.spans.len() as u64,
            Some(_) => self.spans.iter().filter(|s| shown.span(s)).count() as u64,
        };
        let took = |s: &&Span| s.end.map_or(f64::NEG_INFINITY, |end| end - s.start);
        let slowest = self
            .spans
            .iter()
            .filter(|s| s.end.is_some() && !is_stream(s) && shown.span(s))
            .max_by(|a, b| took(a).total_cmp(&took(b)))
            .map(span_view);
        TimelineView {
            end: self.last_ms,
            lanes,
            shown: shown_total,
            in_window: total_in_window,
            matched: shown.count,
            slowest,
        }
    }
}

/// A request held open on purpose for what the server sends meanwhile: drawn, and never taken
/// for a slow call.
pub fn is_stream(span: &Span) -> bool {
    &*span.method == crate::connection::LISTEN
}

/// One bucket per column, dense: a crowded lane puts hundreds of thousands of spans in them.
struct Columns(Vec<Bucket>);

impl Columns {
    fn new(columns: u32) -> Columns {
        Columns((0..columns).map(|column| Bucket { column, count: 0, worst: None }).collect())
    }

    fn at(&mut self, column: u32) -> &mut Bucket {
        &mut self.0[column as usize]
    }

    /// The buckets something fell in, left to right.
    fn used(self) -> Vec<Bucket> {
        self.0.into_iter().filter(|b| b.count > 0).collect()
    }
}

fn span_view(span: &Span) -> SpanView {
    SpanView {
        stream: is_stream(span),
        seq: span.seq,
        start: span.start,
        end: span.end,
        track: span.track,
        method: span.method.to_string(),
        target: span.target.as_deref().map(str::to_owned),
        outcome: span.outcome,
        from_server: span.from_server,
        operation: span.operation,
    }
}

/// The worse of two outcomes, for a bucket's colour: a failure of any kind before an answer.
fn worse(a: Option<RequestOutcome>, b: Option<RequestOutcome>) -> Option<RequestOutcome> {
    let rank = |o: Option<RequestOutcome>| match o {
        None => 1,
        Some(RequestOutcome::Result) => 0,
        Some(RequestOutcome::Cancelled) => 2,
        Some(RequestOutcome::Error) => 3,
        Some(RequestOutcome::TimedOut) => 4,
        Some(RequestOutcome::NeverAnswered) => 5,
    };
    if rank(b) > rank(a) {
        b
    } else {
        a
    }
}
