//! mcp-server-time (PyPI, Python `mcp` 2.3.0): a dual-era server found only by probing.

mod common;

use common::{new_log, peer_bin};
use serde_json::json;
use sonde_core::{Era, EraPolicy, Hub, ServerConfig, SpawnSpec};

fn config(era: EraPolicy) -> ServerConfig {
    let bin = peer_bin("py/bin/mcp-server-time");
    let mut config = ServerConfig::stdio(SpawnSpec::new(bin.to_string_lossy(), ["--local-timezone", "UTC"]));
    config.era = era;
    config
}

#[tokio::test]
async fn mcp_server_time_is_modern_under_auto_and_legacy_when_pinned_and_answers_in_both() {
    let hub = Hub::new(new_log("time"));
    for (policy, era, version, decided_by) in [
        (EraPolicy::Auto, Era::Modern, "2026-07-28", "server/discover"),
        (EraPolicy::Legacy, Era::Legacy, "2025-11-25", "--era legacy; initialize"),
        (EraPolicy::Modern, Era::Modern, "2026-07-28", "--era modern; server/discover"),
    ] {
        let id = hub.connect(&config(policy)).await.unwrap();
        let server = hub.server(id).unwrap();
        // On a loaded machine the probe may be answered after its deadline; the era holds.
        assert_eq!((server.era, server.protocol_version.as_str()), (era, version));
        assert!(server.decided_by.starts_with(decided_by), "{policy}: {}", server.decided_by);
        assert_eq!(server.server_info["name"], "mcp-time");
        let result = hub.call_tool(id, "get_current_time", Some(json!({"timezone": "UTC"}))).await.unwrap();
        assert_eq!(result["structuredContent"]["timezone"], "UTC", "{policy}: {result}");
        let valid = common::wire_schema::check_sent(hub.log(), id, version);
        eprintln!("mcp-server-time {policy}: {valid} frames valid");
        hub.disconnect(id).await.unwrap();
    }
}
