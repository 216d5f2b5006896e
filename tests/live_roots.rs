//! Roots changed while connected, against real servers: server-everything (2025-11-25) hears
//! `notifications/roots/list_changed`, asks again and lists the new roots; the Python SDK server
//! (2026-07-28) gets no notification and reads the new roots in its next `input_required` round.

mod common;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use common::wire_schema::check_sent;
use common::{new_log, peer_bin, wait_for};
use serde_json::json;
use sonde_core::internals::{file_uri, LiveRoots};
use sonde_core::{EraPolicy, Filter, Hub, Responder, RootsChange, ServerConfig, SpawnSpec, WireLog};

/// A hub whose connections' roots may change while open, starting from each config's.
fn hub(name: &str) -> Hub {
    Hub::new(new_log(name)).with_responders(|_, config| {
        Arc::new(LiveRoots::new(config.answers.clone(), config.answers.roots.clone())) as Arc<dyn Responder>
    })
}

fn text(result: &serde_json::Value) -> String {
    result["content"][0]["text"].as_str().unwrap_or_default().to_owned()
}

fn count(log: &WireLog, filter: &str) -> usize {
    log.entries(&Filter::parse(filter).unwrap()).unwrap().len()
}

#[tokio::test]
async fn server_everything_is_told_the_roots_changed_and_lists_the_new_ones() {
    let bin = peer_bin("npm/node_modules/.bin/mcp-server-everything");
    let mut config = ServerConfig::stdio(SpawnSpec::new(bin.to_string_lossy(), ["stdio"]));
    let first = std::env::temp_dir();
    config.answers.roots = vec![first.clone()];
    let hub = hub("roots-everything");
    let id = hub.connect(&config).await.unwrap();
    let before = hub.call_tool(id, "get-roots-list", None).await.unwrap();
    assert!(text(&before).contains(&file_uri(&first)), "{}", text(&before));
    assert_eq!(hub.roots(id).unwrap(), vec![first]);

    let log = hub.log().clone();
    let asked = count(&log, "dir:in method:roots/list");
    let change = hub.set_roots(id, &["/srv/alpha".into(), " /srv/beta ".into(), "".into()]).unwrap();
    assert_eq!(change, RootsChange::Notified);
    assert_eq!(hub.roots(id).unwrap(), vec![PathBuf::from("/srv/alpha"), PathBuf::from("/srv/beta")]);
    // The connection's task writes the notification; the log has it once it is sent.
    wait_for(Duration::from_secs(5), "notifications/roots/list_changed sent", || {
        count(&log, "dir:out method:notifications/roots/list_changed") == 1
    })
    .await;
    // The server asks again on the notification and keeps what it is answered.
    wait_for(Duration::from_secs(10), "roots/list asked again after the notification", || {
        count(&log, "dir:in method:roots/list") > asked
    })
    .await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    let after = loop {
        let listed = text(&hub.call_tool(id, "get-roots-list", None).await.unwrap());
        if listed.contains("file:///srv/beta") || tokio::time::Instant::now() > deadline {
            break listed;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert!(after.contains("file:///srv/alpha") && after.contains("file:///srv/beta"), "{after}");
    assert!(!after.contains(&file_uri(&std::env::temp_dir())), "{after}");
    let note = log.entries(&Filter::parse("kind:note roots changed").unwrap()).unwrap();
    assert_eq!(
        note[0].detail.as_deref(),
        Some("roots changed to /srv/alpha, /srv/beta; sent notifications/roots/list_changed")
    );

    // A bad list is refused with the reason, and the roots stay as they were.
    let refused = hub.set_roots(id, &["relative/dir".into()]).unwrap_err();
    assert_eq!(refused.to_string(), "\"relative/dir\" is not an absolute path; a root starts with /");
    assert_eq!(hub.roots(id).unwrap().len(), 2);
    check_sent(hub.log(), id, "2025-11-25");
    hub.disconnect(id).await.unwrap();
}

#[tokio::test]
async fn the_python_server_reads_changed_roots_in_its_next_input_required_round_in_2026_07_28() {
    let python = peer_bin("py/bin/python");
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/peers/py_mcp_server.py");
    let mut config = ServerConfig::stdio(SpawnSpec::new(python.to_string_lossy(), [script, "stdio"]));
    config.era = EraPolicy::Modern;
    let hub = hub("roots-python-modern");
    let id = hub.connect(&config).await.unwrap();
    let none = hub.call_tool(id, "client_roots", None).await.unwrap();
    assert_eq!(text(&none), "no roots");
    assert_eq!(hub.set_roots(id, &["/srv/gamma".into()]).unwrap(), RootsChange::NextAsk);
    assert_eq!(count(hub.log(), "dir:out method:notifications/roots/list_changed"), 0);
    let listed = hub.call_tool(id, "client_roots", None).await.unwrap();
    assert_eq!(text(&listed), "file:///srv/gamma");
    // 2026-07-28 declares roots without listChanged: that era has no roots notification. (The
    // tasks extension is declared on every 2026-07-28 request: Sonde follows tasks itself.)
    let calls = hub.log().entries(&Filter::parse("dir:out method:tools/call").unwrap()).unwrap();
    let call: serde_json::Value = serde_json::from_str(calls[0].text.as_deref().unwrap()).unwrap();
    assert_eq!(
        call["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"],
        json!({"roots": {}, "extensions": {"io.modelcontextprotocol/tasks": {}}})
    );
    check_sent(hub.log(), id, "2026-07-28");
    hub.disconnect(id).await.unwrap();
}

#[tokio::test]
async fn a_connection_with_fixed_roots_says_they_cannot_change() {
    let config = common::fixture(&[]);
    let hub = Hub::new(new_log("roots-fixed"));
    let id = hub.connect(&config).await.unwrap();
    let refused = hub.set_roots(id, &["/srv".into()]).unwrap_err();
    assert_eq!(refused.code(), sonde_core::ErrorCode::BadInput);
    assert!(refused.to_string().contains("fixed roots"), "{refused}");
    hub.disconnect(id).await.unwrap();
}
