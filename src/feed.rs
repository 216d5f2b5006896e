//! A table the core keeps (the connections' states, the tasks, the authorization flows, the
//! questions for the person) seen as a feed: what it holds now, then each change as it happens,
//! and what it holds again whenever the follower fell behind.
//!
//! Owns: that way of following, written once, so a front end forwards any table with one
//! function. Refuses: where the items go (a window's channel, a test's vector) and what they
//! mean; each table says what its snapshot and its changes are.

use std::future::Future;
use std::pin::Pin;

use tokio::sync::broadcast::{self, error::RecvError};

/// A table followed: [`Feed::now`] once, then [`Feed::next`] until it ends.
pub struct Feed<T> {
    source: Box<dyn Source<T>>,
}

impl<T: Send + 'static> Feed<T> {
    /// Follows `changes`; `snapshot` tells what the table holds now (read again when the
    /// follower falls behind). Subscribe before reading the snapshot, as every table's
    /// `follow` does when it builds its feed, so that no change falls between the two.
    pub fn new<S: Clone + Send + 'static>(
        changes: broadcast::Receiver<S>,
        snapshot: impl Fn() -> Vec<S> + Send + Sync + 'static,
        pick: impl Fn(S) -> Option<T> + Send + Sync + 'static,
    ) -> Feed<T> {
        Feed { source: Box::new(Broadcast { changes, snapshot, pick }) }
    }

    /// What the table holds now, as this feed shows it.
    pub fn now(&self) -> Vec<T> {
        self.source.now()
    }

    /// The next items: one change, or (after falling behind) what the table holds now, which
    /// replaces what was missed since every item is its row's whole newest version. `None`
    /// once the table is gone. Cancellation-safe: a change not yet received stays queued.
    pub async fn next(&mut self) -> Option<Vec<T>> {
        self.source.next().await
    }

    /// A feed of something that is followed rather than kept as a table (the log's notices):
    /// nothing now, then each item `next` gives, until it gives `None`.
    pub fn of_source(source: impl Source<T> + 'static) -> Feed<T> {
        Feed { source: Box::new(source) }
    }

    /// A feed of what `pick` keeps of this one's items, rewritten as it says.
    pub fn filter_map<U: Send + 'static>(
        self,
        pick: impl Fn(T) -> Option<U> + Send + Sync + 'static,
    ) -> Feed<U> {
        Feed { source: Box::new(Mapped { inner: self.source, pick }) }
    }
}

/// The next items of a source, or `None` at its end.
pub type Next<'a, T> = Pin<Box<dyn Future<Output = Option<Vec<T>>> + Send + 'a>>;

/// What a feed follows: a table with its changes, or anything else that gives items in turn.
pub trait Source<T>: Send {
    /// What it holds now (empty for what keeps nothing).
    fn now(&self) -> Vec<T>;
    /// The next items; cancellation-safe.
    fn next(&mut self) -> Next<'_, T>;
}

struct Broadcast<S, F, P> {
    changes: broadcast::Receiver<S>,
    snapshot: F,
    pick: P,
}

impl<S, T, F, P> Source<T> for Broadcast<S, F, P>
where
    S: Clone + Send + 'static,
    T: Send + 'static,
    F: Fn() -> Vec<S> + Send + Sync + 'static,
    P: Fn(S) -> Option<T> + Send + Sync + 'static,
{
    fn now(&self) -> Vec<T> {
        (self.snapshot)().into_iter().filter_map(&self.pick).collect()
    }

    fn next(&mut self) -> Next<'_, T> {
        Box::pin(async move {
            loop {
                match self.changes.recv().await {
                    Ok(item) => {
                        if let Some(item) = (self.pick)(item) {
                            return Some(vec![item]);
                        }
                    }
                    Err(RecvError::Lagged(_)) => return Some(self.now()),
                    Err(RecvError::Closed) => return None,
                }
            }
        })
    }
}

struct Mapped<T, P> {
    inner: Box<dyn Source<T>>,
    pick: P,
}

impl<T, U, P> Source<U> for Mapped<T, P>
where
    T: Send + 'static,
    U: Send + 'static,
    P: Fn(T) -> Option<U> + Send + Sync + 'static,
{
    fn now(&self) -> Vec<U> {
        self.inner.now().into_iter().filter_map(&self.pick).collect()
    }

    fn next(&mut self) -> Next<'_, U> {
        Box::pin(async move {
            loop {
                let items: Vec<U> = self.inner.next().await?.into_iter().filter_map(&self.pick).collect();
                if !items.is_empty() {
                    return Some(items);
                }
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use crate::sync::Lock;

    use super::*;

    /// A row and its version.
    type Row = (u32, u32);

    /// A table of rows that tells its followers each change.
    fn table(capacity: usize) -> (Arc<Mutex<Vec<Row>>>, broadcast::Sender<Row>) {
        (Arc::default(), broadcast::channel(capacity).0)
    }

    #[tokio::test]
    async fn a_feed_gives_the_table_then_each_change_then_the_table_again_when_behind() {
        let (rows, changes) = table(2);
        let put = |row: (u32, u32)| {
            let mut all = rows.locked();
            all.retain(|r| r.0 != row.0);
            all.push(row);
            let _ = changes.send(row);
        };
        put((1, 1));
        let held = rows.clone();
        let mut feed = Feed::new(changes.subscribe(), move || held.locked().clone(), Some);
        assert_eq!(feed.now(), [(1, 1)]);
        put((2, 1));
        assert_eq!(feed.next().await, Some(vec![(2, 1)]));
        // Four changes into a queue of two: the follower hears the whole table instead.
        for version in 2..6 {
            put((1, version));
        }
        assert_eq!(feed.next().await, Some(vec![(2, 1), (1, 5)]));
        drop(changes);
        assert_eq!(feed.next().await, Some(vec![(1, 4)]), "what was queued still comes");
        assert_eq!(feed.next().await, Some(vec![(1, 5)]));
        assert_eq!(feed.next().await, None, "the table is gone");
    }

    #[tokio::test]
    async fn a_filtered_feed_keeps_only_what_it_asks_for_in_the_table_and_the_changes() {
        let (rows, changes) = table(8);
        rows.locked().extend([(1, 1), (2, 1)]);
        let held = rows.clone();
        let feed = Feed::new(changes.subscribe(), move || held.locked().clone(), Some);
        let mut ones = feed.filter_map(|(row, version)| (row == 1).then_some(version * 10));
        assert_eq!(ones.now(), [10]);
        changes.send((2, 2)).unwrap();
        changes.send((1, 3)).unwrap();
        assert_eq!(ones.next().await, Some(vec![30]), "row 2's change is skipped, not given empty");
    }
}
