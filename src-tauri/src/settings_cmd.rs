//! The Settings dialog's commands: the sessions budget as the settings file holds it, the
//! numbers it comes to, what pruning removed; pinning a session so it is never pruned; and the
//! window's theme, given to the window's native side as well; the window's layout; and the
//! collector the window sends spans to.

use serde::Serialize;
use sonde_core::{
    free_space, list_sessions, pin_session, Budget, Layout, OtlpTarget, Pruned, SessionInfo,
    SessionsSettings, SettingsError, Theme,
};
use tauri::{Manager, Runtime, State};

use crate::error::{err, io_error, Result};
use crate::state::AppState;

impl From<SettingsError> for crate::error::ErrorDto {
    fn from(e: SettingsError) -> Self {
        err(e.code(), e)
    }
}

/// The sessions budget as the dialog shows it.
#[derive(Debug, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct SessionsBudget {
    /// As the settings file holds it: a value left out takes its default.
    pub settings: SessionsSettings,
    /// What the defaults come to on this disk now.
    pub defaults: Budget,
    /// Where the sessions are, how many, and their bytes now.
    pub folder: String,
    pub sessions: u64,
    pub bytes: u64,
    /// What the last prune of this window removed, in words; `None` when it removed nothing.
    pub pruned: Option<String>,
}

/// The sessions folder: where this window's own session is written.
fn folder(state: &AppState) -> std::path::PathBuf {
    state.hub.log().path().parent().map(std::path::Path::to_path_buf).unwrap_or_default()
}

fn view(state: &AppState, pruned: Option<String>) -> Result<SessionsBudget> {
    let folder = folder(state);
    let listed = list_sessions(&folder).map_err(io_error)?;
    Ok(SessionsBudget {
        settings: state.settings.load()?.sessions,
        defaults: SessionsSettings::default().budget(free_space(&folder)),
        folder: folder.display().to_string(),
        sessions: listed.len() as u64,
        bytes: listed.iter().map(|s| s.size).sum(),
        pruned,
    })
}

/// The sessions budget, and what pruning removed when this window's session started.
#[tauri::command]
#[specta::specta]
pub fn sessions_budget_get(state: State<'_, AppState>) -> Result<SessionsBudget> {
    view(&state, state.pruned_at_start.clone())
}

/// What saving `settings` would remove from the sessions folder now (oldest first), and the
/// sessions kept because they were opened or replayed in the last hour; nothing is removed.
#[tauri::command]
#[specta::specta]
pub fn sessions_budget_preview(state: State<'_, AppState>, settings: SessionsSettings) -> Result<Pruned> {
    let budget = settings.budget(free_space(&folder(&state)));
    state.hub.log().would_remove(budget).map_err(io_error)
}

/// Saves the sessions budget and prunes the folder to it now; says what that removed.
#[tauri::command]
#[specta::specta]
pub fn sessions_budget_set(state: State<'_, AppState>, settings: SessionsSettings) -> Result<SessionsBudget> {
    let saved = state.settings.set_sessions(settings)?;
    let folder = folder(&state);
    let pruned = state.hub.log().keep_within(saved.sessions.budget(free_space(&folder))).map_err(io_error)?;
    view(&state, pruned.words())
}

/// Pins the session `name` (or unpins it): a pinned session is never pruned. Returns the
/// sessions as Open Session lists them.
#[tauri::command]
#[specta::specta]
pub fn session_pin(state: State<'_, AppState>, name: String, pinned: bool) -> Result<Vec<SessionInfo>> {
    let folder = folder(&state);
    pin_session(&folder, &name, pinned).map_err(io_error)?;
    state.sessions.list().map_err(io_error)
}

/// The window's theme as the settings file holds it (dark when it does not say).
#[tauri::command]
#[specta::specta]
pub fn theme_get(state: State<'_, AppState>) -> Result<Theme> {
    Ok(state.settings.load()?.theme.unwrap_or_default())
}

/// Saves the window's theme and gives it to the window's GTK side too, so native parts (menus,
/// dropdown popups, dialogs) match the page and the page's "system" follows GTK's preference.
#[tauri::command]
#[specta::specta]
pub fn theme_set(state: State<'_, AppState>, theme: Theme) -> Result<Theme> {
    state.settings.set_theme(theme)?;
    if let Some(window) = state.asker.app().and_then(|app| app.get_webview_window("main")) {
        apply_theme(&window, theme);
    }
    Ok(theme)
}

/// Gives `theme` to a window's native side: GTK's dark or light variant, or the system's
/// preference for "system".
pub fn apply_theme<R: Runtime>(window: &tauri::WebviewWindow<R>, theme: Theme) {
    let native = match theme {
        Theme::System => None,
        Theme::Dark => Some(tauri::Theme::Dark),
        Theme::Light => Some(tauri::Theme::Light),
    };
    if let Err(e) = window.set_theme(native) {
        tracing::warn!("the window's theme could not be set: {e}");
    }
}

/// The window's layout as the person left it (each value left out takes the window's default).
#[tauri::command]
#[specta::specta]
pub fn layout_get(state: State<'_, AppState>) -> Result<Layout> {
    Ok(state.settings.load()?.layout)
}

/// Changes the window's layout: each value given is saved, the others are kept. Returns the
/// whole layout as saved (a split out of bounds brought within them).
#[tauri::command]
#[specta::specta]
pub fn layout_set(state: State<'_, AppState>, layout: Layout) -> Result<Layout> {
    Ok(state.settings.set_layout(layout)?.layout)
}

/// Where the window's spans go, and how it has gone.
#[tauri::command(async)]
#[specta::specta]
pub async fn spans_get(state: State<'_, AppState>) -> Result<crate::spans::SpansView> {
    let setting = state.settings.load()?.otel_endpoint;
    Ok(state.spans.view(setting).await)
}

/// Names the collector the window sends spans to (`None`: the environment's, or none), saved
/// in the settings, and sends to it from now on. A URL that cannot be used is refused unsaved.
#[tauri::command(async)]
#[specta::specta]
pub async fn spans_set(
    state: State<'_, AppState>,
    endpoint: Option<String>,
) -> Result<crate::spans::SpansView> {
    let endpoint = endpoint.map(|e| e.trim().to_owned()).filter(|e| !e.is_empty());
    if let Some(url) = &endpoint {
        OtlpTarget::from_env_with(Some(url)).map_err(|e| err(e.code(), e))?;
    }
    state.settings.set_otel_endpoint(endpoint.clone())?;
    state.spans.restart(state.hub.log().clone(), endpoint.as_deref(), state.servers.secrets()).await;
    Ok(state.spans.view(endpoint).await)
}
