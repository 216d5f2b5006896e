//! Tasks on the command line: a `call` that became a task is followed to its result, its status
//! changes on stderr; `tasks list|get|cancel` (and the shell's `tasks`, `task`, `cancel`).
//!
//! Owns: the words and JSON these print. Refuses: the exchanges (the core's `session::tasks`).

use serde_json::json;
use sonde_core::{
    CallOutcome, Era, RequestError, RequestId, Session, Task, TaskStatus, TaskView, FOLLOW_LIMIT,
};

use crate::exit::{FAILED, OK};

/// What `sonde tasks` does.
pub enum TaskOp {
    List,
    Get(String),
    Cancel(String),
}

/// A task as one line: its id, status and message.
fn line(task: &Task) -> String {
    let message = task.status_message.as_deref().map(|m| format!("  {m}")).unwrap_or_default();
    format!("{}  {}{message}", task.task_id, task.status.name())
}

/// Follows the task a call of `tool` became, saying each change of status or message on stderr;
/// returns the tool's result, or the exit code after saying why there is none. `call`, the
/// request that made the task, is what the log records each request about it as a part of.
pub async fn follow(
    session: &Session,
    tool: &str,
    task: Task,
    call: Option<RequestId>,
) -> Result<CallOutcome, i32> {
    noteln!(
        "sonde: {tool} runs as task {}; following it for up to {}",
        task.task_id,
        sonde_core::duration_words(FOLLOW_LIMIT)
    );
    noteln!("sonde: task {}", line(&task));
    let view = TaskView { call, ..TaskView::new(session.conn.id(), task, Some(tool.to_owned())) };
    let mut said = (view.task.status, view.task.status_message.clone());
    let end = session
        .follow_task(view, None, FOLLOW_LIMIT, |v| {
            let now = (v.task.status, v.task.status_message.clone());
            if now != said {
                noteln!("sonde: task {}", line(&v.task));
                said = now;
            }
        })
        .await;
    let id = &end.task.task_id;
    match (end.outcome, end.error) {
        (Some(outcome), _) => Ok(outcome),
        (None, Some(error)) => {
            errln!("sonde: task {id}: {error}");
            Err(FAILED)
        }
        (None, None) if end.task.status == TaskStatus::Cancelled => {
            errln!("sonde: task {id} was cancelled; it has no result");
            Err(FAILED)
        }
        (None, None) => {
            errln!("sonde: task {id} ended {} without a result", end.task.status.name());
            Err(FAILED)
        }
    }
}

pub async fn run(session: &Session, op: TaskOp, json: bool) -> Result<i32, RequestError> {
    let show = |task: &Task| {
        if json {
            crate::recording::document(session, &serde_json::to_value(task).expect("serializes"));
        } else {
            outln!("{}", line(task));
        }
    };
    match op {
        TaskOp::List => {
            let tasks = session.tasks_list().await?;
            if json {
                crate::recording::document(session, &json!({ "tasks": tasks }));
            } else {
                tasks.iter().for_each(|t| outln!("{}", line(t)));
            }
            noteln!("sonde: {} {}", tasks.len(), if tasks.len() == 1 { "task" } else { "tasks" });
        }
        TaskOp::Get(id) => show(&session.task_get(&id).await?),
        TaskOp::Cancel(id) => match session.task_cancel(&id).await? {
            Some(task) => show(&task),
            None => {
                debug_assert_eq!(session.era(), Era::Modern);
                errln!(
                    "sonde: the server acknowledged cancelling task {id}; in 2026-07-28 cancelling is \
                     cooperative, so tasks get {id} says whether it stopped"
                );
            }
        },
    }
    Ok(OK)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_task_line_has_its_id_status_and_message() {
        let task = Task {
            task_id: "t-1".into(),
            status: TaskStatus::InputRequired,
            status_message: Some("Which one?".into()),
            created_at: None,
            last_updated_at: None,
            ttl_ms: None,
            poll_interval_ms: None,
            terminal: false,
        };
        assert_eq!(line(&task), "t-1  input_required  Which one?");
    }
}
