//! A task as the server describes it, read the same way in both eras: the 2025-11-25 `Task`
//! (`ttl`, `pollInterval`, wrapped as `{task}` in a `CreateTaskResult`) and the 2026-07-28
//! tasks extension's (`ttlMs`, `pollIntervalMs`, flat in a result with `resultType: "task"`).
//!
//! Owns: [`Task`] and its closed [`TaskStatus`], reading one from a server's JSON, recognising a
//! `tools/call` result that created a task, and what a tool's `execution.taskSupport` and the
//! server's `tasks` capability say about asking for one (2025-11-25 §Tool-Level Negotiation).
//! Refuses: sending anything (`session::tasks` polls, answers and cancels) and presentation.

use serde::Serialize;
use serde_json::Value;

use crate::era::Era;

/// The extension a 2026-07-28 client declares in its per-request capabilities to be given tasks.
pub const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// Where a task is. The last three are terminal: the task never leaves them.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    Working,
    /// The server needs an answer from the client before the task can go on.
    InputRequired,
    Completed,
    Failed,
    Cancelled,
}

impl TaskStatus {
    pub fn parse(s: &str) -> Option<TaskStatus> {
        Some(match s {
            "working" => TaskStatus::Working,
            "input_required" => TaskStatus::InputRequired,
            "completed" => TaskStatus::Completed,
            "failed" => TaskStatus::Failed,
            "cancelled" => TaskStatus::Cancelled,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            TaskStatus::Working => "working",
            TaskStatus::InputRequired => "input_required",
            TaskStatus::Completed => "completed",
            TaskStatus::Failed => "failed",
            TaskStatus::Cancelled => "cancelled",
        }
    }

    pub fn is_terminal(self) -> bool {
        matches!(self, TaskStatus::Completed | TaskStatus::Failed | TaskStatus::Cancelled)
    }
}

/// One task's state, as the server last described it.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Task {
    pub task_id: String,
    pub status: TaskStatus,
    pub status_message: Option<String>,
    /// ISO 8601, as the server wrote it.
    pub created_at: Option<String>,
    pub last_updated_at: Option<String>,
    /// How long after its creation the server keeps the task, in milliseconds; `None` when
    /// unlimited or not said.
    pub ttl_ms: Option<u64>,
    /// How often the server would like to be asked, in milliseconds.
    pub poll_interval_ms: Option<u64>,
    /// True once the status is terminal (`completed`, `failed`, `cancelled`).
    pub terminal: bool,
}

impl Task {
    /// Reads a task object (`tasks/get`'s result, a `notifications/tasks/status` params, one
    /// entry of `tasks/list`, the `task` of a 2025-11-25 `CreateTaskResult`, or a 2026-07-28
    /// `CreateTaskResult` itself). The duration fields are named by era.
    // Err is words on the server's data: each caller puts them in its own error or view.
    pub fn read(value: &Value, era: Era) -> Result<Task, String> {
        let Value::Object(fields) = value else {
            return Err(format!("a task is {}, not an object", super::kind(value)));
        };
        let task_id = match fields.get("taskId") {
            Some(Value::String(id)) => id.clone(),
            Some(other) => return Err(format!("taskId is {}, not a string", super::kind(other))),
            None => return Err("the task has no taskId".into()),
        };
        let status = match fields.get("status") {
            Some(Value::String(s)) => {
                TaskStatus::parse(s).ok_or_else(|| format!("task {task_id} has the unknown status {s:?}"))?
            }
            Some(other) => {
                return Err(format!("task {task_id}'s status is {}, not a string", super::kind(other)))
            }
            None => return Err(format!("task {task_id} has no status")),
        };
        let text = |key: &str| fields.get(key).and_then(Value::as_str).map(str::to_owned);
        let (ttl, poll) = match era {
            Era::Legacy => ("ttl", "pollInterval"),
            Era::Modern => ("ttlMs", "pollIntervalMs"),
        };
        // A fractional or negative duration is read as the nearest sensible one rather than
        // refused: a poll interval is advice.
        let millis = |key: &str| fields.get(key).and_then(Value::as_f64).map(|ms| ms.max(0.0).round() as u64);
        Ok(Task {
            task_id,
            status,
            status_message: text("statusMessage"),
            created_at: text("createdAt"),
            last_updated_at: text("lastUpdatedAt"),
            ttl_ms: millis(ttl),
            poll_interval_ms: millis(poll),
            terminal: status.is_terminal(),
        })
    }
}

/// The task a `tools/call` result created, if it created one: in 2025-11-25 only when the call
/// asked for a task (`asked`), as `{task: {…}}`; in 2026-07-28 when `resultType` is `"task"`.
/// `Some(Err)` when it is a task result whose task cannot be read.
// Err is `Task::read`'s words on the server's data, which the session makes a protocol error.
pub fn created_task(result: &Value, era: Era, asked: bool) -> Option<Result<Task, String>> {
    match era {
        Era::Legacy if asked => Some(match result.get("task") {
            Some(task) => Task::read(task, era),
            None => Err("tools/call was asked for a task and answered without one (no `task`)".into()),
        }),
        Era::Legacy => None,
        Era::Modern => (result.get("resultType").and_then(Value::as_str) == Some("task"))
            .then(|| Task::read(result, era)),
    }
}

/// What a 2025-11-25 tool says about tasks (`execution.taskSupport`, `forbidden` when absent).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskSupport {
    Forbidden,
    Optional,
    Required,
}

impl TaskSupport {
    pub fn of(tool: &Value) -> TaskSupport {
        match tool.pointer("/execution/taskSupport").and_then(Value::as_str) {
            Some("optional") => TaskSupport::Optional,
            Some("required") => TaskSupport::Required,
            _ => TaskSupport::Forbidden,
        }
    }
}

/// Whether the server may be asked for tasks on `tools/call` (`tasks.requests.tools.call`).
pub fn server_runs_tool_tasks(capabilities: &Value) -> bool {
    capabilities.pointer("/tasks/requests/tools/call").is_some_and(|v| !v.is_null())
}

/// Whether a 2025-11-25 `tools/call` of `tool` goes as a task. `ask` is the caller asking for
/// one where the tool makes it optional. The server's capability comes first: without it a
/// client MUST NOT ask, whatever the tool says. Asking where the rules forbid it is an error
/// in words, before anything is sent.
// Err is words its one caller (`Session`) wraps at once as `RequestError::Protocol`.
pub fn ask_for_task(capabilities: &Value, tool: Option<&Value>, ask: bool) -> Result<bool, String> {
    let name = tool.and_then(|t| t.get("name")).and_then(Value::as_str).unwrap_or("the tool");
    if !server_runs_tool_tasks(capabilities) {
        return if ask {
            Err("the server does not declare tasks.requests.tools.call, so a call cannot be a task".into())
        } else {
            Ok(false)
        };
    }
    match (tool.map_or(TaskSupport::Forbidden, TaskSupport::of), ask) {
        (TaskSupport::Required, _) => Ok(true),
        (TaskSupport::Optional, ask) => Ok(ask),
        (TaskSupport::Forbidden, true) => {
            Err(format!("{name} does not run as a task (its execution.taskSupport is forbidden or absent)"))
        }
        (TaskSupport::Forbidden, false) => Ok(false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_task_reads_the_same_from_either_era_with_its_durations_named_by_era() {
        let legacy = json!({"taskId": "t1", "status": "working", "statusMessage": "Gathering",
            "createdAt": "2025-11-25T10:30:00Z", "lastUpdatedAt": "2025-11-25T10:40:00Z",
            "ttl": 60000, "pollInterval": 5000});
        let modern = json!({"resultType": "task", "taskId": "t1", "status": "working",
            "statusMessage": "Gathering", "createdAt": "2025-11-25T10:30:00Z",
            "lastUpdatedAt": "2025-11-25T10:40:00Z", "ttlMs": 60000, "pollIntervalMs": 5000});
        let a = Task::read(&legacy, Era::Legacy).unwrap();
        assert_eq!(a, Task::read(&modern, Era::Modern).unwrap());
        assert_eq!((a.ttl_ms, a.poll_interval_ms, a.terminal), (Some(60000), Some(5000), false));
        // The other era's names are not read as durations.
        assert_eq!(Task::read(&legacy, Era::Modern).unwrap().ttl_ms, None);
        let unlimited = json!({"taskId": "t", "status": "completed", "ttl": null});
        let done = Task::read(&unlimited, Era::Legacy).unwrap();
        assert_eq!((done.ttl_ms, done.terminal), (None, true));
    }

    #[test]
    fn a_task_without_an_id_or_with_an_unknown_status_is_refused_in_words() {
        let cases = [
            (json!({"status": "working"}), "the task has no taskId"),
            (json!({"taskId": 7, "status": "working"}), "taskId is a number, not a string"),
            (json!({"taskId": "t", "status": "paused"}), "task t has the unknown status \"paused\""),
            (json!({"taskId": "t"}), "task t has no status"),
            (json!([1]), "a task is an array, not an object"),
        ];
        for (value, words) in cases {
            assert_eq!(Task::read(&value, Era::Legacy).unwrap_err(), words);
        }
    }

    #[test]
    fn a_created_task_is_recognised_by_era() {
        let legacy = json!({"task": {"taskId": "a", "status": "working"}});
        assert_eq!(created_task(&legacy, Era::Legacy, true).unwrap().unwrap().task_id, "a");
        assert!(created_task(&legacy, Era::Legacy, false).is_none(), "not asked: a plain result");
        let plain = json!({"content": []});
        assert!(created_task(&plain, Era::Legacy, true).unwrap().is_err());
        assert!(created_task(&plain, Era::Modern, false).is_none());
        let modern = json!({"resultType": "task", "taskId": "b", "status": "working", "ttlMs": null});
        assert_eq!(created_task(&modern, Era::Modern, false).unwrap().unwrap().task_id, "b");
    }

    #[test]
    fn the_capability_comes_before_the_tools_task_support() {
        let can = json!({"tasks": {"requests": {"tools": {"call": {}}}}});
        let cannot = json!({"tools": {}});
        let required = json!({"name": "r", "execution": {"taskSupport": "required"}});
        let optional = json!({"name": "o", "execution": {"taskSupport": "optional"}});
        let plain = json!({"name": "p"});
        assert_eq!(ask_for_task(&can, Some(&required), false), Ok(true));
        assert_eq!(ask_for_task(&can, Some(&optional), false), Ok(false));
        assert_eq!(ask_for_task(&can, Some(&optional), true), Ok(true));
        assert_eq!(ask_for_task(&can, Some(&plain), false), Ok(false));
        assert!(ask_for_task(&can, Some(&plain), true).unwrap_err().starts_with("p does not run as a task"));
        assert_eq!(
            ask_for_task(&cannot, Some(&required), false),
            Ok(false),
            "MUST NOT without the capability"
        );
        assert!(ask_for_task(&cannot, Some(&optional), true).is_err());
    }
}
