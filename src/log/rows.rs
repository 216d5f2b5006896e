//! The entries the file holds by row: their position among them, which a window lists them by.
//!
//! Owns: [`WireLog::rows`], [`WireLog::row_page`], [`WireLog::row_of`], [`WireLog::entry_at`] and
//! [`WireLog::visit_rows`] (the index itself, for readers that draw from it). A seq names an entry
//! wherever it went (a reply names its request's); a row is a place in the list. They differ
//! only after a gap: the entries a failed write lost keep their seqs but have no row, so a list
//! by row shows the gap as the one row of its note, never as rows that can never be read.
//! Refuses: the seq ranges and filters of [`WireLog::page`], and the gap itself (`sink`).

use std::io;

use super::{Entry, IndexRow, WireLog, INDEX_CHUNK};
use crate::sync::Lock;

impl WireLog {
    /// How many entries the file holds: the rows a list by row has.
    pub fn rows(&self) -> u64 {
        self.inner.locked().index.len() as u64
    }

    /// The entries at rows `from..from + limit` (fewer at the end).
    pub fn row_page(&self, from: u64, limit: usize) -> io::Result<Vec<Entry>> {
        // Rows still in the write buffer are read from the file, so it is written out first.
        self.flushed()?;
        let rows: Vec<_> = {
            let inner = self.inner.locked();
            let len = inner.index.len();
            let start = usize::try_from(from).unwrap_or(usize::MAX).min(len);
            inner.index[start..start.saturating_add(limit).min(len)].to_vec()
        };
        rows.iter().map(|row| self.read_row(row)).collect()
    }

    /// The row of the entry with seq `seq`, if the file holds it.
    pub fn row_of(&self, seq: u64) -> Option<u64> {
        let inner = self.inner.locked();
        inner.seqs.exact(seq, inner.index.len() as u64)
    }

    /// The entry with seq `seq`, read whole, if the file holds it.
    pub fn entry_at(&self, seq: u64) -> io::Result<Option<Entry>> {
        let Some(row) = self.row_of(seq) else { return Ok(None) };
        Ok(self.row_page(row, 1)?.pop())
    }

    /// Hands each index row from row `from` on to `visit` with its seq, a chunk at a time (the
    /// lock is let go between chunks, so appends go on), until `visit` says to stop (after that
    /// row) or none is left; returns the row after the last one visited.
    pub fn visit_rows(&self, from: u64, mut visit: impl FnMut(u64, &IndexRow) -> bool) -> u64 {
        let mut at = from;
        loop {
            let inner = self.inner.locked();
            let len = inner.index.len() as u64;
            if at >= len {
                return at;
            }
            let end = (at + INDEX_CHUNK).min(len);
            while at < end {
                let go_on = visit(inner.seqs.seq(at), &inner.index[at as usize]);
                at += 1;
                if !go_on {
                    return at;
                }
            }
        }
    }

    /// The entry at row-index `row` as the index holds it, read whole from the file.
    pub fn read_index_row(&self, row: &IndexRow) -> io::Result<Entry> {
        self.flushed()?;
        self.read_row(row)
    }
}
