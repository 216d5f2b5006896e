//! The task commands: the tasks of a connection as the core follows them, listing, getting and
//! cancelling one. A tool call that becomes a task is followed by the core from the moment it
//! returns (`tool_call`); these only show and steer what the core does.

use sonde_core::TaskView;
use tauri::ipc::Channel;
use tauri::State;

use crate::error::Result;
use crate::state::AppState;

/// The tasks of connection `id` the core knows now; each change of one after it arrives on
/// `channel` as it happens, the task's whole new view.
#[tauri::command]
#[specta::specta]
pub fn tasks_follow(state: State<'_, AppState>, id: u64, channel: Channel<TaskView>) -> Vec<TaskView> {
    crate::feeds::forward(state.hub.tasks().feed(id), channel)
}

/// The tasks of connection `id`, with the server's `tasks/list` asked where it has one.
#[tauri::command]
#[specta::specta]
pub async fn tasks_list(state: State<'_, AppState>, id: u64) -> Result<Vec<TaskView>> {
    Ok(state.hub.tasks_list(id).await?)
}

/// Asks the server for one task's state now (`tasks/get`).
#[tauri::command]
#[specta::specta]
pub async fn task_get(state: State<'_, AppState>, id: u64, task_id: String) -> Result<TaskView> {
    Ok(state.hub.task_get(id, &task_id).await?)
}

/// Asks the server to cancel a task (`tasks/cancel`); the core keeps following it until the
/// server says it ended.
#[tauri::command]
#[specta::specta]
pub async fn task_cancel(state: State<'_, AppState>, id: u64, task_id: String) -> Result<TaskView> {
    Ok(state.hub.task_cancel(id, &task_id).await?)
}
