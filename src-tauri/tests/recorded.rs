//! The core's answers the UI's in-memory double serves, recorded into the committed
//! `ui/src/ipc/recorded.json`, so the double re-implements none of the core's rules: how the
//! core reads each filter expression the double offers (its chips, or its error), how it reads
//! the tools of the double's demo server, how it describes the real demo server (and the words
//! of its connection's lifecycle), how it reads the pasted configs, template values and roots
//! lists the double's tests give it. A server that crashes, fails to open or is hostile is the
//! real window's to check (`src-tauri/e2e/`), against the core itself. What the double's
//! servers send is the double's own (`ui/src/ipc/canned.json`); what the core makes of it is
//! recorded here. Checked as the bindings are: the test fails when the committed file is
//! stale, and `SONDE_UPDATE_RECORDED=1 cargo test -p sonde-desktop --test recorded` rewrites it.

mod support;

use serde_json::{json, Map, Value};
use sonde_core::{import_mcp_servers, read_tools, FilterView};
use support::*;

const CANNED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../ui/src/ipc/canned.json");
const RECORDED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../ui/src/ipc/recorded.json");

/// The connections a `{conn}` expression is recorded for: more than a UI test opens.
const CONNS: u64 = 40;

/// Each expression the double offers, as the core reads it; one with `{conn}` once for each
/// connection number (the stderr pane filters by its connection).
fn filters(canned: &Value) -> Value {
    let mut views = Map::new();
    for expr in canned["filters"].as_array().unwrap().iter().map(|e| e.as_str().unwrap()) {
        let exprs: Vec<String> = if expr.contains("{conn}") {
            (0..=CONNS).map(|n| expr.replace("{conn}", &n.to_string())).collect()
        } else {
            vec![expr.to_owned()]
        };
        for e in exprs {
            views.insert(e.clone(), serde_json::to_value(FilterView::of(&e)).unwrap());
        }
    }
    Value::Object(views)
}

/// The double's demo server's tools as the core reads them: the real demo's own (by name, as
/// `sonde demo-server` lists them), then the double's.
fn tools(canned: &Value) -> Value {
    let demo = sonde_demo::tools();
    let mut raw: Vec<Value> = canned["demoTools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|name| demo.as_array().unwrap().iter().find(|t| &t["name"] == name).unwrap().clone())
        .collect();
    raw.extend(canned["tools"].as_array().unwrap().iter().cloned());
    serde_json::to_value(read_tools(&raw)).unwrap()
}

/// A command's answer as the double serves it: its value, or its error's code and words.
fn answer(r: Result<Value, Value>) -> Value {
    match r {
        Ok(v) => json!({"ok": v}),
        Err(e) => json!({"error": {"code": e["code"], "message": e["message"]}}),
    }
}

/// How the core reads each config the double's tests paste (`imports`): the servers it would
/// save (their fresh ids left out, the double gives its own), or its refusal.
fn imports(canned: &Value) -> Value {
    let mut read = Map::new();
    for text in canned["imports"].as_array().unwrap().iter().map(|t| t.as_str().unwrap()) {
        let answer = match import_mcp_servers(text) {
            Ok(imported) => {
                let mut v = serde_json::to_value(imported).unwrap();
                v["servers"].as_array_mut().unwrap().iter_mut().for_each(|s| s["id"] = json!(""));
                json!({"ok": v})
            }
            Err(e) => json!({"error": {"code": e.code(), "message": e.to_string()}}),
        };
        read.insert(text.to_owned(), answer);
    }
    Value::Object(read)
}

/// Each of the demo's templates as the core reads it: its variables, and the URI each value the
/// double may be given expands to (the demo's name completions and `templateValues`, what a test
/// types first), keyed by the values as JSON.
fn templates(w: &tauri::WebviewWindow<tauri::test::MockRuntime>, canned: &Value) -> Value {
    let given = canned["templateValues"].as_array().unwrap().iter();
    let values: Vec<&Value> =
        given.chain(canned["surface"]["completions"]["name"].as_array().unwrap()).collect();
    let mut read = Map::new();
    for template in canned["surface"]["templates"].as_array().unwrap().iter().map(|t| &t["uriTemplate"]) {
        let variables = invoke(w, "template_variables", json!({"template": template}));
        let mut expanded = Map::new();
        let names: Vec<String> = match &variables {
            Ok(names) => names.as_array().unwrap().iter().map(|n| n.as_str().unwrap().to_owned()).collect(),
            Err(_) => Vec::new(),
        };
        let mut cases = vec![Map::new()];
        cases.extend(values.iter().map(|v| names.iter().map(|n| (n.clone(), (*v).clone())).collect()));
        for case in cases {
            let key = serde_json::to_string(&case).unwrap();
            let expand = json!({"template": template, "values": case});
            expanded.insert(key, answer(invoke(w, "template_expand", expand)));
        }
        read.insert(
            template.as_str().unwrap().to_owned(),
            json!({"variables": answer(variables), "expanded": expanded}),
        );
    }
    Value::Object(read)
}

/// How the core takes each roots list the double's tests set (`roots`) on a ready demo
/// connection, keyed by the list as JSON: what the server is told and the list read back, or the
/// refusal.
fn roots(w: &tauri::WebviewWindow<tauri::test::MockRuntime>, canned: &Value, id: &Value) -> Value {
    let mut read = Map::new();
    for list in canned["roots"].as_array().unwrap() {
        let change = invoke(w, "connection_roots_set", json!({"id": id, "roots": list}));
        let mut taken = answer(change);
        if taken.get("ok").is_some() {
            taken["roots"] = invoke(w, "connection_roots", json!({"id": id})).unwrap();
        }
        read.insert(serde_json::to_string(list).unwrap(), taken);
    }
    Value::Object(read)
}

/// What the window says of a connection once it is ready: the server as the core describes it.
fn described(w: &tauri::WebviewWindow<tauri::test::MockRuntime>, id: &Value) -> Value {
    let states = invoke(w, "connections_follow", json!({"channel": "__CHANNEL__:8"})).unwrap();
    let state = states.as_array().unwrap().iter().find(|s| &s["event"]["conn"] == id).unwrap();
    state["event"]["state"]["server"].clone()
}

/// The demo server (`sonde demo-server`) as the core describes it once connected, the README its
/// `review` prompt embeds as the core reads it, and its connection's lifecycle and end in the
/// core's words, and how it takes the roots lists the double is given.
fn demo(w: &tauri::WebviewWindow<tauri::test::MockRuntime>, canned: &Value) -> Value {
    let id = invoke(w, "connect", json!({"serverId": "demo"})).unwrap();
    let server = described(w, &id);
    let roots = roots(w, canned, &id);
    let review = json!({"id": id, "name": "review", "args": {"language": "rust"}});
    let prompt = invoke(w, "prompt_get", review).unwrap();
    let stopped = invoke(w, "disconnect", json!({"id": id})).unwrap();
    let lifecycle = lifecycle(w, &id);
    json!({"server": server, "reviewEmbedded": prompt["embedded"], "lifecycle": lifecycle, "stopped": stopped, "roots": roots})
}

/// The lifecycle entries of connection `id`, in order, as it opened and stopped: what each says,
/// with its pid, command and saved server's name as `{pid}`, `{command}` and `{name}`.
fn lifecycle(w: &tauri::WebviewWindow<tauri::test::MockRuntime>, id: &Value) -> Value {
    let filter = format!("kind:lifecycle conn:{id}");
    let page = json!({"from": 0, "to": 1_000_000, "filter": filter, "limit": 100});
    let mut entries = invoke(w, "log_page", page).unwrap()["entries"].as_array().unwrap().clone();
    // The end of stdout and the exit race each other: the steps are kept in the ladder's order.
    const LADDER: [&str; 6] = ["server", "spawned", "stdin_closed", "stdout_closed", "exited", "group_gone"];
    entries.sort_by_key(|e| {
        LADDER.iter().position(|step| e["lifecycle"]["event"] == *step).unwrap_or(LADDER.len())
    });
    let spawned = entries.iter().find(|e| e["lifecycle"]["event"] == "spawned").unwrap();
    let (pid, command) =
        (spawned["lifecycle"]["pid"].as_u64().unwrap(), spawned["lifecycle"]["command"].clone());
    let named = entries.iter().find(|e| e["lifecycle"]["event"] == "server").unwrap();
    let held =
        [(command, "{command}"), (named["lifecycle"]["name"].clone(), "{name}"), (json!(pid), "{pid}")];
    let steps = entries
        .iter()
        .map(|e| placeheld(&json!({"detail": e["detail"], "lifecycle": e["lifecycle"]}), &held));
    Value::Array(steps.collect())
}

/// `v` with each of `held`'s values (a whole value, or a string within a string) as its placeholder.
fn placeheld(v: &Value, held: &[(Value, &str)]) -> Value {
    if let Some((_, place)) = held.iter().find(|(value, _)| value == v) {
        return json!(place);
    }
    match v {
        Value::String(s) => json!(held.iter().fold(s.clone(), |s, (value, place)| match value {
            Value::String(text) => s.replace(text.as_str(), place),
            other => s.replace(&other.to_string(), place),
        })),
        Value::Object(fields) => {
            Value::Object(fields.iter().map(|(k, v)| (k.clone(), placeheld(v, held))).collect())
        }
        other => other.clone(),
    }
}

#[test]
fn the_committed_recordings_are_the_cores_answers() {
    let canned: Value = serde_json::from_str(&std::fs::read_to_string(CANNED).unwrap()).unwrap();
    let (_app, w) = app("recorded");
    let recorded = json!({
        "note": "Recorded from the core by src-tauri/tests/recorded.rs; do not edit. \
                 Rewrite: SONDE_UPDATE_RECORDED=1 cargo test -p sonde-desktop --test recorded",
        "filters": filters(&canned),
        "tools": tools(&canned),
        "demo": demo(&w, &canned),
        "imports": imports(&canned),
        "templates": templates(&w, &canned),
    });
    let generated = serde_json::to_string_pretty(&recorded).unwrap() + "\n";
    if std::env::var_os("SONDE_UPDATE_RECORDED").is_some() {
        std::fs::write(RECORDED, &generated).unwrap();
    }
    let committed = std::fs::read_to_string(RECORDED).unwrap_or_default();
    let differs = committed.lines().zip(generated.lines()).enumerate().find(|(_, (c, g))| c != g);
    assert!(
        committed == generated,
        "ui/src/ipc/recorded.json is stale (first at line {:?}): run SONDE_UPDATE_RECORDED=1 cargo test \
         -p sonde-desktop --test recorded",
        differs.map(|(n, (c, g))| (n + 1, c.to_owned(), g.to_owned()))
    );
}
