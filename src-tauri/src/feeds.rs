//! The window follows the core's tables (connection states, tasks, authorization flows, server
//! questions) through one function: what a table holds now, then each change on a channel.
//!
//! Owns: forwarding a core [`Feed`] to a window's channel on the app's runtime, until the
//! window stops listening or the table is gone.
//! Refuses: what the items are, and falling behind (the feed gives the table again).

use serde::Serialize;
use sonde_core::Feed;
use tauri::ipc::Channel;

/// Sends each change of `feed` to `channel` as it happens; returns what the table holds now,
/// which the command gives back to the window as its answer.
pub fn forward<T>(feed: Feed<T>, channel: Channel<T>) -> Vec<T>
where
    T: Serialize + Send + 'static,
{
    let now = feed.now();
    spawn(feed, channel, Vec::new());
    now
}

/// Like [`forward`] for a command that answers nothing: what the table holds now is the first
/// thing the channel hears.
pub fn stream<T>(feed: Feed<T>, channel: Channel<T>)
where
    T: Serialize + Send + 'static,
{
    let now = feed.now();
    spawn(feed, channel, now);
}

fn spawn<T>(mut feed: Feed<T>, channel: Channel<T>, first: Vec<T>)
where
    T: Serialize + Send + 'static,
{
    tauri::async_runtime::spawn(async move {
        let mut items = first;
        loop {
            if items.into_iter().any(|item| channel.send(item).is_err()) {
                return;
            }
            match feed.next().await {
                Some(next) => items = next,
                None => return,
            }
        }
    });
}
