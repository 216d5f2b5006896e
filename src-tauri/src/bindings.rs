//! The TypeScript side of IPC, generated from the Rust commands and types and committed as
//! `ui/src/ipc/bindings.ts`: one typed function per command (its name and argument names as
//! Tauri expects them) and every type they carry. A test fails when the two drift.
//!
//! A type serde reads and writes in different shapes (`#[serde(default)]`, `skip_serializing_if`)
//! comes in both: `X_Serialize` is what the UI receives, `X_Deserialize` what it may send.

use specta_typescript::Typescript;
use tauri_specta::ErrorHandlingMode;

const HEADER: &str =
    "// Generated from the Rust commands and types by src-tauri (bindings.rs); do not edit.\n\
     // Regenerate: SONDE_UPDATE_BINDINGS=1 cargo test -p sonde-desktop --test bindings";

/// `serde_json::Value` is exported as `Value`; the UI names it for what it holds.
const JSON_VALUE: &str = "/** Any JSON value (`serde_json::Value`). */\nexport type JsonValue = Value;";

/// The bindings file's whole text.
pub fn typescript() -> Result<String, specta_typescript::Error> {
    let builder = crate::commands::<tauri::Wry>()
        // The error every command rejects with, so the UI can name it.
        .typ::<crate::error::ErrorDto>()
        // The core's numbers and data the UI's own code needs (its in-memory double, the schema
        // form), so none is copied by hand.
        .constant("MAX_OPEN_QUESTIONS", sonde_core::MAX_OPEN_QUESTIONS)
        .constant("SCHEMA_MAX_DEPTH", sonde_core::SCHEMA_MAX_DEPTH)
        .constant("OUTCOME_WORDS", sonde_core::RequestOutcome::words())
        .constant("COUNT_BUDGET", sonde_core::COUNT_BUDGET)
        // The heights the timeline may be dragged to, as the settings keep them.
        .constant("TIMELINE_HEIGHTS", [sonde_core::Layout::TIMELINE_MIN, sonde_core::Layout::TIMELINE_MAX])
        .constant("DETAIL_WIDTHS", [sonde_core::Layout::DETAIL_MIN, sonde_core::Layout::DETAIL_MAX])
        // Least severe first: the order the double ranks findings in.
        .constant("SEVERITIES", sonde_core::Severity::ALL)
        // Least severe first, as servers filter their log messages by them.
        .constant("LOG_LEVELS", sonde_core::LogLevel::ALL)
        // The window's panels, as the View menu lists them: the UI maps each id to a component.
        .constant("PANELS", crate::menu::PANELS)
        .constant(
            "ERA_REVISIONS",
            [("legacy", sonde_core::LEGACY_REVISION), ("modern", sonde_core::MODERN_REVISION)],
        )
        // A rejected command rejects the promise with its `{code, message}`, as `invoke` does.
        .error_handling(ErrorHandlingMode::Throw)
        // Ids, seqs and durations are u64 in Rust and stay far below 2^53: plain numbers in the
        // UI, as they cross IPC as JSON numbers anyway. Builder-wide rather than per field,
        // because command arguments and results (ids, `from`/`to`, counts) are u64 too.
        .dangerously_cast_bigints_to_number();
    // The exporter writes only to a file; the text is read back from a private temp one.
    let dir = std::env::temp_dir().join(format!("sonde-bindings-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let path = dir.join("bindings.ts");
    builder.export(Typescript::default().header(HEADER).with_raw(JSON_VALUE), &path)?;
    let text = std::fs::read_to_string(&path)?;
    let _ = std::fs::remove_dir_all(&dir);
    Ok(text)
}
