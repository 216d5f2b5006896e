//! The protocol rules against the official JSON schemas (issue 14). The rules are written from
//! the specification in Rust; here they meet the schemas on real frames: on every result the
//! Python `mcp` 2.3.0 server sent (in each era) and server-everything sent, a rule on the
//! envelope or on a result's shape never calls wrong what the schema accepts; and every frame
//! mutated from those (a required field removed or of the wrong type, a broken envelope) that the
//! schema rejects, the rules catch.

mod common;

use common::wire_schema::WireSchema;
use common::{new_log, peer_bin};
use serde_json::{json, Value};
use sonde_core::internals::{classify, result_shape};
use sonde_core::{
    Direction, EraPolicy, Filter, Hub, Kind, ServerConfig, SpawnSpec, LEGACY_REVISION, MODERN_REVISION,
};

/// The schema definition of each method's result.
const RESULTS: [(&str, &str); 10] = [
    ("initialize", "InitializeResult"),
    ("server/discover", "DiscoverResult"),
    ("tools/list", "ListToolsResult"),
    ("tools/call", "CallToolResult"),
    ("resources/list", "ListResourcesResult"),
    ("resources/templates/list", "ListResourceTemplatesResult"),
    ("resources/read", "ReadResourceResult"),
    ("prompts/list", "ListPromptsResult"),
    ("prompts/get", "GetPromptResult"),
    ("completion/complete", "CompleteResult"),
];

/// One reply a real server sent: the schema version of its era, the method it answers, the frame.
struct Frame {
    version: &'static str,
    method: String,
    frame: Value,
}

/// Runs every listed method against a server and keeps each result frame it sent.
async fn record(name: &str, config: &ServerConfig, asks: &[(&str, Value)]) -> Vec<Frame> {
    let hub = Hub::new(new_log(name));
    let id = hub.connect(config).await.unwrap();
    let session = hub.session(id).unwrap();
    let version =
        if session.server.protocol_version == MODERN_REVISION { MODERN_REVISION } else { LEGACY_REVISION };
    for (method, params) in asks {
        session
            .request(method, Some(params.clone()))
            .await
            .unwrap_or_else(|e| panic!("{name} {method}: {e}"));
    }
    hub.disconnect(id).await.unwrap();
    let replies = hub
        .log()
        .entries(&Filter { kinds: vec![Kind::Message], dir: Some(Direction::In), ..Filter::default() })
        .unwrap();
    replies
        .into_iter()
        .filter_map(|e| {
            let method = e.summary.as_ref()?.method.clone()?;
            let frame: Value = serde_json::from_str(e.text.as_deref()?).ok()?;
            (frame.get("result").is_some() && RESULTS.iter().any(|(m, _)| *m == method)).then_some(Frame {
                version,
                method,
                frame,
            })
        })
        .collect()
}

async fn corpus() -> Vec<Frame> {
    let python = peer_bin("py/bin/python");
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/peers/py_mcp_server.py");
    let py = ServerConfig::stdio(SpawnSpec::new(python.to_string_lossy(), [script, "stdio"]));
    let py_asks = [
        ("tools/list", json!({})),
        ("tools/call", json!({"name": "add", "arguments": {"a": 1, "b": 2}})),
        ("resources/list", json!({})),
        ("resources/templates/list", json!({})),
        ("resources/read", json!({"uri": "peers://hello"})),
        ("prompts/list", json!({})),
        ("prompts/get", json!({"name": "greet", "arguments": {"name": "Ada"}})),
        (
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "greet"}, "argument": {"name": "name", "value": "a"}}),
        ),
    ];
    let mut frames = record("schema-py-modern", &py, &py_asks).await;
    frames.extend(record("schema-py-legacy", &ServerConfig { era: EraPolicy::Legacy, ..py }, &py_asks).await);
    let bin = peer_bin("npm/node_modules/.bin/mcp-server-everything");
    let everything = ServerConfig::stdio(SpawnSpec::new(bin.to_string_lossy(), ["stdio"]));
    let everything_asks = [
        ("tools/list", json!({})),
        ("tools/call", json!({"name": "echo", "arguments": {"message": "hi"}})),
        ("resources/list", json!({})),
        ("prompts/list", json!({})),
    ];
    frames.extend(record("schema-everything", &everything, &everything_asks).await);
    frames
}

/// The error-level findings of the rules on one frame answering `method`.
fn rules(frame: &Value, method: &str, modern: bool) -> Vec<String> {
    let bytes = serde_json::to_vec(frame).unwrap();
    let mut found = classify(1, bytes, true).entry.findings;
    if let Some(result) = frame.get("result").filter(|_| found.is_empty()) {
        found.extend(result_shape(method, result, modern));
    }
    found.into_iter().filter(|f| f.severity.name() == "error").map(|f| f.rule).collect()
}

/// What the schema says of a reply to `method`: its envelope and its result.
fn schema(schemas: &mut [(&str, WireSchema)], f: &Frame, frame: &Value) -> Vec<String> {
    let (_, s) = schemas.iter_mut().find(|(v, _)| *v == f.version).unwrap();
    let mut found = s.violations(frame, Some(&f.method));
    let def = RESULTS.iter().find(|(m, _)| *m == f.method).unwrap().1;
    if let Some(result) = frame.get("result") {
        found.extend(s.result_violations(def, result));
    }
    found
}

/// Frames a server must not send, made from a good one: each required field of the result
/// removed, and given a value of another JSON type; and the envelope broken five ways.
fn mutations(frame: &Value, required: &[String]) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    for field in required {
        let mut gone = frame.clone();
        gone["result"].as_object_mut().unwrap().remove(field);
        out.push((format!("without {field}"), gone));
        let mut wrong = frame.clone();
        wrong["result"][field] = match &frame["result"][field] {
            Value::Array(_) => json!({"not": "an array"}),
            Value::Object(_) => json!(["not", "an object"]),
            _ => json!(42),
        };
        out.push((format!("{field} of another type"), wrong));
    }
    let mut envelope = |why: &str, change: &dyn Fn(&mut Value)| {
        let mut broken = frame.clone();
        change(&mut broken);
        out.push((why.to_owned(), broken));
    };
    envelope("jsonrpc 1.0", &|f| f["jsonrpc"] = json!("1.0"));
    envelope("no jsonrpc", &|f| drop(f.as_object_mut().unwrap().remove("jsonrpc")));
    envelope("id null", &|f| f["id"] = Value::Null);
    envelope("id an object", &|f| f["id"] = json!({"n": 1}));
    envelope("result and error", &|f| f["error"] = json!({"code": -32603, "message": "both"}));
    out
}

#[tokio::test]
async fn the_rules_agree_with_the_schemas_on_real_frames_and_catch_what_they_reject() {
    let frames = corpus().await;
    let mut schemas = [
        (LEGACY_REVISION, WireSchema::load(LEGACY_REVISION)),
        (MODERN_REVISION, WireSchema::load(MODERN_REVISION)),
    ];
    let (mut accepted, mut caught) = (0, 0);
    for f in &frames {
        let said = schema(&mut schemas, f, &f.frame);
        if !said.is_empty() {
            eprintln!("{} {} is not valid by the schema, left out: {said:?}", f.version, f.method);
            continue;
        }
        accepted += 1;
        assert_eq!(
            rules(&f.frame, &f.method, f.version == MODERN_REVISION),
            Vec::<String>::new(),
            "a schema-valid {} reply: {}",
            f.method,
            f.frame
        );
        let def = RESULTS.iter().find(|(m, _)| *m == f.method).unwrap().1;
        let (_, s) = schemas.iter_mut().find(|(v, _)| *v == f.version).unwrap();
        let required = s.required_fields(def);
        for (why, mutated) in mutations(&f.frame, &required) {
            if schema(&mut schemas, f, &mutated).is_empty() {
                continue;
            }
            assert!(
                !rules(&mutated, &f.method, f.version == MODERN_REVISION).is_empty(),
                "{} {} reply {why}: the schema rejects it, the rules do not: {mutated}",
                f.version,
                f.method
            );
            caught += 1;
        }
    }
    eprintln!(
        "{accepted} real replies valid by the schema and by the rules; {caught} mutations caught by both"
    );
    assert!(accepted >= 15, "the corpus holds replies of every method ({accepted})");
    // Batches are not frames the schema reads (it validates one message); the rule catches them.
    assert_eq!(rules(&json!([frames[0].frame]), &frames[0].method, false), ["batch"]);
}
