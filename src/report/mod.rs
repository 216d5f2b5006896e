//! Reports: files Sonde writes for a reader outside it. A session as one self-contained HTML
//! file that anyone can open without Sonde: the timeline, the latency table and the log with a
//! detail pane, readable offline in any browser, with every saved secret redacted as in every
//! export (`log::redacted`); and a run of checks as the reports CI reads (`cases`: JSON, JUnit,
//! SARIF, over one shape of cases that `suite`, `doctor` and a load run fill: `load`).
//!
//! Owns: [`export_html`], the page's layout (`page`), the timeline drawn as SVG (`svg`: each
//! request a link to its entry, a `<title>` to hover), and the words of durations and sizes the
//! page uses (the contract's rules). Refuses: building spans, operations and latency (the
//! `timeline` module's), choosing secrets and paths (front ends'), and any script from anywhere:
//! the page's few lines of script are its own (zoom), and it works without them.

mod cases;
mod load;
mod page;
mod svg;

pub use cases::{Case, CaseError, Failure, Report, Subject, Totals};
pub use load::load_cases;

use std::collections::HashMap;
use std::io::{self, Write};
use std::path::Path;

use crate::log::{redacted, secret_words, Entry, Filter, WireLog};
use crate::timeline::{Latency, Shown, Timeline, ViewQuery};

/// How many columns the report's timeline is drawn at (it zooms by stretching).
const COLUMNS: u32 = 1200;

/// Writes the entries `filter` matches of `log` to `path` (0600) as an HTML report, with each of
/// `secrets` redacted everywhere. Returns how many entries it holds.
pub fn export_html(log: &WireLog, filter: &Filter, secrets: &[String], path: &Path) -> io::Result<u64> {
    let secrets = secret_words(secrets);
    let timeline = Timeline::of(log);
    let mut shown = Shown::new(filter.clone());
    // A report is whole: the filter's matches are looked for to the end of the log.
    loop {
        shown.update(log)?;
        match shown.count {
            Some(count) if count.scanned < log.len() => continue,
            _ => break,
        }
    }
    let end = timeline.last_ms;
    let view = timeline
        .view(&ViewQuery { from: 0.0, to: (end * 1.02).max(1.0), columns: COLUMNS, live: None }, &shown);
    let latency = Latency::of(&timeline, &shown);
    let mut entries: Vec<Entry> = Vec::new();
    let mut from = 0;
    loop {
        let page = log.page(from, u64::MAX, filter, 1000)?;
        entries.extend(page.entries.into_iter().map(|e| redacted(e, &secrets)));
        match page.next {
            Some(next) => from = next,
            None => break,
        }
    }
    let sizes: HashMap<u64, usize> = entries.iter().filter_map(|e| Some((e.seq, e.bytes()?.len()))).collect();
    let names: HashMap<u64, String> =
        log.connection_labels().into_iter().map(|l| (l.conn, redact_text(&l.server, &secrets))).collect();
    let session = log.path().file_stem().map_or_else(String::new, |s| s.to_string_lossy().into_owned());
    let filter_words = (*filter != Filter::default()).then(|| redact_text(&filter.expression(), &secrets));
    let html = page::Page {
        session: &session,
        filter: filter_words.as_deref(),
        entries: &entries,
        view: &view,
        latency: &latency,
        names: &names,
        sizes: &sizes,
        timeline: &timeline,
    }
    .render();
    let mut out = io::BufWriter::new(crate::files::create_private(path)?);
    out.write_all(html.as_bytes())?;
    out.flush()?;
    Ok(entries.len() as u64)
}

/// `text` with each secret replaced, for the few strings that are not entries (names, the filter).
fn redact_text(text: &str, secrets: &[&str]) -> String {
    secrets.iter().fold(text.to_owned(), |t, s| t.replace(s, crate::log::REDACTED_MARK))
}

/// Text made safe inside HTML elements and attributes.
pub(crate) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A duration as the contract writes it: `0.4 ms`, `12 ms`, `1.25 s`, `2 min 5 s`.
pub fn duration(ms: f64) -> String {
    if ms < 10.0 {
        format!("{ms:.1} ms")
    } else if ms < 999.5 {
        format!("{} ms", ms.round())
    } else if ms < 59_995.0 {
        format!("{:.2} s", ms / 1000.0)
    } else {
        let seconds = (ms / 1000.0).round() as u64;
        format!("{} min {} s", seconds / 60, seconds % 60)
    }
}

/// A size in bytes, KiB or MiB.
pub fn size(bytes: usize) -> String {
    match bytes {
        b if b < 1024 => format!("{b} B"),
        b if b < 1024 * 1024 => format!("{:.1} KiB", b as f64 / 1024.0),
        b => format!("{:.1} MiB", b as f64 / (1024.0 * 1024.0)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_follow_the_contract() {
        assert_eq!(duration(0.42), "0.4 ms");
        assert_eq!(duration(12.2), "12 ms");
        assert_eq!(duration(1250.0), "1.25 s");
        assert_eq!(duration(125_000.0), "2 min 5 s");
    }
}
