//! Servers that start slower than the probe deadline keep their era (issue 16): the first
//! answer on the wire decides, not the deadline. Each server reads nothing for about a second
//! against a 300 ms probe deadline, so it finds `server/discover` and then `initialize` waiting.

mod common;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use common::{fixture, new_log, peer_bin, wait_for};
use sonde_core::{Era, EraCache, Filter, Hub, ServerConfig, ServerDescription, SpawnSpec, Stage};

const LATE_MODERN: &str = "server/discover answered after the 300 ms probe deadline";

/// `config` with a 300 ms probe deadline and room for the slow start everywhere else.
fn slow(mut config: ServerConfig) -> ServerConfig {
    config.probe_timeout = Duration::from_millis(300);
    config.connect_timeout = Duration::from_secs(30);
    config.options.request_timeout = Duration::from_secs(30);
    config
}

/// A third-party server started a second late, as `npx -y` or `uvx` would.
fn delayed(program: PathBuf, args: &[&str]) -> ServerConfig {
    let mut argv = vec!["-c".to_owned(), "sleep 1; exec \"$0\" \"$@\"".to_owned()];
    argv.push(program.to_string_lossy().into_owned());
    argv.extend(args.iter().map(|a| (*a).to_owned()));
    slow(ServerConfig::stdio(SpawnSpec::new("sh", argv)))
}

fn cache(name: &str) -> (EraCache, PathBuf) {
    let path = std::env::temp_dir().join(format!("sonde-slow-cache-{name}-{}.json", std::process::id()));
    let _ = std::fs::remove_file(&path);
    (EraCache::at(&path), path)
}

/// Connects, checks the era and the evidence, and that the hub's note in the log says the same.
async fn lands(hub: &Hub, config: &ServerConfig, era: Era, decided_by: &str) -> (u64, ServerDescription) {
    let id = hub.connect(config).await.unwrap();
    let server = hub.server(id).unwrap();
    let version = if era == Era::Modern { "2026-07-28" } else { "2025-11-25" };
    assert_eq!(
        (server.era, server.protocol_version.as_str(), server.decided_by.as_str()),
        (era, version, decided_by)
    );
    let said = format!("protocol {version} ({decided_by})");
    let notes = hub.log().entries(&Filter { conn: Some(id), ..Filter::parse("kind:note").unwrap() }).unwrap();
    assert!(notes.iter().any(|n| n.detail.as_deref() == Some(said.as_str())), "no note {said:?}");
    (id, server)
}

/// The `initialize` sent after the deadline was refused, and the log says it was expected.
async fn refusal_expected(hub: &Hub, id: u64) {
    let log = hub.log().clone();
    let filter = Filter { conn: Some(id), ..Filter::parse("kind:note as expected").unwrap() };
    wait_for(Duration::from_secs(10), "the note on the expected refusal of initialize", || {
        log.entries(&filter).unwrap().iter().any(|n| {
            n.detail
                .as_deref()
                .is_some_and(|d| d.starts_with("initialize was refused with -32022, as expected"))
        })
    })
    .await;
}

/// A real SDK server handles requests concurrently, so its refusal of `initialize` may reach
/// the wire before its answer to the probe: a `-32022` naming 2026-07-28 is evidence too. Either
/// way the era is modern on the first process, with one `initialize` sent.
async fn modern_either_way(hub: &Hub, config: &ServerConfig) -> u64 {
    let id = hub.connect(config).await.unwrap();
    let server = hub.server(id).unwrap();
    assert_eq!((server.era, server.protocol_version.as_str()), (Era::Modern, "2026-07-28"));
    let refused_first = format!("initialize answered -32022 naming 2026-07-28; {LATE_MODERN}");
    if server.decided_by == LATE_MODERN {
        refusal_expected(hub, id).await;
    } else {
        assert_eq!(server.decided_by, refused_first);
    }
    let said = format!("protocol 2026-07-28 ({})", server.decided_by);
    let notes = hub.log().entries(&Filter::parse("kind:note").unwrap()).unwrap();
    assert!(notes.iter().any(|n| n.detail.as_deref() == Some(said.as_str())), "no note {said:?}");
    let filter = Filter { conn: Some(id), ..Filter::parse("dir:out method:initialize").unwrap() };
    assert_eq!(hub.log().entries(&filter).unwrap().len(), 1, "no respawn, no second initialize");
    id
}

#[tokio::test]
async fn a_slow_dual_era_fixture_keeps_the_modern_era_says_it_is_starting_and_is_cached() {
    let (cache, path) = cache("dual");
    let hub = Hub::new(new_log("slow-dual")).with_era_cache(cache);
    // Two seconds of quiet, so the first "starting" report (at one second) cannot miss it.
    let config = slow(fixture(&["--dual-era", "--start-delay-ms", "2000"]));
    let seen = std::sync::Mutex::new(Vec::new());
    let id = hub.connect_reporting(&config, &|_, stage| seen.lock().unwrap().push(stage)).await.unwrap();
    let server = hub.server(id).unwrap();
    assert_eq!((server.era, server.decided_by.as_str()), (Era::Modern, LATE_MODERN));
    let seen = seen.into_inner().unwrap();
    assert_eq!(seen[..3], [Stage::Spawning, Stage::Probing, Stage::Starting(1)], "{seen:?}");
    assert_eq!(seen.last(), Some(&Stage::Probing), "the stage comes back once the server writes: {seen:?}");
    refusal_expected(&hub, id).await;
    assert_eq!(hub.list_tools(id).await.unwrap().items[0]["name"], "echo");
    common::wire_schema::check_sent(hub.log(), id, "2026-07-28");
    hub.disconnect(id).await.unwrap();
    // An answer decided it, so it is remembered.
    let cached = EraCache::at(&path).get(&EraCache::key(&config.target)).expect("a cached verdict");
    assert_eq!((cached.era, cached.decided_by.as_str()), (Era::Modern, LATE_MODERN));
}

#[tokio::test]
async fn a_slow_modern_only_fixture_is_modern() {
    let hub = Hub::new(new_log("slow-modern"));
    let config = slow(fixture(&["--modern-only", "--start-delay-ms", "1000"]));
    let (id, _) = lands(&hub, &config, Era::Modern, LATE_MODERN).await;
    refusal_expected(&hub, id).await;
    hub.disconnect(id).await.unwrap();
}

#[tokio::test]
async fn a_slow_legacy_fixture_is_legacy_on_its_late_answers_and_is_cached() {
    let (cache, path) = cache("legacy");
    let hub = Hub::new(new_log("slow-legacy")).with_era_cache(cache);
    let config = slow(fixture(&["--start-delay-ms", "1000"]));
    let how = "server/discover answered -32601 after the 300 ms probe deadline; initialize";
    let (id, _) = lands(&hub, &config, Era::Legacy, how).await;
    assert_eq!(hub.list_tools(id).await.unwrap().items[0]["name"], "echo");
    common::wire_schema::check_sent(hub.log(), id, "2025-11-25");
    hub.disconnect(id).await.unwrap();
    assert_eq!(EraCache::at(&path).get(&EraCache::key(&config.target)).unwrap().era, Era::Legacy);
}

#[tokio::test]
async fn a_slow_legacy_server_silent_on_discover_is_legacy_at_once_and_not_cached() {
    let (cache, path) = cache("silent");
    let hub = Hub::new(new_log("slow-silent")).with_era_cache(cache);
    let config = slow(fixture(&["--silent-unknown", "--start-delay-ms", "1000"]));
    let started = Instant::now();
    let (id, _) = lands(&hub, &config, Era::Legacy, "server/discover got no reply; initialize").await;
    // Its start, then its own initialize: nothing waits for the probe that never answers.
    let took = started.elapsed();
    assert!(took < Duration::from_millis(2500), "took {took:?}");
    let notes = hub.log().entries(&Filter::parse("kind:note not cached").unwrap()).unwrap();
    assert_eq!(notes.len(), 1, "a deadline verdict is said to be left out of the cache");
    hub.disconnect(id).await.unwrap();
    assert!(
        EraCache::at(&path).get(&EraCache::key(&config.target)).is_none(),
        "a deadline verdict was cached"
    );
}

#[tokio::test]
async fn the_slow_python_sdk_server_is_modern() {
    let hub = Hub::new(new_log("slow-python"));
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/peers/py_mcp_server.py");
    let config = delayed(peer_bin("py/bin/python"), &[script, "stdio"]);
    let id = modern_either_way(&hub, &config).await;
    let sum = hub.call_tool(id, "add", Some(serde_json::json!({"a": 1.5, "b": 2}))).await.unwrap();
    assert_eq!(sum["content"][0]["text"], "3.5");
    common::wire_schema::check_sent(hub.log(), id, "2026-07-28");
    hub.disconnect(id).await.unwrap();
}

#[tokio::test]
async fn the_slow_typescript_v2_server_rejecting_legacy_is_modern() {
    let hub = Hub::new(new_log("slow-ts-v2"));
    let mut config = delayed("node".into(), &[&peer_bin("tsv2/ts_v2_server.mjs").to_string_lossy(), "stdio"]);
    let sonde_core::Target::Stdio(spec) = &mut config.target else { unreachable!("a stdio config") };
    spec.env.push(("LEGACY".into(), "reject".into()));
    let id = modern_either_way(&hub, &config).await;
    let said = hub.call_tool(id, "era", None).await.unwrap();
    assert_eq!(said["content"][0]["text"], "modern");
    hub.disconnect(id).await.unwrap();
}

#[tokio::test]
async fn slow_server_everything_is_legacy() {
    let hub = Hub::new(new_log("slow-everything"));
    let config = delayed(peer_bin("npm/node_modules/.bin/mcp-server-everything"), &["stdio"]);
    let id = hub.connect(&config).await.unwrap();
    let server = hub.server(id).unwrap();
    assert_eq!((server.era, server.protocol_version.as_str()), (Era::Legacy, "2025-11-25"));
    assert!(
        server.decided_by.starts_with("server/discover answered")
            && server.decided_by.ends_with(" after the 300 ms probe deadline; initialize"),
        "{}",
        server.decided_by
    );
    let result = hub.call_tool(id, "echo", Some(serde_json::json!({"message": "late"}))).await.unwrap();
    assert_eq!(result["content"][0]["text"], "Echo: late");
    hub.disconnect(id).await.unwrap();
}
