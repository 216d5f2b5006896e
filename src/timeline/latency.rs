//! Latency at a glance: per method and per tool (or prompt, or resource), how many calls, their
//! p50, p95 and max, how many failed, and a histogram, over the spans a filter shows.
//!
//! Owns: [`Latency`] and the filter that lists a row's calls in the log. Refuses: which spans
//! exist (`Timeline`) and what a filter matches (`view::Shown`).

use std::collections::BTreeMap;

use serde::Serialize;

use super::view::Shown;
use super::Timeline;
use crate::log::RequestOutcome;

/// The upper edges of the histogram's buckets, in ms; a last bucket holds everything slower.
pub const HISTOGRAM_EDGES_MS: [f64; 16] = [
    0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 25.0, 50.0, 100.0, 250.0, 500.0, 1000.0, 2500.0, 10_000.0, 60_000.0,
];

/// How many calls took each bucket's time: `counts[i]` up to `HISTOGRAM_EDGES_MS[i]`, the last
/// one above every edge.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Histogram {
    pub counts: Vec<u32>,
}

/// One method, or one method's target (a tool, prompt or resource).
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LatencyRow {
    pub method: String,
    /// The tool, prompt or resource, on a row of one; `None` on a method's row.
    pub target: Option<String>,
    /// Requests sent (or asked of Sonde), answered or not.
    pub count: u32,
    /// Of those, answered (a result or an error): the times below are theirs.
    pub answered: u32,
    #[cfg_attr(feature = "bindings", specta(type = Option<serde_json::Number>))]
    pub p50: Option<f64>,
    #[cfg_attr(feature = "bindings", specta(type = Option<serde_json::Number>))]
    pub p95: Option<f64>,
    #[cfg_attr(feature = "bindings", specta(type = Option<serde_json::Number>))]
    pub max: Option<f64>,
    /// Answered with an error.
    pub errors: u32,
    /// Answered with a result that says `isError: true` (a tool that failed).
    pub tool_errors: u32,
    /// Cancelled, timed out or never answered.
    pub unanswered: u32,
    pub histogram: Histogram,
    /// The log filter that lists these calls.
    pub filter: String,
}

/// Latency of the requests a filter shows.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Latency {
    /// Methods by how many calls they had, each followed by its targets', busiest first.
    pub rows: Vec<LatencyRow>,
    /// Every answered request's time together.
    pub all: Histogram,
    #[cfg_attr(feature = "bindings", specta(type = Vec<serde_json::Number>))]
    pub edges: Vec<f64>,
}

#[derive(Default)]
struct Gathered {
    times: Vec<f64>,
    count: u32,
    errors: u32,
    tool_errors: u32,
    unanswered: u32,
}

impl Latency {
    /// Latency over the spans `shown` shows.
    pub fn of(timeline: &Timeline, shown: &Shown) -> Latency {
        let mut by_method: BTreeMap<&str, (Gathered, BTreeMap<&str, Gathered>)> = BTreeMap::new();
        let mut all = Vec::new();
        for span in timeline.spans.iter().filter(|s| shown.span(s)) {
            let (method, targets) = by_method.entry(&span.method).or_default();
            let gather = |g: &mut Gathered| {
                g.count += 1;
                match (span.outcome, span.end) {
                    (Some(RequestOutcome::Result), Some(end)) => {
                        g.times.push(end - span.start);
                        g.tool_errors += u32::from(span.is_error);
                    }
                    (Some(RequestOutcome::Error), Some(end)) => {
                        g.times.push(end - span.start);
                        g.errors += 1;
                    }
                    (Some(_), _) => g.unanswered += 1,
                    (None, _) => {}
                }
            };
            gather(method);
            if let Some(target) = &span.target {
                gather(targets.entry(target).or_default());
            }
            if let (Some(RequestOutcome::Result | RequestOutcome::Error), Some(end)) =
                (span.outcome, span.end)
            {
                all.push(end - span.start);
            }
        }
        let mut methods: Vec<_> = by_method.into_iter().collect();
        methods.sort_by(|a, b| b.1 .0.count.cmp(&a.1 .0.count).then(a.0.cmp(b.0)));
        let mut rows = Vec::new();
        for (method, (gathered, targets)) in methods {
            rows.push(row(method, None, gathered));
            let mut targets: Vec<_> = targets.into_iter().collect();
            targets.sort_by(|a, b| b.1.count.cmp(&a.1.count).then(a.0.cmp(b.0)));
            rows.extend(targets.into_iter().map(|(target, g)| row(method, Some(target), g)));
        }
        Latency { rows, all: histogram(&all), edges: HISTOGRAM_EDGES_MS.to_vec() }
    }
}

fn row(method: &str, target: Option<&str>, mut g: Gathered) -> LatencyRow {
    g.times.sort_by(f64::total_cmp);
    let filter = match target {
        Some(target) => format!("method:{method} target:{}", quoted(target)),
        None => format!("method:{method}"),
    };
    LatencyRow {
        method: method.to_owned(),
        target: target.map(str::to_owned),
        count: g.count,
        answered: g.times.len() as u32,
        p50: percentile(&g.times, 50.0),
        p95: percentile(&g.times, 95.0),
        max: g.times.last().copied(),
        errors: g.errors,
        tool_errors: g.tool_errors,
        unanswered: g.unanswered,
        histogram: histogram(&g.times),
        filter,
    }
}

/// A filter value as the grammar reads it back: quoted when it has a space, a quote or a colon.
fn quoted(value: &str) -> String {
    if value.chars().any(|c| c.is_whitespace() || c == '"' || c == ':') {
        format!("\"{}\"", value.replace('"', "\\\""))
    } else {
        value.to_owned()
    }
}

/// The nearest-rank percentile of sorted `times`.
fn percentile(times: &[f64], p: f64) -> Option<f64> {
    if times.is_empty() {
        return None;
    }
    let rank = ((p / 100.0) * times.len() as f64).ceil() as usize;
    Some(times[rank.clamp(1, times.len()) - 1])
}

fn histogram(times: &[f64]) -> Histogram {
    let mut counts = vec![0; HISTOGRAM_EDGES_MS.len() + 1];
    for &t in times {
        counts[HISTOGRAM_EDGES_MS.partition_point(|&edge| edge < t)] += 1;
    }
    Histogram { counts }
}
