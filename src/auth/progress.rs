//! Where each connection's authorization stands, step by step, for a front end to show as it
//! happens: discovery, registration, the person's authorization in the browser (with the URL,
//! so it can be opened again or copied when no browser opened), the token, then done or the
//! step that failed and why. A refresh is a flow of one step.
//!
//! Owns: [`Flow`] (the latest flow of each connection), the table of them and the broadcast of
//! every change. Refuses: the steps themselves (`flow`), which report here through the
//! recorder, and any secret: a flow holds URLs and words, never a token or a code.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use serde::Serialize;
use tokio::sync::broadcast;

use crate::feed::Feed;
use crate::sync::Lock;

/// The steps of a flow, as the log and the window name them.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Step {
    Discovery,
    Registration,
    Authorization,
    Token,
    Refresh,
}

impl Step {
    pub fn word(self) -> &'static str {
        match self {
            Step::Discovery => "discovery",
            Step::Registration => "registration",
            Step::Authorization => "authorization",
            Step::Token => "token",
            Step::Refresh => "refresh",
        }
    }
}

/// How one step went.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum StepState {
    Running,
    Done,
    Failed { reason: String },
}

#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StepView {
    pub step: Step,
    pub state: StepState,
}

/// A connection's latest authorization flow.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Flow {
    pub conn: u64,
    /// The MCP server's URL.
    pub server: String,
    /// The steps so far, in order.
    pub steps: Vec<StepView>,
    /// The authorization URL the person is sent to, while the flow waits for them.
    pub waiting_at: Option<String>,
    /// Whether the flow is over (done, or failed at its last step).
    pub over: bool,
}

/// Every connection's latest flow, and each change.
pub struct Flows {
    table: Mutex<BTreeMap<u64, Flow>>,
    changes: broadcast::Sender<Flow>,
}

impl Default for Flows {
    fn default() -> Self {
        Flows { table: Mutex::default(), changes: broadcast::channel(256).0 }
    }
}

impl Flows {
    pub fn snapshot(&self) -> Vec<Flow> {
        self.table.locked().values().cloned().collect()
    }

    /// Every change from now on.
    pub fn follow(&self) -> broadcast::Receiver<Flow> {
        self.changes.subscribe()
    }

    /// Every connection's latest flow now, then each change as it happens.
    pub fn feed(self: &Arc<Self>) -> Feed<Flow> {
        let changes = self.follow();
        let flows = self.clone();
        Feed::new(changes, move || flows.snapshot(), Some)
    }

    /// A new flow for `conn`: it replaces the connection's earlier one.
    pub fn begin(&self, conn: u64, server: &str) {
        let flow = Flow { conn, server: server.to_owned(), steps: Vec::new(), waiting_at: None, over: false };
        self.change(conn, |f| *f = flow);
    }

    /// `step` starts; the one running before it is done.
    pub fn step(&self, conn: u64, step: Step) {
        self.change(conn, |flow| {
            finish_running(flow, StepState::Done);
            flow.waiting_at = None;
            flow.steps.push(StepView { step, state: StepState::Running });
        });
    }

    /// The running step failed with `reason`; the flow goes on another way (a refresh that did
    /// not work leads to a new authorization).
    pub fn failed(&self, conn: u64, reason: &str) {
        self.change(conn, |flow| finish_running(flow, StepState::Failed { reason: reason.to_owned() }));
    }

    /// The flow waits for the person at `url`.
    pub fn waiting(&self, conn: u64, url: &str) {
        self.change(conn, |flow| flow.waiting_at = Some(url.to_owned()));
    }

    /// The flow ended: its running step is done, or failed with `reason`.
    pub fn end(&self, conn: u64, outcome: Result<(), &str>) {
        self.change(conn, |flow| {
            let state = match outcome {
                Ok(()) => StepState::Done,
                Err(reason) => StepState::Failed { reason: reason.to_owned() },
            };
            let running = flow.steps.last().is_some_and(|s| s.state == StepState::Running);
            match (running, &state, flow.steps.last_mut()) {
                (true, _, _) => finish_running(flow, state),
                // A failure with no step running is the last step's: its reason is not lost.
                (false, StepState::Failed { .. }, Some(last)) => last.state = state,
                _ => {}
            }
            flow.waiting_at = None;
            flow.over = true;
        });
    }

    fn change(&self, conn: u64, edit: impl FnOnce(&mut Flow)) {
        let mut table = self.table.locked();
        let flow = table.entry(conn).or_insert_with(|| Flow {
            conn,
            server: String::new(),
            steps: Vec::new(),
            waiting_at: None,
            over: false,
        });
        edit(flow);
        let _ = self.changes.send(flow.clone());
    }
}

fn finish_running(flow: &mut Flow, state: StepState) {
    if let Some(last) = flow.steps.last_mut().filter(|s| s.state == StepState::Running) {
        last.state = state;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_run_one_at_a_time_and_the_last_says_how_it_ended() {
        let flows = Flows::default();
        let mut changes = flows.follow();
        flows.begin(3, "http://s/mcp");
        flows.step(3, Step::Discovery);
        flows.step(3, Step::Registration);
        flows.step(3, Step::Authorization);
        flows.waiting(3, "http://as/authorize?x");
        let now = &flows.snapshot()[0];
        assert_eq!(now.waiting_at.as_deref(), Some("http://as/authorize?x"));
        assert_eq!(now.steps[0].state, StepState::Done);
        assert_eq!(now.steps[2].state, StepState::Running);
        flows.end(3, Err("the state did not come back"));
        let now = &flows.snapshot()[0];
        assert!(now.over && now.waiting_at.is_none());
        assert_eq!(now.steps[2].state, StepState::Failed { reason: "the state did not come back".into() });
        let mut seen = 0;
        while changes.try_recv().is_ok() {
            seen += 1;
        }
        assert_eq!(seen, 6, "every change is broadcast");
        flows.begin(3, "http://s/mcp");
        assert!(flows.snapshot()[0].steps.is_empty(), "a new flow replaces the old");
        // A step that failed and a flow that then ends with another reason: the last says it.
        flows.step(3, Step::Refresh);
        flows.failed(3, "invalid_grant");
        flows.end(3, Err("the server is gone"));
        assert_eq!(
            flows.snapshot()[0].steps[0].state,
            StepState::Failed { reason: "the server is gone".into() }
        );
    }
}
