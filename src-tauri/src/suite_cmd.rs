//! The window's "Save as test" (issue 35): a call and what its answer must hold, added to a
//! suite file the person chooses in a native dialog (an existing suite, or a new file). The
//! suite's format and the check that it still reads are the core's (`sonde_core::suite`).

use serde::Serialize;
use sonde_core::{append_test, Test};
use tauri::State;

use crate::error::Result;
use crate::state::AppState;

/// Where the test went, and how many tests that suite holds now.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct Appended {
    pub path: String,
    pub tests: u32,
}

/// Adds `test` to a suite: an existing one (`existing`, chosen in the open dialog) or a new
/// file (the save dialog, which asks before replacing one). `null` when the person cancels.
#[tauri::command]
#[specta::specta]
pub async fn suite_append(
    state: State<'_, AppState>,
    test: Test,
    existing: bool,
) -> Result<Option<Appended>> {
    let chosen = if existing {
        state.asker.open_path("Add the test to a suite", ("Test suites", &["yaml", "yml", "json"][..])).await
    } else {
        state.asker.save_path("Save the test in a new suite", "sonde-tests.yaml").await
    };
    let Some(path) = chosen else { return Ok(None) };
    let tests = append_test(&path, &test, !existing)?;
    Ok(Some(Appended { path: path.display().to_string(), tests: u32::try_from(tests).unwrap_or(u32::MAX) }))
}
