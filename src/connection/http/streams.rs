//! How HTTP streams end: a request's stream that ended without its reply (failed with its
//! status, or resumed with GET and `Last-Event-ID` after `retry:`), the GET stream (reopened
//! unless refused), and streams due to be resumed.

use super::*;

impl Loop {
    pub(super) fn on_end(&mut self, ex: u64, error: Option<String>) {
        if self.outbox.release(ex) {
            self.flush_queued();
        }
        let Some(exchange) = self.streams.exchanges.remove(&ex) else { return };
        if let Some(error) = &error {
            let mut entry = Entry::new(self.spine.conn, Kind::Note, Direction::Meta)
                .with_detail(format!("HTTP exchange {ex}: {error}"));
            entry.http = Some(HttpInfo { exchange: ex, ..HttpInfo::default() });
            self.spine.log.append(entry);
        }
        if exchange.superseded {
            return;
        }
        match &exchange.purpose {
            Purpose::Request { id, method, .. } => {
                self.request_stream_ended(id.clone(), method, &exchange, error)
            }
            Purpose::Resume { id: Some(id) } => {
                let method = self.spine.pending.get(id).map(|p| p.method.clone()).unwrap_or_default();
                self.request_stream_ended(id.clone(), &method, &exchange, error)
            }
            Purpose::Resume { id: None } | Purpose::Listen => self.listen_ended(&exchange),
            Purpose::Oneway { what } => {
                if let Some(status) = exchange.status.filter(|s| !(200..300).contains(s)) {
                    self.note(format!("the server refused {what} with HTTP {status}"));
                } else if let Some(error) = error {
                    self.note(format!("{what} may not have arrived: {error}"));
                }
            }
            Purpose::LegacyStream => {
                let why = match (exchange.status, error) {
                    (Some(status), _) if !(200..300).contains(&status) => {
                        format!(
                            "GET {} answered HTTP {status}: no 2024-11-05 SSE stream there",
                            shown_url(&self.target.url)
                        )
                    }
                    (_, Some(error)) => format!("the 2024-11-05 SSE stream broke: {error}"),
                    _ => "the server ended the 2024-11-05 SSE stream".to_owned(),
                };
                self.spine.fail_pending(&why);
            }
            Purpose::Delete => {
                if exchange.status.is_some_and(|s| (200..300).contains(&s)) {
                    self.note("the session was ended with DELETE".into());
                }
                self.finish_close("");
            }
        }
    }

    /// A request's stream ended. If its reply came, nothing to do. Otherwise: a refusal
    /// without a JSON-RPC body fails it with the status; a 2025-11-25 SSE stream that had an
    /// event id is resumed with GET after `retry:`; anything else fails it with what happened.
    pub(super) fn request_stream_ended(
        &mut self,
        id: RequestId,
        method: &str,
        exchange: &Exchange,
        error: Option<String>,
    ) {
        if !self.spine.pending.contains(&id) {
            return;
        }
        if self.mode == HttpMode::LegacySse && exchange.status.is_some_and(|s| (200..300).contains(&s)) {
            // 2024-11-05: the POST is only accepted; the reply comes on the GET stream.
            return;
        }
        if let Some(status) = exchange.status.filter(|s| !(200..300).contains(s)) {
            let detail = exchange.body_excerpt.clone().unwrap_or_default();
            let pending = self.spine.pending.remove(&id).expect("checked");
            pending.fail(RequestError::Http { method: method.to_owned(), status, detail });
            return;
        }
        let modern = self.spine.era == Some(Era::Modern);
        if let (false, Some(last)) = (modern, exchange.last_event_id.clone()) {
            if exchange.resumes < MAX_RESUMES {
                let wait = exchange.retry.unwrap_or(DEFAULT_RETRY);
                self.note(format!(
                    "the stream of {method} {id} ended before its reply; resuming with GET and Last-Event-ID {last} in {}",
                    duration_words(wait)
                ));
                self.streams.resumes.push(Resume {
                    at: Instant::now() + wait,
                    id: Some(id),
                    last_event_id: Some(last),
                    resumes: exchange.resumes + 1,
                });
                return;
            }
        }
        let how = match (&error, exchange.status) {
            (Some(error), _) => error.clone(),
            (None, Some(202)) => "the server accepted it (HTTP 202) but sent no reply".to_owned(),
            (None, _) => "the response ended without a reply".to_owned(),
        };
        let pending = self.spine.pending.remove(&id).expect("checked");
        pending.fail(RequestError::Unreachable { method: method.to_owned(), reason: how });
    }

    /// The GET stream ended: reopen it (resuming when it had event ids) unless the server
    /// refused it or it keeps failing at once.
    pub(super) fn listen_ended(&mut self, exchange: &Exchange) {
        if self.closed || self.closing.is_some() || exchange.status.is_some_and(|s| !(200..300).contains(&s))
        {
            return;
        }
        let streams = &mut self.streams;
        streams.listen_failures = if exchange.got_event { 0 } else { streams.listen_failures + 1 };
        if streams.listen_failures >= MAX_RESUMES {
            self.note("the GET stream keeps closing at once; not reopened".into());
            return;
        }
        let wait = exchange.retry.unwrap_or(DEFAULT_RETRY);
        self.streams.resumes.push(Resume {
            at: Instant::now() + wait,
            id: None,
            last_event_id: exchange.last_event_id.clone(),
            resumes: 0,
        });
    }

    pub(super) fn on_resumes_due(&mut self) {
        for resume in self.streams.due(Instant::now()) {
            if resume.id.as_ref().is_some_and(|id| !self.spine.pending.contains(id)) {
                continue;
            }
            let extra: Vec<(String, String)> =
                resume.last_event_id.iter().map(|last| ("Last-Event-ID".to_owned(), last.clone())).collect();
            let purpose =
                if resume.id.is_some() { Purpose::Resume { id: resume.id } } else { Purpose::Listen };
            let ex = self.start_bodiless(reqwest::Method::GET, extra, purpose);
            if let Some(exchange) = self.streams.exchanges.get_mut(&ex) {
                exchange.resumes = resume.resumes;
            }
        }
    }
}
