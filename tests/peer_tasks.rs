//! Tasks against real servers, both eras: server-everything's task tool `simulate-research-query`
//! (2025-11-25, over stdio and Streamable HTTP) and the Python `mcp` 2.3.0 peer serving the
//! 2026-07-28 tasks extension (tests/peers/py_tasks.py, over stdio and stateless HTTP). Each task
//! is followed by the hub to its end, as the window sees it; every frame sent is checked against
//! the official schema of its era.

mod common;

use std::time::Duration;

use common::http::HttpServer;
use common::wire_schema::check_sent;
use common::{new_log, peer_bin};
use serde_json::{json, Value};
use sonde_core::{ElicitAnswer, Era, EraPolicy, Filter, Hub, ServerConfig, SpawnSpec, TaskStatus, TaskView};
use tokio::sync::broadcast::Receiver;

fn everything_stdio() -> ServerConfig {
    let bin = peer_bin("npm/node_modules/.bin/mcp-server-everything");
    ServerConfig::stdio(SpawnSpec::new(bin.to_string_lossy(), ["stdio"]))
}

fn python_stdio() -> ServerConfig {
    let python = peer_bin("py/bin/python");
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/peers/py_mcp_server.py");
    let mut config = ServerConfig::stdio(SpawnSpec::new(python.to_string_lossy(), [script, "stdio"]));
    config.era = EraPolicy::Modern;
    config
}

/// Every state the hub reports for task `id` until it stops following it; fails after 60 s.
async fn until_followed(changes: &mut Receiver<TaskView>, id: &str) -> (Vec<TaskStatus>, TaskView) {
    let mut seen = Vec::new();
    let end = tokio::time::timeout(Duration::from_secs(60), async {
        loop {
            let view = changes.recv().await.expect("the hub's task stream");
            if view.task.task_id != id {
                continue;
            }
            if seen.last() != Some(&view.task.status) {
                seen.push(view.task.status);
            }
            if !view.following && (view.task.terminal || view.error.is_some()) {
                return view;
            }
        }
    })
    .await
    .unwrap_or_else(|_| panic!("task {id} was still followed after 60 s; seen {seen:?}"));
    (seen, end)
}

/// The text of a followed task's result.
fn report(view: &TaskView) -> String {
    let outcome = view.outcome.as_ref().unwrap_or_else(|| panic!("no result: {view:?}"));
    assert!(outcome.problems.is_empty(), "{:?}", outcome.problems);
    outcome.result["content"][0]["text"].as_str().unwrap_or_default().to_owned()
}

async fn call(hub: &Hub, id: u64, tool: &str, args: Value) -> TaskView {
    let outcome = hub.call_tool_checked(id, tool, None, Some(args), false, |_| {}).await.unwrap();
    let task = outcome.task.unwrap_or_else(|| panic!("{tool} did not become a task: {}", outcome.result));
    hub.tasks().of(id).into_iter().find(|v| v.task.task_id == task.task_id).expect("the hub knows the task")
}

#[tokio::test]
async fn a_research_task_on_server_everything_is_followed_to_its_report_and_listed() {
    let hub = Hub::new(new_log("tasks-everything"));
    let id = hub.connect(&everything_stdio()).await.unwrap();
    let mut changes = hub.tasks().follow();
    let started = call(&hub, id, "simulate-research-query", json!({"topic": "tides"})).await;
    assert_eq!(
        (started.task.status, started.tool.as_deref()),
        (TaskStatus::Working, Some("simulate-research-query"))
    );
    assert_eq!(started.task.poll_interval_ms, Some(1000), "server-everything asks for a poll a second");
    let (seen, end) = until_followed(&mut changes, &started.task.task_id).await;
    assert_eq!(seen.first(), Some(&TaskStatus::Working));
    assert_eq!(end.task.status, TaskStatus::Completed, "{seen:?}");
    assert!(report(&end).contains("# Research Report: tides"), "{}", report(&end));
    assert!(end.task.created_at.is_some() && end.task.last_updated_at.is_some());

    // tasks/list has it, completed; the call asked for the task the tool requires.
    let listed = hub.tasks_list(id).await.unwrap();
    let listed = listed.iter().find(|v| v.task.task_id == started.task.task_id).unwrap();
    assert_eq!(listed.task.status, TaskStatus::Completed);
    let calls =
        hub.log().entries(&Filter::parse(&format!("conn:{id} dir:out method:tools/call")).unwrap()).unwrap();
    assert!(calls[0].text.as_deref().unwrap().contains(r#""task":{}"#), "{:?}", calls[0].text);
    for method in ["tasks/get", "tasks/result", "tasks/list"] {
        let sent = hub.log().entries(&Filter::parse(&format!("conn:{id} dir:out method:{method}")).unwrap());
        assert!(!sent.unwrap().is_empty(), "{method} was sent");
    }
    check_sent(hub.log(), id, "2025-11-25");
    hub.disconnect(id).await.unwrap();
}

#[tokio::test]
async fn a_cancelled_research_task_stays_cancelled_and_has_no_result() {
    let hub = Hub::new(new_log("tasks-cancel"));
    let id = hub.connect(&everything_stdio()).await.unwrap();
    let mut changes = hub.tasks().follow();
    let started = call(&hub, id, "simulate-research-query", json!({"topic": "kelp"})).await;
    let cancelled = hub.task_cancel(id, &started.task.task_id).await.unwrap();
    assert_eq!(cancelled.task.status, TaskStatus::Cancelled);
    let (_, end) = until_followed(&mut changes, &started.task.task_id).await;
    assert_eq!(
        (end.task.status, end.outcome.is_none(), end.error.as_deref()),
        (TaskStatus::Cancelled, true, None)
    );
    // A cancelled task cannot be cancelled again: the server says so, and the error reaches the caller.
    let again = hub.task_cancel(id, &started.task.task_id).await.unwrap_err();
    assert!(again.to_string().contains("-32602"), "{again}");
    assert_eq!(hub.task_get(id, &started.task.task_id).await.unwrap().task.status, TaskStatus::Cancelled);
    check_sent(hub.log(), id, "2025-11-25");
    hub.disconnect(id).await.unwrap();
}

#[tokio::test]
async fn a_research_task_over_http_asks_its_question_through_the_responder_and_uses_the_answer() {
    let bin = peer_bin("npm/node_modules/.bin/mcp-server-everything");
    let server = HttpServer::peer(&bin.to_string_lossy(), &["streamableHttp"], "/mcp");
    let hub = Hub::new(new_log("tasks-everything-http"));
    let mut config = server.config();
    config.answers.elicit = Some(ElicitAnswer::Accept(json!({"interpretation": "historical"})));
    let id = hub.connect(&config).await.unwrap();
    assert_eq!(hub.server(id).unwrap().era, Era::Legacy);
    let mut changes = hub.tasks().follow();
    let started =
        call(&hub, id, "simulate-research-query", json!({"topic": "the printing press", "ambiguous": true}))
            .await;
    let (seen, end) = until_followed(&mut changes, &started.task.task_id).await;
    assert!(seen.contains(&TaskStatus::InputRequired), "{seen:?}");
    assert_eq!(end.task.status, TaskStatus::Completed);
    assert!(report(&end).contains("the printing press (historical)"), "{}", report(&end));
    // The question came tagged with its task, and Sonde's answer went back to it.
    let asked = hub.log().entries(&Filter::parse("dir:in method:elicitation/create").unwrap()).unwrap();
    let asked: Value = serde_json::from_str(asked[0].text.as_deref().unwrap()).unwrap();
    assert_eq!(
        asked["params"]["_meta"]["io.modelcontextprotocol/related-task"]["taskId"],
        started.task.task_id.as_str()
    );
    check_sent(hub.log(), id, "2025-11-25");
    hub.disconnect(id).await.unwrap();
}

#[tokio::test]
async fn a_2026_07_28_task_asks_for_input_through_tasks_update_and_completes() {
    let hub = Hub::new(new_log("tasks-python"));
    let mut config = python_stdio();
    config.answers.elicit = Some(ElicitAnswer::Accept(json!({"interpretation": "technical"})));
    let id = hub.connect(&config).await.unwrap();
    let server = hub.server(id).unwrap();
    assert_eq!(server.era, Era::Modern);
    assert!(server.capabilities.pointer("/extensions/io.modelcontextprotocol~1tasks").is_some());
    let mut changes = hub.tasks().follow();
    let started = call(&hub, id, "research", json!({"topic": "python", "ambiguous": true})).await;
    assert_eq!(started.task.poll_interval_ms, Some(100));
    let (seen, end) = until_followed(&mut changes, &started.task.task_id).await;
    assert_eq!(
        seen,
        [TaskStatus::Working, TaskStatus::InputRequired, TaskStatus::Working, TaskStatus::Completed]
    );
    assert_eq!(report(&end), "Report on python (technical)");

    // Sonde declared the extension on the call, and answered the one question exactly once.
    let log = hub.log();
    let call =
        &log.entries(&Filter::parse(&format!("conn:{id} dir:out method:tools/call")).unwrap()).unwrap()[0];
    let call: Value = serde_json::from_str(call.text.as_deref().unwrap()).unwrap();
    let caps = &call["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"];
    assert_eq!(caps["extensions"]["io.modelcontextprotocol/tasks"], json!({}));
    let updates =
        log.entries(&Filter::parse(&format!("conn:{id} dir:out method:tasks/update")).unwrap()).unwrap();
    assert_eq!(updates.len(), 1, "each input request is answered once");
    let update: Value = serde_json::from_str(updates[0].text.as_deref().unwrap()).unwrap();
    assert_eq!(
        update["params"]["inputResponses"]["interpretation"]["content"]["interpretation"],
        "technical"
    );
    check_sent(log, id, "2026-07-28");

    // The timeline shows the task as one operation: the call that made it, every poll and
    // the answer to its question, from the call to the last poll's answer.
    let timeline = sonde_core::Timeline::of(log);
    let call = timeline.spans().iter().find(|s| &*s.method == "tools/call" && s.conn == id).unwrap();
    let operation = timeline.operation_of(call.seq).expect("the call began an operation");
    assert_eq!(operation.kind, sonde_core::OperationKind::Task);
    let methods: Vec<&str> = operation.parts.iter().map(|&p| &*timeline.span(p).unwrap().method).collect();
    assert_eq!(methods[0], "tools/call");
    assert!(
        methods.contains(&"tasks/update") && methods.iter().filter(|m| **m == "tasks/get").count() >= 2,
        "{methods:?}"
    );
    let last = timeline.span(*operation.parts.last().unwrap()).unwrap();
    assert_eq!(operation.end, last.end.unwrap());
    hub.disconnect(id).await.unwrap();
}

#[tokio::test]
async fn a_2026_07_28_task_over_http_names_itself_in_mcp_name_and_fails_or_cancels_as_the_server_says() {
    let python = peer_bin("py/bin/python");
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/peers/py_mcp_server.py");
    let server =
        HttpServer::peer(&python.to_string_lossy(), &[script, "http", "{port}", "--stateless"], "/mcp");
    let hub = Hub::new(new_log("tasks-python-http"));
    let mut config = server.config();
    config.era = EraPolicy::Modern;
    let id = hub.connect(&config).await.unwrap();
    let mut changes = hub.tasks().follow();

    let failing = call(&hub, id, "research", json!({"topic": "atlantis", "fail": true})).await;
    let (_, end) = until_followed(&mut changes, &failing.task.task_id).await;
    assert_eq!(end.task.status, TaskStatus::Failed);
    assert_eq!(end.error.as_deref(), Some("the task failed: sources unreachable (code -32603)"));

    let long = call(&hub, id, "research", json!({"topic": "everything"})).await;
    let acknowledged = hub.task_cancel(id, &long.task.task_id).await.unwrap();
    assert_eq!(acknowledged.task.task_id, long.task.task_id, "the known task, until a poll says more");
    let (_, end) = until_followed(&mut changes, &long.task.task_id).await;
    assert_eq!((end.task.status, end.outcome.is_none()), (TaskStatus::Cancelled, true));

    // 2026-07-28 has no tasks/list: the hub's own tasks are the list.
    let known: Vec<String> = hub.tasks_list(id).await.unwrap().into_iter().map(|v| v.task.task_id).collect();
    assert_eq!(known, [failing.task.task_id.clone(), long.task.task_id.clone()]);
    let gets =
        hub.log().entries(&Filter::parse(&format!("conn:{id} dir:out method:tasks/get")).unwrap()).unwrap();
    let named = gets.iter().filter(|e| {
        let http = e.http.as_ref().expect("an HTTP entry");
        http.headers.iter().any(|(k, v)| k.eq_ignore_ascii_case("mcp-name") && *v == failing.task.task_id)
    });
    assert!(named.count() >= 1, "tasks/get carries Mcp-Name: the task id");
    check_sent(hub.log(), id, "2026-07-28");
    hub.disconnect(id).await.unwrap();
}
