//! Choosing the era on stdio against fixture servers that stay silent, die on the probe, or
//! pin their era on the first message.

mod common;

use std::time::{Duration, Instant};

use common::{fixture, new_log};
use sonde_core::{Era, EraCache, EraPolicy, Filter, Hub, Kind, Lifecycle, Stage};

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
    assert_eq!(hub.list_tools(id).await.unwrap().items[0]["name"], "echo");
    common::wire_schema::check_sent(hub.log(), id, "2025-11-25");
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
    common::wire_schema::check_sent(log, id, "2026-07-28");
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
    cache.put(&EraCache::key(&legacy_only.target), cache.get(&EraCache::key(&dual.target)).unwrap()).unwrap();
    legacy_only.era = EraPolicy::Auto;
    let id = hub.connect(&legacy_only).await.unwrap();
    assert_eq!(
        hub.server(id).unwrap().decided_by,
        "the cached modern verdict no longer holds: server/discover answered -32601; initialize"
    );
    hub.disconnect(id).await.unwrap();
    assert_eq!(cache.get(&EraCache::key(&legacy_only.target)).unwrap().era, Era::Legacy);
}

#[tokio::test]
async fn input_required_rounds_are_answered_by_the_responder_and_retried_with_the_state() {
    let hub = Hub::new(new_log("mrtr"));
    let mut config = fixture(&["--dual-era"]);
    config.answers.elicit = Some("accept:{\"name\":\"Ada\"}".parse().unwrap());
    let id = hub.connect(&config).await.unwrap();
    let result = hub.call_tool(id, "needs_input", None).await.unwrap();
    assert_eq!(result["content"][0]["text"], "hello Ada");
    let calls: Vec<serde_json::Value> = hub
        .log()
        .entries(&Filter::parse("dir:out method:tools/call").unwrap())
        .unwrap()
        .iter()
        .map(|e| serde_json::from_str(e.text.as_deref().unwrap()).unwrap())
        .collect();
    assert_eq!(calls.len(), 3, "the call and two retries");
    let ids: std::collections::HashSet<String> = calls.iter().map(|c| c["id"].to_string()).collect();
    assert_eq!(ids.len(), 3, "every retry has a new id");
    assert!(calls[0]["params"].get("requestState").is_none(), "no state is invented");
    assert_eq!(calls[1]["params"]["requestState"], "state:1");
    assert_eq!(calls[2]["params"]["requestState"], "state:2");
    assert_eq!(calls[2]["params"]["inputResponses"]["confirm"]["action"], "accept");
    let notes = hub.log().entries(&Filter::parse("kind:note needs input").unwrap()).unwrap();
    assert_eq!(notes.len(), 2);
    common::wire_schema::check_sent(hub.log(), id, "2026-07-28");
    hub.disconnect(id).await.unwrap();

    // Without an elicitation answer Sonde does not declare the capability, and the server's
    // -32021 is shown with its data.
    let id = hub.connect(&fixture(&["--dual-era"])).await.unwrap();
    let err = hub.call_tool(id, "needs_input", None).await.unwrap_err().to_string();
    assert!(err.contains("(code -32021); data: {\"requiredCapabilities\":{\"elicitation\":{}}}"), "{err}");
    hub.disconnect(id).await.unwrap();
}

#[tokio::test]
async fn progress_reaches_the_caller_and_keeps_a_slow_call_alive_past_its_timeout() {
    let hub = Hub::new(new_log("progress"));
    // Five updates 150 ms apart: 750 ms in all, against a 400 ms timeout that each resets.
    let mut config = fixture(&["--progress-steps", "5", "--step-ms", "150"]);
    config.options.request_timeout = Duration::from_millis(400);
    let id = hub.connect(&config).await.unwrap();
    let session = hub.session(id).unwrap();
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let mut request = sonde_core::internals::tool_call("echo", Some(serde_json::json!({"text": "slow"})));
    request.progress = Some(tx);
    let result = session.request_with(request).await.unwrap();
    assert_eq!(result["content"][0]["text"], "slow");
    let mut updates = Vec::new();
    while let Ok(p) = rx.try_recv() {
        updates.push(p["progress"].as_u64().unwrap());
    }
    assert_eq!(updates, [1, 2, 3, 4, 5]);
    // The progress entries in the log point at their request.
    let call = &hub.log().entries(&Filter::parse("dir:out method:tools/call").unwrap()).unwrap()[0];
    let progress = hub.log().entries(&Filter::parse("method:notifications/progress").unwrap()).unwrap();
    assert!(progress.iter().all(|e| e.answers == Some(call.seq)));
    // Without a progress listener no token is sent, no update comes, and the timeout holds.
    let err = session.call_tool("echo", None).await.unwrap_err().to_string();
    assert_eq!(err, "tools/call got no reply within 400 ms");
    hub.disconnect(id).await.unwrap();
}

#[tokio::test]
async fn the_opening_reports_its_stages_by_policy() {
    let hub = Hub::new(new_log("stages"));
    for (policy, want) in [
        (EraPolicy::Auto, [Stage::Spawning, Stage::Probing]),
        (EraPolicy::Legacy, [Stage::Spawning, Stage::Initializing]),
        (EraPolicy::Modern, [Stage::Spawning, Stage::Discovering]),
    ] {
        let mut config = fixture(&["--dual-era"]);
        config.era = policy;
        let seen = std::sync::Mutex::new(Vec::new());
        let id = hub.connect_reporting(&config, &|_, stage| seen.lock().unwrap().push(stage)).await.unwrap();
        assert_eq!(*seen.lock().unwrap(), want, "{policy}");
        hub.disconnect(id).await.unwrap();
    }
}
