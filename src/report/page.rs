//! The report's page: a header that says what it holds, the timeline, the latency table, and
//! the log with its detail pane (an entry's detail is shown when its link is followed, by CSS
//! `:target`, so the page works with scripts off).

use std::collections::HashMap;
use std::fmt::Write;

use super::{duration, escape, size, svg};
use crate::log::{Entry, Kind};
use crate::timeline::{Latency, Timeline, TimelineView};

pub struct Page<'a> {
    pub session: &'a str,
    pub filter: Option<&'a str>,
    pub entries: &'a [Entry],
    pub view: &'a TimelineView,
    pub latency: &'a Latency,
    pub names: &'a HashMap<u64, String>,
    pub sizes: &'a HashMap<u64, usize>,
    pub timeline: &'a Timeline,
}

const STYLE: &str = include_str!("report.css");
const SCRIPT: &str = include_str!("report.js");

impl Page<'_> {
    pub fn render(&self) -> String {
        let mut s = String::new();
        let title = format!("Sonde session {}", self.session);
        let _ = write!(
            s,
            "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{}</title>\
             <meta name=\"viewport\" content=\"width=device-width\">\
             <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\
             <style>{STYLE}</style></head><body>",
            escape(&title)
        );
        let first = self.entries.first().map_or("", |e| e.time.as_str());
        let _ = write!(
            s,
            "<header><h1>{}</h1><p>{} entries{} · started {} (UTC) · {} requests · written by Sonde {} · \
             saved secrets are redacted (<code>«redacted»</code>)</p></header>",
            escape(&title),
            self.entries.len(),
            self.filter.map(|f| format!(" matching <code>{}</code>", escape(f))).unwrap_or_default(),
            escape(first),
            self.view.shown,
            env!("CARGO_PKG_VERSION"),
        );
        self.timeline_section(&mut s);
        self.latency_section(&mut s);
        self.log_section(&mut s);
        let _ = writeln!(s, "<script>{SCRIPT}</script></body></html>");
        s
    }

    fn timeline_section(&self, s: &mut String) {
        let to = (self.view.end * 1.02).max(1.0);
        s.push_str(
            "<section id=\"timeline-section\"><h2>Timeline</h2><p class=\"bar\">\
             <button data-zoom=\"2\">Zoom in</button> <button data-zoom=\"0.5\">Zoom out</button> \
             <button data-zoom=\"0\">Fit</button> <span class=\"legend\">",
        );
        for outcome in crate::log::RequestOutcome::ALL {
            let _ = write!(
                s,
                "<span><i style=\"background:{}\"></i>{}</span>",
                svg::colour(Some(outcome)),
                outcome.word()
            );
        }
        let _ = write!(
            s,
            "<span><i style=\"background:{}\"></i>waiting</span></span> \
             <span class=\"muted\">hover a request for its latency and sizes; click it for its entry</span></p>\
             <div class=\"timeline\">{}</div></section>",
            svg::colour(None),
            svg::timeline(self.view, to, self.names, self.sizes, self.timeline)
        );
    }

    fn latency_section(&self, s: &mut String) {
        s.push_str(
            "<section><h2>Latency</h2><table class=\"latency\"><thead><tr><th>method / name</th><th>calls</th>\
             <th>p50</th><th>p95</th><th>max</th><th>errors</th><th>isError</th><th>unanswered</th><th>histogram</th></tr></thead><tbody>",
        );
        let ms = |v: Option<f64>| v.map_or_else(|| "—".to_owned(), duration);
        for row in &self.latency.rows {
            let most = row.histogram.counts.iter().copied().max().unwrap_or(1).max(1);
            let bars: String = row
                .histogram
                .counts
                .iter()
                .map(|&c| format!("<i style=\"height:{}%\"></i>", u32::from(c > 0) + c * 99 / most))
                .collect();
            let _ = write!(
                s,
                "<tr class=\"{}\"><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>\
                 <td><span class=\"bars\" title=\"bucket edges: {}\">{bars}</span></td></tr>",
                if row.target.is_some() { "target" } else { "method" },
                escape(row.target.as_deref().unwrap_or(&row.method)),
                row.count,
                ms(row.p50),
                ms(row.p95),
                ms(row.max),
                row.errors,
                row.tool_errors,
                row.unanswered,
                self.latency.edges.iter().map(|e| duration(*e)).collect::<Vec<_>>().join(", "),
            );
        }
        s.push_str("</tbody></table></section>");
    }

    fn log_section(&self, s: &mut String) {
        s.push_str(
            "<section class=\"log\"><h2>Log</h2><div class=\"split\"><table class=\"entries\"><thead><tr>\
             <th>time</th><th>connection</th><th></th><th>kind</th><th>summary</th><th>size</th><th>latency</th></tr></thead><tbody>",
        );
        for e in self.entries {
            let glyph = e.dir.glyph();
            let conn = self.names.get(&e.conn).cloned().unwrap_or_else(|| format!("conn {}", e.conn));
            let bytes = e.bytes().map_or(0, |b| b.len());
            let _ = write!(
                s,
                "<tr id=\"e{0}\" class=\"{1}\"><td><a href=\"#d{0}\">{2}</a></td><td>{3}</td><td>{4}</td><td>{1}</td><td>{5}</td><td>{6}</td><td>{7}</td></tr>",
                e.seq,
                e.kind.name(),
                escape(time_of_day(&e.time)),
                escape(&conn),
                escape(&glyph.to_string()),
                escape(&summary(e)),
                if bytes > 0 { size(bytes) } else { String::new() },
                e.latency_ms.map(duration).unwrap_or_default(),
            );
        }
        s.push_str("</tbody></table><div class=\"pane\"><p class=\"muted hint\">Select an entry to see its bytes.</p>");
        for e in self.entries {
            self.detail(s, e);
        }
        s.push_str("</div></div></section>");
    }

    fn detail(&self, s: &mut String, e: &Entry) {
        let _ = write!(
            s,
            "<article id=\"d{0}\" class=\"detail\"><h3>{1} {2}</h3><p class=\"muted\">entry {0} · {3} · {4} · <a href=\"#e{0}\">show in the log</a>",
            e.seq,
            escape(&e.dir.glyph().to_string()),
            escape(&summary(e)),
            e.kind.name(),
            escape(&e.time),
        );
        if let Some(request) = e.answers {
            let _ = write!(s, " · <a href=\"#d{request}\">the request it answers</a>");
        }
        if let Some(span) = self.timeline.span(e.seq) {
            if let Some(reply) = span.settled_by {
                let word = span.outcome.map_or("settled", |o| o.word());
                let _ = write!(s, " · <a href=\"#d{reply}\">how it ended: {word}</a>");
            }
        }
        s.push_str("</p>");
        if let Some(detail) = &e.detail {
            let _ = write!(s, "<p>{}</p>", escape(detail));
        }
        for f in &e.findings {
            let _ = write!(
                s,
                "<p class=\"finding\"><b>{:?} {}</b>: {}</p>",
                f.severity,
                escape(&f.rule),
                escape(&f.detail)
            );
        }
        if let Some(bytes) = e.bytes() {
            let text = String::from_utf8_lossy(&bytes);
            let shown = serde_json::from_str::<serde_json::Value>(&text)
                .ok()
                .and_then(|v| serde_json::to_string_pretty(&v).ok())
                .unwrap_or_else(|| text.into_owned());
            let _ = write!(s, "<pre>{}</pre>", escape(&shown));
        }
        s.push_str("</article>");
    }
}

/// `HH:MM:SS.mmm` of an RFC 3339 time (UTC, as recorded), or the text as it is.
fn time_of_day(time: &str) -> &str {
    time.split_once('T').map_or(time, |(_, t)| t.trim_end_matches('Z'))
}

/// What an entry is, in one line.
fn summary(e: &Entry) -> String {
    match (&e.summary, e.kind) {
        (Some(sum), _) => {
            let mut words = vec![sum.kind.to_string()];
            words.extend(sum.method.clone());
            words.extend(sum.target.clone());
            words.extend(sum.id.as_ref().map(|id| format!("id {id}")));
            words.extend(sum.error_code.map(|c| format!("code {c}")));
            words.join(" ")
        }
        (None, Kind::Stderr | Kind::NonProtocol) => {
            let bytes = e.bytes().unwrap_or_default();
            String::from_utf8_lossy(&bytes).lines().next().unwrap_or_default().chars().take(160).collect()
        }
        (None, _) => e.detail.clone().unwrap_or_default().chars().take(160).collect(),
    }
    .trim()
    .to_owned()
}
