//! URL-mode elicitation against real servers, both eras: server-everything's
//! `trigger-url-elicitation` over stdio in 2025-11-25 (the `elicitation/create` request path, and
//! the `-32042` error path followed by the retry the server asks for), and the Python SDK server's
//! `open_link` in 2026-07-28 (an `input_required` round) and in 2025-11-25 (with its
//! `notifications/elicitation/complete`).

mod common;

use std::sync::{Arc, Mutex};

use common::wire_schema::check_sent;
use common::{new_log, peer_bin};
use serde_json::{json, Value};
use sonde_core::internals::{completed_id, not_handled, Answer};
use sonde_core::{
    links_required, Era, EraPolicy, ErrorCode, Filter, Hub, HubError, RequestError, Responder, ServerConfig,
    SpawnSpec, UrlElicitation,
};

/// A person who answers every elicitation with `action` and remembers what was asked.
struct Person {
    action: &'static str,
    asked: Arc<Mutex<Vec<Value>>>,
}

impl Responder for Person {
    fn capabilities(&self) -> Value {
        json!({"elicitation": {"form": {}, "url": {}}})
    }

    fn answer(&self, method: &str, params: Option<&Value>) -> Answer {
        if method != "elicitation/create" {
            return Answer::Now(Err(not_handled(method)));
        }
        self.asked.lock().unwrap().push(params.cloned().unwrap_or(Value::Null));
        Answer::Now(Ok(json!({ "action": self.action })))
    }
}

fn hub_with_person(name: &str, action: &'static str) -> (Hub, Arc<Mutex<Vec<Value>>>) {
    let asked = Arc::new(Mutex::new(Vec::new()));
    let seen = asked.clone();
    let hub = Hub::new(new_log(name))
        .with_responders(move |_, _| Arc::new(Person { action, asked: seen.clone() }) as Arc<dyn Responder>);
    (hub, asked)
}

fn everything() -> ServerConfig {
    let bin = peer_bin("npm/node_modules/.bin/mcp-server-everything");
    ServerConfig::stdio(SpawnSpec::new(bin.to_string_lossy(), ["stdio"]))
}

fn python(era: EraPolicy) -> ServerConfig {
    let python = peer_bin("py/bin/python");
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/peers/py_mcp_server.py");
    let mut config = ServerConfig::stdio(SpawnSpec::new(python.to_string_lossy(), [script, "stdio"]));
    config.era = era;
    config
}

/// The one URL elicitation the person was asked, as the core reads it.
fn only_link(asked: &Mutex<Vec<Value>>) -> UrlElicitation {
    let asked = asked.lock().unwrap();
    assert_eq!(asked.len(), 1, "{asked:?}");
    UrlElicitation::from_params(Some(&asked[0])).expect("URL mode").expect("readable")
}

#[tokio::test]
async fn server_everything_asks_for_a_link_by_request_and_gets_the_persons_accept() {
    let (hub, asked) = hub_with_person("url-everything", "accept");
    let id = hub.connect(&everything()).await.unwrap();
    // The tool is listed only to a client that declares elicitation.url.
    let tools = hub.list_tools(id).await.unwrap().items;
    assert!(tools.iter().any(|t| t["name"] == "trigger-url-elicitation"), "{tools:?}");
    let args = json!({"url": "https://sign-in.example.com/start?x=1", "elicitationId": "it-1"});
    let result = hub.call_tool(id, "trigger-url-elicitation", Some(args)).await.unwrap();
    let text = result["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("User completed the URL elicitation flow"), "{text}");
    let link = only_link(&asked);
    assert_eq!(link.elicitation_id.as_deref(), Some("it-1"));
    assert_eq!(
        (link.link.before.as_str(), link.link.host.as_str(), link.link.after.as_str()),
        ("https://", "sign-in.example.com", "/start?x=1")
    );
    assert!(link.link.warnings.is_empty(), "{:?}", link.link.warnings);
    // URL mode's accept carries no content.
    let answers = hub.log().entries(&Filter::parse("dir:out \"action\"").unwrap()).unwrap();
    let answer: Value = serde_json::from_str(answers[0].text.as_deref().unwrap()).unwrap();
    assert_eq!(answer["result"], json!({"action": "accept"}));
    check_sent(hub.log(), id, "2025-11-25");
    hub.disconnect(id).await.unwrap();
}

#[tokio::test]
async fn server_everything_requires_a_link_by_32042_and_the_retry_it_asks_for_succeeds() {
    let (hub, asked) = hub_with_person("url-everything-32042", "decline");
    let id = hub.connect(&everything()).await.unwrap();
    let args = json!({"url": "https://pay.example.com/checkout", "errorPath": true});
    let failed = hub.call_tool(id, "trigger-url-elicitation", Some(args.clone())).await.unwrap_err();
    assert_eq!(failed.code(), ErrorCode::UrlElicitationRequired);
    let HubError::Request(RequestError::Rpc { error, .. }) = &failed else { panic!("{failed:?}") };
    let links = links_required(error).expect("a -32042 error");
    assert!(links.problems.is_empty(), "{:?}", links.problems);
    assert_eq!(links.elicitations.len(), 1);
    let link = &links.elicitations[0];
    assert_eq!(link.link.host, "modelcontextprotocol.io");
    assert_eq!(link.link.opens.as_deref(), Some("https://modelcontextprotocol.io/"));
    assert!(link.elicitation_id.is_some(), "2025-11-25 links carry an id");
    assert!(asked.lock().unwrap().is_empty(), "the error path asks nothing by request");
    // The person has been to the link; the call goes again as a new request, and the server,
    // satisfied, takes the request path, whose link the person declines.
    let result = hub.call_tool(id, "trigger-url-elicitation", Some(args)).await.unwrap();
    let text = result["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("User declined to open the URL"), "{text}");
    assert_eq!(only_link(&asked).link.host, "pay.example.com");
    let calls = hub.log().entries(&Filter::parse("dir:out method:tools/call").unwrap()).unwrap();
    let ids: Vec<_> = calls.iter().map(|c| c.summary.as_ref().unwrap().id.clone()).collect();
    assert_eq!(ids.len(), 2);
    assert_ne!(ids[0], ids[1], "the retry is a new request");
    hub.disconnect(id).await.unwrap();
}

#[tokio::test]
async fn the_python_server_asks_for_a_link_through_input_required_in_2026_07_28() {
    let (hub, asked) = hub_with_person("url-python-modern", "accept");
    let id = hub.connect(&python(EraPolicy::Modern)).await.unwrap();
    assert_eq!(hub.server(id).unwrap().era, Era::Modern);
    let args = json!({"url": "https://accounts.example.org/link"});
    let result = hub.call_tool(id, "open_link", Some(args)).await.unwrap();
    assert_eq!(result["content"][0]["text"], "the client answered accept");
    let link = only_link(&asked);
    assert_eq!(link.elicitation_id, None, "2026-07-28 has no elicitationId");
    assert_eq!(link.link.host, "accounts.example.org");
    // The retry carried the answer under the server's key, as a new request.
    let calls = hub.log().entries(&Filter::parse("dir:out method:tools/call").unwrap()).unwrap();
    assert_eq!(calls.len(), 2);
    let retry: Value = serde_json::from_str(calls[1].text.as_deref().unwrap()).unwrap();
    assert_eq!(retry["params"]["inputResponses"], json!({"link": {"action": "accept"}}));
    let declared = &retry["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"];
    assert_eq!(declared["elicitation"], json!({"form": {}, "url": {}}));
    check_sent(hub.log(), id, "2026-07-28");
    hub.disconnect(id).await.unwrap();
}

#[tokio::test]
async fn the_python_server_reports_an_accepted_link_complete_in_2025_11_25() {
    let (hub, asked) = hub_with_person("url-python-legacy", "accept");
    let id = hub.connect(&python(EraPolicy::Legacy)).await.unwrap();
    let args = json!({"url": "https://accounts.example.org/link"});
    let result = hub.call_tool(id, "open_link", Some(args)).await.unwrap();
    assert_eq!(result["content"][0]["text"], "the client answered accept (elicitation py-link-1)");
    assert_eq!(only_link(&asked).elicitation_id.as_deref(), Some("py-link-1"));
    // The notification came before the result, so the log has it now.
    let told = hub
        .log()
        .entries(&Filter::parse("dir:in method:notifications/elicitation/complete").unwrap())
        .unwrap();
    assert_eq!(told.len(), 1);
    let notification: Value = serde_json::from_str(told[0].text.as_deref().unwrap()).unwrap();
    assert_eq!(
        completed_id("notifications/elicitation/complete", notification.get("params")),
        Some("py-link-1")
    );
    hub.disconnect(id).await.unwrap();
}
