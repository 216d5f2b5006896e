//! The recording proxy: Sonde between a real client and a server. The bytes pass through
//! unchanged, each line is recorded in the session log as Sonde records its own sessions, and
//! the server is owned as any server Sonde starts (its own process group, the shutdown ladder
//! when the client goes, the keeper if the proxy is killed).
//!
//! Owns: the pass-through over stdio (`stdio`) and over HTTP (`http`), and their recording
//! (`record`). Refuses: changing,
//! delaying for batching, reordering or answering anything; a failure to record never stops a
//! byte, and the environment and working directory the client chose reach the server as given.

mod clients;
pub mod http;
mod record;
pub mod stdio;

pub use record::Recorder;
