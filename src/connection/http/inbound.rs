//! Receiving over HTTP: a response's head (session id, a 404 on an expired session, the GET
//! stream's 405), its body or each SSE event (primers, `endpoint`, messages), handing what a
//! reply teaches the transport to the session, and re-initializing after a session expired.

use super::*;

impl Loop {
    pub(super) fn on_event(&mut self, event: Event) {
        match event {
            Event::Head { ex, status, headers } => self.on_head(ex, status, headers),
            Event::Body { ex, bytes } => self.on_body(ex, bytes),
            Event::Sse { ex, event } => self.on_sse(ex, event),
            Event::End { ex, error } => self.on_end(ex, error),
        }
    }

    pub(super) fn on_head(&mut self, ex: u64, status: u16, headers: Vec<(String, String)>) {
        let header =
            |name: &str| headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.clone());
        let content_type = header("content-type").unwrap_or_default();
        let mut detail = format!("HTTP {status} {}", reason_phrase(status));
        if !content_type.is_empty() {
            detail.push_str(&format!(" · {content_type}"));
        }
        if (300..400).contains(&status) {
            if let Some(location) = header("location") {
                detail.push_str(&format!(
                    " · redirect to {} not followed: credentials stay with the origin",
                    shown_url_text(&location)
                ));
            }
        }
        let mut entry = Entry::new(self.spine.conn, Kind::Http, Direction::In).with_detail(detail);
        entry.http = Some(HttpInfo {
            exchange: ex,
            status: Some(status),
            headers: self.redacted(&headers),
            ..HttpInfo::default()
        });
        let Some(exchange) = self.streams.exchanges.get_mut(&ex) else {
            self.spine.log.append(entry);
            return;
        };
        exchange.status = Some(status);
        let sent_in = exchange.session.clone();
        if let Some(location) = header("location").filter(|_| (300..400).contains(&status)) {
            exchange.body_excerpt = Some(format!(
                "redirected to {}, not followed: credentials stay with the origin",
                shown_url_text(&location)
            ));
        }
        let purpose = exchange.purpose.clone();
        if let Purpose::Request { id, .. } = &purpose {
            entry.answers = self.spine.pending.get(id).map(|p| p.seq);
        }
        self.spine.log.append(entry);
        let release = self.outbox.release(ex);
        let ok = (200..300).contains(&status);
        let request = matches!(purpose, Purpose::Request { .. });
        if !ok && request && self.on_refused(ex, status, header("www-authenticate").as_deref()) {
            if release {
                self.flush_queued();
            }
            return;
        }
        match purpose {
            Purpose::Request { method, .. } if method == "initialize" && ok => {
                if let Some(session) = header("mcp-session-id") {
                    self.session.id = Some(session);
                }
            }
            // A 404 on a request sent in a session means that session expired.
            Purpose::Request { id, method, body }
                if status == 404 && method != "initialize" && sent_in.is_some() =>
            {
                self.streams.exchanges.get_mut(&ex).expect("present").superseded = true;
                self.session_expired(id, method, body, sent_in);
            }
            Purpose::Oneway { what } if what == "notifications/initialized" && ok => self.open_listen(),
            Purpose::Listen if status == 405 => self
                .note("the server offers no GET stream (HTTP 405): it can send nothing unsolicited".into()),
            Purpose::Delete if status == 405 => {
                self.note("the server does not end sessions on DELETE (HTTP 405)".into())
            }
            _ => {}
        }
        if release {
            self.flush_queued();
        }
    }

    /// A 404 on a request sent with a session: the session expired. Open a new one without
    /// the header, then send the request again (it keeps its id: ids are per session).
    /// `sent_in` is the session the request went out with: if a new one has replaced it since,
    /// the request only needs sending again.
    pub(super) fn session_expired(
        &mut self,
        id: RequestId,
        method: String,
        body: Vec<u8>,
        sent_in: Option<String>,
    ) {
        if let Some((_, waiting)) = &mut self.session.reinit {
            waiting.push((id, method, body));
            return;
        }
        if sent_in != self.session.id {
            if let Ok(message) = Message::decode(&body) {
                self.note(format!(
                    "{method} {id} went out in the expired session; sending it again in the new one"
                ));
                self.post(message, false, Purpose::Request { id, method, body });
            }
            return;
        }
        let old = self.session.id.take().unwrap_or_default();
        self.note(format!(
            "session {old} expired (HTTP 404 on {method}); initializing a new session without it"
        ));
        let init_id = self.session.next_reinit_id();
        let message = Message::request(init_id.clone(), "initialize", self.session.init_params.clone());
        let body_init = message.to_json();
        let (reply, _) = oneshot::channel();
        let purpose = Purpose::Request { id: init_id.clone(), method: "initialize".into(), body: body_init };
        self.session.version = None;
        let seq = self.post(message, false, purpose);
        let request = Request::new("initialize", None);
        let pending = Pending::new(request, seq, self.spine.options.request_timeout, reply);
        self.spine.pending.insert(init_id.clone(), pending);
        self.session.reinit = Some((init_id, vec![(id, method, body)]));
    }

    pub(super) fn on_body(&mut self, ex: u64, bytes: Vec<u8>) {
        if bytes.is_empty() {
            return;
        }
        let status = self.streams.exchanges.get(&ex).and_then(|e| e.status);
        let looks_json =
            bytes.iter().find(|b| !b.is_ascii_whitespace()).is_some_and(|b| *b == b'{' || *b == b'[');
        // An error status may carry any body (an OAuth error's JSON, say): it is a protocol
        // reply, with findings, only when it claims to be JSON-RPC.
        let failed = status.is_some_and(|s| !(200..300).contains(&s));
        if !looks_json || (failed && !claims_json_rpc(&bytes)) {
            // One line of it for the error a request fails with; the entry keeps every byte.
            let text = String::from_utf8_lossy(&bytes[..bytes.len().min(4096)]).into_owned();
            let mut excerpt = text_of(&text).split_whitespace().collect::<Vec<_>>().join(" ");
            if excerpt.chars().count() > 120 {
                excerpt = excerpt.chars().take(120).collect::<String>() + "…";
            }
            if let Some(exchange) = self.streams.exchanges.get_mut(&ex) {
                exchange.body_excerpt.get_or_insert(excerpt);
            }
            let mut entry = Entry::new(self.spine.conn, Kind::NonProtocol, Direction::In)
                .with_owned_bytes(bytes)
                .with_detail(format!("the HTTP {} body is not JSON-RPC", status.unwrap_or(0)));
            entry.http = Some(HttpInfo { exchange: ex, ..HttpInfo::default() });
            self.spine.log.append(entry);
            return;
        }
        self.on_message_bytes(ex, bytes, HttpInfo { exchange: ex, ..HttpInfo::default() });
    }

    pub(super) fn on_sse(&mut self, ex: u64, event: sse::Event) {
        let info = HttpInfo::of_event(ex, event.id.clone(), event.event.clone(), event.retry);
        let legacy_stream = if let Some(exchange) = self.streams.exchanges.get_mut(&ex) {
            exchange.got_event = true;
            if let Some(id) = &event.id {
                exchange.last_event_id = Some(id.clone());
            }
            if let Some(retry) = event.retry {
                exchange.retry = Some(Duration::from_millis(retry));
            }
            matches!(exchange.purpose, Purpose::LegacyStream)
        } else {
            false
        };
        let kind = event.event.as_deref().unwrap_or("message");
        if kind == "endpoint" && legacy_stream {
            self.on_endpoint(ex, info, event.data.unwrap_or_default());
            return;
        }
        if event.is_primer() || kind != "message" {
            let mut words = if event.is_primer() {
                "a priming event (no data)".to_owned()
            } else {
                format!("an SSE event of type {kind:?}, which carries no MCP message; ignored")
            };
            if let Some(id) = &event.id {
                words.push_str(&format!(" · id {id}"));
            }
            if let Some(retry) = event.retry {
                words.push_str(&format!(" · retry {retry} ms"));
            }
            let mut entry = Entry::new(self.spine.conn, Kind::Http, Direction::In).with_detail(words);
            if let Some(data) = event.data.filter(|d| !d.is_empty()) {
                entry = entry.with_bytes(data.as_bytes());
            }
            entry.http = Some(info);
            self.spine.log.append(entry);
            return;
        }
        self.on_message_bytes(ex, event.data.unwrap_or_default().into_bytes(), info);
    }

    /// The 2024-11-05 stream named where to POST: resolve it (same origin only, so credentials
    /// stay there) and send what was waiting.
    pub(super) fn on_endpoint(&mut self, ex: u64, info: HttpInfo, data: String) {
        let mut entry = Entry::new(self.spine.conn, Kind::Http, Direction::In).with_bytes(data.as_bytes());
        entry.http = Some(info);
        let resolved = self.target.url.join(data.trim());
        match resolved {
            Ok(url) if url.origin() == self.target.url.origin() => {
                let shown = shown_url(&url);
                self.spine.log.append(entry.with_detail(format!("endpoint: messages are POSTed to {shown}")));
                self.outbox.post_url = Some(url);
                self.flush_queued();
            }
            Ok(url) => {
                self.spine.log.append(entry.with_detail(format!(
                    "endpoint {} is on another origin: refused, so credentials stay with {}",
                    shown_url(&url),
                    self.target.url.origin().ascii_serialization()
                )));
                self.spine
                    .fail_pending(&format!("the SSE endpoint named another origin ({})", shown_url(&url)));
                if let Some(exchange) = self.streams.exchanges.get(&ex) {
                    exchange.handle.abort();
                }
            }
            Err(e) => {
                self.spine.log.append(entry.with_detail(format!("the endpoint event is not a URL: {e}")));
                self.spine.fail_pending("the SSE endpoint event was not a URL");
            }
        }
    }

    pub(super) fn on_message_bytes(&mut self, ex: u64, bytes: Vec<u8>, info: HttpInfo) {
        let inbound = classify(self.spine.conn, bytes, true);
        let mut entry = inbound.entry;
        entry.http = Some(info);
        let Some(message) = inbound.message else {
            self.spine.log.append(entry);
            return;
        };
        let (status, superseded, request_id) = match self.streams.exchanges.get(&ex) {
            Some(e) => (e.status, e.superseded, e.purpose.carries().cloned()),
            None => (None, false, None),
        };
        if superseded {
            self.spine
                .log
                .append(entry.with_detail("the reply of an expired session; the request is sent again"));
            return;
        }
        if let Some(status) = status.filter(|s| !(200..300).contains(s)) {
            entry.detail = Some(format!("HTTP {status} with a JSON-RPC body: a protocol reply"));
        }
        match message {
            Message::Response { id, outcome } => {
                // An error with id null on a request's own exchange answers that request (the
                // SDKs answer an unreadable or refused request this way, with a 4xx).
                let Some(id) = id.or_else(|| request_id.filter(|_| outcome.is_err())) else {
                    self.spine.log.append(
                        entry.with_detail("an error with id null: the server could not read a request"),
                    );
                    return;
                };
                // What a result teaches the transport comes before its caller sees it.
                if let (Ok(result), Some(pending)) = (&outcome, self.spine.pending.get(&id)) {
                    self.session.learn(&pending.method, result);
                }
                self.on_reply(entry, id.clone(), outcome);
                self.after_reply(&id);
            }
            Message::Request { id, method, params } => {
                self.on_server_request(entry, id, &method, params.as_ref())
            }
            Message::Notification { method, params } => self.on_notification(entry, &method, params.as_ref()),
        }
    }

    /// After a re-initialize's reply: say `initialized`, then send again what waited.
    pub(super) fn after_reply(&mut self, id: &RequestId) {
        if self.session.reinit.as_ref().is_none_or(|(init, _)| init != id) {
            return;
        }
        let (_, waiting) = self.session.reinit.take().expect("checked");
        if self.session.version.is_none() {
            let words = "re-initializing after the session expired failed";
            for (id, _, _) in waiting {
                if let Some(p) = self.spine.pending.remove(&id) {
                    p.fail(RequestError::Gone(words.into()));
                }
            }
            return;
        }
        let initialized = Message::notification("notifications/initialized", None);
        self.post(initialized, false, Purpose::Oneway { what: "notifications/initialized".into() });
        for (id, method, body) in waiting {
            if !self.spine.pending.contains(&id) {
                continue;
            }
            let Ok(message) = Message::decode(&body) else { continue };
            self.note(format!("sending {method} {id} again in the new session"));
            self.post(message, false, Purpose::Request { id, method, body });
        }
    }
}

/// The words of a body: an HTML error page without its tags, anything else as it is.
fn text_of(body: &str) -> String {
    if !body.trim_start().starts_with('<') {
        return body.to_owned();
    }
    let mut words = String::new();
    let mut in_tag = false;
    for c in body.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => {
                in_tag = false;
                words.push(' ');
            }
            c if !in_tag => words.push(c),
            _ => {}
        }
    }
    words
}

/// Whether `bytes` are JSON that says it is JSON-RPC: an object with `jsonrpc`, or a batch
/// holding one. Text that does not parse counts as a claim: the protocol path says what is
/// wrong with it.
fn claims_json_rpc(bytes: &[u8]) -> bool {
    let claims = |v: &serde_json::Value| v.get("jsonrpc").is_some();
    match serde_json::from_slice::<serde_json::Value>(bytes) {
        Ok(serde_json::Value::Array(items)) => items.iter().any(claims),
        Ok(v) => claims(&v),
        Err(_) => true,
    }
}

fn reason_phrase(status: u16) -> &'static str {
    reqwest::StatusCode::from_u16(status).ok().and_then(|s| s.canonical_reason()).unwrap_or("")
}

#[cfg(test)]
mod tests {
    #[test]
    fn html_error_pages_read_as_their_words() {
        let page = "<!DOCTYPE html>\n<html><head><title>Error</title></head><body><pre>Cannot POST /sse</pre></body></html>";
        let words = super::text_of(page).split_whitespace().collect::<Vec<_>>().join(" ");
        assert_eq!(words, "Error Cannot POST /sse");
        assert_eq!(super::text_of("plain <3"), "plain <3");
    }
}
