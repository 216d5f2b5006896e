//! Following a live session: entries as they are appended, and the batches a window wants.
//!
//! Owns: [`Follow`] (one subscriber's stream of entries, with the entries it missed counted,
//! never silently dropped) and [`Follow::batches`], which gathers them into [`LogBatch`]es on a
//! fixed beat so a fast server cannot flood a window with one message per frame.
//! Refuses: where batches go; the caller hands them to its channel or printer.

use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;
use tokio::sync::broadcast::{self, error::RecvError, error::TryRecvError};

use super::Entry;

/// What a follower gets next.
#[derive(Debug, Clone, PartialEq)]
pub enum Followed {
    /// An entry, and its row: its position among the entries the file holds, by which a
    /// window lists them; none for an entry the file did not take (see [`super::Recording`]).
    Entry(Arc<Entry>, Option<u64>),
    /// This many entries went by faster than the follower read them; a reader pages them.
    Skipped(u64),
}

/// Entries appended to a log from the moment [`super::WireLog::follow`] was called.
pub struct Follow {
    live: broadcast::Receiver<Streamed>,
}

/// An entry as it is streamed, with its row (see [`Followed::Entry`]).
pub(super) type Streamed = (Arc<Entry>, Option<u64>);

/// Entries as they were appended, gathered over one beat.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct LogBatch {
    pub entries: Vec<Entry>,
    /// Each entry's row: its position among the entries the file holds, which a window lists
    /// them by; null for an entry the file did not take (the session log had stopped).
    pub rows: Vec<Option<u64>>,
    /// Entries that went by too fast to stream; the UI reads them by page.
    pub skipped: u64,
    /// The log will grow no more (a past session whose writer is gone, or a log dropped): this
    /// is the last batch.
    pub ended: bool,
}

impl LogBatch {
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty() && self.skipped == 0
    }
}

impl Follow {
    pub(super) fn new(live: broadcast::Receiver<Streamed>) -> Follow {
        Follow { live }
    }

    /// The next entry, or how many were missed; `None` once the log is gone.
    ///
    /// Cancellation-safe, as a broadcast receive is: dropped unfinished inside `select!`, it
    /// loses nothing.
    pub async fn next(&mut self) -> Option<Followed> {
        match self.live.recv().await {
            Ok((entry, row)) => Some(Followed::Entry(entry, row)),
            Err(RecvError::Lagged(n)) => Some(Followed::Skipped(n)),
            Err(RecvError::Closed) => None,
        }
    }

    /// Like [`Follow::next`] without waiting: `None` when nothing more has been appended yet.
    pub fn try_next(&mut self) -> Option<Followed> {
        match self.live.try_recv() {
            Ok((entry, row)) => Some(Followed::Entry(entry, row)),
            Err(TryRecvError::Lagged(n)) => Some(Followed::Skipped(n)),
            Err(TryRecvError::Empty | TryRecvError::Closed) => None,
        }
    }

    /// Gathers entries into batches and hands each non-empty one to `send` every `beat`, until
    /// `send` returns false (its receiver is gone) or the log ends (it is dropped, or it is a
    /// past session whose writer is gone). The last batch, with what was still gathered, says
    /// that it is the last.
    pub async fn batches(mut self, beat: Duration, mut send: impl FnMut(LogBatch) -> bool) {
        let mut batch = LogBatch::default();
        let mut beat = tokio::time::interval(beat);
        loop {
            tokio::select! {
                // Both branches are cancellation-safe: `next` loses nothing when dropped
                // unfinished, and a missed tick is simply the next one.
                followed = self.next() => match followed {
                    Some(Followed::Entry(entry, row)) => {
                        batch.entries.push((*entry).clone());
                        batch.rows.push(row);
                    }
                    Some(Followed::Skipped(n)) => batch.skipped += n,
                    None => {
                        send(LogBatch { ended: true, ..batch });
                        return;
                    }
                },
                _ = beat.tick() => {
                    if !batch.is_empty() && !send(std::mem::take(&mut batch)) {
                        return;
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Direction, Kind, WireLog};
    use super::*;

    fn log(name: &str) -> Arc<WireLog> {
        let dir = std::env::temp_dir().join(format!("sonde-follow-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        WireLog::create_in(&dir).unwrap()
    }

    fn note(i: usize) -> Entry {
        Entry::new(1, Kind::Note, Direction::Meta).with_detail(format!("note {i}"))
    }

    #[tokio::test]
    async fn batches_carry_every_entry_in_order_and_end_with_the_log() {
        let log = log("order");
        let follow = log.follow();
        for i in 0..5 {
            log.append(note(i));
        }
        drop(log);
        let mut got = Vec::new();
        follow
            .batches(Duration::from_millis(1), |b| {
                got.push(b);
                true
            })
            .await;
        let seqs: Vec<u64> = got.iter().flat_map(|b| b.entries.iter().map(|e| e.seq)).collect();
        // The last is the end-of-session entry dropping the log wrote.
        assert_eq!(seqs, [0, 1, 2, 3, 4, 5]);
        let last = got.iter().flat_map(|b| &b.entries).last().unwrap();
        assert_eq!(last.detail.as_deref(), Some("the session ended: 5 entries"));
        assert!(got.iter().all(|b| b.skipped == 0));
        assert_eq!(
            got.iter().map(|b| b.ended).collect::<Vec<_>>().last(),
            Some(&true),
            "the last batch says so"
        );
        assert_eq!(got.iter().filter(|b| b.ended).count(), 1);
    }

    #[tokio::test]
    async fn entries_that_go_by_too_fast_are_counted_not_lost() {
        let log = log("lag");
        let follow = log.follow();
        let total = 5000;
        for i in 0..total {
            log.append(note(i));
        }
        drop(log);
        let (mut streamed, mut skipped) = (0, 0);
        follow
            .batches(Duration::from_millis(1), |b| {
                streamed += b.entries.len() as u64;
                skipped += b.skipped;
                true
            })
            .await;
        assert!(skipped > 0, "more entries than the live buffer holds were appended unread");
        // And the end-of-session entry.
        assert_eq!(streamed + skipped, total as u64 + 1);
    }

    #[tokio::test]
    async fn a_follower_whose_receiver_is_gone_stops() {
        let log = log("gone");
        let follow = log.follow();
        log.append(note(0));
        let mut sent = 0;
        follow
            .batches(Duration::from_millis(1), |_| {
                sent += 1;
                false
            })
            .await;
        assert_eq!(sent, 1);
        assert_eq!(log.len(), 1, "the log is still there: the follower stopped on its own");
    }
}
