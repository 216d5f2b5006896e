//! The MCP surface beyond tools against real servers: server-everything (2025-11-25, over stdio
//! and Streamable HTTP) and the Python SDK server (both eras over stdio): a static resource
//! read, a template expanded and read, completion values, a prompt with arguments, a
//! subscription that receives an update, and a log level that changes what arrives.

mod common;

use std::collections::BTreeMap;
use std::time::Duration;

use common::http::HttpServer;
use common::{new_log, peer_bin};
use serde_json::Value;
use sonde_core::{
    expand_template, template_variables, CompletionRef, ContentKind, Era, EraPolicy, Filter, Hub, ListKind,
    ListenEvent, ListenSpec, LogLevel, NoticeKind, Noticed, Notices, ServerConfig, Session, SpawnSpec,
};

fn args(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

fn everything_stdio() -> ServerConfig {
    let bin = peer_bin("npm/node_modules/.bin/mcp-server-everything");
    ServerConfig::stdio(SpawnSpec::new(bin.to_string_lossy(), ["stdio"]))
}

fn python(era: EraPolicy) -> ServerConfig {
    let python = peer_bin("py/bin/python");
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/peers/py_mcp_server.py");
    let mut spec = SpawnSpec::new(python.to_string_lossy(), ["-W", "ignore", script, "stdio"]);
    spec.env.push(("PYTHONWARNINGS".into(), "ignore".into()));
    let mut config = ServerConfig::stdio(spec);
    config.era = era;
    config
}

/// The next event of a subscription, within `limit`.
async fn next_event(listening: &mut sonde_core::Listening, limit: Duration) -> ListenEvent {
    tokio::time::timeout(limit, listening.next())
        .await
        .unwrap_or_else(|_| panic!("no subscription event within {limit:?}"))
        .expect("the subscription is running")
}

/// Waits (within `limit`) for a log message notice on `conn` and returns its level.
async fn next_log_level(notices: &mut Notices, conn: u64, limit: Duration) -> Option<String> {
    let deadline = tokio::time::Instant::now() + limit;
    loop {
        let noticed = tokio::time::timeout_at(deadline, notices.next()).await.ok()??;
        if let Noticed::Notice(n) = noticed {
            if let (true, NoticeKind::Log { level, .. }) = (n.conn == conn, &n.what) {
                return Some(level.clone());
            }
        }
    }
}

/// What both transports of server-everything serve the same way.
async fn everything_surface(session: &Session) {
    // A static resource, read by kind.
    let resources = session.list_all(ListKind::Resources).await.unwrap().items;
    let doc = resources
        .iter()
        .find(|r| r["uri"].as_str().is_some_and(|u| u.starts_with("demo://resource/static/document/")))
        .unwrap_or_else(|| panic!("a static document among {resources:?}"));
    let read = session.read_resource(doc["uri"].as_str().unwrap()).await.unwrap();
    assert!(read.problems.is_empty(), "{:?}", read.problems);
    assert_eq!(read.contents[0].kind, ContentKind::Text);
    assert!(read.contents[0].size > 0);

    // A template, expanded by the core and read.
    let templates = session.list_all(ListKind::Templates).await.unwrap().items;
    let text =
        templates.iter().find(|t| t["uriTemplate"] == "demo://resource/dynamic/text/{resourceId}").unwrap();
    let t = text["uriTemplate"].as_str().unwrap();
    assert_eq!(template_variables(t).unwrap(), ["resourceId"]);
    let uri = expand_template(t, &args(&[("resourceId", "3")])).unwrap();
    assert_eq!(uri, "demo://resource/dynamic/text/3");
    let read = session.read_resource(&uri).await.unwrap();
    assert!(read.contents[0].text.as_deref().unwrap().contains('3'), "{read:?}");
    let blob = session.read_resource("demo://resource/dynamic/blob/2").await.unwrap();
    // server-everything's "blob" is text/plain bytes: decoded to be read, the blob kept to save.
    let item = &blob.contents[0];
    assert_eq!(item.kind, ContentKind::Text, "{blob:?}");
    assert!(item.text.as_deref().unwrap().starts_with("Resource 2: "), "{blob:?}");
    assert!(item.blob.is_some(), "{blob:?}");

    // Completion: a template variable, and a prompt argument that depends on another.
    let values = session
        .complete(&CompletionRef::Resource { uri: t.into() }, "resourceId", "7", &BTreeMap::new())
        .await
        .unwrap();
    assert_eq!(values.values, ["7"]);
    let prompt = CompletionRef::Prompt { name: "completable-prompt".into() };
    let departments = session.complete(&prompt, "department", "S", &BTreeMap::new()).await.unwrap();
    assert_eq!(departments.values, ["Sales", "Support"]);
    let names = session.complete(&prompt, "name", "", &args(&[("department", "Sales")])).await.unwrap();
    assert_eq!(names.values, ["David", "Eve", "Frank"]);

    // A prompt with arguments.
    let got =
        session.get_prompt("args-prompt", &args(&[("city", "Lyon"), ("state", "Rhône")])).await.unwrap();
    assert!(got.problems.is_empty(), "{:?}", got.problems);
    let said = got.result["messages"][0]["content"]["text"].as_str().unwrap();
    assert!(said.contains("Lyon"), "{said}");

    // A subscription that receives an update: server-everything sends them for subscribed URIs
    // once `toggle-subscriber-updates` is on (at once, then every 5 s).
    let watched = "demo://resource/dynamic/text/1".to_owned();
    let mut listening =
        session.listen(ListenSpec { uris: vec![watched.clone()], ..Default::default() }).await.unwrap();
    session.call_tool("toggle-subscriber-updates", None).await.unwrap();
    match next_event(&mut listening, Duration::from_secs(15)).await {
        ListenEvent::Change(notice) => assert_eq!(notice.what, NoticeKind::ResourceUpdated { uri: watched }),
        other => panic!("{other:?}"),
    }
    listening.stop().await.unwrap();
    session.call_tool("toggle-subscriber-updates", None).await.unwrap();
    let unsubscribed =
        session.conn.log().entries(&Filter::parse("dir:out method:resources/unsubscribe").unwrap());
    assert_eq!(unsubscribed.unwrap().len(), 1);

    // A log level that changes what arrives: at `emergency` only emergencies come through;
    // at `debug`, the simulated messages of every level do.
    let conn = session.conn.id();
    let mut notices = Notices::follow(session.conn.log());
    session.set_log_level(LogLevel::Emergency).await.unwrap();
    session.call_tool("toggle-simulated-logging", None).await.unwrap();
    if let Some(level) = next_log_level(&mut notices, conn, Duration::from_millis(5500)).await {
        assert_eq!(level, "emergency", "a message under the level came through");
    }
    session.set_log_level(LogLevel::Debug).await.unwrap();
    let level = next_log_level(&mut notices, conn, Duration::from_secs(12)).await;
    assert!(level.is_some(), "no log message at debug within 12 s");
    session.call_tool("toggle-simulated-logging", None).await.unwrap();
    assert_eq!(session.log_level(), Some(LogLevel::Debug));

    let ping = session.ping().await.unwrap();
    assert_eq!(ping.method, "ping");
}

#[tokio::test]
async fn server_everything_over_stdio_serves_resources_templates_prompts_completion_updates_and_logs() {
    let hub = Hub::new(new_log("surface-everything"));
    let id = hub.connect(&everything_stdio()).await.unwrap();
    everything_surface(&hub.session(id).unwrap()).await;
    hub.disconnect(id).await.unwrap();
}

#[tokio::test]
async fn server_everything_over_streamable_http_serves_the_same() {
    let bin = peer_bin("npm/node_modules/.bin/mcp-server-everything");
    let server = HttpServer::peer(&bin.to_string_lossy(), &["streamableHttp"], "/mcp");
    let hub = Hub::new(new_log("surface-everything-http"));
    let id = hub.connect(&server.config()).await.unwrap();
    everything_surface(&hub.session(id).unwrap()).await;
    hub.disconnect(id).await.unwrap();
}

#[tokio::test]
async fn the_python_sdk_server_serves_the_surface_in_both_eras() {
    let hub = Hub::new(new_log("surface-python"));
    for (policy, era) in [(EraPolicy::Legacy, Era::Legacy), (EraPolicy::Modern, Era::Modern)] {
        let id = hub.connect(&python(policy)).await.unwrap();
        let session = hub.session(id).unwrap();
        assert_eq!(session.era(), era);
        let read = session.read_resource("peers://hello").await.unwrap();
        assert_eq!(read.contents[0].text.as_deref(), Some("hello from python mcp"), "{era:?}");
        let templates = session.list_all(ListKind::Templates).await.unwrap().items;
        let t = templates[0]["uriTemplate"].as_str().unwrap().to_owned();
        let uri = expand_template(&t, &args(&[("name", "ada lovelace")])).unwrap();
        assert_eq!(uri, "peers://greet/ada%20lovelace");
        let values =
            session.complete(&CompletionRef::Resource { uri: t }, "name", "a", &BTreeMap::new()).await;
        assert_eq!(values.unwrap().values, ["ada", "alan"], "{era:?}");
        let got = session.get_prompt("greet", &args(&[("name", "Ada")])).await.unwrap();
        assert_eq!(got.result["messages"][0]["content"]["text"], "Say hi to Ada", "{era:?}");
        let ping = session.ping().await.unwrap();
        assert_eq!(ping.method, if era == Era::Modern { "server/discover" } else { "ping" });
        hub.disconnect(id).await.unwrap();
    }
}

#[tokio::test]
async fn in_2026_07_28_the_log_level_rides_in_meta_and_decides_what_the_python_server_sends() {
    let hub = Hub::new(new_log("surface-python-levels"));
    let id = hub.connect(&python(EraPolicy::Modern)).await.unwrap();
    let session = hub.session(id).unwrap();
    let logged = |message: &str| {
        let log = session
            .conn
            .log()
            .entries(&Filter::parse("dir:in method:notifications/message").unwrap())
            .unwrap();
        log.iter().any(|e| e.text.as_deref().is_some_and(|t| t.contains(message)))
    };
    let say = |level: &str, message: &str| {
        session.call_tool("log", Some(serde_json::json!({"level": level, "message": message})))
    };
    // No level asked: no log messages at all.
    say("error", "unasked").await.unwrap();
    session.set_log_level(LogLevel::Warning).await.unwrap();
    say("debug", "too quiet").await.unwrap();
    say("error", "loud enough").await.unwrap();
    session.set_log_level(LogLevel::Debug).await.unwrap();
    say("debug", "now heard").await.unwrap();
    // A modern log message is scoped to its request: it is in the log before the reply.
    assert!(!logged("unasked") && !logged("too quiet"));
    assert!(logged("loud enough") && logged("now heard"));
    let sent = hub.log().entries(&Filter::parse("dir:out method:tools/call").unwrap()).unwrap();
    let last: Value = serde_json::from_str(sent.last().unwrap().text.as_deref().unwrap()).unwrap();
    assert_eq!(last["params"]["_meta"]["io.modelcontextprotocol/logLevel"], "debug");
    // In 2025-11-25 this server declares no logging: Sonde says so rather than sending.
    hub.disconnect(id).await.unwrap();
    let id = hub.connect(&python(EraPolicy::Legacy)).await.unwrap();
    let err = hub.session(id).unwrap().set_log_level(LogLevel::Info).await.unwrap_err();
    assert!(err.to_string().contains("does not declare the logging capability"), "{err}");
    hub.disconnect(id).await.unwrap();
}

#[tokio::test]
async fn a_2026_07_28_subscription_on_the_python_server_is_acknowledged_gets_its_update_and_is_cancelled() {
    let hub = Hub::new(new_log("surface-python-listen"));
    let id = hub.connect(&python(EraPolicy::Modern)).await.unwrap();
    let session = hub.session(id).unwrap();
    let uri = "peers://hello".to_owned();
    let mut listening =
        session.listen(ListenSpec { uris: vec![uri.clone()], ..Default::default() }).await.unwrap();
    match next_event(&mut listening, Duration::from_secs(10)).await {
        ListenEvent::Acknowledged(granted) => assert_eq!(granted["resourceSubscriptions"][0], uri.as_str()),
        other => panic!("{other:?}"),
    }
    // Another URI's update is not this subscription's; its own is.
    session.call_tool("touch", Some(serde_json::json!({"uri": "peers://other"}))).await.unwrap();
    session.call_tool("touch", Some(serde_json::json!({"uri": uri}))).await.unwrap();
    match next_event(&mut listening, Duration::from_secs(10)).await {
        ListenEvent::Change(notice) => {
            assert_eq!(notice.what, NoticeKind::ResourceUpdated { uri: uri.clone() });
            assert!(notice.subscription.is_some());
        }
        other => panic!("{other:?}"),
    }
    listening.stop().await.unwrap();
    let log = hub.log().clone();
    common::wait_for(Duration::from_secs(10), "notifications/cancelled for the listen request", || {
        !log.entries(&Filter::parse("dir:out method:notifications/cancelled").unwrap()).unwrap().is_empty()
    })
    .await;
    hub.disconnect(id).await.unwrap();
}
