//! Subscriptions of both eras, and the clock that feeds them.
//!
//! 2025-11-25: `resources/subscribe` / `unsubscribe` for the session; list changes go out
//! unprompted. 2026-07-28: each `subscriptions/listen` request is a stream, acknowledged first
//! (with the subset granted), every notification on it tagged with its id as
//! `subscriptionId`; it ends when the client cancels it or stdin closes. Several streams may
//! run at once.
//!
//! While anyone is subscribed to `demo://clock`, one clock thread ticks every 2 s and tells
//! every subscriber (`notifications/resources/updated`), so two streams see the same ticks.
//!
//! Owns: who is subscribed to what, the tick count, and sending changes to them. Refuses:
//! reading resources (`resources`) and deciding when lists change (`touch` asks).

use std::collections::BTreeSet;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::resources::{self, CLOCK};
use crate::{notify, Fault, Out};

const TICK: Duration = Duration::from_secs(2);
const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

/// How many listeners each kind of list change reached.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub struct Touched {
    pub resources: usize,
    pub prompts: usize,
}

/// A 2026-07-28 listen stream and what it was granted.
#[derive(Debug, Clone, PartialEq)]
struct Listen {
    /// The listen request's id, JSON type kept: it tags the stream's notifications.
    id: Value,
    resources_list: bool,
    prompts_list: bool,
    uris: Vec<String>,
}

impl Listen {
    /// What a listen request asks for, cut to what this server honours: list changes of
    /// resources and prompts (tools never change) and updates of resources that exist.
    fn granted(id: Value, params: &Value) -> Result<Listen, Fault> {
        let asked = params
            .get("notifications")
            .filter(|n| n.is_object())
            .ok_or_else(|| Fault::invalid("subscriptions/listen needs params.notifications, an object"))?;
        let uris = asked["resourceSubscriptions"].as_array().into_iter().flatten().filter_map(Value::as_str);
        Ok(Listen {
            id,
            resources_list: asked["resourcesListChanged"] == json!(true),
            prompts_list: asked["promptsListChanged"] == json!(true),
            uris: uris.filter(|u| resources::exists(u)).map(str::to_owned).collect(),
        })
    }

    /// The acknowledgement's `notifications`: only what was granted.
    fn acknowledged(&self) -> Value {
        let mut granted = json!({});
        if self.resources_list {
            granted["resourcesListChanged"] = json!(true);
        }
        if self.prompts_list {
            granted["promptsListChanged"] = json!(true);
        }
        if !self.uris.is_empty() {
            granted["resourceSubscriptions"] = json!(self.uris);
        }
        granted
    }
}

#[derive(Default)]
struct State {
    ticks: u64,
    /// 2025-11-25: the URIs the session subscribed to.
    subscribed: BTreeSet<String>,
    listens: Vec<Listen>,
    closed: bool,
}

impl State {
    fn clock_wanted(&self) -> bool {
        self.subscribed.contains(CLOCK) || self.listens.iter().any(|l| l.uris.iter().any(|u| u == CLOCK))
    }
}

/// Every subscription of the process. Notifications are sent while the state is locked, so a
/// stream's acknowledgement always precedes its updates and a cancelled stream hears no more.
pub struct Streams {
    out: Out,
    state: Mutex<State>,
    wake: Condvar,
}

/// The params of a notification on a stream (`Some(id)`) or to the 2025-11-25 session.
fn tagged(mut params: Value, stream: Option<&Value>) -> Value {
    if let Some(id) = stream {
        params["_meta"] = json!({ SUBSCRIPTION_ID: id });
    }
    params
}

impl Streams {
    /// The streams, with the clock thread waiting for a subscriber.
    pub fn start(out: Out) -> Arc<Streams> {
        let streams = Arc::new(Streams { out, state: Mutex::default(), wake: Condvar::new() });
        let clock = streams.clone();
        std::thread::spawn(move || clock.run_clock());
        streams
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        crate::locked(&self.state)
    }

    /// Updates of the clock so far.
    pub fn ticks(&self) -> u64 {
        self.lock().ticks
    }

    /// 2025-11-25 `resources/subscribe` (`on`) or `resources/unsubscribe`.
    pub fn subscribe(&self, uri: &str, on: bool) {
        let mut state = self.lock();
        if on {
            state.subscribed.insert(uri.to_owned());
        } else {
            state.subscribed.remove(uri);
        }
        self.wake.notify_all();
    }

    /// 2026-07-28 `subscriptions/listen`: acknowledges the stream and adds it.
    pub fn listen(&self, id: Value, params: &Value) -> Result<(), Fault> {
        let listen = Listen::granted(id, params)?;
        let mut state = self.lock();
        let ack = json!({ "notifications": listen.acknowledged() });
        notify(&self.out, "notifications/subscriptions/acknowledged", tagged(ack, Some(&listen.id)));
        state.listens.push(listen);
        self.wake.notify_all();
        Ok(())
    }

    /// A `notifications/cancelled` for `request`: ends the listen stream it names, if any.
    /// The stream is not answered: the client that cancelled it reads no reply.
    pub fn cancel(&self, request: &Value) {
        let mut state = self.lock();
        state.listens.retain(|l| &l.id != request);
        self.wake.notify_all();
    }

    /// The client is gone: nothing more is sent, and the clock stops.
    pub fn close(&self) {
        let mut state = self.lock();
        state.closed = true;
        state.subscribed.clear();
        state.listens.clear();
        self.wake.notify_all();
    }

    /// Sends `list_changed` for resources and prompts: to the 2025-11-25 session unprompted,
    /// in 2026-07-28 to each stream that opted in.
    pub fn touch(&self, modern: bool) -> Touched {
        let state = self.lock();
        if state.closed {
            return Touched::default();
        }
        let send = |list: &str, stream: Option<&Value>| {
            notify(&self.out, &format!("notifications/{list}/list_changed"), tagged(json!({}), stream));
        };
        if !modern {
            send("resources", None);
            send("prompts", None);
            return Touched { resources: 1, prompts: 1 };
        }
        let mut touched = Touched::default();
        for listen in &state.listens {
            if listen.resources_list {
                send("resources", Some(&listen.id));
                touched.resources += 1;
            }
            if listen.prompts_list {
                send("prompts", Some(&listen.id));
                touched.prompts += 1;
            }
        }
        touched
    }

    /// The clock: idle while nobody is subscribed to it; otherwise, every 2 s, one more tick and
    /// an update to each subscriber. Ends when the streams close.
    fn run_clock(&self) {
        let mut state = self.lock();
        loop {
            state = self.wake.wait_while(state, |s| !s.closed && !s.clock_wanted()).unwrap();
            let due = Instant::now() + TICK;
            // Subscriptions may come and go during the wait; each change wakes it early.
            while let Some(left) = due.checked_duration_since(Instant::now()).filter(|d| !d.is_zero()) {
                if state.closed {
                    return;
                }
                state = self.wake.wait_timeout(state, left).unwrap().0;
            }
            if state.closed {
                return;
            }
            if !state.clock_wanted() {
                continue;
            }
            state.ticks += 1;
            let updated = json!({ "uri": CLOCK });
            if state.subscribed.contains(CLOCK) {
                notify(&self.out, "notifications/resources/updated", updated.clone());
            }
            for listen in state.listens.iter().filter(|l| l.uris.iter().any(|u| u == CLOCK)) {
                notify(
                    &self.out,
                    "notifications/resources/updated",
                    tagged(updated.clone(), Some(&listen.id)),
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_listen_is_granted_the_lists_that_change_and_the_resources_that_exist() {
        let params = json!({"notifications": {"toolsListChanged": true, "resourcesListChanged": true,
                                              "promptsListChanged": false,
                                              "resourceSubscriptions": [CLOCK, "demo://nope", "demo://greeting/Ada"]}});
        let listen = Listen::granted(json!("7"), &params).unwrap();
        assert_eq!(
            listen.acknowledged(),
            json!({"resourcesListChanged": true, "resourceSubscriptions": [CLOCK, "demo://greeting/Ada"]})
        );
        assert_eq!(Listen::granted(json!(1), &json!({})).unwrap_err().code, -32602);
    }

    #[test]
    fn stream_notifications_carry_the_listen_id_with_its_json_type() {
        assert_eq!(tagged(json!({"uri": CLOCK}), Some(&json!(3)))["_meta"][SUBSCRIPTION_ID], json!(3));
        assert_eq!(tagged(json!({"uri": CLOCK}), Some(&json!("3")))["_meta"][SUBSCRIPTION_ID], json!("3"));
        assert_eq!(tagged(json!({}), None), json!({}));
    }
}
