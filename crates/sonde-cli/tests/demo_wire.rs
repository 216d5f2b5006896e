//! The bundled demo server spoken to line by line, for what the CLI cannot show: several
//! 2026-07-28 listen streams at once and a cancelled one falling silent, `touch`, a 2025-11-25
//! session's level and subscriptions, and each era's errors.

mod support;

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use support::*;

/// The demo server spoken to line by line.
struct Wire {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Value>,
}

impl Wire {
    fn start() -> Wire {
        let mut child = Command::new(SONDE)
            .arg("demo-server")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(serde_json::from_str(&line).expect("every line is JSON")).is_err() {
                    break;
                }
            }
        });
        Wire { stdin: child.stdin.take(), child, lines }
    }

    fn send(&mut self, message: Value) {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{message}").unwrap();
        stdin.flush().unwrap();
    }

    /// Every message up to and including the first that `done` accepts, within 10 s.
    fn until(&self, done: impl Fn(&Value) -> bool) -> Vec<Value> {
        let deadline = Instant::now() + Duration::from_secs(10);
        let mut seen = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let message = self.lines.recv_timeout(left).unwrap_or_else(|e| panic!("{e} after {seen:#?}"));
            let stop = done(&message);
            seen.push(message);
            if stop {
                return seen;
            }
        }
    }

    /// A request's reply, after whatever came before it.
    fn ask(&mut self, id: Value, method: &str, params: Value) -> (Vec<Value>, Value) {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let mut seen = self.until(|m| m["id"] == id && m.get("method").is_none());
        let reply = seen.pop().unwrap();
        (seen, reply)
    }
}

fn modern(mut params: Value) -> Value {
    params["_meta"] = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                             "io.modelcontextprotocol/clientCapabilities": {}});
    params
}

fn stream_of(message: &Value) -> &Value {
    &message["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"]
}

#[test]
fn two_listen_streams_run_at_once_and_a_cancelled_one_falls_silent() {
    let mut wire = Wire::start();
    let clock =
        json!({"notifications": {"resourceSubscriptions": ["demo://clock"], "promptsListChanged": true}});
    wire.send(json!({"jsonrpc": "2.0", "id": 1, "method": "subscriptions/listen", "params": modern(clock)}));
    let lists = json!({"notifications": {"resourcesListChanged": true, "toolsListChanged": true}});
    wire.send(
        json!({"jsonrpc": "2.0", "id": "1", "method": "subscriptions/listen", "params": modern(lists)}),
    );
    let acks: Vec<Value> = wire
        .until(|m| stream_of(m) == "1")
        .into_iter()
        .filter(|m| m["method"] == "notifications/subscriptions/acknowledged")
        .collect();
    assert_eq!((stream_of(&acks[0]), acks.len()), (&json!(1), 2));
    assert_eq!(
        acks[0]["params"]["notifications"],
        json!({"resourceSubscriptions": ["demo://clock"], "promptsListChanged": true})
    );
    assert_eq!(
        acks[1]["params"]["notifications"],
        json!({"resourcesListChanged": true}),
        "tools never change"
    );
    assert_eq!(stream_of(&acks[1]), &json!("1"), "the id's JSON type is kept");

    let tick = wire.until(|m| m["method"] == "notifications/resources/updated");
    assert_eq!(stream_of(tick.last().unwrap()), &json!(1));
    let (_, read) = wire.ask(json!(2), "resources/read", modern(json!({"uri": "demo://clock"})));
    let ticks: u64 =
        read["result"]["contents"][0]["text"].as_str().unwrap()["tick ".len()..].parse().unwrap();
    assert!(ticks >= 1, "{read}");
    assert_eq!(read["result"]["ttlMs"], 0, "the clock is never cached");

    let (changes, touched) = wire.ask(json!(3), "tools/call", modern(json!({"name": "touch"})));
    assert_eq!(touched["result"]["content"][0]["text"], "sent list_changed for resources and prompts");
    let changed: Vec<(&Value, &Value)> = changes
        .iter()
        .filter(|m| m["method"].as_str().unwrap().ends_with("list_changed"))
        .map(|m| (&m["method"], stream_of(m)))
        .collect();
    assert_eq!(
        changed,
        [
            (&json!("notifications/prompts/list_changed"), &json!(1)),
            (&json!("notifications/resources/list_changed"), &json!("1"))
        ]
    );

    // The cancel is read before the ping, so once the ping is answered the stream is gone.
    wire.send(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}));
    wire.ask(json!(4), "ping", json!({}));
    let lists_only = json!({"notifications": {"resourceSubscriptions": ["demo://clock"]}});
    wire.send(
        json!({"jsonrpc": "2.0", "id": 5, "method": "subscriptions/listen", "params": modern(lists_only)}),
    );
    let after = wire.until(|m| m["method"] == "notifications/resources/updated" && *stream_of(m) == 5);
    assert!(
        after.iter().all(|m| *stream_of(m) != 1 && m["id"] != 1),
        "stream 1 is silent and unanswered: {after:#?}"
    );

    drop(wire.stdin.take());
    let exited = wait_for(Duration::from_secs(10), || wire.child.try_wait().unwrap());
    assert_eq!(exited.map(|s| s.code()), Some(Some(0)), "stdin closed ends the server and its streams");
}

#[test]
fn a_2025_session_sets_its_level_subscribes_and_hears_list_changes_unprompted() {
    let mut wire = Wire::start();
    let init = json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}});
    let (_, initialized) = wire.ask(json!(1), "initialize", init);
    assert_eq!(
        initialized["result"]["capabilities"]["resources"],
        json!({"subscribe": true, "listChanged": true})
    );
    wire.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));

    let (_, bad) = wire.ask(json!(2), "logging/setLevel", json!({"level": "loud"}));
    assert_eq!(bad["error"]["code"], -32602);
    let (silent, _) = wire.ask(json!(3), "resources/read", json!({"uri": "demo://readme"}));
    assert!(silent.is_empty(), "no level set, no messages: {silent:#?}");
    wire.ask(json!(4), "logging/setLevel", json!({"level": "debug"}));
    let (said, _) = wire.ask(json!(5), "resources/read", json!({"uri": "demo://config.json"}));
    assert_eq!(
        said[0]["params"],
        json!({"level": "info", "logger": "demo", "data": "resources/read demo://config.json"})
    );
    assert_eq!(said[1]["params"]["data"], json!({"uri": "demo://config.json"}));

    let (changes, _) = wire.ask(json!(6), "tools/call", json!({"name": "touch"}));
    let methods: Vec<&str> = changes.iter().filter_map(|m| m["method"].as_str()).collect();
    assert!(methods.contains(&"notifications/resources/list_changed"), "{methods:?}");
    assert!(methods.contains(&"notifications/prompts/list_changed"), "{methods:?}");

    let (_, missing) = wire.ask(json!(7), "resources/subscribe", json!({"uri": "demo://nope"}));
    assert_eq!(missing["error"]["code"], -32002);
    wire.ask(json!(8), "resources/subscribe", json!({"uri": "demo://clock"}));
    let tick = wire.until(|m| m["method"] == "notifications/resources/updated");
    assert_eq!(tick.last().unwrap()["params"], json!({"uri": "demo://clock"}));
    wire.ask(json!(9), "resources/unsubscribe", json!({"uri": "demo://clock"}));
    let (_, listen) = wire.ask(json!(10), "subscriptions/listen", json!({"notifications": {}}));
    assert_eq!(listen["error"]["code"], -32601, "listen is 2026-07-28 only");
    let _ = wire.child.kill();
}
