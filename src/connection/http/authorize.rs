//! The HTTP loop's side of OAuth: the token on every request to the server, and what happens
//! when the server refuses one. A `401`, or a `403` whose challenge says `insufficient_scope`,
//! on a request holds that request (and queues every later one) while an authorization flow
//! runs in a task of its own; the flow's outcome sends them again with the new token, or fails
//! them with the reason. One request causes at most `scope::MAX_AUTHORIZATIONS` flows, and none
//! when the token already has every scope a `403` asks for.
//!
//! Owns: the held credential, the requests waiting for a flow, and the `authorizing` state the
//! hub reads so a person's time in the browser does not count against the connect timeout.
//! Refuses: the flow's steps (`auth::flow`) and an `Authorization` header the person set
//! themselves, which is sent as they gave it and never replaced.

use std::collections::HashMap;

use super::*;
use crate::auth::discovery::parse_challenge;
use crate::auth::flow::{self, Trigger};
use crate::auth::record::{Recorder, Step};
use crate::auth::scope::Attempts;
use crate::auth::{loopback, AuthError, Authorizer, Credential};
use state::Resend;

/// A flow's result, handed back to the loop.
pub(super) type Outcome = Result<Credential, AuthError>;

pub(super) struct Auth {
    authorizer: Option<Arc<Authorizer>>,
    credential: Option<Credential>,
    waiting: Vec<Resend>,
    /// Flows caused by each request.
    attempts: HashMap<RequestId, Attempts>,
    done: Option<mpsc::UnboundedSender<Outcome>>,
    /// Whether a flow is running; the hub's connect timeout does not run meanwhile.
    running: watch::Sender<bool>,
}

impl Auth {
    /// The loop's auth state, with the credential kept for `server` from an earlier run.
    pub(super) fn new(authorizer: Option<Arc<Authorizer>>, server: &url::Url) -> Auth {
        let credential = authorizer.as_ref().and_then(|a| a.store.find(server.as_str()).ok().flatten());
        Auth {
            authorizer,
            credential,
            waiting: Vec::new(),
            attempts: HashMap::new(),
            done: None,
            running: watch::channel(false).0,
        }
    }

    pub(super) fn with_channel(mut self, done: mpsc::UnboundedSender<Outcome>) -> Auth {
        self.done = Some(done);
        self
    }

    pub(super) fn running(&self) -> watch::Receiver<bool> {
        self.running.subscribe()
    }

    pub(super) fn is_running(&self) -> bool {
        *self.running.borrow()
    }

    /// `Authorization: Bearer …` when a token is held and the person set no such header.
    pub(super) fn header(&self, user: &[crate::transport::Header]) -> Option<(String, String)> {
        let own = user.iter().any(|h| h.name.eq_ignore_ascii_case("authorization"));
        let credential = self.credential.as_ref().filter(|_| !own)?;
        Some(("Authorization".to_owned(), format!("Bearer {}", credential.access_token)))
    }
}

impl Loop {
    /// A request got `status`: takes it over when that is a refusal a flow can answer. Returns
    /// whether it did (the request then waits, and its exchange no longer decides it).
    pub(super) fn on_refused(&mut self, ex: u64, status: u16, challenge: Option<&str>) -> bool {
        let Some(authorizer) = self.auth.authorizer.clone() else { return false };
        if !matches!(status, 401 | 403)
            || self.target.headers.iter().any(|h| h.name.eq_ignore_ascii_case("authorization"))
        {
            return false;
        }
        let challenge = challenge.and_then(parse_challenge);
        let step_up = status == 403
            && challenge.as_ref().and_then(|c| c.error.as_deref()) == Some("insufficient_scope");
        if status == 403 && !step_up {
            return false;
        }
        if step_up {
            let challenged = challenge.as_ref().and_then(|c| c.scope.as_deref()).unwrap_or_default();
            let granted = self.auth.credential.as_ref().and_then(|c| c.scope.as_deref()).unwrap_or_default();
            if crate::auth::scope::covers(granted, challenged) {
                self.note(format!(
                    "HTTP 403 insufficient_scope asks for \"{challenged}\", which the token already has; \
                     authorizing again would not help"
                ));
                return false;
            }
        }
        let Some(exchange) = self.streams.exchanges.get_mut(&ex) else { return false };
        let Purpose::Request { id, method, body } = exchange.purpose.clone() else { return false };
        if let Err(why) = self.auth.attempts.entry(id.clone()).or_default().take() {
            self.note(format!("{method} {id} was refused (HTTP {status}): {why}"));
            return false;
        }
        exchange.superseded = true;
        // The person's time in the browser is not the request's: its timeout starts again when
        // it is sent with the token.
        if let Some(pending) = self.spine.pending.get_mut(&id) {
            pending.deadline = Some(Instant::now() + loopback::LOOPBACK_LIMIT + pending.timeout);
        }
        self.auth.waiting.push((id, method, body));
        if !self.auth.is_running() {
            self.start_flow(authorizer, challenge, step_up, status);
        }
        true
    }

    fn start_flow(
        &mut self,
        authorizer: Arc<Authorizer>,
        challenge: Option<crate::auth::discovery::Challenge>,
        step_up: bool,
        status: u16,
    ) {
        self.auth.running.send_replace(true);
        self.outbox.authorizing = true;
        let rec = Recorder {
            client: self.client.clone(),
            log: self.spine.log.clone(),
            conn: self.spine.conn,
            exchanges: self.streams.counter(),
            flows: authorizer.flows.clone(),
        };
        authorizer.flows.begin(self.spine.conn, self.target.url.as_str());
        let why =
            if step_up { "insufficient_scope: asking for more scopes" } else { "it asks for authorization" };
        self.note(format!("the server answered HTTP {status}: {why}"));
        let settings = self.target.auth.clone();
        let server = self.target.url.clone();
        let trigger = Trigger { challenge, step_up, held: self.auth.credential.clone() };
        let done = self.auth.done.clone().expect("set when the loop starts");
        tokio::spawn(async move {
            let outcome = flow::run(&rec, &authorizer, &settings, &server, trigger).await;
            if let Ok(credential) = &outcome {
                if let Err(e) = authorizer.store.save(credential.clone()) {
                    rec.note(Step::Token, format!("the credential was not kept for later runs: {e}"));
                }
            }
            let failed = outcome.as_ref().err().map(AuthError::to_string);
            authorizer.flows.end(rec.conn, failed.as_deref().map_or(Ok(()), Err));
            let _ = done.send(outcome);
        });
    }

    /// A flow ended: the waiting requests go again with the token, or fail with why.
    pub(super) fn on_authorized(&mut self, outcome: Outcome) {
        self.auth.running.send_replace(false);
        self.outbox.authorizing = false;
        let waiting = std::mem::take(&mut self.auth.waiting);
        match outcome {
            Ok(credential) => {
                self.auth.credential = Some(credential);
                for (id, method, body) in waiting {
                    let Some(pending) = self.spine.pending.get_mut(&id) else { continue };
                    pending.deadline = Some(Instant::now() + pending.timeout);
                    if let Ok(message) = Message::decode(&body) {
                        self.note(format!("sending {method} {id} again with the new token"));
                        self.post(message, false, Purpose::Request { id, method, body });
                    }
                }
            }
            Err(why) => {
                self.note(format!("authorization failed: {why}"));
                for (id, method, _) in waiting {
                    if let Some(pending) = self.spine.pending.remove(&id) {
                        let detail = format!("the server asks for authorization, which failed: {why}");
                        pending.fail(RequestError::Http { method, status: 401, detail });
                    }
                }
            }
        }
        self.flush_queued();
    }
}
