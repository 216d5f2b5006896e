//! The Skills commands: a connection's skills listed, a skill's file read and checked against its
//! entry, a skill directory read (only where the server declares `directoryRead`; the core
//! refuses otherwise), a file saved. Each is one core call; the verdicts are the core's.

use serde_json::Value;
use sonde_core::{SkillEntry, SkillFileRead, SkillsListing};
use tauri::State;

use crate::error::Result;
use crate::state::AppState;

/// Every skill of connection `id` (`skills/list`, every page); reads no file.
#[tauri::command]
#[specta::specta]
pub async fn skills_list(state: State<'_, AppState>, id: u64) -> Result<SkillsListing> {
    Ok(state.hub.session(id)?.list_skills().await?)
}

/// Reads `uri`, a file of `skill` (its entry as listed), with its size, digest and, for SKILL.md,
/// frontmatter checked against the entry.
#[tauri::command]
#[specta::specta]
pub async fn skill_read(
    state: State<'_, AppState>,
    id: u64,
    skill: SkillEntry,
    uri: String,
) -> Result<SkillFileRead> {
    Ok(state.hub.session(id)?.read_skill_file(&skill, &uri).await?)
}

/// The direct children of a skill directory (`resources/directory/read`).
#[tauri::command]
#[specta::specta]
pub async fn skill_directory(state: State<'_, AppState>, id: u64, uri: String) -> Result<Vec<Value>> {
    Ok(state.hub.session(id)?.read_skill_directory(&uri).await?)
}

/// Writes a file read to `path` (relative: in the download directory); returns the path written.
/// An existing file is never overwritten.
#[tauri::command(async)]
#[specta::specta]
pub fn skill_save(path: String, read: SkillFileRead) -> Result<String> {
    Ok(sonde_core::save_bytes(&path, &read.bytes())?.display().to_string())
}
