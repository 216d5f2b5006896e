//! The exit codes of the CLI contract, which scripts and tests rely on (see `main.rs`).
//!
//! Owns: the numbers. Refuses: deciding which one a run ends with; each command does.

pub const OK: i32 = 0;
/// A JSON-RPC error or a transport failure.
pub const FAILED: i32 = 1;
pub const USAGE: i32 = 2;
/// A tool result with `isError: true`.
pub const TOOL_ERROR: i32 = 3;
/// Ctrl-C.
pub const INTERRUPTED: i32 = 130;
