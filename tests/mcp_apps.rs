//! MCP Apps in the core (issue 36), with the fixture's apps over real pipes: the window's hub
//! declares the extension in both eras (and the CLI's does not); an app's resource is read and
//! checked; each message between an app and Sonde is answered as the extension says and
//! recorded as an `app` entry beside the server frames it causes.

mod common;

use std::time::Duration;

use common::{fixture, new_log};
use serde_json::{json, Value};
use sonde_core::internals::{EXTENSION, MIME};
use sonde_core::{Filter, HostContext, Hub, Kind};

fn sent(hub: &Hub, method: &str) -> Vec<Value> {
    let filter = Filter::parse(&format!("kind:message dir:out method:{method}")).unwrap();
    let entries = hub.log().entries(&filter).unwrap();
    entries.iter().map(|e| serde_json::from_str(e.text.as_deref().unwrap()).unwrap()).collect()
}

#[tokio::test]
async fn the_window_declares_the_extension_in_both_eras_and_the_cli_does_not() {
    let declared = json!({ "mimeTypes": [MIME] });
    // 2025-11-25: in initialize's capabilities.
    let hub = Hub::new(new_log("apps-declare-legacy")).with_questions();
    let id = hub.connect(&fixture(&["--app", "hostile"])).await.unwrap();
    let initialize = &sent(&hub, "initialize")[0];
    assert_eq!(initialize["params"]["capabilities"]["extensions"][EXTENSION], declared, "{initialize}");
    hub.disconnect(id).await.unwrap();

    // 2026-07-28: in every request's _meta client capabilities.
    let hub = Hub::new(new_log("apps-declare-modern")).with_questions();
    let id = hub.connect(&fixture(&["--app", "hostile", "--dual-era"])).await.unwrap();
    hub.list_tools(id).await.unwrap();
    let list = &sent(&hub, "tools/list")[0];
    let caps = &list["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"];
    assert_eq!(caps["extensions"][EXTENSION], declared, "{list}");
    hub.disconnect(id).await.unwrap();

    // A front end with no person (the CLI) draws no app, and says nothing of it.
    let hub = Hub::new(new_log("apps-declare-cli"));
    let id = hub.connect(&fixture(&["--app", "hostile"])).await.unwrap();
    let initialize = &sent(&hub, "initialize")[0];
    assert!(initialize["params"]["capabilities"].get("extensions").is_none(), "{initialize}");
    hub.disconnect(id).await.unwrap();
}

fn tool(hub_tools: &[Value], name: &str) -> Value {
    hub_tools.iter().find(|t| t["name"] == name).cloned().unwrap()
}

#[tokio::test]
async fn an_app_is_opened_answered_and_recorded() {
    let hub = Hub::new(new_log("apps-open")).with_questions();
    let id = hub.connect(&fixture(&["--app", "hostile"])).await.unwrap();
    let tools = hub.list_tools(id).await.unwrap().items;
    let show = tool(&tools, "show_app");
    let context = HostContext(json!({ "theme": "dark", "platform": "desktop" }));
    let result = json!({ "content": [{ "type": "text", "text": "show_app answered" }] });
    let opened =
        hub.app_open(id, &show, json!({ "a": 1 }), Some(result.clone()), context, false).await.unwrap();
    assert!(opened.resource.findings.is_empty(), "{:?}", opened.resource.findings);
    assert!(opened.policy.contains("connect-src https://allowed.invalid;"), "{}", opened.policy);
    let (html, policy) = hub.app_page(opened.app).unwrap();
    assert!(html.contains("Hostile app") && policy == opened.policy);
    let app = opened.app;

    let turn = hub
        .app_message(app, r#"{"jsonrpc":"2.0","id":1,"method":"ui/initialize","params":{"protocolVersion":"2026-01-26","appInfo":{"name":"t","version":"1"},"appCapabilities":{}}}"#)
        .await
        .unwrap();
    let reply: Value = serde_json::from_str(&turn.post[0]).unwrap();
    assert_eq!(reply["result"]["hostContext"]["theme"], "dark", "{reply}");
    // Once ready, the app gets the call's input and result, in that order.
    let turn =
        hub.app_message(app, r#"{"jsonrpc":"2.0","method":"ui/notifications/initialized"}"#).await.unwrap();
    let posted: Vec<Value> = turn.post.iter().map(|p| serde_json::from_str(p).unwrap()).collect();
    assert_eq!(
        posted[0],
        json!({"jsonrpc": "2.0", "method": "ui/notifications/tool-input", "params": {"arguments": {"a": 1}}})
    );
    assert_eq!(posted[1]["params"], result);

    // An app-only tool is forwarded to the server; a model-only one is refused without asking it.
    let call = |id: u32, name: &str| {
        let message = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": {}}});
        let hub = hub.clone();
        async move { hub.app_message(app, &message.to_string()).await.unwrap() }
    };
    let turn = call(2, "poll").await;
    let reply: Value = serde_json::from_str(&turn.post[0]).unwrap();
    assert_eq!(reply["result"]["content"][0]["text"], "poll answered", "{reply}");
    let turn = call(3, "secret").await;
    let reply: Value = serde_json::from_str(&turn.post[0]).unwrap();
    assert_eq!(reply["error"]["code"], -32602, "{reply}");
    assert_eq!(
        reply["error"]["message"],
        "the tool \"secret\" is not for apps: its visibility leaves them out"
    );
    assert_eq!(turn.note.unwrap().kind, "refused");
    // A tool the server does not list is refused as not listed.
    let turn = call(4, "nowhere").await;
    let reply: Value = serde_json::from_str(&turn.post[0]).unwrap();
    assert_eq!(reply["error"]["message"], "the server does not list a tool \"nowhere\"", "{reply}");
    let calls = sent(&hub, "tools/call");
    assert_eq!(calls.len(), 1, "only poll reached the server: {calls:?}");
    // Sonde's replies to the app carry their request's method and name, and the entry they
    // answer, as a server's replies do: a filter by method keeps both sides of the exchange.
    let filter = Filter::parse("kind:app method:tools/call").unwrap();
    let exchange = hub.log().entries(&filter).unwrap();
    let replies: Vec<_> = exchange.iter().filter(|e| e.dir == sonde_core::Direction::Out).collect();
    let requests: Vec<_> = exchange.iter().filter(|e| e.dir == sonde_core::Direction::In).collect();
    assert_eq!((requests.len(), replies.len()), (3, 3), "{exchange:?}");
    for (request, reply) in requests.iter().zip(&replies) {
        assert_eq!(reply.answers, Some(request.seq));
        let target = |e: &sonde_core::Entry| e.summary.as_ref().and_then(|s| s.target.clone());
        assert_eq!(target(reply), target(request));
    }

    // A link waits for the window; Cancel answers isError.
    let turn = hub
        .app_message(
            app,
            r#"{"jsonrpc":"2.0","id":4,"method":"ui/open-link","params":{"url":"https://example.com/"}}"#,
        )
        .await
        .unwrap();
    assert!(turn.post.is_empty());
    let ask = turn.ask.unwrap();
    let turn = hub.app_answer(app, ask.id, json!(false)).unwrap();
    assert_eq!(serde_json::from_str::<Value>(&turn.post[0]).unwrap()["result"]["isError"], true);

    // A second `initialized` tells it nothing twice.
    let again =
        hub.app_message(app, r#"{"jsonrpc":"2.0","method":"ui/notifications/initialized"}"#).await.unwrap();
    assert!(again.post.is_empty(), "{:?}", again.post);

    // Closing sends the teardown; until the app answers it, what else it sends is not acted on,
    // and once it answers, it is gone.
    let turn = hub.app_close(app, "the result was replaced").unwrap();
    let teardown: Value = serde_json::from_str(&turn.post[0]).unwrap();
    assert_eq!(teardown["method"], "ui/resource-teardown");
    assert!(!turn.gone);
    let late = call(5, "poll").await;
    assert!(late.post.is_empty() && !late.gone && late.note.unwrap().kind == "refused");
    let answer = json!({"jsonrpc": "2.0", "id": teardown["id"], "result": {}});
    assert!(hub.app_message(app, &answer.to_string()).await.unwrap().gone);
    assert!(hub.app_message(app, "{}").await.is_err());

    // Every message both ways is an `app` entry with its method, on the app's connection,
    // and the server frame the app's call caused sits between its request and its answer.
    let entries = hub.log().entries(&Filter { kinds: vec![Kind::App], ..Default::default() }).unwrap();
    let methods: Vec<&str> = entries.iter().filter_map(|e| e.summary.as_ref()?.method.as_deref()).collect();
    for m in [
        "ui/initialize",
        "ui/notifications/initialized",
        "ui/notifications/tool-input",
        "tools/call",
        "ui/open-link",
        "ui/resource-teardown",
    ] {
        assert!(methods.contains(&m), "{m} in {methods:?}");
    }
    assert!(entries.iter().all(|e| e.conn == id));
    let everything = hub.log().entries(&Filter::default()).unwrap();
    let at = |pred: &dyn Fn(&sonde_core::Entry) -> bool| everything.iter().position(pred).unwrap();
    let asked = at(&|e| e.kind == Kind::App && e.text.as_deref().is_some_and(|t| t.contains("\"poll\"")));
    let server = at(&|e| {
        e.kind == Kind::Message && e.summary.as_ref().and_then(|s| s.target.as_deref()) == Some("poll")
    });
    let answered =
        at(&|e| e.kind == Kind::App && e.text.as_deref().is_some_and(|t| t.contains("poll answered")));
    assert!(asked < server && server < answered, "{asked} {server} {answered}");
    hub.disconnect(id).await.unwrap();
}

#[tokio::test]
async fn a_broken_or_missing_app_resource_is_named() {
    for (kind, rules) in [
        ("broken", vec!["app-mime", "app-html", "app-csp", "app-csp", "app-permission"]),
        ("missing", vec!["app-resource"]),
    ] {
        let hub = Hub::new(new_log(&format!("apps-{kind}"))).with_questions();
        let id = hub.connect(&fixture(&["--app", kind])).await.unwrap();
        let tools = hub.list_tools(id).await.unwrap().items;
        let opened = hub
            .app_open(id, &tool(&tools, "show_app"), json!({}), None, HostContext::default(), false)
            .await
            .unwrap();
        let found: Vec<&str> = opened.resource.findings.iter().map(|f| f.rule.as_str()).collect();
        assert_eq!(found, rules, "{kind}: {:?}", opened.resource.findings);
        // The findings are diagnostics too: on the note the check recorded.
        let noted = hub.log().entries(&Filter::parse("kind:note diag:warning").unwrap()).unwrap();
        assert_eq!(noted.len(), 1, "{kind}");
        assert!(tokio::time::timeout(Duration::from_secs(10), hub.disconnect(id)).await.is_ok());
    }
}

#[tokio::test]
async fn an_app_drawn_while_its_call_runs_hears_how_the_call_ends() {
    let hub = Hub::new(new_log("apps-ended")).with_questions();
    let id = hub.connect(&fixture(&["--app", "hostile"])).await.unwrap();
    let tools = hub.list_tools(id).await.unwrap().items;
    let show = tool(&tools, "show_app");
    let method = |turn: &sonde_core::AppTurn| -> Vec<String> {
        turn.post
            .iter()
            .map(|p| serde_json::from_str::<Value>(p).unwrap()["method"].as_str().unwrap_or("").to_owned())
            .collect()
    };
    // Ended before the app was ready: told once it is, after the input.
    let early = hub.app_open(id, &show, json!({}), None, HostContext::default(), false).await.unwrap().app;
    assert!(hub.app_ended(early, Ok(json!({"content": []}))).unwrap().post.is_empty());
    let turn =
        hub.app_message(early, r#"{"jsonrpc":"2.0","method":"ui/notifications/initialized"}"#).await.unwrap();
    assert_eq!(method(&turn), ["ui/notifications/tool-input", "ui/notifications/tool-result"]);
    // Not ready yet: a context change is kept for it but not sent, and a close is at once,
    // with no teardown (nothing may be sent before `initialized`).
    let unready = hub.app_open(id, &show, json!({}), None, HostContext::default(), false).await.unwrap().app;
    assert!(hub.app_context(unready, json!({"theme": "light"})).unwrap().post.is_empty());
    let closed = hub.app_close(unready, "the result was replaced").unwrap();
    assert!(closed.gone && closed.post.is_empty());
    // Ready first, then the call is cancelled: told at once, with why.
    let late = hub.app_open(id, &show, json!({}), None, HostContext::default(), false).await.unwrap().app;
    let turn =
        hub.app_message(late, r#"{"jsonrpc":"2.0","method":"ui/notifications/initialized"}"#).await.unwrap();
    assert_eq!(method(&turn), ["ui/notifications/tool-input"]);
    let turn = hub.app_ended(late, Err("cancelled by the user".into())).unwrap();
    let cancelled: Value = serde_json::from_str(&turn.post[0]).unwrap();
    assert_eq!(cancelled["method"], "ui/notifications/tool-cancelled");
    assert_eq!(cancelled["params"]["reason"], "cancelled by the user");
    hub.disconnect(id).await.unwrap();
}
