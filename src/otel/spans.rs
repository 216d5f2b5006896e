//! A session's requests as OTLP spans: one per request, from its send to what settled it, and
//! one per operation (an `input_required` round trip, a task) with its requests inside.
//!
//! Owns: what each span is called and carries, after OpenTelemetry's semantic conventions for
//! MCP (`{mcp.method.name} {target}`; `mcp.method.name`, `mcp.protocol.version`,
//! `mcp.session.id`, `jsonrpc.request.id`, `gen_ai.tool.name`, `gen_ai.prompt.name`,
//! `mcp.resource.uri`, `error.type`, `rpc.response.status_code`, `network.transport`,
//! `server.address`), its kind (client for what Sonde, or the client behind `sonde proxy`,
//! asked; server for what the server asked Sonde), its status, its events (the notifications
//! that answer it: progress, log messages), and the trace it joins (the caller's, when the
//! request carried `_meta.traceparent`; the one Sonde started, with `--trace`, whose first span
//! it is). Refuses: which requests there are, how they ended and
//! which belong together (the timeline's, from the log's pairing), and redaction: every entry
//! read passes through `log::redacted` before anything is taken from it.

use std::collections::{BTreeSet, HashMap};
use std::io;

use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::{any_value, AnyValue, InstrumentationScope, KeyValue};
use opentelemetry_proto::tonic::resource::v1::Resource;
use opentelemetry_proto::tonic::trace::v1::{
    span, status::StatusCode, ResourceSpans, ScopeSpans, Span, Status,
};
use serde_json::Value;

use super::ids::Ids;
use crate::log::{redacted, secret_words, Entry, Filter, IndexRow, Kind, RequestOutcome, Rpc, WireLog};
use crate::timeline::{self, Operation, OperationKind, Timeline};
use crate::trace_context::TraceParent;

/// The longest a status message or an attribute taken from a payload is kept, in characters.
const TEXT_LIMIT: usize = 500;

/// The spans of a session, ready to be written.
pub struct Traces {
    pub request: ExportTraceServiceRequest,
    /// How many spans it holds.
    pub spans: u64,
    /// How many requests it holds spans of.
    pub requests: u64,
}

/// The spans of the requests of `log` that `filter` keeps (a request is kept when it or what
/// settled it matches), and of the operations they are part of, with every one of `secrets`
/// redacted.
pub fn traces(log: &WireLog, filter: &Filter, secrets: &[String]) -> io::Result<Traces> {
    let timeline = Timeline::of(log);
    let Some(session) = Session::of(log, secret_words(secrets), timeline.last_ms)? else {
        return Ok(Traces { request: ExportTraceServiceRequest::default(), spans: 0, requests: 0 });
    };
    let chosen = chosen(log, filter, &timeline)?;
    let events = events_of(log, &chosen);
    let mut servers = HashMap::new();
    session.learn_servers(&timeline, &mut servers)?;

    let mut batch = Batch::default();
    for s in timeline.spans().iter().filter(|s| chosen.contains(&s.seq)) {
        let events = events.get(&s.seq).map_or(&[][..], Vec::as_slice);
        batch.add(s.conn, session.request_span(s, &timeline, events, &servers)?);
    }
    let requests = batch.len();
    for op in timeline.operations() {
        if op.kind != OperationKind::Authorization && op.parts.iter().any(|p| chosen.contains(p)) {
            batch.add(op.conn, session.operation_span(op, &timeline)?);
        }
    }
    let spans = batch.len();
    Ok(Traces { request: batch.request(&timeline.connections(), &servers), spans, requests })
}

/// Spans gathered by connection, to be sent or written as one request.
#[derive(Default)]
pub(super) struct Batch {
    by_conn: HashMap<u64, Vec<Span>>,
}

impl Batch {
    pub fn add(&mut self, conn: u64, span: Span) {
        self.by_conn.entry(conn).or_default().push(span);
    }

    pub fn len(&self) -> u64 {
        self.by_conn.values().map(|v| v.len() as u64).sum()
    }

    /// The spans as one OTLP request: a resource per connection (in `order`), naming its
    /// server, each span in the order it started.
    pub fn request(mut self, order: &[u64], servers: &HashMap<u64, Server>) -> ExportTraceServiceRequest {
        let resource_spans = order
            .iter()
            .filter_map(|conn| {
                let mut list = self.by_conn.remove(conn)?;
                list.sort_by_key(|s| s.start_time_unix_nano);
                Some(ResourceSpans {
                    resource: Some(servers.get(conn).map(Server::resource).unwrap_or_default()),
                    scope_spans: vec![ScopeSpans {
                        scope: Some(scope()),
                        spans: list,
                        schema_url: String::new(),
                    }],
                    schema_url: String::new(),
                })
            })
            .collect();
        ExportTraceServiceRequest { resource_spans }
    }
}

/// Sonde, as the instrumentation that made the spans.
pub fn scope() -> InstrumentationScope {
    InstrumentationScope {
        name: "sonde".into(),
        version: env!("CARGO_PKG_VERSION").into(),
        ..InstrumentationScope::default()
    }
}

/// The requests `filter` keeps: those it matches, and those whose reply or settling note it does.
fn chosen(log: &WireLog, filter: &Filter, timeline: &Timeline) -> io::Result<BTreeSet<u64>> {
    let requests: BTreeSet<u64> = timeline.spans().iter().map(|s| s.seq).collect();
    if *filter == Filter::default() {
        return Ok(requests);
    }
    let mut chosen = BTreeSet::new();
    let mut from = 0;
    loop {
        let page = log.page(from, u64::MAX, filter, 1000)?;
        for entry in page.entries {
            if requests.contains(&entry.seq) {
                chosen.insert(entry.seq);
            } else if let Some(request) = entry.answers.filter(|r| requests.contains(r)) {
                chosen.insert(request);
            }
        }
        match page.next {
            Some(next) => from = next,
            None => return Ok(chosen),
        }
    }
}

/// The notifications that answer each chosen request (progress, and messages the transport
/// ties to it), as index rows, in order.
fn events_of(log: &WireLog, chosen: &BTreeSet<u64>) -> HashMap<u64, Vec<IndexRow>> {
    let mut events: HashMap<u64, Vec<IndexRow>> = HashMap::new();
    log.visit_rows(0, |_, row| {
        if row.kind == Kind::Message && row.rpc == Some(Rpc::Notification) {
            if let Some(request) = row.answers.filter(|r| chosen.contains(r)) {
                events.entry(request).or_default().push(row.clone());
            }
        }
        true
    });
    events
}

/// What the spans of one connection say of its server.
#[derive(Debug, Default)]
pub(super) struct Server {
    /// The saved server's name, else the program or URL.
    label: String,
    /// `serverInfo`, as the server said it when its era was decided.
    name: Option<String>,
    version: Option<String>,
    /// The version `initialize` agreed, or the one `server/discover` offered first.
    protocol: Option<String>,
}

impl Server {
    fn resource(&self) -> Resource {
        let mut attributes = vec![text("service.name", self.name.as_deref().unwrap_or(&self.label))];
        if let Some(version) = &self.version {
            attributes.push(text("service.version", version));
        }
        attributes.push(text("sonde.server", &self.label));
        Resource { attributes, ..Resource::default() }
    }
}

/// A session being turned into spans: where its times start and how its ids are made.
pub(super) struct Session<'a> {
    log: &'a WireLog,
    secrets: Vec<&'a str>,
    ids: Ids,
    /// The wall-clock time, in nanoseconds since the epoch, of the session's `ms` 0.
    base_ns: f64,
    /// The latest time in the session, where a request still waiting ends.
    last_ms: f64,
}

impl<'a> Session<'a> {
    /// The session of `log` as far as `last_ms`; `None` while it holds no entry.
    pub fn of(log: &'a WireLog, secrets: Vec<&'a str>, last_ms: f64) -> io::Result<Option<Session<'a>>> {
        let Some(first) = log.row_page(0, 1)?.pop() else { return Ok(None) };
        Ok(Some(Session::new(log, &first, secrets, last_ms)))
    }

    fn new(log: &'a WireLog, first: &Entry, secrets: Vec<&'a str>, last_ms: f64) -> Session<'a> {
        let wall = humantime::parse_rfc3339(&first.time)
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0.0, |d| d.as_nanos() as f64);
        let file = log.path().file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        Session {
            log,
            secrets,
            ids: Ids::new(format!("{}\u{0}{file}", first.time)),
            base_ns: wall - first.ms * 1e6,
            last_ms,
        }
    }

    /// Learns the server of each connection `servers` does not know yet: its label, and what
    /// it said of itself in the answer that decided its era once that has come.
    pub fn learn_servers(&self, timeline: &Timeline, servers: &mut HashMap<u64, Server>) -> io::Result<()> {
        for label in self.log.connection_labels() {
            servers.entry(label.conn).or_default().label = label.server;
        }
        // Once every connection's server has said who it is, there is nothing to look for.
        if timeline.connections().iter().all(|c| servers.get(c).is_some_and(|s| s.name.is_some())) {
            return Ok(());
        }
        for s in timeline.spans() {
            let deciding = matches!(&*s.method, "initialize" | "server/discover");
            let server = servers.entry(s.conn).or_default();
            if !deciding || s.outcome != Some(RequestOutcome::Result) || server.name.is_some() {
                continue;
            }
            let Some(reply) = s.settled_by.map(|seq| self.read(seq)).transpose()?.flatten() else { continue };
            let result = body(&reply).and_then(|b| b.get("result").cloned()).unwrap_or_default();
            let info = &result["serverInfo"];
            server.name = info["name"].as_str().map(str::to_owned);
            server.version = info["version"].as_str().map(str::to_owned);
            server.protocol = result["protocolVersion"]
                .as_str()
                .or_else(|| result["supportedVersions"].get(0).and_then(Value::as_str))
                .map(str::to_owned);
        }
        Ok(())
    }

    fn nanos(&self, ms: f64) -> u64 {
        (self.base_ns + ms * 1e6).max(0.0) as u64
    }

    /// The entry at `seq`, redacted.
    fn read(&self, seq: u64) -> io::Result<Option<Entry>> {
        Ok(self.log.entry_at(seq)?.map(|e| redacted(e, &self.secrets)))
    }

    /// The trace context the request at `seq` carried in `params._meta`, if any.
    fn carried(&self, seq: u64) -> io::Result<Option<TraceParent>> {
        Ok(self.read(seq)?.as_ref().and_then(body).as_ref().and_then(trace_parent))
    }

    /// Where the operation headed by `head` sits: its trace, and its parent in the caller's
    /// (none in a trace Sonde started for the head, whose root the operation is).
    fn operation_place(&self, head: u64) -> io::Result<(Vec<u8>, Vec<u8>, String)> {
        Ok(match self.carried(head)? {
            Some(tp) if tp.is_own() => (tp.trace_id.to_vec(), Vec::new(), tp.state.unwrap_or_default()),
            Some(tp) => (tp.trace_id.to_vec(), tp.span_id.to_vec(), tp.state.unwrap_or_default()),
            None => (self.ids.trace("operation", head).to_vec(), Vec::new(), String::new()),
        })
    }

    /// The span of request `s`, inside its operation's when it has one.
    pub fn request_span(
        &self,
        s: &timeline::Span,
        timeline: &Timeline,
        events: &[IndexRow],
        servers: &HashMap<u64, Server>,
    ) -> io::Result<Span> {
        let operation = timeline.operation_of(s.seq).filter(|o| o.kind != OperationKind::Authorization);
        let request = self.read(s.seq)?;
        let settle = s.settled_by.map(|seq| self.read(seq)).transpose()?.flatten();
        let message = request.as_ref().and_then(body).unwrap_or_default();
        let params = &message["params"];
        let carried = trace_parent(&message);
        // A trace context Sonde made for this request names this request's span itself; a
        // caller's names the span it is a child of.
        let own = carried.as_ref().filter(|tp| tp.is_own());
        let span_id = own.map_or_else(|| self.ids.span("request", s.seq).to_vec(), |tp| tp.span_id.to_vec());
        let (trace_id, parent_span_id, trace_state) = match (operation, carried) {
            (Some(op), _) => {
                let (trace, _, state) = self.operation_place(op.head)?;
                (trace, self.ids.span("operation", op.head).to_vec(), state)
            }
            (None, Some(tp)) if tp.is_own() => {
                (tp.trace_id.to_vec(), Vec::new(), tp.state.unwrap_or_default())
            }
            (None, Some(tp)) => (tp.trace_id.to_vec(), tp.span_id.to_vec(), tp.state.unwrap_or_default()),
            (None, None) => (self.ids.trace("request", s.seq).to_vec(), Vec::new(), String::new()),
        };

        let method = &*s.method;
        let target = s.target.as_deref();
        let mut attributes = vec![text("mcp.method.name", method)];
        match (method, target) {
            ("tools/call", Some(tool)) => {
                attributes.push(text("gen_ai.tool.name", tool));
                attributes.push(text("gen_ai.operation.name", "execute_tool"));
            }
            ("prompts/get", Some(prompt)) => attributes.push(text("gen_ai.prompt.name", prompt)),
            (m, Some(uri)) if m.starts_with("resources/") => attributes.push(text("mcp.resource.uri", uri)),
            _ => {}
        }
        if let Some(id) = message.get("id") {
            attributes
                .push(text("jsonrpc.request.id", &id.as_str().map_or_else(|| id.to_string(), str::to_owned)));
        }
        let protocol = params["_meta"]["io.modelcontextprotocol/protocolVersion"]
            .as_str()
            .or_else(|| servers.get(&s.conn).and_then(|sv| sv.protocol.as_deref()));
        if let Some(version) = protocol {
            attributes.push(text("mcp.protocol.version", version));
        }
        attributes.extend(transport(request.as_ref()));
        attributes.push(int("sonde.connection", s.conn));
        attributes.push(int("sonde.seq", s.seq));
        if request.as_ref().is_some_and(|r| r.probe) {
            // Sent to learn the server's era, not asked by anyone.
            attributes.push(KeyValue {
                key: "sonde.probe".into(),
                value: Some(AnyValue { value: Some(any_value::Value::BoolValue(true)) }),
                ..KeyValue::default()
            });
        }

        let (status, outcome) = self.status(s, settle.as_ref(), &mut attributes);
        attributes.push(text("sonde.outcome", outcome));
        let name = match (method, target) {
            ("tools/call" | "prompts/get", Some(target)) => format!("{method} {target}"),
            _ => method.to_owned(),
        };
        let kind = if s.from_server { span::SpanKind::Server } else { span::SpanKind::Client };
        Ok(Span {
            trace_id,
            span_id,
            trace_state,
            parent_span_id,
            name,
            kind: kind as i32,
            start_time_unix_nano: self.nanos(s.start),
            end_time_unix_nano: self.nanos(s.end.unwrap_or(self.last_ms).max(s.start)),
            attributes,
            events: events.iter().map(|row| self.event(row)).collect::<io::Result<_>>()?,
            status: Some(status),
            ..Span::default()
        })
    }

    /// The span's status (unset, but for a failure: set all the same, as a JSON `null` is not
    /// what every collector takes), with `error.type` (and the JSON-RPC code) among
    /// `attributes` when it failed, and the outcome's name.
    fn status(
        &self,
        s: &timeline::Span,
        settle: Option<&Entry>,
        attributes: &mut Vec<KeyValue>,
    ) -> (Status, &'static str) {
        let failed = |message: String| Status { message: clip(&message), code: StatusCode::Error as i32 };
        let Some(outcome) = s.outcome else { return (Status::default(), "waiting") };
        let reply = settle.and_then(body).unwrap_or_default();
        let word = outcome.name();
        match outcome {
            RequestOutcome::Result if s.is_error => {
                attributes.push(text("error.type", "tool_error"));
                let said = reply["result"]["content"]
                    .as_array()
                    .and_then(|blocks| blocks.iter().find_map(|b| b["text"].as_str()))
                    .unwrap_or("the tool answered with isError: true");
                (failed(said.to_owned()), word)
            }
            RequestOutcome::Result => (Status::default(), word),
            RequestOutcome::Error => {
                let code = settle.and_then(|e| e.summary.as_ref()).and_then(|s| s.error_code);
                let code = code.or_else(|| reply["error"]["code"].as_i64());
                if let Some(code) = code {
                    attributes.push(text("error.type", &code.to_string()));
                    attributes.push(text("rpc.response.status_code", &code.to_string()));
                } else {
                    attributes.push(text("error.type", "_OTHER"));
                }
                let said = reply["error"]["message"].as_str().unwrap_or("answered with an error");
                (failed(said.to_owned()), word)
            }
            _ => {
                attributes.push(text("error.type", word));
                let said = settle.and_then(|e| e.detail.clone()).unwrap_or_else(|| outcome.word().to_owned());
                (failed(said), word)
            }
        }
    }

    /// A notification that answers a request, as an event of its span: named by its method,
    /// with its parameters (but `_meta`) as attributes.
    fn event(&self, row: &IndexRow) -> io::Result<span::Event> {
        let entry = self.log.read_index_row(row).map(|e| redacted(e, &self.secrets))?;
        let params = body(&entry).and_then(|b| b.get("params").cloned()).unwrap_or_default();
        let attributes = params
            .as_object()
            .into_iter()
            .flatten()
            .filter(|(key, _)| key.as_str() != "_meta")
            .map(|(key, value)| KeyValue { key: key.clone(), value: Some(any(value)), ..KeyValue::default() })
            .collect();
        Ok(span::Event {
            time_unix_nano: self.nanos(row.ms),
            name: row.method.as_deref().unwrap_or("notification").to_owned(),
            attributes,
            dropped_attributes_count: 0,
        })
    }

    /// An operation as the span its requests sit in: from its first request's send to the last
    /// answer, failed when the request that ended it failed.
    pub fn operation_span(&self, op: &Operation, timeline: &Timeline) -> io::Result<Span> {
        let (trace_id, parent_span_id, trace_state) = self.operation_place(op.head)?;
        let head = timeline.span(op.head);
        let mut attributes = Vec::new();
        if let Some(head) = head {
            attributes.push(text("mcp.method.name", &head.method));
            if let (Some(tool), "tools/call") = (head.target.as_deref(), &*head.method) {
                attributes.push(text("gen_ai.tool.name", tool));
            }
        }
        attributes
            .push(text("sonde.operation", if op.kind == OperationKind::Task { "task" } else { "rounds" }));
        attributes.push(int("sonde.connection", op.conn));
        attributes.push(int("sonde.requests", op.parts.len() as u64));
        // The part that ended it: the one settled last.
        let last = op
            .parts
            .iter()
            .filter_map(|p| timeline.span(*p))
            .filter(|s| s.end.is_some())
            .max_by(|a, b| a.end.partial_cmp(&b.end).unwrap_or(std::cmp::Ordering::Equal));
        let status = match last {
            Some(last) => {
                let settle = last.settled_by.map(|seq| self.read(seq)).transpose()?.flatten();
                let (status, word) = self.status(last, settle.as_ref(), &mut attributes);
                attributes.push(text("sonde.outcome", word));
                status
            }
            None => Status::default(),
        };
        Ok(Span {
            trace_id,
            span_id: self.ids.span("operation", op.head).to_vec(),
            trace_state,
            parent_span_id,
            name: op.label.to_string(),
            kind: span::SpanKind::Internal as i32,
            start_time_unix_nano: self.nanos(op.start),
            end_time_unix_nano: self.nanos(op.end.max(op.start)),
            attributes,
            status: Some(status),
            ..Span::default()
        })
    }
}

/// The JSON-RPC message an entry holds, if it holds one.
fn body(entry: &Entry) -> Option<Value> {
    (entry.kind == Kind::Message).then(|| entry.text.as_deref().and_then(|t| serde_json::from_str(t).ok()))?
}

/// The trace context in a message's `params._meta`, as the semantic conventions place it.
pub fn trace_parent(message: &Value) -> Option<TraceParent> {
    let meta = &message["params"]["_meta"];
    TraceParent::parse(meta["traceparent"].as_str()?, meta["tracestate"].as_str())
}

/// The transport's attributes: a pipe for stdio; TCP, HTTP, the server's address and the
/// session id for Streamable HTTP.
fn transport(request: Option<&Entry>) -> Vec<KeyValue> {
    let Some(http) = request.and_then(|e| e.http.as_ref()) else {
        return vec![text("network.transport", "pipe")];
    };
    let mut out = vec![text("network.transport", "tcp"), text("network.protocol.name", "http")];
    if let Some(url) = http.url.as_deref().and_then(|u| url::Url::parse(u).ok()) {
        if let Some(host) = url.host_str() {
            out.push(text("server.address", host));
        }
        if let Some(port) = url.port_or_known_default() {
            out.push(int("server.port", u64::from(port)));
        }
    }
    if let Some((_, id)) = http.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case("mcp-session-id")) {
        out.push(text("mcp.session.id", id));
    }
    out
}

fn clip(text: &str) -> String {
    match text.char_indices().nth(TEXT_LIMIT) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

fn text(key: &str, value: &str) -> KeyValue {
    KeyValue { key: key.into(), value: Some(string(value)), ..KeyValue::default() }
}

fn int(key: &str, value: u64) -> KeyValue {
    let value = any_value::Value::IntValue(i64::try_from(value).unwrap_or(i64::MAX));
    KeyValue { key: key.into(), value: Some(AnyValue { value: Some(value) }), ..KeyValue::default() }
}

fn string(value: &str) -> AnyValue {
    AnyValue { value: Some(any_value::Value::StringValue(value.to_owned())) }
}

/// A JSON value as an attribute's: scalars as they are, anything else as its JSON text.
fn any(value: &Value) -> AnyValue {
    let v = match value {
        Value::Bool(b) => any_value::Value::BoolValue(*b),
        Value::Number(n) => match n.as_i64() {
            Some(i) => any_value::Value::IntValue(i),
            None => any_value::Value::DoubleValue(n.as_f64().unwrap_or(f64::NAN)),
        },
        Value::String(s) => any_value::Value::StringValue(clip(s)),
        other => any_value::Value::StringValue(clip(&other.to_string())),
    };
    AnyValue { value: Some(v) }
}
