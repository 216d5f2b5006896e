//! A session's HTTP exchanges as HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/),
//! which browser developer tools and HAR viewers open.
//!
//! Each exchange (one HTTP request and its response, the entries sharing a connection and an
//! `HttpInfo::exchange`) is one HAR entry: the request's method, URL, headers and body; the
//! response's status, headers and body, or for an event stream its events written back as
//! `text/event-stream` wire text; times from the entries' clocks. A filter chooses exchanges:
//! one any of whose entries it matches is exported whole. Every entry is [`redacted`] first.
//! Sonde's own facts go in fields HAR leaves to tools (`_sondeConnection`, `_sondeExchange`,
//! `_sondeSeqs`, `_sondeOutcome` for an exchange that got no response or broke off).
//!
//! Owns: the HAR document. Refuses: entries outside HTTP exchanges (stderr, lifecycle, stdio
//! frames: JSONL and HTML carry those), and what was never recorded (the HTTP version, cookies,
//! sizes of headers, DNS and connect times: HAR's "not known" where it has one).

use std::collections::{BTreeSet, HashMap};
use std::io::{BufWriter, Write};
use std::path::Path;

use serde_json::{json, Value};

use super::export::{redacted, secret_words, ExportError};
use super::{Direction, Entry, Filter, WireLog};

/// One exchange's place: its connection and number.
type Key = (u64, u64);

/// Writes the HTTP exchanges that have an entry matching `filter` to `path` (0600) as HAR 1.2,
/// with every one of `secrets` redacted; returns how many exchanges were written. Entries of
/// no HTTP exchange (a stdio session) are an error, and then no file is created.
pub fn export_har(
    log: &WireLog,
    filter: &Filter,
    secrets: &[String],
    path: &Path,
) -> Result<u64, ExportError> {
    let chosen = chosen(log, filter)?;
    let secrets = secret_words(secrets);
    let mut exchanges: Vec<Vec<Entry>> = Vec::new();
    let mut at: HashMap<Key, usize> = HashMap::new();
    each_entry(log, &Filter::default(), |entry| {
        let Some(key) = key_of(&entry).filter(|k| chosen.contains(k)) else { return };
        let i = *at.entry(key).or_insert_with(|| {
            exchanges.push(Vec::new());
            exchanges.len() - 1
        });
        exchanges[i].push(redacted(entry, &secrets));
    })?;
    let name = log.path().file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let har = json!({
        "log": {
            "version": "1.2",
            "creator": {"name": "Sonde", "version": env!("CARGO_PKG_VERSION")},
            "entries": exchanges.iter().map(|e| har_entry(e)).collect::<Vec<_>>(),
            "comment": format!("the HTTP exchanges of the Sonde session {name}"),
        }
    });
    let mut out = BufWriter::new(crate::files::create_private(path)?);
    serde_json::to_writer_pretty(&mut out, &har).map_err(std::io::Error::other)?;
    out.write_all(b"\n")?;
    out.flush()?;
    Ok(exchanges.len() as u64)
}

/// Refuses HAR of entries that belong to no HTTP exchange, as [`export_har`] would: a front end
/// asks before it asks where to write, so a refusal costs no file name.
pub fn check_har(log: &WireLog, filter: &Filter) -> Result<(), ExportError> {
    chosen(log, filter).map(drop)
}

/// The exchanges with an entry `filter` keeps; none is an error that says why.
fn chosen(log: &WireLog, filter: &Filter) -> Result<BTreeSet<Key>, ExportError> {
    let chosen = exchanges_matching(log, filter)?;
    if chosen.is_empty() {
        let filtered_out =
            *filter != Filter::default() && !exchanges_matching(log, &Filter::default())?.is_empty();
        return Err(ExportError::NoHttp { filtered_out });
    }
    Ok(chosen)
}

fn key_of(entry: &Entry) -> Option<Key> {
    entry.http.as_ref().map(|h| (entry.conn, h.exchange))
}

/// The exchanges with an entry `filter` matches.
fn exchanges_matching(log: &WireLog, filter: &Filter) -> std::io::Result<BTreeSet<Key>> {
    let mut keys = BTreeSet::new();
    each_entry(log, filter, |entry| keys.extend(key_of(&entry)))?;
    Ok(keys)
}

/// Calls `on` with each entry matching `filter`, a page at a time.
fn each_entry(log: &WireLog, filter: &Filter, mut on: impl FnMut(Entry)) -> std::io::Result<()> {
    let mut from = 0;
    loop {
        let page = log.page(from, u64::MAX, filter, 1000)?;
        page.entries.into_iter().for_each(&mut on);
        match page.next {
            Some(next) => from = next,
            None => return Ok(()),
        }
    }
}

/// One exchange's entries, in order, as a HAR entry.
fn har_entry(entries: &[Entry]) -> Value {
    let first = &entries[0];
    let request = entries
        .iter()
        .find(|e| e.dir == Direction::Out && e.http.as_ref().is_some_and(|h| h.method.is_some()));
    let head = entries
        .iter()
        .find(|e| e.dir == Direction::In && e.http.as_ref().is_some_and(|h| h.status.is_some()));
    let started = request.unwrap_or(first);
    let http = |e: Option<&Entry>| e.and_then(|e| e.http.clone()).unwrap_or_default();
    let (sent, got) = (http(request), http(head));

    let url = har_url(sent.url.as_deref().unwrap_or_default());
    let body: Vec<u8> =
        entries.iter().filter(|e| e.dir == Direction::Out).filter_map(Entry::bytes).flatten().collect();
    let mut request_json = json!({
        "method": sent.method.clone().unwrap_or_default(),
        "url": url,
        "httpVersion": "",
        "cookies": [],
        "headers": headers(&sent.headers),
        "queryString": query_string(&url),
        "headersSize": -1,
        "bodySize": body.len(),
    });
    if !body.is_empty() {
        let mime = header(&sent.headers, "content-type").unwrap_or("application/json");
        request_json["postData"] = json!({"mimeType": mime, "text": String::from_utf8_lossy(&body)});
    }

    let mime = header(&got.headers, "content-type").unwrap_or_default().to_owned();
    let sse = mime.to_ascii_lowercase().starts_with("text/event-stream");
    let received = entries.iter().filter(|e| e.dir == Direction::In);
    let (content, body_size) = if sse {
        // The head (which carries the status) is no event.
        let events = received.filter(|e| e.http.as_ref().is_none_or(|h| h.status.is_none()));
        let text: String = events.map(sse_event).collect();
        (content(text.into_bytes(), &mime), -1)
    } else {
        let bytes: Vec<u8> = received.filter_map(Entry::bytes).flatten().collect();
        let size = bytes.len() as i64;
        (content(bytes, &mime), if head.is_some() { size } else { -1 })
    };
    let status = got.status.unwrap_or(0);
    let redirect = if (300..400).contains(&status) { header(&got.headers, "location") } else { None };
    let response_json = json!({
        "status": status,
        "statusText": reqwest::StatusCode::from_u16(status).ok().and_then(|s| s.canonical_reason()).unwrap_or(""),
        "httpVersion": "",
        "cookies": [],
        "headers": headers(&got.headers),
        "content": content,
        "redirectURL": redirect.unwrap_or_default(),
        "headersSize": -1,
        "bodySize": body_size,
    });

    // Times from the entries' monotonic clock: the request is recorded as it goes out, the head
    // as it arrives, the last entry as the exchange's last word.
    let t0 = started.ms;
    let end = entries.iter().map(|e| e.ms).fold(t0, f64::max);
    let wait = round(head.map_or(end, |h| h.ms) - t0);
    let receive = round(end - t0 - wait);
    let mut entry = json!({
        "startedDateTime": started.time,
        "time": round(wait + receive),
        "request": request_json,
        "response": response_json,
        "cache": {},
        "timings": {"blocked": -1, "dns": -1, "connect": -1, "send": 0, "wait": wait, "receive": receive, "ssl": -1},
        "_sondeConnection": first.conn,
        "_sondeExchange": first.http.as_ref().map_or(0, |h| h.exchange),
        "_sondeSeqs": entries.iter().map(|e| e.seq).collect::<Vec<_>>(),
    });
    if let Some(outcome) = outcome(entries, head.is_some()) {
        entry["comment"] = Value::from(outcome.clone());
        entry["_sondeOutcome"] = Value::from(outcome);
    }
    entry
}

/// Why an exchange is incomplete, in words: no response, or a response that broke off; `None`
/// for one that ended as HTTP exchanges do.
fn outcome(entries: &[Entry], answered: bool) -> Option<String> {
    // The connection notes how an exchange failed (a transport error, a timeout) on its entry.
    let note = entries.iter().rev().find(|e| e.dir == Direction::Meta).and_then(|e| e.detail.clone());
    match (answered, note) {
        (false, Some(why)) => Some(format!("no response: {why}")),
        (false, None) => Some(
            "no response was recorded: the server died, the request timed out or the session ended first"
                .into(),
        ),
        (true, Some(why)) => Some(format!("the response broke off: {why}")),
        (true, None) => None,
    }
}

/// One received entry of an event stream as the wire had it: its fields, then its data a line
/// at a time, then the blank line that ends an event.
fn sse_event(entry: &Entry) -> String {
    let info = entry.http.clone().unwrap_or_default();
    let data = entry.bytes().map(|b| String::from_utf8_lossy(&b).into_owned());
    let mut out = String::new();
    if let Some(id) = &info.sse_id {
        out.push_str(&format!("id: {id}\n"));
    }
    if let Some(event) = &info.sse_event {
        out.push_str(&format!("event: {event}\n"));
    }
    if let Some(retry) = info.sse_retry {
        out.push_str(&format!("retry: {retry}\n"));
    }
    for line in data.iter().flat_map(|d| d.split('\n')) {
        out.push_str(&format!("data: {}\n", line.strip_suffix('\r').unwrap_or(line)));
    }
    if !out.is_empty() {
        out.push('\n');
    }
    out
}

/// A response's content: as text when it is UTF-8, else base64 as HAR allows.
fn content(bytes: Vec<u8>, mime: &str) -> Value {
    let size = bytes.len();
    match String::from_utf8(bytes) {
        Ok(text) if text.is_empty() => json!({"size": 0, "mimeType": mime}),
        Ok(text) => json!({"size": size, "mimeType": mime, "text": text}),
        Err(e) => {
            use base64::Engine;
            let text = base64::engine::general_purpose::STANDARD.encode(e.as_bytes());
            json!({"size": size, "mimeType": mime, "text": text, "encoding": "base64"})
        }
    }
}

/// The headers as HAR lists them, secret ones redacted again (they were never recorded, but an
/// export is no place to trust that).
fn headers(recorded: &[(String, String)]) -> Vec<Value> {
    crate::transport::recorded_headers(recorded, |_| false)
        .into_iter()
        .map(|(name, value)| json!({"name": name, "value": value}))
        .collect()
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
}

/// The recorded URL as a URI a HAR reader accepts: what redaction put in it (`[redacted]`,
/// `«redacted»`) percent-encoded where a URI allows neither. Text that is no URL stays.
fn har_url(recorded: &str) -> String {
    let Ok(mut url) = url::Url::parse(recorded) else { return recorded.to_owned() };
    if let Some(query) = url.query().map(|q| q.replace('[', "%5B").replace(']', "%5D")) {
        url.set_query(Some(&query));
    }
    url.to_string()
}

fn query_string(url: &str) -> Vec<Value> {
    url::Url::parse(url)
        .map(|u| u.query_pairs().map(|(name, value)| json!({"name": name, "value": value})).collect())
        .unwrap_or_default()
}

/// Milliseconds to the microsecond, never below zero (clocks of two threads may disagree by a
/// hair).
fn round(ms: f64) -> f64 {
    (ms.max(0.0) * 1000.0).round() / 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::log::{HttpInfo, Kind};

    const SECRET: &str = "sk-live-4242";

    fn temp_dir(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("sonde-har-test-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    fn sent(ex: u64, body: &str, headers: Vec<(&str, &str)>) -> Entry {
        let mut e = Entry::new(1, Kind::Message, Direction::Out).with_bytes(body.as_bytes());
        e.http = Some(HttpInfo {
            exchange: ex,
            method: Some("POST".into()),
            url: Some("http://127.0.0.1:9/mcp?page=2&api_key=[redacted]".into()),
            headers: headers.into_iter().map(|(k, v)| (k.to_owned(), v.to_owned())).collect(),
            ..HttpInfo::default()
        });
        e
    }

    fn head(ex: u64, status: u16, content_type: &str) -> Entry {
        let mut e = Entry::new(1, Kind::Http, Direction::In).with_detail(format!("HTTP {status}"));
        e.http = Some(HttpInfo {
            exchange: ex,
            status: Some(status),
            headers: vec![
                ("content-type".into(), content_type.into()),
                ("mcp-session-id".into(), "s-1".into()),
            ],
            ..HttpInfo::default()
        });
        e
    }

    fn received(ex: u64, kind: Kind, body: Option<&str>, sse: Option<(&str, Option<u64>)>) -> Entry {
        let mut e = Entry::new(1, kind, Direction::In);
        if let Some(body) = body {
            e = e.with_bytes(body.as_bytes());
        }
        e.http = Some(match sse {
            Some((id, retry)) => HttpInfo::of_event(ex, Some(id.into()), None, retry),
            None => HttpInfo { exchange: ex, ..HttpInfo::default() },
        });
        e
    }

    /// A session shaped as the HTTP loop records one: a JSON reply, a reply as an event stream
    /// (a priming event, a progress notification, the result), a request whose response never
    /// came, and entries of no exchange between them.
    fn session(dir: &Path) -> std::sync::Arc<WireLog> {
        let log = WireLog::create_in(dir).unwrap();
        let mut spawn =
            Entry::new(2, Kind::Lifecycle, Direction::Meta).with_detail("a stdio server beside it");
        spawn.lifecycle = Some(crate::lifecycle::Lifecycle::Server { name: "other".into() });
        log.append(spawn);
        let headers = vec![
            ("Content-Type", "application/json"),
            ("Authorization", "Bearer hidden-anyway"),
            ("X-Custom", SECRET),
        ];
        log.append(sent(1, r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#, headers));
        log.append(head(1, 200, "application/json"));
        log.append(received(1, Kind::Message, Some(r#"{"jsonrpc":"2.0","id":1,"result":{}}"#), None));
        let call = format!(
            r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"{SECRET}"}}}}}}"#
        );
        let mut call = sent(2, &call, vec![("Content-Type", "application/json")]);
        call.summary = Some(crate::log::Summary {
            kind: "request".into(),
            method: Some("tools/call".into()),
            ..Default::default()
        });
        log.append(call);
        log.append(Entry::new(2, Kind::Stderr, Direction::In).with_bytes(b"between"));
        log.append(head(2, 200, "text/event-stream"));
        log.append(received(2, Kind::Http, None, Some(("e1", Some(100)))));
        let progress = r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}"#;
        log.append(received(2, Kind::Message, Some(progress), Some(("e2", None))));
        let result = format!(
            r#"{{"jsonrpc":"2.0","id":2,"result":{{"content":[{{"type":"text","text":"{SECRET}"}}]}}}}"#
        );
        log.append(received(2, Kind::Message, Some(&result), Some(("e3", None))));
        log.append(sent(3, r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#, vec![]));
        let mut broke = Entry::new(1, Kind::Note, Direction::Meta)
            .with_detail("HTTP exchange 3: connection closed before message completed");
        broke.http = Some(HttpInfo { exchange: 3, ..HttpInfo::default() });
        log.append(broke);
        log
    }

    fn read(path: &Path) -> (String, Value) {
        let text = std::fs::read_to_string(path).unwrap();
        let har = serde_json::from_str(&text).unwrap();
        (text, har)
    }

    /// Each exchange is one HAR entry with its request, response and times; an event stream's
    /// events are its content as wire text; an exchange without a response says so; a secret
    /// in a header or a body is gone, and a secret header is redacted again.
    #[test]
    fn each_exchange_is_one_har_entry_with_secrets_redacted() {
        let dir = temp_dir("whole");
        let log = session(&dir);
        let path = dir.join("out.har");
        let written = export_har(&log, &Filter::default(), &[SECRET.into()], &path).unwrap();
        assert_eq!(written, 3);
        let (text, har) = read(&path);
        assert!(!text.contains(SECRET) && !text.contains("hidden-anyway"), "{text}");
        assert_eq!(har["log"]["version"], "1.2");
        assert_eq!(har["log"]["creator"]["name"], "Sonde");
        let entries = har["log"]["entries"].as_array().unwrap();
        assert_eq!(entries.len(), 3);

        let init = &entries[0];
        assert_eq!(init["request"]["method"], "POST");
        assert_eq!(init["request"]["url"], "http://127.0.0.1:9/mcp?page=2&api_key=%5Bredacted%5D");
        assert_eq!(
            init["request"]["queryString"],
            json!([{"name": "page", "value": "2"}, {"name": "api_key", "value": "[redacted]"}])
        );
        assert_eq!(init["request"]["postData"]["mimeType"], "application/json");
        assert!(init["request"]["postData"]["text"].as_str().unwrap().contains("initialize"));
        let headers = &init["request"]["headers"];
        assert_eq!(headers[1], json!({"name": "Authorization", "value": "[redacted]"}));
        assert_eq!(headers[2], json!({"name": "X-Custom", "value": "«redacted»"}));
        assert_eq!(init["response"]["status"], 200);
        assert_eq!(init["response"]["statusText"], "OK");
        assert_eq!(init["response"]["content"]["mimeType"], "application/json");
        assert_eq!(init["response"]["content"]["text"], r#"{"jsonrpc":"2.0","id":1,"result":{}}"#);
        assert_eq!(init["response"]["bodySize"], 36);
        assert_eq!(init["_sondeConnection"], 1);
        assert!(init.get("_sondeOutcome").is_none());
        let started = init["startedDateTime"].as_str().unwrap();
        assert!(humantime::parse_rfc3339(started).is_ok() && started.ends_with('Z'), "{started}");

        let call = &entries[1];
        assert!(call["request"]["postData"]["text"].as_str().unwrap().contains("«redacted»"));
        assert_eq!(call["response"]["content"]["mimeType"], "text/event-stream");
        let events = call["response"]["content"]["text"].as_str().unwrap();
        let result = r#"{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"«redacted»"}]}}"#;
        let progress = r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}"#;
        assert_eq!(
            events,
            format!("id: e1\nretry: 100\n\nid: e2\ndata: {progress}\n\nid: e3\ndata: {result}\n\n")
        );
        assert_eq!(call["response"]["content"]["size"], events.len());
        assert_eq!(call["_sondeSeqs"].as_array().unwrap().len(), 5, "the stderr between is no part of it");

        let lost = &entries[2];
        assert_eq!(lost["response"]["status"], 0);
        assert_eq!(
            lost["_sondeOutcome"],
            "no response: HTTP exchange 3: connection closed before message completed"
        );
        assert_eq!(lost["comment"], lost["_sondeOutcome"]);

        for entry in entries {
            let t = &entry["timings"];
            let (wait, receive) = (t["wait"].as_f64().unwrap(), t["receive"].as_f64().unwrap());
            assert!(wait >= 0.0 && receive >= 0.0 && t["send"] == 0, "{t}");
            assert!((entry["time"].as_f64().unwrap() - wait - receive).abs() < 1e-9, "{entry}");
        }
    }

    /// A filter picks exchanges: one it matches an entry of is exported whole, head and events.
    #[test]
    fn a_filter_chooses_whole_exchanges() {
        let dir = temp_dir("filtered");
        let log = session(&dir);
        let path = dir.join("calls.har");
        let filter = Filter::parse("method:tools/call").unwrap();
        assert_eq!(export_har(&log, &filter, &[], &path).unwrap(), 1);
        let (_, har) = read(&path);
        let call = &har["log"]["entries"][0];
        assert_eq!(call["response"]["status"], 200);
        assert!(call["response"]["content"]["text"].as_str().unwrap().contains("id: e3"));
    }

    /// HAR of a stdio session, or of a filter that keeps no exchange, is refused in words
    /// naming the formats that fit, and creates no file.
    #[test]
    fn har_of_no_http_exchange_is_refused_and_creates_no_file() {
        let dir = temp_dir("stdio");
        let log = WireLog::create_in(&dir).unwrap();
        log.append(
            Entry::new(1, Kind::Message, Direction::Out)
                .with_bytes(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}"),
        );
        let path = dir.join("out.har");
        let refused = export_har(&log, &Filter::default(), &[], &path).unwrap_err();
        assert!(matches!(refused, ExportError::NoHttp { filtered_out: false }));
        let words = refused.to_string();
        assert!(words.contains("HAR describes HTTP") && words.contains("stdio"), "{words}");
        assert!(words.contains("jsonl") && words.contains("html"), "{words}");
        assert!(!path.exists());

        let log = session(&temp_dir("filtered-out"));
        let refused = export_har(&log, &Filter::parse("kind:stderr").unwrap(), &[], &path).unwrap_err();
        assert!(matches!(refused, ExportError::NoHttp { filtered_out: true }), "{refused}");
        assert!(!path.exists());
    }
}
