//! The TypeScript declarations of every type that crosses IPC, generated from the Rust types
//! and committed as `ui/src/ipc/bindings.ts`; a test fails when the two drift.

use ts_rs::TS;

/// The bindings file's whole text.
pub fn typescript() -> String {
    let decls = [
        sonde_core::servers::SavedServer::decl(),
        sonde_core::servers::EnvVar::decl(),
        sonde_core::transport::Header::decl(),
        sonde_core::servers::Imported::decl(),
        sonde_core::era::EraPolicy::decl(),
        sonde_core::era::Era::decl(),
        sonde_core::mcp::ServerDescription::decl(),
        sonde_core::log::Entry::decl(),
        sonde_core::log::Kind::decl(),
        sonde_core::log::Direction::decl(),
        sonde_core::log::Summary::decl(),
        sonde_core::log::HttpInfo::decl(),
        sonde_core::log::Page::decl(),
        sonde_core::log::FilterView::decl(),
        sonde_core::log::FilterChip::decl(),
        sonde_core::log::FilterKey::decl(),
        sonde_core::lifecycle::Lifecycle::decl(),
        sonde_core::lifecycle::Signal::decl(),
        sonde_core::lifecycle::ExitInfo::decl(),
        sonde_core::schema::OutputCheck::decl(),
        sonde_core::error_code::ErrorCode::decl(),
        crate::commands::ErrorDto::decl(),
        crate::commands::ConnectionDto::decl(),
        crate::commands::ConnectStage::decl(),
        sonde_core::hub::Stage::decl(),
        sonde_core::mcp::CallOutcome::decl(),
        sonde_core::log::LogBatch::decl(),
        crate::questions::ServerQuestion::decl(),
    ];
    let mut out = String::from(
        "// Generated from the Rust types by src-tauri (bindings.rs); do not edit.\n\
         // Regenerate: SONDE_UPDATE_BINDINGS=1 cargo test -p sonde-desktop --test bindings\n\n\
         export type JsonValue = number | string | boolean | Array<JsonValue> | { [key in string]?: JsonValue } | null;\n\n",
    );
    for decl in decls {
        out.push_str("export ");
        out.push_str(&decl);
        out.push_str("\n\n");
    }
    out.trim_end().to_owned() + "\n"
}
