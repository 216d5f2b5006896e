//! The free-text scan of a session file: the lines of a span of the index are read at once, a
//! [`TextFinder`] runs over the raw bytes, and only the lines it hits are decoded.
//!
//! Owns: [`Span`], what a scan needs of the index (where lines start, not the rows
//! themselves), how large a span is and how it is searched (two halves at once when large).
//! Refuses: what a filter means (`filter`) and remembering matches (`matches`).

use std::io;
use std::os::unix::fs::FileExt;

use super::filter::TextFinder;
use super::{Entry, Filter, IndexRow, Page, WireLog};
use crate::sync::Lock;

/// How many bytes of lines a free-text scan reads at a time.
const SCAN_BYTES: u64 = 8 << 20;
/// How many lines a free-text scan reads at a time at most: more than a query's chunk, since a
/// scan copies where lines start, not entries, and each span it reads costs a thread.
const SCAN_ROWS: u64 = 32_768;
/// From how many bytes a span of the free-text scan is searched in two halves at once (below
/// it, a thread costs more than it saves).
const PARALLEL_BYTES: usize = 256 << 10;

/// Consecutive lines of the session file, as the index places them: where each starts, where
/// the last ends, and which hold base64 bytes. Copied out of the index for a scan instead of
/// its rows, whose strings would be cloned a row at a time and freed again; the rows of the
/// few lines the search hits are read from the index afterwards.
pub(super) struct Span {
    /// The seq of the first line; the others follow it without a gap.
    first: u64,
    /// The first line's position in the index.
    pos: usize,
    /// Each line's offset in the file.
    starts: Vec<u64>,
    /// Where the last line ends.
    end: u64,
    /// The positions of the lines whose bytes are base64 (see [`IndexRow::base64`]).
    base64: Vec<usize>,
}

impl Span {
    pub(super) fn len(&self) -> usize {
        self.starts.len()
    }

    /// The seq of the line at position `i` in the span.
    pub(super) fn seq(&self, i: usize) -> u64 {
        self.first + i as u64
    }
}

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
        while let Some((span, stop)) = self.span_from(seq, to) {
            for (i, entry) in self.span_matches(&span, filter, finder, &mut buf)? {
                if entries.len() == limit {
                    return Ok(Page { entries, next: Some(span.seq(i)) });
                }
                entries.push(entry);
            }
            seq = stop;
        }
        Ok(Page { entries, next: None })
    }

    /// The lines of `span` (from [`WireLog::span_from`]) that `filter` matches, by their
    /// position in it, in order, with their entries: `finder` runs over the span's raw bytes
    /// and only the lines it hits are decoded.
    pub(super) fn span_matches(
        &self,
        span: &Span,
        filter: &Filter,
        finder: &TextFinder,
        buf: &mut Vec<u8>,
    ) -> io::Result<Vec<(usize, Entry)>> {
        let starts = &span.starts;
        let first = starts[0];
        buf.resize((span.end - first) as usize, 0);
        // A large span is searched in two halves at once, split where a line starts: a needle
        // holds no newline, so no hit straddles the split, and the second core is otherwise
        // idle while a person waits for a filter's first rows.
        let mut hit = if buf.len() < PARALLEL_BYTES {
            self.lines_hit(starts, buf, finder)?
        } else {
            let half = starts.len() / 2;
            let (front, back) = buf.split_at_mut((starts[half] - first) as usize);
            let (front_starts, back_starts) = starts.split_at(half);
            let (front_hit, back_hit) = std::thread::scope(|scope| {
                let back = scope.spawn(|| self.lines_hit(back_starts, back, finder));
                (self.lines_hit(front_starts, front, finder), back.join().expect("the scan's second half"))
            });
            let mut hit = front_hit?;
            hit.extend(back_hit?.into_iter().map(|i| i + half));
            hit
        };
        hit.extend_from_slice(&span.base64);
        hit.sort_unstable();
        hit.dedup();
        let rows: Vec<IndexRow> = {
            let inner = self.inner.locked();
            hit.iter().map(|&i| inner.index[span.pos + i].clone()).collect()
        };
        let mut matched = Vec::new();
        for (i, row) in hit.into_iter().zip(rows) {
            if !filter.matches_row(&row) {
                continue;
            }
            let entry = self.read_row(&row)?;
            if filter.matches_entry(&entry) {
                matched.push((i, entry));
            }
        }
        Ok(matched)
    }

    /// The lines starting at `starts` (consecutive, read into `buf`, which is exactly their
    /// length) where `finder` hits, by position, unordered and possibly repeated.
    fn lines_hit(&self, starts: &[u64], buf: &mut [u8], finder: &TextFinder) -> io::Result<Vec<usize>> {
        let first = starts[0];
        self.reader.read_exact_at(buf, first)?;
        // Searched in lower case; an entry the search hits is read again as recorded.
        buf.make_ascii_lowercase();
        // The line hit is the last one that starts at or before the hit.
        Ok(finder.hits(buf).map(|at| starts.partition_point(|&s| s - first <= at as u64) - 1).collect())
    }

    /// The span of lines from the first with seq `from` or above (below `to`, and before the
    /// next gap) that is at most [`SCAN_BYTES`] long (one line at least) and [`SCAN_ROWS`]
    /// lines, with the seq after it; `None` when no line is left below `to`.
    pub(super) fn span_from(&self, from: u64, to: u64) -> Option<(Span, u64)> {
        let inner = self.inner.locked();
        let block = inner.block(from, to, SCAN_ROWS)?;
        let start = inner.index[block.start].offset;
        let mut span =
            Span { first: block.seq, pos: block.start, starts: Vec::new(), end: start, base64: Vec::new() };
        let rows = &inner.index[block.start..block.end];
        for (i, row) in rows.iter().enumerate() {
            if i > 0 && row.offset + row.len - start > SCAN_BYTES {
                break;
            }
            span.starts.push(row.offset);
            span.end = row.offset + row.len;
            if row.base64 {
                span.base64.push(i);
            }
        }
        let stop = span.first + span.starts.len() as u64;
        Some((span, stop))
    }
}
