//! Choosing the era on stdio against fixture servers that stay silent, die on the probe, or
//! pin their era on the first message.

mod common;

use std::time::{Duration, Instant};

use common::{fixture, new_log};
use sonde_core::config::EraCache;
use sonde_core::era::{Era, EraPolicy};
use sonde_core::hub::Hub;
use sonde_core::log::{Filter, Kind};
use sonde_core::process::Lifecycle;

#[tokio::test]
async fn a_silent_legacy_server_times_out_the_probe_and_is_initialized_within_the_timeout() {
    let hub = Hub::new(new_log("silent"));
    let mut config = fixture(&["--silent-unknown"]);
    config.probe_timeout = Duration::from_millis(300);
    let started = Instant::now();
    let id = hub.connect(&config).await.unwrap();
    assert!(started.elapsed() < Duration::from_secs(2), "took {:?}", started.elapsed());
    let server = hub.server(id).unwrap();
    assert_eq!(
        (server.era, server.decided_by.as_str()),
        (Era::Legacy, "server/discover got no reply; initialize")
    );
    // The probe is marked, and it was not cancelled (the server was not initialized yet).
    let probes: Vec<_> =
        hub.log().entries(&Filter::default()).unwrap().into_iter().filter(|e| e.probe).collect();
    assert_eq!(probes.len(), 1);
    assert!(hub.log().entries(&Filter::parse("method:notifications/cancelled").unwrap()).unwrap().is_empty());
    assert_eq!(hub.list_tools(id).await.unwrap()[0]["name"], "echo");
    hub.disconnect(id).await.unwrap();
}

#[tokio::test]
async fn a_server_that_dies_on_the_probe_is_respawned_and_initialized() {
    let hub = Hub::new(new_log("dies"));
    let id = hub.connect(&fixture(&["--exit-on-unknown"])).await.unwrap();
    let server = hub.server(id).unwrap();
    assert_eq!(server.era, Era::Legacy);
    assert_eq!(server.decided_by, "the server exited with code 1 on server/discover; respawned; initialize");
    let spawns = hub
        .log()
        .entries(&Filter { kinds: vec![Kind::Lifecycle], ..Filter::default() })
        .unwrap()
        .into_iter()
        .filter(|e| matches!(e.lifecycle, Some(Lifecycle::Spawned { .. })))
        .count();
    assert_eq!(spawns, 2);
    assert_eq!(
        hub.call_tool(id, "echo", Some(serde_json::json!({"text": "t"}))).await.unwrap()["content"][0]
            ["text"],
        "t"
    );
    hub.disconnect(id).await.unwrap();
}

#[tokio::test]
async fn a_dual_era_server_is_spoken_to_in_the_era_of_its_first_message() {
    let hub = Hub::new(new_log("dual"));
    let id = hub.connect(&fixture(&["--dual-era"])).await.unwrap();
    let server = hub.server(id).unwrap();
    assert_eq!((server.era, server.protocol_version.as_str()), (Era::Modern, "2026-07-28"));
    assert_eq!(server.server_info["name"], "sonde-fixture");
    hub.list_tools(id).await.unwrap();
    let log = hub.log();
    assert!(
        log.entries(&Filter::parse("method:initialize").unwrap()).unwrap().is_empty(),
        "initialize after a probe"
    );
    let list = &log.entries(&Filter::parse("dir:out method:tools/list").unwrap()).unwrap()[0];
    assert!(list
        .text
        .as_deref()
        .unwrap()
        .contains("\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\""));
    hub.disconnect(id).await.unwrap();

    let mut legacy = fixture(&["--dual-era"]);
    legacy.era = EraPolicy::Legacy;
    let id = hub.connect(&legacy).await.unwrap();
    assert_eq!(hub.server(id).unwrap().era, Era::Legacy);
    hub.disconnect(id).await.unwrap();

    // Modern against a legacy-only server fails with the evidence, and never initializes.
    let mut modern = fixture(&[]);
    modern.era = EraPolicy::Modern;
    let err = hub.connect(&modern).await.unwrap_err().to_string();
    assert!(err.contains("does not speak 2026-07-28 (server/discover answered -32601)"), "{err}");
}

#[tokio::test]
async fn a_cached_verdict_skips_the_probe_and_is_dropped_when_it_stops_working() {
    let path = std::env::temp_dir().join(format!("sonde-era-cache-it-{}.json", std::process::id()));
    let _ = std::fs::remove_file(&path);
    let hub = Hub::new(new_log("cache")).with_era_cache(EraCache::at(&path));
    let dual = fixture(&["--dual-era"]);
    let id = hub.connect(&dual).await.unwrap();
    assert_eq!(hub.server(id).unwrap().decided_by, "server/discover");
    hub.disconnect(id).await.unwrap();
    let id = hub.connect(&dual).await.unwrap();
    assert_eq!(hub.server(id).unwrap().decided_by, "cached verdict; server/discover");
    hub.disconnect(id).await.unwrap();
    // Same command line, now a legacy-only server: the cached verdict fails and is replaced.
    let cache = EraCache::at(&path);
    let mut legacy_only = fixture(&[]);
    cache.put(&legacy_only.spawn, cache.get(&dual.spawn).unwrap()).unwrap();
    legacy_only.era = EraPolicy::Auto;
    let id = hub.connect(&legacy_only).await.unwrap();
    assert_eq!(
        hub.server(id).unwrap().decided_by,
        "the cached modern verdict no longer holds: server/discover answered -32601; initialize"
    );
    hub.disconnect(id).await.unwrap();
    assert_eq!(cache.get(&legacy_only.spawn).unwrap().era, Era::Legacy);
}
