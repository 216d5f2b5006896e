//! The commands for the MCP surface beyond tools: lists page by page, resources, templates,
//! prompts, completion, the log level, ping, server notifications and subscriptions. Each is a
//! few lines over one core call (`sonde_core::features`); nothing here speaks the protocol.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

use sonde_core::{
    expand_template, Completion, CompletionRef, Feed, ListKind, ListPage, ListenSpec, Listing, LogLevel,
    Notice, Noticed, Notices, Ping, PromptView, ReadView, SubscriptionEvent,
};
use tauri::ipc::Channel;
use tauri::State;

use crate::error::Result;
use crate::state::AppState;

/// One page of a list, from `cursor` (`null`: the first page).
#[tauri::command]
#[specta::specta]
pub async fn list_page(
    state: State<'_, AppState>,
    id: u64,
    kind: ListKind,
    cursor: Option<Value>,
) -> Result<ListPage> {
    Ok(state.hub.session(id)?.fetch_page(kind, cursor).await?)
}

/// Every item of a list, all pages followed.
#[tauri::command]
#[specta::specta]
pub async fn list_all(state: State<'_, AppState>, id: u64, kind: ListKind) -> Result<Listing> {
    Ok(state.hub.session(id)?.list_all(kind).await?)
}

#[tauri::command]
#[specta::specta]
pub async fn resource_read(state: State<'_, AppState>, id: u64, uri: String) -> Result<ReadView> {
    Ok(state.hub.session(id)?.read_resource(&uri).await?)
}

/// Saves a blob a read gave (base64) to `path` (relative: in the download directory); returns
/// the path written. An existing file is never overwritten.
#[tauri::command(async)]
#[specta::specta]
pub fn resource_save(path: String, blob: String) -> Result<String> {
    let written = sonde_core::save_blob(&path, &blob)?;
    Ok(written.display().to_string())
}

/// A template's variables, each once, in order.
#[tauri::command]
#[specta::specta]
pub fn template_variables(template: String) -> Result<Vec<String>> {
    Ok(sonde_core::template_variables(&template)?)
}

/// The URI a template names with these values (RFC 6570).
#[tauri::command]
#[specta::specta]
pub fn template_expand(template: String, values: BTreeMap<String, String>) -> Result<String> {
    Ok(expand_template(&template, &values)?)
}

#[tauri::command]
#[specta::specta]
pub async fn prompt_get(
    state: State<'_, AppState>,
    id: u64,
    name: String,
    args: BTreeMap<String, String>,
) -> Result<PromptView> {
    Ok(state.hub.session(id)?.get_prompt(&name, &args).await?)
}

/// Suggestions for `argument` typed so far as `value`; `context` holds the other arguments
/// already filled. A server without `completions` is not asked (the error says so).
#[tauri::command]
#[specta::specta]
pub async fn complete(
    state: State<'_, AppState>,
    id: u64,
    reference: CompletionRef,
    argument: String,
    value: String,
    context: BTreeMap<String, String>,
) -> Result<Completion> {
    Ok(state.hub.session(id)?.complete(&reference, &argument, &value, &context).await?)
}

/// The log level asked of a connection's server so far (`null`: none asked).
#[tauri::command]
#[specta::specta]
pub fn log_level_get(state: State<'_, AppState>, id: u64) -> Result<Option<LogLevel>> {
    Ok(state.hub.session(id)?.log_level())
}

#[tauri::command]
#[specta::specta]
pub async fn log_level_set(state: State<'_, AppState>, id: u64, level: LogLevel) -> Result<()> {
    Ok(state.hub.session(id)?.set_log_level(level).await?)
}

#[tauri::command]
#[specta::specta]
pub async fn ping(state: State<'_, AppState>, id: u64) -> Result<Ping> {
    Ok(state.hub.session(id)?.ping().await?)
}

/// What the notices stream sends.
#[derive(Debug, Clone, Serialize, specta::Type)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum NoticeEvent {
    Notice {
        notice: Box<Notice>,
    },
    /// This many log entries went by too fast to read; the wire log has them.
    Skipped {
        entries: u64,
    },
}

/// Streams every server notification of every connection as it is recorded.
#[tauri::command]
#[specta::specta]
pub fn notifications_follow(state: State<'_, AppState>, channel: Channel<NoticeEvent>) {
    let feed = Feed::of_source(Notices::follow(state.hub.log())).filter_map(|noticed| {
        Some(match noticed {
            Noticed::Notice(notice) => NoticeEvent::Notice { notice },
            Noticed::Skipped(n) => NoticeEvent::Skipped { entries: n },
        })
    });
    crate::feeds::stream(feed, channel);
}

/// Starts a subscription on a connection; its events arrive on `channel` until it ends.
/// Returns its number, for `unsubscribe`.
#[tauri::command]
#[specta::specta]
pub async fn subscribe(
    state: State<'_, AppState>,
    id: u64,
    spec: ListenSpec,
    channel: Channel<SubscriptionEvent>,
) -> Result<u64> {
    Ok(state.hub.subscribe(id, spec, move |event| channel.send(event).is_ok()).await?)
}

/// Stops a subscription; its channel hears that it ended. One already over is no error.
#[tauri::command]
#[specta::specta]
pub fn unsubscribe(state: State<'_, AppState>, subscription: u64) {
    state.hub.unsubscribe(subscription);
}
