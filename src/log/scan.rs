//! The free-text scan of a session file: the index's rows are read a span at a time, a
//! [`TextFinder`] runs over the raw bytes, and only the lines it hits are decoded.
//!
//! Owns: how large a span is and how it is searched (two halves at once when large). Refuses:
//! what a filter means (`filter`) and remembering matches (`matches`).

use std::io;
use std::os::unix::fs::FileExt;

use super::filter::TextFinder;
use super::{Entry, Filter, IndexRow, Page, WireLog};

/// How many bytes of lines a free-text scan reads at a time.
const SCAN_BYTES: u64 = 8 << 20;
/// How many rows a free-text scan reads at a time at most: more than a query's chunk, since a
/// scan copies rows, not entries, and each span it reads costs a thread.
const SCAN_ROWS: u64 = 32_768;
/// From how many bytes a span of the free-text scan is searched in two halves at once (below
/// it, a thread costs more than it saves).
const PARALLEL_BYTES: usize = 256 << 10;

impl WireLog {
    /// `page` for a free-text filter a [`TextFinder`] can search: the file is read a
    /// span of rows at a time, the finder runs over the raw bytes, and only the lines it hits
    /// are decoded (a rare word in a million entries decodes a hundred, not a million).
    pub(super) fn page_scanning(
        &self,
        from: u64,
        to: u64,
        filter: &Filter,
        limit: usize,
        finder: &TextFinder,
    ) -> io::Result<Page> {
        let mut entries = Vec::new();
        let mut buf = Vec::new();
        let mut seq = from;
        while let Some((rows, stop)) = self.rows_from(seq, to) {
            for (i, entry) in self.span_matches(&rows, filter, finder, &mut buf)? {
                if entries.len() == limit {
                    return Ok(Page { entries, next: Some(seq + i as u64) });
                }
                entries.push(entry);
            }
            seq = stop;
        }
        Ok(Page { entries, next: None })
    }

    /// The rows of one span (from [`WireLog::rows_from`]) that `filter` matches, by their
    /// position in `rows`, in order, with their entries: `finder` runs over the span's raw
    /// bytes and only the lines it hits are decoded.
    pub(super) fn span_matches(
        &self,
        rows: &[IndexRow],
        filter: &Filter,
        finder: &TextFinder,
        buf: &mut Vec<u8>,
    ) -> io::Result<Vec<(usize, Entry)>> {
        let (first, last) = (&rows[0], &rows[rows.len() - 1]);
        buf.resize((last.offset + last.len - first.offset) as usize, 0);
        // A large span is searched in two halves at once, split where a line starts: a needle
        // holds no newline, so no hit straddles the split, and the second core is otherwise
        // idle while a person waits for a filter's first rows.
        let mut hit = if buf.len() < PARALLEL_BYTES {
            self.rows_hit(rows, buf, finder)?
        } else {
            let half = rows.len() / 2;
            let (front, back) = buf.split_at_mut((rows[half].offset - first.offset) as usize);
            let (front_rows, back_rows) = rows.split_at(half);
            let (front_hit, back_hit) = std::thread::scope(|scope| {
                let back = scope.spawn(|| self.rows_hit(back_rows, back, finder));
                (self.rows_hit(front_rows, front, finder), back.join().expect("the scan's second half"))
            });
            let mut hit = front_hit?;
            hit.extend(back_hit?.into_iter().map(|i| i + half));
            hit
        };
        hit.sort_unstable();
        hit.dedup();
        let mut matched = Vec::new();
        for i in hit {
            if !filter.matches_row(&rows[i]) {
                continue;
            }
            let entry = self.read_row(&rows[i])?;
            if filter.matches_text(&entry) {
                matched.push((i, entry));
            }
        }
        Ok(matched)
    }

    /// The rows of `rows` (consecutive lines, read into `buf`, which is exactly their length)
    /// where `finder` hits, by position, unordered and possibly repeated.
    fn rows_hit(&self, rows: &[IndexRow], buf: &mut [u8], finder: &TextFinder) -> io::Result<Vec<usize>> {
        let span = rows[0].offset;
        self.reader.read_exact_at(buf, span)?;
        // Searched in lower case; an entry the search hits is read again as recorded.
        buf.make_ascii_lowercase();
        // The row hit is the last one that starts at or before the hit.
        Ok(finder.hits(buf).map(|at| rows.partition_point(|r| r.offset - span <= at as u64) - 1).collect())
    }

    /// The index's rows from `from` (below `to`) whose lines span at most [`SCAN_BYTES`] (one
    /// row at least) and [`SCAN_ROWS`] rows, with the seq after them; `None` at the end.
    pub(super) fn rows_from(&self, from: u64, to: u64) -> Option<(Vec<IndexRow>, u64)> {
        let inner = self.inner.lock().expect("wire log lock");
        let end = to.min(inner.index.len() as u64);
        if from >= end {
            return None;
        }
        let mut stop = from + 1;
        let start = inner.index[from as usize].offset;
        while stop < end.min(from.saturating_add(SCAN_ROWS)) {
            let row = &inner.index[stop as usize];
            if row.offset + row.len - start > SCAN_BYTES {
                break;
            }
            stop += 1;
        }
        Some((inner.index[from as usize..stop as usize].to_vec(), stop))
    }
}
