//! The reference server `@modelcontextprotocol/server-everything@2026.8.31` over stdio: a real
//! Node server behind an npm shim, which sends a server→client `roots/list` with `id: 0`.

mod common;

use std::time::Duration;

use common::{new_log, peer_bin, wait_for};
use serde_json::json;
use sonde_core::{live_members, Filter, Hub, ServerConfig, SpawnSpec};

#[tokio::test]
async fn server_everything_lists_tools_echoes_gets_its_roots_answered_and_shuts_down() {
    let bin = peer_bin("npm/node_modules/.bin/mcp-server-everything");
    let mut config = ServerConfig::stdio(SpawnSpec::new(bin.to_string_lossy(), ["stdio"]));
    config.answers.roots = vec![std::env::temp_dir()];
    let hub = Hub::new(new_log("everything"));
    let id = hub.connect(&config).await.unwrap();
    let server = hub.server(id).unwrap();
    assert_eq!(server.protocol_version, "2025-11-25");
    assert_eq!(server.server_info["name"], "mcp-servers/everything");

    let tools = hub.list_tools(id).await.unwrap().items;
    assert!(tools.iter().any(|t| t["name"] == "echo"), "{tools:?}");
    let result = hub.call_tool(id, "echo", Some(json!({"message": "hello from sonde"}))).await.unwrap();
    assert_eq!(result["content"][0]["text"], "Echo: hello from sonde");

    // The server asks for roots on its own schedule; wait for Sonde's answer to id 0.
    let log = hub.log().clone();
    wait_for(Duration::from_secs(10), "the answer to roots/list id 0", || {
        !log.entries(&Filter::parse("kind:message dir:out id:0").unwrap()).unwrap().is_empty()
    })
    .await;
    let request = &log.entries(&Filter::parse("dir:in method:roots/list").unwrap()).unwrap()[0];
    assert_eq!(request.summary.as_ref().unwrap().id.as_deref(), Some("0"));
    let answer = &log.entries(&Filter::parse("dir:out id:0").unwrap()).unwrap()[0];
    let answer: serde_json::Value = serde_json::from_str(answer.text.as_deref().unwrap()).unwrap();
    assert_eq!(answer["result"]["roots"][0]["uri"], sonde_core::internals::file_uri(&std::env::temp_dir()));

    let valid = common::wire_schema::check_sent(hub.log(), id, "2025-11-25");
    eprintln!("server-everything: {valid} frames valid");
    let pgid = hub.connection(id).unwrap().pid().await.unwrap() as i32;
    let exit = hub.disconnect(id).await.unwrap().unwrap();
    assert!(exit.code == Some(0) || exit.signal.is_some(), "{exit:?}");
    assert!(live_members(pgid).is_empty());
    common::no_error_findings(hub.log());
}

#[tokio::test]
async fn server_everything_lands_on_2025_11_25_with_the_discover_evidence() {
    let bin = peer_bin("npm/node_modules/.bin/mcp-server-everything");
    let hub = Hub::new(new_log("everything-era"));
    let id =
        hub.connect(&ServerConfig::stdio(SpawnSpec::new(bin.to_string_lossy(), ["stdio"]))).await.unwrap();
    let server = hub.server(id).unwrap();
    assert_eq!(server.protocol_version, "2025-11-25");
    assert_eq!(server.decided_by, "server/discover answered -32601; initialize");
    let probe: Vec<_> = hub.log().entries(&Filter::parse("method:server/discover").unwrap()).unwrap();
    assert_eq!(probe.len(), 2, "the probe and its answer");
    assert!(probe.iter().all(|e| e.probe));
    // Its list_changed notifications after initialized are logged.
    let log = hub.log().clone();
    wait_for(Duration::from_secs(10), "notifications/tools/list_changed", || {
        !log.entries(&Filter::parse("dir:in method:notifications/tools/list_changed").unwrap())
            .unwrap()
            .is_empty()
    })
    .await;
    hub.disconnect(id).await.unwrap();
}
