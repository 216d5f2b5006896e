//! The subscriptions a front end runs on its connections, each by number, heard until it ends
//! and stopped on request.
//!
//! Owns: running a [`Listening`] to its end (the server ended it, it was stopped, the
//! connection ended, or nobody hears it any more), telling each event as it comes, stopping it
//! properly at the end (cancel or unsubscribe) and saying how it ended.
//! Refuses: what a subscription is on the wire (`session::listen`) and where its events go
//! (the caller's `tell`).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use serde::Serialize;
use serde_json::Value;
use tokio::sync::oneshot;

use super::{Hub, HubError};
use crate::session::listen::{ListenEvent, ListenSpec, Listening};
use crate::session::notices::Notice;
use crate::sync::Lock;

/// What a subscription's follower hears.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum SubscriptionEvent {
    /// 2026-07-28: the server acknowledged, granting this.
    Acknowledged {
        granted: Value,
    },
    Change {
        notice: Box<Notice>,
    },
    /// This many log entries went by too fast to read; the wire log has them.
    Skipped {
        entries: u64,
    },
    /// It is over (the server ended it, it was stopped, or the connection ended), in words.
    Ended {
        reason: String,
    },
}

/// The subscriptions running, each with what stops it.
#[derive(Default)]
pub struct Subscriptions {
    next: AtomicU64,
    stops: Mutex<HashMap<u64, oneshot::Sender<()>>>,
}

impl Hub {
    /// Starts a subscription on connection `id`; each of its events goes to `tell` until it
    /// ends, the last one always [`SubscriptionEvent::Ended`] with why. `tell` answers false
    /// when nobody hears any more, which ends the subscription. Returns its number, for
    /// [`Hub::unsubscribe`].
    pub async fn subscribe(
        &self,
        id: u64,
        spec: ListenSpec,
        tell: impl Fn(SubscriptionEvent) -> bool + Send + Sync + 'static,
    ) -> Result<u64, HubError> {
        let listening = self.session(id)?.listen(spec).await?;
        let number = self.subscriptions.next.fetch_add(1, Ordering::Relaxed) + 1;
        let (stop, stopped) = oneshot::channel();
        self.subscriptions.stops.locked().insert(number, stop);
        let hub = self.clone();
        tokio::spawn(async move {
            let reason = run(listening, stopped, &tell).await;
            hub.subscriptions.stops.locked().remove(&number);
            tell(SubscriptionEvent::Ended { reason });
        });
        Ok(number)
    }

    /// Stops subscription `number`; its follower hears that it ended. One already over is no
    /// error.
    pub fn unsubscribe(&self, number: u64) {
        if let Some(stop) = self.subscriptions.stops.locked().remove(&number) {
            let _ = stop.send(());
        }
    }
}

/// Tells each event of `listening` until it ends or is stopped, then stops it on the wire;
/// returns how it ended, in words.
async fn run(
    mut listening: Listening,
    mut stopped: oneshot::Receiver<()>,
    tell: &impl Fn(SubscriptionEvent) -> bool,
) -> String {
    let ended = loop {
        let event = tokio::select! {
            // Both are cancellation-safe (`Listening::next` says why); a stop wins.
            _ = &mut stopped => break "stopped".to_owned(),
            event = listening.next() => event,
        };
        let event = match event {
            Some(ListenEvent::Acknowledged(granted)) => SubscriptionEvent::Acknowledged { granted },
            Some(ListenEvent::Change(notice)) => SubscriptionEvent::Change { notice },
            Some(ListenEvent::Skipped(n)) => SubscriptionEvent::Skipped { entries: n },
            Some(ListenEvent::Ended(reason)) => break reason,
            Some(ListenEvent::Failed(e)) => break e.to_string(),
            None => break "ended".to_owned(),
        };
        if !tell(event) {
            break "no one was listening any more".to_owned();
        }
    };
    match listening.stop().await {
        Ok(()) => ended,
        Err(e) => format!("{ended}; stopping it failed: {e}"),
    }
}
