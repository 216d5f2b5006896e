//! The official SDKs as servers: TypeScript SDK v2 (`@modelcontextprotocol/server` 2.4.0) and
//! Python `mcp` 2.3.0, each dual-era over stdio; every frame Sonde sends is checked against the
//! official schema of its era.

mod common;

use common::wire_schema::check_sent;
use common::{new_log, peer_bin};
use serde_json::json;
use sonde_core::{Era, EraPolicy, Filter, Hub, ListKind, ServerConfig, SpawnSpec};

fn ts_v2(era: EraPolicy, reject_legacy: bool) -> ServerConfig {
    let script = peer_bin("tsv2/ts_v2_server.mjs");
    let mut spec = SpawnSpec::new("node", [script.to_string_lossy().into_owned(), "stdio".into()]);
    if reject_legacy {
        spec.env.push(("LEGACY".into(), "reject".into()));
    }
    let mut config = ServerConfig::stdio(spec);
    config.era = era;
    config
}

fn python(era: EraPolicy) -> ServerConfig {
    let python = peer_bin("py/bin/python");
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/peers/py_mcp_server.py");
    let mut config = ServerConfig::stdio(SpawnSpec::new(python.to_string_lossy(), [script, "stdio"]));
    config.era = era;
    config
}

#[tokio::test]
async fn the_typescript_v2_server_is_modern_under_auto_and_serves_each_era_it_was_opened_in() {
    let hub = Hub::new(new_log("ts-v2"));
    let mut validated = 0;
    for (policy, era) in
        [(EraPolicy::Auto, Era::Modern), (EraPolicy::Legacy, Era::Legacy), (EraPolicy::Modern, Era::Modern)]
    {
        let id = hub.connect(&ts_v2(policy, false)).await.unwrap();
        let server = hub.server(id).unwrap();
        assert_eq!(server.era, era, "{policy}");
        let said = hub.call_tool(id, "era", None).await.unwrap();
        let expected = if era == Era::Modern { "modern" } else { "legacy" };
        assert_eq!(said["content"][0]["text"], expected, "{policy}");
        let sum = hub.call_tool(id, "add", Some(json!({"a": 2, "b": 3}))).await.unwrap();
        assert_eq!(sum["content"][0]["text"], "5");
        validated += check_sent(hub.log(), id, &server.protocol_version);
        hub.disconnect(id).await.unwrap();
    }
    eprintln!("ts-v2: {validated} frames valid");
    common::no_error_findings(hub.log());
}

#[tokio::test]
async fn the_typescript_v2_server_in_reject_mode_refuses_legacy_once_with_a_clear_message() {
    let hub = Hub::new(new_log("ts-v2-reject"));
    let id = hub.connect(&ts_v2(EraPolicy::Auto, true)).await.unwrap();
    assert_eq!(hub.server(id).unwrap().era, Era::Modern);
    hub.disconnect(id).await.unwrap();

    let err = hub.connect(&ts_v2(EraPolicy::Legacy, true)).await.unwrap_err().to_string();
    assert!(err.contains("Unsupported protocol version") && err.contains("(code -32022)"), "{err}");
    assert!(err.contains("\"supported\":[\"2026-07-28\"]"), "{err}");
    let initializes = hub.log().entries(&Filter::parse("dir:out method:initialize").unwrap()).unwrap();
    assert_eq!(initializes.len(), 1, "no retry loop on an echoed -32022");
}

#[tokio::test]
async fn the_python_server_answers_every_command_in_both_eras() {
    let hub = Hub::new(new_log("python"));
    let mut validated = 0;
    for (policy, era) in [(EraPolicy::Auto, Era::Modern), (EraPolicy::Legacy, Era::Legacy)] {
        let id = hub.connect(&python(policy)).await.unwrap();
        let session = hub.session(id).unwrap();
        assert_eq!(session.era(), era, "{policy}");
        let tools = session.list_all(ListKind::Tools).await.unwrap().items;
        assert_eq!(tools[0]["name"], "add");
        let sum = session.call_tool("add", Some(json!({"a": 1.5, "b": 2}))).await.unwrap();
        assert_eq!(sum["content"][0]["text"], "3.5");
        let resources = session.list_all(ListKind::Resources).await.unwrap().items;
        assert_eq!(resources[0]["uri"], "peers://hello");
        let read = session.request("resources/read", Some(json!({"uri": "peers://hello"}))).await.unwrap();
        assert_eq!(read["contents"][0]["text"], "hello from python mcp");
        session.list_all(ListKind::Templates).await.unwrap();
        let prompts = session.list_all(ListKind::Prompts).await.unwrap().items;
        assert_eq!(prompts[0]["name"], "greet");
        let prompt = session
            .request("prompts/get", Some(json!({"name": "greet", "arguments": {"name": "Ada"}})))
            .await
            .unwrap();
        assert_eq!(prompt["messages"][0]["content"]["text"], "Say hi to Ada");
        validated += check_sent(hub.log(), id, &session.server.protocol_version);
        hub.disconnect(id).await.unwrap();
    }
    eprintln!("python: {validated} frames valid");
    common::no_error_findings(hub.log());
}

#[test]
fn the_schema_check_catches_broken_frames() {
    let mut legacy = common::wire_schema::WireSchema::load("2025-11-25");
    let bare_initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}});
    assert!(!legacy.violations(&bare_initialize, None).is_empty());
    let mut modern = common::wire_schema::WireSchema::load("2026-07-28");
    let no_meta = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}});
    assert!(!modern.violations(&no_meta, None).is_empty(), "a 2026-07-28 request without _meta must fail");
    let bad_roots = json!({"jsonrpc": "2.0", "id": 0, "result": {"roots": [{"name": "no uri"}]}});
    assert!(!legacy.violations(&bad_roots, Some("roots/list")).is_empty());
}
