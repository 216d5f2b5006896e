//! Tasks on a session, in either era: asking a server about a task, cancelling one, listing them,
//! and following one to its result.
//!
//! 2025-11-25 (`basic/utilities/tasks.mdx`): `tasks/get` is polled at the server's
//! `pollInterval`; `notifications/tasks/status` moves the state on between polls (it is optional,
//! so polling never stops for it); on `input_required` or a terminal status `tasks/result` is
//! asked, which blocks until the task ends, while the server sends its elicitation or sampling
//! request tagged with the task and the connection's responder answers it like any other; the
//! result is what `tasks/result` returns. 2026-07-28 (the `io.modelcontextprotocol/tasks`
//! extension): `tasks/get` is polled at `pollIntervalMs` and carries the result, the error or
//! the `inputRequests`, which the responder answers and `tasks/update` sends back, each key once.
//! Task notifications there come only through `subscriptions/listen`, so polling is the way.
//!
//! Owns: those exchanges, the poll pacing and the follow deadline, and [`TaskView`], a task as a
//! front end shows it. Refuses: remembering tasks across calls (the hub does) and reading a
//! task's JSON (`shape::task` does).

use std::collections::HashSet;
use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use serde::Serialize;
use serde_json::{json, Value};
use tokio::time::Instant;

use crate::connection::{Request, RequestError};
use crate::era::Era;
use crate::lifecycle::duration_words;
use crate::log::{Direction, Entry, Filter, Followed, Kind};
use crate::session::{CallOutcome, Session};
use crate::shape::task::{Task, TaskStatus};
use crate::wire::RequestId;

/// How long a task is followed when the caller has no limit of its own: the longest a request
/// may run by default (`connection::Options::max_request_time`).
pub const FOLLOW_LIMIT: Duration = Duration::from_secs(600);
/// How long to wait between polls when the server suggests nothing.
const DEFAULT_POLL: Duration = Duration::from_secs(1);
/// The shortest wait between polls, whatever the server suggests (a `0` must not spin).
const MIN_POLL: Duration = Duration::from_millis(50);
/// How many of the log's last entries are read for status notifications that came before a
/// task was followed (between the reply that made it and the first poll).
const RECENT: u64 = 256;

/// A task as a front end shows it: its state, and once it ended, its result or why it has none.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskView {
    /// The connection the task belongs to.
    pub conn: u64,
    pub task: Task,
    /// The tool whose call became this task, when Sonde made the call.
    pub tool: Option<String>,
    /// The tool's result once the task ended with one, read and checked like a call's.
    pub outcome: Option<CallOutcome>,
    /// Why there is no result: the error the task failed with, or why Sonde stopped following.
    pub error: Option<String>,
    /// True while Sonde is following the task (asking the server about it).
    pub following: bool,
    /// Increases with every change the hub records, so a front end keeps the newest view it
    /// has seen of each task; 0 in a view that did not come from the hub's table.
    pub version: u64,
    /// The id of the `tools/call` that made the task, when Sonde made it: every request about
    /// the task is recorded as part of that call's operation. Never sent to a front end.
    #[serde(skip)]
    #[cfg_attr(feature = "bindings", specta(skip))]
    pub call: Option<RequestId>,
}

impl TaskView {
    pub fn new(conn: u64, task: Task, tool: Option<String>) -> TaskView {
        TaskView { conn, task, tool, outcome: None, error: None, following: false, version: 0, call: None }
    }

    /// Takes a newer state of the task; true when anything changed.
    fn take(&mut self, task: Task) -> bool {
        // A terminal task never leaves its status (both specs): a late or reordered report of
        // an earlier one is not shown as if the task had come back.
        if self.task.terminal && !task.terminal {
            return false;
        }
        let changed = self.task != task;
        self.task = task;
        changed
    }
}

/// The wait before the next poll of `task`: its `pollInterval`, or a second.
fn poll_wait(task: &Task) -> Duration {
    task.poll_interval_ms.map_or(DEFAULT_POLL, Duration::from_millis).max(MIN_POLL)
}

/// A JSON-RPC error object in words: its message and code.
fn error_words(error: &Value) -> String {
    let message = error.get("message").and_then(Value::as_str).unwrap_or("(no message)");
    match error.get("code") {
        Some(code) => format!("{message} (code {code})"),
        None => message.to_owned(),
    }
}

type Pending = Pin<Box<dyn Future<Output = Result<Value, RequestError>> + Send>>;

impl Session {
    /// `tasks/get`: the task's state now.
    pub async fn task_get(&self, task_id: &str) -> Result<Task, RequestError> {
        self.task_get_in(task_id, None).await
    }

    /// `tasks/get`, recorded as a part of the operation `call` began (the call that made it).
    async fn task_get_in(&self, task_id: &str, call: Option<&RequestId>) -> Result<Task, RequestError> {
        let result = self.about_task("tasks/get", json!({ "taskId": task_id }), call).await?;
        Task::read(&result, self.era()).map_err(|why| RequestError::Protocol(format!("tasks/get: {why}")))
    }

    /// A request about a task, recorded as a part of the operation `call` began.
    async fn about_task(
        &self,
        method: &str,
        params: Value,
        call: Option<&RequestId>,
    ) -> Result<Value, RequestError> {
        self.request_with(Request::new(method, Some(params)).part_of(call)).await
    }

    /// Every task the server lists (`tasks/list`, all pages). Only 2025-11-25 servers that
    /// declare `tasks.list` have one; the 2026-07-28 extension has no list at all.
    pub async fn tasks_list(&self) -> Result<Vec<Task>, RequestError> {
        if self.era() == Era::Modern {
            return Err(RequestError::Protocol(
                "the 2026-07-28 tasks extension has no tasks/list; only the tasks Sonde started are known"
                    .into(),
            ));
        }
        if self.server.capabilities.pointer("/tasks/list").is_none() {
            return Err(RequestError::Protocol("the server does not declare tasks.list".into()));
        }
        let tasks = self.list_every("tasks/list", "tasks").await?;
        tasks
            .items
            .iter()
            .map(|t| {
                Task::read(t, self.era()).map_err(|why| RequestError::Protocol(format!("tasks/list: {why}")))
            })
            .collect()
    }

    /// `tasks/cancel`. A 2025-11-25 server answers with the cancelled task; a 2026-07-28 one
    /// only acknowledges (cancelling is cooperative there), so the new state comes from polling.
    pub async fn task_cancel(&self, task_id: &str) -> Result<Option<Task>, RequestError> {
        if self.era() == Era::Legacy && self.server.capabilities.pointer("/tasks/cancel").is_none() {
            return Err(RequestError::Protocol("the server does not declare tasks.cancel".into()));
        }
        let result = self.request("tasks/cancel", Some(json!({ "taskId": task_id }))).await?;
        match self.era() {
            Era::Legacy => Task::read(&result, Era::Legacy)
                .map(Some)
                .map_err(|why| RequestError::Protocol(format!("tasks/cancel: {why}"))),
            Era::Modern => Ok(None),
        }
    }

    /// Follows a task until it ends or `limit` has passed, handing each new state to
    /// `on_update` as it comes. Returns the view with the result (read and checked against
    /// `definition`, the tool as listed), the error, or why following stopped; it never fails
    /// otherwise. A poll swept away by a cancel of other requests is asked again.
    pub async fn follow_task(
        &self,
        mut view: TaskView,
        definition: Option<&Value>,
        limit: Duration,
        mut on_update: impl FnMut(&TaskView),
    ) -> TaskView {
        view.following = true;
        view.error = None;
        on_update(&view);
        let deadline = Instant::now() + limit;
        let followed = match self.era() {
            Era::Legacy => self.follow_legacy(&mut view, definition, deadline, &mut on_update).await,
            Era::Modern => self.follow_modern(&mut view, definition, deadline, &mut on_update).await,
        };
        if let Err(why) = followed {
            let stopped = match why {
                Stop::Deadline => format!(
                    "Sonde stopped following after {}; the task was {} then",
                    duration_words(limit),
                    view.task.status.name()
                ),
                Stop::Failed(words) => words,
            };
            view.error = Some(stopped);
        }
        view.following = false;
        on_update(&view);
        view
    }

    async fn follow_legacy(
        &self,
        view: &mut TaskView,
        definition: Option<&Value>,
        deadline: Instant,
        on_update: &mut impl FnMut(&TaskView),
    ) -> Result<(), Stop> {
        let id = view.task.task_id.clone();
        let tool = view.tool.clone();
        let call = view.call.clone();
        // Followed before the first poll, so a status notification after it is not missed.
        let mut live = self.conn.log().follow();
        let mut listening = true;
        // Those that came between the reply that made the task and now are in the log already.
        for task in self.recent_status_notifications(&id) {
            let newer = match (&task.last_updated_at, &view.task.last_updated_at) {
                (Some(then), Some(known)) => then >= known,
                _ => true,
            };
            if newer && view.take(task) {
                on_update(view);
            }
        }
        let mut result: Option<Pending> = None;
        let mut next_poll = Instant::now() + poll_wait(&view.task);
        loop {
            let status = view.task.status;
            if status == TaskStatus::Cancelled {
                return Ok(());
            }
            if result.is_none() && (status == TaskStatus::InputRequired || status.is_terminal()) {
                // It blocks until the task ends; the server sends what it needs meanwhile.
                let mut request =
                    Request::new("tasks/result", Some(json!({ "taskId": id }))).part_of(call.as_ref());
                request.timeout = Some(deadline.saturating_duration_since(Instant::now()).max(MIN_POLL));
                let session = self.clone();
                result = Some(Box::pin(async move { session.request_with(request).await }));
            }
            tokio::select! {
                // Each branch is cancellation-safe: the pinned `tasks/result` is polled again
                // where it stopped, a sleep loses nothing, and `next` loses no entry.
                ended = async { result.as_mut().expect("guarded").await }, if result.is_some() => {
                    match ended {
                        Ok(value) => {
                            self.settle(view, on_update).await;
                            view.outcome = Some(self.task_outcome(tool.as_deref(), definition, value).await);
                            return Ok(());
                        }
                        Err(RequestError::Cancelled { .. }) => result = None,
                        Err(RequestError::Rpc { error, .. }) => {
                            // What the tool call itself failed with (tasks/result repeats it).
                            self.settle(view, on_update).await;
                            view.error = Some(format!("tasks/result: {} (code {})", error.message, error.code));
                            return Ok(());
                        }
                        Err(e) => return Err(Stop::Failed(e.to_string())),
                    }
                }
                () = tokio::time::sleep_until(next_poll), if !view.task.terminal => {
                    match self.task_get_in(&id, call.as_ref()).await {
                        Ok(task) => {
                            if view.take(task) {
                                on_update(view);
                            }
                        }
                        Err(RequestError::Cancelled { .. }) => {}
                        Err(e) => return Err(Stop::Failed(e.to_string())),
                    }
                    next_poll = Instant::now() + poll_wait(&view.task);
                }
                followed = live.next(), if listening => match followed {
                    Some(Followed::Entry(entry, _)) => {
                        if let Some(task) = status_notification(&entry, self.conn.id(), &id) {
                            if view.take(task) {
                                on_update(view);
                            }
                        }
                    }
                    // Missed notifications are made up for by the next poll.
                    Some(Followed::Skipped(_)) => {}
                    None => listening = false,
                },
                () = tokio::time::sleep_until(deadline) => return Err(Stop::Deadline),
            }
        }
    }

    /// The states of task `id` in the status notifications among this connection's last
    /// [`RECENT`] log entries, oldest first.
    fn recent_status_notifications(&self, id: &str) -> Vec<Task> {
        let log = self.conn.log();
        let filter = Filter {
            conn: Some(self.conn.id()),
            dir: Some(Direction::In),
            method: Some("notifications/tasks/status".into()),
            ..Filter::default()
        };
        let end = log.len();
        let page = log.page(end.saturating_sub(RECENT), end, &filter, usize::MAX);
        page.map(|p| p.entries)
            .unwrap_or_default()
            .iter()
            .filter_map(|e| status_notification(e, self.conn.id(), id))
            .collect()
    }

    /// A task's result read as its tool's: checked against the tool's outputSchema when the
    /// tool is known (a task a server listed may not say which tool it runs).
    async fn task_outcome(
        &self,
        tool: Option<&str>,
        definition: Option<&Value>,
        result: Value,
    ) -> CallOutcome {
        match tool {
            Some(name) => self.checked_outcome(name, definition, result).await,
            None => CallOutcome::of(result, None),
        }
    }

    /// After `tasks/result` answered, the task has ended; one last `tasks/get` says how, unless
    /// a terminal status is known already.
    async fn settle(&self, view: &mut TaskView, on_update: &mut impl FnMut(&TaskView)) {
        if view.task.terminal {
            return;
        }
        if let Ok(task) = self.task_get_in(&view.task.task_id, view.call.as_ref()).await {
            if view.take(task) {
                on_update(view);
            }
        }
    }

    async fn follow_modern(
        &self,
        view: &mut TaskView,
        definition: Option<&Value>,
        deadline: Instant,
        on_update: &mut impl FnMut(&TaskView),
    ) -> Result<(), Stop> {
        let id = view.task.task_id.clone();
        let tool = view.tool.clone();
        // Each inputRequests key is answered once: a server repeats outstanding ones on every poll.
        let mut answered: HashSet<String> = HashSet::new();
        // The CreateTaskResult carries no result: a task that ended at once is asked at once.
        let mut wait = if view.task.terminal { Duration::ZERO } else { poll_wait(&view.task) };
        loop {
            if Instant::now() + wait >= deadline {
                tokio::time::sleep_until(deadline).await;
                return Err(Stop::Deadline);
            }
            tokio::time::sleep(wait).await;
            let state = match self.about_task("tasks/get", json!({ "taskId": id }), view.call.as_ref()).await
            {
                Ok(state) => state,
                Err(RequestError::Cancelled { .. }) => continue,
                Err(e) => return Err(Stop::Failed(e.to_string())),
            };
            let task =
                Task::read(&state, Era::Modern).map_err(|why| Stop::Failed(format!("tasks/get: {why}")))?;
            if view.take(task) {
                on_update(view);
            }
            wait = poll_wait(&view.task);
            match view.task.status {
                TaskStatus::Working => {}
                TaskStatus::InputRequired => {
                    let requests = state.get("inputRequests").and_then(Value::as_object);
                    let fresh: Vec<(&String, &Value)> =
                        requests.into_iter().flatten().filter(|(key, _)| !answered.contains(*key)).collect();
                    if fresh.is_empty() {
                        continue;
                    }
                    let responses = tokio::time::timeout_at(deadline, self.answer_inputs(&id, &fresh))
                        .await
                        .map_err(|_| Stop::Deadline)??;
                    let update = json!({ "taskId": id, "inputResponses": responses });
                    self.about_task("tasks/update", update, view.call.as_ref())
                        .await
                        .map_err(|e| Stop::Failed(e.to_string()))?;
                    answered.extend(fresh.iter().map(|(key, _)| (*key).clone()));
                    // The server takes the answer in its own time; the next poll comes at the pace.
                }
                TaskStatus::Completed => {
                    let Some(result) = state.get("result") else {
                        return Err(Stop::Failed(format!(
                            "tasks/get said task {id} completed, without its result"
                        )));
                    };
                    view.outcome = Some(self.task_outcome(tool.as_deref(), definition, result.clone()).await);
                    return Ok(());
                }
                TaskStatus::Failed => {
                    view.error = Some(match state.get("error") {
                        Some(error) => format!("the task failed: {}", error_words(error)),
                        None => "the task failed without saying why (no `error`)".into(),
                    });
                    return Ok(());
                }
                TaskStatus::Cancelled => return Ok(()),
            }
        }
    }

    /// Answers a 2026-07-28 task's new input requests through the responder (a person, in the
    /// window), and says so in the log.
    async fn answer_inputs(&self, id: &str, requests: &[(&String, &Value)]) -> Result<Value, Stop> {
        let mut responses = serde_json::Map::new();
        let mut asked = Vec::new();
        for (key, input) in requests {
            let method = input.get("method").and_then(Value::as_str).unwrap_or_default();
            let answer = self.conn.responder().answer(method, input.get("params")).resolve().await;
            let answer = answer.map_err(|e| {
                Stop::Failed(format!(
                    "task {id} asked for {method} ({key}), which Sonde cannot answer: {}",
                    e.message
                ))
            })?;
            asked.push(format!("{method} ({key})"));
            responses.insert((*key).clone(), answer);
        }
        let note = format!("task {id} needs input: answered {}; sending tasks/update", asked.join(", "));
        self.conn.log().append(Entry::new(self.conn.id(), Kind::Note, Direction::Meta).with_detail(note));
        Ok(Value::Object(responses))
    }
}

/// Why following stopped before the task ended.
enum Stop {
    Deadline,
    Failed(String),
}

/// The task state a `notifications/tasks/status` from connection `conn` carries about task `id`.
fn status_notification(entry: &Entry, conn: u64, id: &str) -> Option<Task> {
    if entry.conn != conn || entry.kind != Kind::Message || entry.dir != Direction::In {
        return None;
    }
    if entry.summary.as_ref()?.method.as_deref() != Some("notifications/tasks/status") {
        return None;
    }
    let message: Value = serde_json::from_str(entry.text.as_deref()?).ok()?;
    let task = Task::read(message.get("params")?, Era::Legacy).ok()?;
    (task.task_id == id).then_some(task)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task(status: TaskStatus, poll: Option<u64>) -> Task {
        Task {
            task_id: "t".into(),
            status,
            status_message: None,
            created_at: None,
            last_updated_at: None,
            ttl_ms: None,
            poll_interval_ms: poll,
            terminal: status.is_terminal(),
        }
    }

    #[test]
    fn polls_go_at_the_servers_pace_but_never_spin() {
        assert_eq!(poll_wait(&task(TaskStatus::Working, Some(5000))), Duration::from_secs(5));
        assert_eq!(poll_wait(&task(TaskStatus::Working, None)), DEFAULT_POLL);
        assert_eq!(poll_wait(&task(TaskStatus::Working, Some(0))), MIN_POLL);
    }

    #[test]
    fn a_terminal_task_is_not_shown_coming_back() {
        let mut view = TaskView::new(1, task(TaskStatus::Working, None), None);
        assert!(view.take(task(TaskStatus::Completed, None)));
        assert!(!view.take(task(TaskStatus::Working, None)), "a late poll answer");
        assert_eq!(view.task.status, TaskStatus::Completed);
        assert!(!view.take(task(TaskStatus::Completed, None)), "nothing new");
    }

    #[test]
    fn a_status_notification_is_read_only_for_its_connection_and_task() {
        let text = r#"{"jsonrpc":"2.0","method":"notifications/tasks/status","params":{"taskId":"t","status":"input_required","ttl":null}}"#;
        let mut entry = Entry::new(3, Kind::Message, Direction::In).with_bytes(text.as_bytes());
        entry.summary = Some(crate::log::Summary {
            kind: "notification".into(),
            method: Some("notifications/tasks/status".into()),
            ..Default::default()
        });
        assert_eq!(status_notification(&entry, 3, "t").unwrap().status, TaskStatus::InputRequired);
        assert!(status_notification(&entry, 4, "t").is_none());
        assert!(status_notification(&entry, 3, "other").is_none());
    }

    #[test]
    fn an_error_object_reads_as_words() {
        assert_eq!(
            error_words(&json!({"code": -32603, "message": "rate limited"})),
            "rate limited (code -32603)"
        );
    }
}
