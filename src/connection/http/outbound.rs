//! Sending over HTTP: the POST of each message with its headers (the 2025-11-25 session and
//! version, or the 2026-07-28 `_meta` mirror, and the user's), bodiless GET and DELETE, messages
//! held back until the 2024-11-05 endpoint is known or the GET stream is open, and the record of
//! each request with secret header values redacted.

use super::*;

impl Loop {
    /// Records a message and POSTs it. Returns the seq of its entry. A message waits (recorded
    /// as queued) while the 2024-11-05 endpoint is unknown or `notifications/initialized` is
    /// still on its way, so the server never sees a request before it.
    pub(super) fn post(&mut self, message: Message, probe: bool, purpose: Purpose) -> u64 {
        if let Some(why) = self.outbox.held() {
            let seq = self.record_out(&message, probe, None, &[], why);
            self.outbox.queued.push((message, purpose));
            return seq;
        }
        let (ex, url, headers) = self.prepare(&message);
        let seq = self.record_out(&message, probe, Some((ex, &url)), &headers, "");
        self.launch(ex, url, headers, message, purpose);
        seq
    }

    /// A message that waited goes out now; its entry was recorded when it was queued, so an
    /// HTTP entry records the POST itself.
    pub(super) fn post_queued(&mut self, message: Message, purpose: Purpose) {
        let (ex, url, headers) = self.prepare(&message);
        let what = message.method().unwrap_or("reply").to_owned();
        let mut entry = Entry::new(self.spine.conn, Kind::Http, Direction::Out)
            .with_detail(format!("POST {}: sending the queued {what}", shown_url(&url)));
        entry.http = Some(HttpInfo {
            exchange: ex,
            method: Some("POST".into()),
            url: Some(shown_url(&url)),
            headers: self.redacted(&headers),
            ..HttpInfo::default()
        });
        self.spine.log.append(entry);
        self.launch(ex, url, headers, message, purpose);
    }

    /// The exchange number, URL and headers of a POST of this message.
    pub(super) fn prepare(&mut self, message: &Message) -> (u64, url::Url, Vec<(String, String)>) {
        let url = self.outbox.post_url.clone().expect("known before anything is posted");
        let mut headers = vec![
            ("Content-Type".to_owned(), "application/json".to_owned()),
            ("Accept".to_owned(), "application/json, text/event-stream".to_owned()),
        ];
        let mirrored = self.session.mirror(message);
        if mirrored.is_empty() {
            headers.extend(self.session.headers(message.method() == Some("initialize")));
        }
        headers.extend(mirrored);
        headers.extend(self.user_headers());
        headers.extend(self.auth.header(&self.target.headers));
        (self.streams.next_ex(), url, headers)
    }

    pub(super) fn launch(
        &mut self,
        ex: u64,
        url: url::Url,
        headers: Vec<(String, String)>,
        message: Message,
        purpose: Purpose,
    ) {
        if self.mode == HttpMode::Streamable && message.method() == Some("notifications/initialized") {
            self.outbox.gate = Some(ex);
        }
        let body = Some(message.to_json());
        self.start_exchange(Outgoing { ex, method: reqwest::Method::POST, url, headers, body }, purpose);
    }

    /// Sends what waited, once nothing holds it back. A request whose caller has gone
    /// meanwhile is not sent, and no longer waited on.
    pub(super) fn flush_queued(&mut self) {
        for (message, purpose) in std::mem::take(&mut self.outbox.queued) {
            if let Purpose::Request { id, method, .. } = &purpose {
                if self.spine.pending.get(id).is_some_and(|p| p.reply.is_closed()) {
                    self.spine.pending.remove(id);
                    self.spine.not_sent(id, method, "the caller had gone (it stopped waiting)");
                    continue;
                }
            }
            if self.outbox.held().is_none() {
                self.post_queued(message, purpose);
            } else {
                self.outbox.queued.push((message, purpose));
            }
        }
    }

    pub(super) fn user_headers(&self) -> Vec<(String, String)> {
        self.target.headers.iter().map(|h| (h.name.clone(), h.value.clone())).collect()
    }

    pub(super) fn record_out(
        &self,
        message: &Message,
        probe: bool,
        http: Option<(u64, &url::Url)>,
        headers: &[(String, String)],
        queued: &str,
    ) -> u64 {
        let mut entry = with_summary(
            Entry::new(self.spine.conn, Kind::Message, Direction::Out)
                .with_owned_bytes(message.to_json())
                .json_frame(),
            message,
        );
        entry.probe = probe;
        self.spine.mark_out(&mut entry, message);
        match http {
            Some((ex, url)) => {
                entry.http = Some(HttpInfo {
                    exchange: ex,
                    method: Some("POST".into()),
                    url: Some(shown_url(url)),
                    headers: self.redacted(headers),
                    ..HttpInfo::default()
                })
            }
            None => entry.detail = Some(queued.to_owned()),
        }
        self.spine.log.append(entry)
    }

    /// Headers as recorded: the values of secret ones (and those the user marked) are replaced.
    pub(super) fn redacted(&self, headers: &[(String, String)]) -> Vec<(String, String)> {
        crate::transport::recorded_headers(headers, |name| {
            self.target.headers.iter().any(|h| h.secret && h.name.eq_ignore_ascii_case(name))
        })
    }

    pub(super) fn start_exchange(&mut self, out: Outgoing, purpose: Purpose) {
        let ex = out.ex;
        let cap = self.spine.options.max_line;
        let mut timeouts = self.target.timeouts;
        // Streams that exist to wait (the GET stream, a subscription) may be silent for as long
        // as nothing happens; the idle timeout is for streams that owe a reply.
        let waits = match &purpose {
            Purpose::Listen | Purpose::Resume { id: None } => true,
            Purpose::Request { method, .. } => method == crate::connection::pending::LISTEN,
            _ => false,
        };
        if waits {
            timeouts.idle = Duration::from_secs(365 * 24 * 3600);
        }
        let handle = exchange::start(&self.client, out, timeouts, cap, self.streams.events.clone());
        let exchange = Exchange::new(purpose, handle, self.session.id.clone());
        self.streams.exchanges.insert(ex, exchange);
    }

    /// A GET (the listen stream, a resume, the 2024-11-05 stream) or a DELETE, recorded as an
    /// HTTP entry since it has no JSON-RPC body.
    pub(super) fn start_bodiless(
        &mut self,
        method: reqwest::Method,
        extra: Vec<(String, String)>,
        purpose: Purpose,
    ) -> u64 {
        let url = self.target.url.clone();
        let mut headers = Vec::new();
        if method == reqwest::Method::GET {
            headers.push(("Accept".to_owned(), "text/event-stream".to_owned()));
        }
        headers.extend(self.session.headers(false));
        headers.extend(extra);
        headers.extend(self.user_headers());
        headers.extend(self.auth.header(&self.target.headers));
        let ex = self.streams.next_ex();
        let mut entry = Entry::new(self.spine.conn, Kind::Http, Direction::Out)
            .with_detail(format!("{method} {}", shown_url(&url)));
        entry.http = Some(HttpInfo {
            exchange: ex,
            method: Some(method.to_string()),
            url: Some(shown_url(&url)),
            headers: self.redacted(&headers),
            ..HttpInfo::default()
        });
        self.spine.log.append(entry);
        self.start_exchange(Outgoing { ex, method, url, headers, body: None }, purpose);
        ex
    }

    /// Opens the GET stream once `initialized` is accepted, and holds requests until its head
    /// arrives: a server request sent to a stream that is not open yet is lost.
    pub(super) fn open_listen(&mut self) {
        if self.mode == HttpMode::Streamable && !self.closed && self.closing.is_none() {
            let ex = self.start_bodiless(reqwest::Method::GET, Vec::new(), Purpose::Listen);
            self.outbox.gate = Some(ex);
        }
    }
}
