//! The report's timeline as SVG: the core's view of the whole session, each lane's spans in the
//! colour of their outcome (each a link to its request's entry, with a `<title>` that says its
//! method, name, outcome, latency and sizes), operations bracketed, buckets and marks.

use std::collections::HashMap;
use std::fmt::Write;

use super::{duration, escape, size};
use crate::log::RequestOutcome;
use crate::timeline::{LaneView, Timeline, TimelineView, TRACKS};

pub const PLOT: f64 = 1200.0;
const AXIS: f64 = 20.0;
const OP_BAND: f64 = 9.0;
const TRACK: f64 = 12.0;
const MARK_ROW: f64 = 12.0;
const GAP: f64 = 8.0;

/// The same colours as the window's (`ui/src/timeline/draw.ts`), so a report reads like it.
pub fn colour(outcome: Option<RequestOutcome>) -> &'static str {
    match outcome {
        Some(RequestOutcome::Result) => "#3fa34d",
        Some(RequestOutcome::Error) => "#d9534f",
        Some(RequestOutcome::Cancelled) => "#8a8f98",
        Some(RequestOutcome::TimedOut) => "#e8a33d",
        Some(RequestOutcome::NeverAnswered) => "#a05bc4",
        None => "#4a90d9",
    }
}

fn lane_height(lane: &LaneView) -> f64 {
    OP_BAND + f64::from(lane.tracks.clamp(1, TRACKS)) * TRACK + MARK_ROW + GAP
}

/// The SVG of `view` (drawn for `0..to` ms), lane names beside it.
pub fn timeline(
    view: &TimelineView,
    to: f64,
    names: &HashMap<u64, String>,
    sizes: &HashMap<u64, usize>,
    timeline: &Timeline,
) -> String {
    let height = AXIS + view.lanes.iter().map(lane_height).sum::<f64>() + 4.0;
    let x = |at: f64| (at / to * PLOT).clamp(0.0, PLOT);
    let mut s = String::new();
    let _ = write!(s, r#"<div class="lanes" style="height:{height}px">"#);
    let mut top = AXIS;
    for lane in &view.lanes {
        let h = lane_height(lane);
        let name = match (names.get(&lane.conn), lane.conn) {
            (Some(name), conn) => format!("{name} · conn {conn}"),
            // Connection 0 is the session's own: notes about the recording itself.
            (None, 0) => "the session".to_owned(),
            (None, conn) => format!("connection {conn}"),
        };
        let _ = write!(
            s,
            r#"<div class="lane-name" style="top:{top}px;height:{h}px" title="{0}">{0}</div>"#,
            escape(&name)
        );
        top += h;
    }
    s.push_str("</div>");
    let _ = write!(
        s,
        r#"<div class="plot"><svg id="timeline" viewBox="0 0 {PLOT} {height}" preserveAspectRatio="none" width="{PLOT}" height="{height}" role="img" aria-label="Timeline">"#
    );
    // The axis: about ten round times.
    let step = nice_step(to / 10.0);
    let mut t = 0.0;
    while t <= to {
        let _ = write!(
            s,
            r##"<line x1="{0:.1}" x2="{0:.1}" y1="{1}" y2="{height}" class="tick"/><text x="{2:.1}" y="13" class="axis">{3}</text>"##,
            x(t),
            AXIS - 4.0,
            x(t) + 3.0,
            duration(t)
        );
        t += step;
    }
    let mut top = AXIS;
    for lane in &view.lanes {
        let h = lane_height(lane);
        let _ = write!(
            s,
            r#"<line x1="0" x2="{PLOT}" y1="{0:.1}" y2="{0:.1}" class="sep"/>"#,
            top + h - GAP / 2.0
        );
        for op in &lane.operations {
            let (x0, x1) = (x(op.start), x(op.end).max(x(op.start) + 3.0));
            let _ = write!(
                s,
                r##"<a href="#d{}"><rect x="{x0:.2}" y="{:.1}" width="{:.2}" height="3" class="op"><title>{} · {:?} · {} requests · {}</title></rect></a>"##,
                op.head,
                top + 2.0,
                x1 - x0,
                escape(&op.label),
                op.kind,
                op.parts,
                duration(op.end - op.start)
            );
        }
        let track_top = top + OP_BAND;
        for span in &lane.spans {
            let end = span.end.unwrap_or(view.end);
            let (x0, x1) = (x(span.start), x(end).max(x(span.start) + 1.5));
            let y = track_top + f64::from(span.track) * TRACK + 1.0;
            let name = match &span.target {
                Some(t) => format!("{} {t}", span.method),
                None => span.method.clone(),
            };
            let ended = match (span.outcome, span.end) {
                (Some(o), Some(end)) => format!("{} after {}", o.word(), duration(end - span.start)),
                _ => "still waiting when the report was written".to_owned(),
            };
            let sent = sizes.get(&span.seq).map(|b| format!("; sent {}", size(*b))).unwrap_or_default();
            let settled = timeline.span(span.seq).and_then(|s| s.settled_by).and_then(|r| sizes.get(&r));
            let received = settled.map(|b| format!(", received {}", size(*b))).unwrap_or_default();
            let class = if span.from_server { "span from-server" } else { "span" };
            let _ = write!(
                s,
                r##"<a href="#d{}"><rect x="{x0:.2}" y="{y:.1}" width="{:.2}" height="{:.0}" fill="{}" class="{class}"><title>{}: {}{sent}{received}</title></rect></a>"##,
                span.seq,
                x1 - x0,
                TRACK - 2.0,
                colour(span.outcome),
                escape(&name),
                ended
            );
        }
        let bucket_height = f64::from(lane.tracks.max(1)) * TRACK - 2.0;
        let most = lane.span_buckets.iter().map(|b| b.count).max().unwrap_or(1).max(1);
        for b in &lane.span_buckets {
            let bh = ((f64::from(b.count).ln_1p() / f64::from(most).ln_1p()) * bucket_height).max(2.0);
            let _ = write!(
                s,
                r#"<rect x="{}" y="{:.1}" width="1" height="{bh:.1}" fill="{}" opacity="0.75"><title>{} requests</title></rect>"#,
                b.column,
                track_top + bucket_height - bh + 1.0,
                colour(b.worst),
                b.count
            );
        }
        let mark_y = track_top + f64::from(lane.tracks.max(1)) * TRACK;
        for m in &lane.marks {
            let kind = format!("{:?}", m.kind).to_lowercase();
            let _ = write!(
                s,
                r##"<a href="#d{}"><rect x="{:.2}" y="{:.1}" width="{:.2}" height="6" class="mark {kind}"><title>{kind}: {}</title></rect></a>"##,
                m.seq,
                x(m.at) - 1.0,
                mark_y + 3.0,
                (x(m.until) - x(m.at)).max(2.0),
                escape(&m.label)
            );
        }
        top += h;
    }
    s.push_str("</svg></div>");
    s
}

/// A round step near `raw` ms: 1, 2 or 5 times a power of ten.
fn nice_step(raw: f64) -> f64 {
    let raw = raw.max(0.001);
    let power = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0].iter().map(|m| m * power).find(|s| *s >= raw).unwrap_or(raw)
}
