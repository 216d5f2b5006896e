//! The tasks of every connection, as the hub knows them: those its calls became, and those a
//! 2025-11-25 server lists. Each is followed to its end in the background from the moment it is
//! known, so a task that asks for input gets its question to the person at once, whether or not a
//! window is looking at tasks.
//!
//! Owns: the table of [`TaskView`]s by connection and task id, the broadcast of every change, the
//! one follower per task, and the hub's task commands (call, list, get, cancel).
//! Refuses: the exchanges themselves (`session::tasks`) and presentation.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use serde_json::Value;
use tokio::sync::broadcast;

use super::{Hub, HubError};
use crate::connection::RequestError;
use crate::feed::Feed;
use crate::session::tasks::{TaskView, FOLLOW_LIMIT};
use crate::session::CallOutcome;
use crate::shape::task::Task;
use crate::sync::Lock;

/// Every known task, and who is following which.
#[derive(Default)]
struct Table {
    version: u64,
    /// In the order they became known.
    rows: Vec<TaskView>,
    following: HashSet<(u64, String)>,
}

/// The table and its stream.
pub struct Tasks {
    table: Mutex<Table>,
    changes: broadcast::Sender<TaskView>,
}

impl Default for Tasks {
    fn default() -> Self {
        Tasks { table: Mutex::default(), changes: broadcast::channel(1024).0 }
    }
}

impl Tasks {
    /// Every known task of connection `conn`, oldest first.
    pub fn of(&self, conn: u64) -> Vec<TaskView> {
        self.table.locked().rows.iter().filter(|v| v.conn == conn).cloned().collect()
    }

    /// Every change from now on, each the task's whole new view.
    pub fn follow(&self) -> broadcast::Receiver<TaskView> {
        self.changes.subscribe()
    }

    /// The tasks of connection `conn` now, then each change of one as it happens.
    pub fn feed(self: &Arc<Self>, conn: u64) -> Feed<TaskView> {
        let changes = self.follow();
        let tasks = self.clone();
        Feed::new(changes, move || tasks.of(conn), move |view: TaskView| (view.conn == conn).then_some(view))
    }

    fn get(&self, conn: u64, id: &str) -> Option<TaskView> {
        self.table.locked().rows.iter().find(|v| v.conn == conn && v.task.task_id == id).cloned()
    }

    /// Puts a view in the table (replacing the one of the same task) and tells every follower.
    fn put(&self, mut view: TaskView) {
        let mut table = self.table.locked();
        let version = table.version + 1;
        let at = table.rows.iter().position(|v| v.conn == view.conn && v.task.task_id == view.task.task_id);
        if let Some(row) = at.map(|i| &table.rows[i]) {
            // A follower's poll sent before a cancel was answered must not bring the task back.
            if row.task.terminal && !view.task.terminal {
                view.task = row.task.clone();
            }
            view.version = row.version;
            if *row == view {
                return;
            }
        }
        view.version = version;
        table.version = version;
        match at {
            Some(i) => table.rows[i] = view.clone(),
            None => table.rows.push(view.clone()),
        }
        // Sent under the lock, so the stream's order is the versions' order.
        let _ = self.changes.send(view);
    }

    /// Takes a newer state of a known task, or learns of a new one; the rest of its view stays.
    fn learn(&self, conn: u64, task: Task) -> TaskView {
        let id = task.task_id.clone();
        let mut view = self.get(conn, &id).unwrap_or_else(|| TaskView::new(conn, task.clone(), None));
        view.task = task;
        self.put(view);
        self.get(conn, &id).expect("just put")
    }

    /// Claims the following of a task; false when someone follows it already.
    fn claim(&self, conn: u64, id: &str) -> bool {
        self.table.locked().following.insert((conn, id.to_owned()))
    }

    fn release(&self, conn: u64, id: &str) {
        self.table.locked().following.remove(&(conn, id.to_owned()));
    }
}

impl Hub {
    /// The tasks the hub knows, and their changes.
    pub fn tasks(&self) -> &Arc<Tasks> {
        &self.tasks
    }

    /// Calls a tool like [`Session::call_tool_checked`](crate::session::Session::call_tool_checked);
    /// a call that becomes a task is remembered and followed in the background from here on.
    pub async fn call_tool_checked(
        &self,
        id: u64,
        name: &str,
        definition: Option<&Value>,
        arguments: Option<Value>,
        ask_task: bool,
        on_progress: impl FnMut(Value),
    ) -> Result<CallOutcome, HubError> {
        let session = self.session(id)?;
        let outcome = session
            .call_tool_checked(name, definition, arguments, ask_task, on_progress)
            .await
            .inspect_err(|e| {
                if let Some(questions) = &self.questions {
                    questions.expect_links_of(id, e);
                }
            })?;
        if let Some(task) = &outcome.task {
            let view = TaskView {
                call: outcome.call.clone(),
                ..TaskView::new(id, task.clone(), Some(name.to_owned()))
            };
            self.tasks.put(view.clone());
            self.start_following(view, definition.cloned());
        }
        Ok(outcome)
    }

    /// Follows a task in the background unless it has ended or is followed already; every
    /// state it reaches goes into the table.
    fn start_following(&self, view: TaskView, definition: Option<Value>) {
        let (conn, id) = (view.conn, view.task.task_id.clone());
        // A task that ended with its result known needs nothing more.
        if view.task.terminal && (view.outcome.is_some() || view.error.is_some()) {
            return;
        }
        let Ok(session) = self.session(conn) else { return };
        if !self.tasks.claim(conn, &id) {
            return;
        }
        let mut view = view;
        view.following = true;
        self.tasks.put(view.clone());
        let limit = self.states.config(conn).map_or(FOLLOW_LIMIT, |c| c.options.max_request_time);
        let hub = self.clone();
        tokio::spawn(async move {
            let tasks = &hub.tasks;
            let end = session.follow_task(view, definition.as_ref(), limit, |v| tasks.put(v.clone())).await;
            tasks.put(end);
            tasks.release(conn, &id);
        });
    }

    /// The tasks of connection `id`: in 2025-11-25, with `tasks/list` asked when the server
    /// declares it (a task Sonde did not know is followed from here on); in 2026-07-28, those
    /// Sonde's calls became, as there is no list.
    pub async fn tasks_list(&self, id: u64) -> Result<Vec<TaskView>, HubError> {
        let session = self.session(id)?;
        let listable = session.era() == crate::era::Era::Legacy
            && session.server.capabilities.pointer("/tasks/list").is_some();
        if listable {
            for task in session.tasks_list().await? {
                let view = self.tasks.learn(id, task);
                self.start_following(view, None);
            }
        }
        Ok(self.tasks.of(id))
    }

    /// Asks the server for one task's state now (`tasks/get`).
    pub async fn task_get(&self, id: u64, task_id: &str) -> Result<TaskView, HubError> {
        let task = self.session(id)?.task_get(task_id).await?;
        let view = self.tasks.learn(id, task);
        self.start_following(view.clone(), None);
        Ok(view)
    }

    /// Asks the server to cancel a task (`tasks/cancel`). Its follower goes on until the server
    /// says it ended: in 2026-07-28 a cancel is only acknowledged.
    pub async fn task_cancel(&self, id: u64, task_id: &str) -> Result<TaskView, HubError> {
        let session = self.session(id)?;
        match session.task_cancel(task_id).await? {
            Some(task) => Ok(self.tasks.learn(id, task)),
            None => self.tasks.get(id, task_id).ok_or_else(|| {
                HubError::Request(RequestError::Protocol(format!(
                    "the server acknowledged cancelling task {task_id}, which Sonde does not know"
                )))
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shape::task::TaskStatus;

    fn view(id: &str, status: TaskStatus) -> TaskView {
        let task = Task {
            task_id: id.into(),
            status,
            status_message: None,
            created_at: None,
            last_updated_at: None,
            ttl_ms: None,
            poll_interval_ms: None,
            terminal: status.is_terminal(),
        };
        TaskView::new(7, task, Some("research".into()))
    }

    #[test]
    fn each_change_gets_a_newer_version_and_a_repeat_is_not_a_change() {
        let tasks = Tasks::default();
        let mut changes = tasks.follow();
        tasks.put(view("a", TaskStatus::Working));
        tasks.put(view("b", TaskStatus::Working));
        tasks.put(view("a", TaskStatus::Working));
        tasks.put(view("a", TaskStatus::InputRequired));
        let seen: Vec<(String, u64)> =
            std::iter::from_fn(|| changes.try_recv().ok()).map(|v| (v.task.task_id, v.version)).collect();
        assert_eq!(seen, [("a".into(), 1), ("b".into(), 2), ("a".into(), 3)]);
        let rows: Vec<String> = tasks.of(7).into_iter().map(|v| v.task.task_id).collect();
        assert_eq!(rows, ["a", "b"], "in the order they became known");
        assert!(tasks.of(8).is_empty());
    }

    #[test]
    fn a_stale_report_does_not_bring_a_cancelled_task_back_but_its_result_still_lands() {
        let tasks = Tasks::default();
        tasks.put(view("a", TaskStatus::Working));
        tasks.learn(7, view("a", TaskStatus::Cancelled).task);
        let mut late = view("a", TaskStatus::Working);
        late.following = true;
        tasks.put(late);
        let row = tasks.get(7, "a").unwrap();
        assert_eq!(
            (row.task.status, row.following, row.tool.as_deref()),
            (TaskStatus::Cancelled, true, Some("research"))
        );
    }

    #[test]
    fn one_follower_per_task() {
        let tasks = Tasks::default();
        assert!(tasks.claim(1, "a"));
        assert!(!tasks.claim(1, "a"));
        assert!(tasks.claim(2, "a"), "another connection's task of the same id");
        tasks.release(1, "a");
        assert!(tasks.claim(1, "a"));
    }
}
