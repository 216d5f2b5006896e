//! A filter's matches over a growing log, found once and kept as their seqs, so that a window
//! pages through a filter's matches by position and holds only the ones it shows.
//!
//! Owns: [`MatchCount`], the memory of the last few filters' matches of one log (seqs only, 8
//! bytes a match), [`WireLog::count_matches`], which finds them a bounded amount of work at a
//! time, and [`WireLog::match_page`], which reads the matches at some positions.
//! Refuses: what a filter means (`filter`) and which matches a window keeps (the window's cache).
//! The log only grows, so matches found stay matches; nothing here is ever invalidated.

use std::collections::VecDeque;
use std::io;

use serde::Serialize;

use super::filter::TextFinder;
use super::{Entry, Filter, WireLog};
use crate::sync::Lock;

/// How much work a count does at most, in entries decoded: a free text the file scan can
/// search spends one per line it hits and one per `ROWS_PER_READ` rows scanned, any other
/// free text one per candidate entry; filters without free text read nothing and count the
/// whole log at once.
pub const COUNT_BUDGET: usize = 20_000;

/// How many filters' matches a log remembers.
const REMEMBERED: usize = 4;

/// How far a filter's matches have been counted.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct MatchCount {
    /// Matches among the entries with seq below `scanned`.
    pub count: u64,
    /// Every entry below this seq has been looked at.
    pub scanned: u64,
}

/// The last few filters' matches, the most recently used first.
#[derive(Default)]
pub(super) struct Matches {
    recent: VecDeque<Found>,
}

struct Found {
    filter: Filter,
    seqs: Vec<u64>,
    /// Every seq below this has been looked at.
    scanned: u64,
}

impl Matches {
    /// The matches found so far for `filter`, remembered from now on.
    fn of(&mut self, filter: &Filter) -> &mut Found {
        let found = match self.recent.iter().position(|f| f.filter == *filter) {
            Some(i) => self.recent.remove(i).expect("found at i"),
            None => Found { filter: filter.clone(), seqs: Vec::new(), scanned: 0 },
        };
        self.recent.push_front(found);
        self.recent.truncate(REMEMBERED);
        &mut self.recent[0]
    }
}

impl WireLog {
    /// Counts `filter`'s matches among the entries with seq below `to`, reading at most
    /// `budget` entries from the file; call again (with the same filter) to go on.
    pub fn count_matches(&self, filter: &Filter, to: u64, budget: usize) -> io::Result<MatchCount> {
        // Only what the file holds now: entries appended meanwhile wait in the write buffer.
        let written = self.flushed()?;
        let mut matches = self.matches.locked();
        let found = matches.of(filter);
        self.seek(found, to.min(written), budget, usize::MAX)?;
        Ok(MatchCount { count: found.seqs.len() as u64, scanned: found.scanned })
    }

    /// Like [`WireLog::count_matches`], also handing back the seqs of the matches from
    /// position `known` on (those a caller that keeps them has not had yet), in seq order.
    pub fn matches_since(
        &self,
        filter: &Filter,
        known: usize,
        to: u64,
        budget: usize,
    ) -> io::Result<(Vec<u64>, MatchCount)> {
        let written = self.flushed()?;
        let mut matches = self.matches.locked();
        let found = matches.of(filter);
        self.seek(found, to.min(written), budget, usize::MAX)?;
        let count = MatchCount { count: found.seqs.len() as u64, scanned: found.scanned };
        Ok((found.seqs.get(known..).unwrap_or_default().to_vec(), count))
    }

    /// The matches of `filter` at positions `from..from + limit` (fewer at the log's end).
    /// When none of them has been counted yet, they are found first; when some have, those
    /// are the answer at once, and the rest come when the page is asked for again after the
    /// count has gone on. So the first rows of a rare word show as soon as a count finds them,
    /// not after a scan of the whole log for a page's worth.
    pub fn match_page(&self, filter: &Filter, from: u64, limit: usize) -> io::Result<Vec<Entry>> {
        let written = self.flushed()?;
        let seqs: Vec<u64> = {
            let mut matches = self.matches.locked();
            let found = matches.of(filter);
            let want = usize::try_from(from).unwrap_or(usize::MAX).saturating_add(limit);
            if found.seqs.len() as u64 <= from {
                self.seek(found, written, usize::MAX, want)?;
            }
            let end = want.min(found.seqs.len());
            found.seqs[end.min(from as usize)..end].to_vec()
        };
        let rows: Vec<_> = {
            let inner = self.inner.locked();
            // Every match is a row of the file: a failed write only ever loses rows not yet
            // written, and matches are found among written ones.
            seqs.iter().filter_map(|&seq| inner.row(seq).cloned()).collect()
        };
        rows.iter().map(|row| self.read_row(row)).collect()
    }

    /// Where the entry at `seq` stands among `filter`'s matches (its row in the filtered list),
    /// or `None` when the filter does not show it. The matches up to it are counted first, a
    /// budget at a time, however long that takes: it answers one person's selection, not a page.
    pub fn match_position(&self, filter: &Filter, seq: u64) -> io::Result<Option<u64>> {
        let to = seq.saturating_add(1).min(self.flushed()?);
        loop {
            let mut matches = self.matches.locked();
            let found = matches.of(filter);
            if found.scanned >= to {
                return Ok(found.seqs.binary_search(&seq).ok().map(|i| i as u64));
            }
            self.seek(found, to, COUNT_BUDGET, usize::MAX)?;
        }
    }

    /// Looks at the entries after `found.scanned` (below `to`) until `want` matches are known,
    /// `budget` entries have been read, or none is left.
    fn seek(&self, found: &mut Found, to: u64, budget: usize, want: usize) -> io::Result<()> {
        if let Some(finder) = TextFinder::new(&found.filter) {
            return self.seek_scanning(found, to, budget, want, &finder);
        }
        let mut reads = 0;
        while let Some((rows, stop)) = self.rows_matching(&found.filter, found.scanned, to) {
            for (seq, row) in rows {
                let reading = found.filter.needs_entry();
                if found.seqs.len() >= want || (reading && reads >= budget) {
                    // Stopped before this row: it is where the next look starts.
                    found.scanned = seq;
                    return Ok(());
                }
                let matched = !reading || {
                    reads += 1;
                    found.filter.matches_entry(&self.read_row(&row)?)
                };
                if matched {
                    found.seqs.push(seq);
                }
            }
            found.scanned = stop;
        }
        // No row is left below `to`: seqs up to it that have no row (a gap) are looked at too.
        found.scanned = found.scanned.max(to);
        Ok(())
    }

    /// `seek` for a free text a [`TextFinder`] searches in the raw file, a span at a time: only
    /// the lines it hits are decoded. Each decoded line spends one read of the budget, and
    /// every [`ROWS_PER_READ`] rows scanned one more, so a count still returns within a bounded
    /// amount of work.
    fn seek_scanning(
        &self,
        found: &mut Found,
        to: u64,
        budget: usize,
        want: usize,
        finder: &TextFinder,
    ) -> io::Result<()> {
        let mut reads = 0;
        let mut buf = Vec::new();
        while reads < budget {
            // No more rows than the budget left pays for.
            let rows_left = (budget - reads).saturating_mul(ROWS_PER_READ) as u64;
            let end = to.min(found.scanned.saturating_add(rows_left));
            let Some((span, stop)) = self.span_from(found.scanned, end) else {
                // No row is left below `end`: seqs up to it without a row are looked at too.
                found.scanned = found.scanned.max(end);
                return Ok(());
            };
            let matched = self.span_matches(&span, &found.filter, finder, &mut buf)?;
            reads += matched.len() + span.len() / ROWS_PER_READ;
            for (i, _) in matched {
                if found.seqs.len() >= want {
                    // Stopped before this row: it is where the next look starts.
                    found.scanned = span.seq(i);
                    return Ok(());
                }
                found.seqs.push(span.seq(i));
            }
            found.scanned = stop;
        }
        Ok(())
    }
}

/// How many rows the free-text scan looks at for the work of decoding one entry (a substring
/// search over a line costs a few percent of decoding it).
const ROWS_PER_READ: usize = 32;

#[cfg(test)]
mod tests {
    use super::super::{Direction, Kind};
    use super::*;

    fn log_of(n: u64) -> std::sync::Arc<WireLog> {
        let dir = std::env::temp_dir().join(format!("sonde-matches-{n}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let log = WireLog::create_in(&dir).unwrap();
        for i in 0..n {
            let kind = if i % 3 == 0 { Kind::Lifecycle } else { Kind::Stderr };
            log.append(Entry::new(1, kind, Direction::Meta).with_detail(format!("step {i}")));
        }
        log
    }

    fn seqs(entries: &[Entry]) -> Vec<u64> {
        entries.iter().map(|e| e.seq).collect()
    }

    #[test]
    fn a_text_filter_is_counted_a_budget_at_a_time_and_paged_by_position() {
        let log = log_of(10_000);
        // "step 1" is in step 1, 10..19, 100..199, 1000..1999: 1 + 10 + 100 + 1000 entries.
        let filter = Filter::parse("step 1").unwrap();
        let below = |n: u64| (0..n).filter(|i| i.to_string().starts_with('1')).count() as u64;
        // The text is searched in the raw file: each call scans as many rows as its budget
        // pays for.
        let first = log.count_matches(&filter, 10_000, 50).unwrap();
        assert_eq!(first, MatchCount { count: below(first.scanned), scanned: 50 * ROWS_PER_READ as u64 });
        let mut last = first;
        while last.scanned < 10_000 {
            let next = log.count_matches(&filter, 10_000, 50).unwrap();
            assert!(next.scanned > last.scanned, "each count goes on from the last");
            assert_eq!(next.count, below(next.scanned));
            last = next;
        }
        assert_eq!(last.count, 1111);
        assert_eq!(seqs(&log.match_page(&filter, 0, 3).unwrap()), [1, 10, 11]);
        // A page the count has only begun on is what is known of it, at once.
        let fresh = Filter::parse("step 9").unwrap();
        let counted = log.count_matches(&fresh, 10_000, 3).unwrap();
        assert!(counted.count > 0 && counted.scanned < 10_000, "{counted:?}");
        assert_eq!(log.match_page(&fresh, 0, 200).unwrap().len() as u64, counted.count);
        assert_eq!(seqs(&log.match_page(&filter, 1110, 5).unwrap()), [1999]);
        assert!(log.match_page(&filter, 5000, 5).unwrap().is_empty());
    }

    #[test]
    fn an_index_filter_is_counted_whole_and_grows_with_the_log() {
        let log = log_of(9000);
        let filter = Filter::parse("kind:lifecycle").unwrap();
        assert_eq!(
            log.count_matches(&filter, u64::MAX, 0).unwrap(),
            MatchCount { count: 3000, scanned: 9000 }
        );
        log.append(Entry::new(1, Kind::Lifecycle, Direction::Meta));
        assert_eq!(
            log.count_matches(&filter, u64::MAX, 0).unwrap(),
            MatchCount { count: 3001, scanned: 9001 }
        );
        assert_eq!(seqs(&log.match_page(&filter, 2999, 10).unwrap()), [8997, 9000]);
    }

    #[test]
    fn an_entry_is_placed_among_the_matches_exactly_when_the_filter_shows_it() {
        let log = log_of(30_000);
        let text = Filter::parse("step 2").unwrap();
        // "step 2" is in 2, 20..29, 200..299, 2000..2999 and 20000..29999: 29999 is the last.
        assert_eq!(log.match_position(&text, 2).unwrap(), Some(0));
        assert_eq!(log.match_position(&text, 29_999).unwrap(), Some(1 + 10 + 100 + 1000 + 9999));
        assert_eq!(log.match_position(&text, 3).unwrap(), None, "shown by no match");
        assert_eq!(log.match_position(&text, 99_999).unwrap(), None, "not in the log");
        let index = Filter::parse("kind:lifecycle").unwrap();
        assert_eq!(log.match_position(&index, 9).unwrap(), Some(3));
        assert_eq!(log.match_position(&index, 10).unwrap(), None);
        // The count it made is the one a list pages through.
        assert_eq!(seqs(&log.match_page(&text, 10, 1).unwrap()), [29]);
    }

    #[test]
    fn a_page_past_the_count_finds_its_matches_first() {
        let log = log_of(3000);
        let filter = Filter::parse("kind:lifecycle step").unwrap();
        assert_eq!(seqs(&log.match_page(&filter, 500, 2).unwrap()), [1500, 1503]);
        // Other filters come and go; a remembered one goes on where it was, a forgotten one
        // starts again.
        let others = |exprs: &[&str]| {
            for expr in exprs {
                log.count_matches(&Filter::parse(expr).unwrap(), 10, 100).unwrap();
            }
        };
        // Every third entry is a lifecycle one: the matches below `scanned`.
        let below = |scanned: u64| scanned.div_ceil(3);
        others(&["step 2", "step 3", "step 4"]);
        let remembered = log.count_matches(&filter, 3000, 10).unwrap();
        assert!(remembered.scanned > 1503 && remembered.count == below(remembered.scanned), "{remembered:?}");
        others(&["step 5", "step 6", "step 7", "kind:stderr"]);
        let again = 10 * ROWS_PER_READ as u64;
        assert_eq!(
            log.count_matches(&filter, 3000, 10).unwrap(),
            MatchCount { count: below(again), scanned: again }
        );
    }
}
