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
mod http;
mod record;
mod stdio;

pub use http::{bind_proxy, proxy_http};
pub use record::Recorder;
pub use stdio::{proxy_stdio, ClientStreams};

/// The connection number a proxy's frames (over HTTP, its own notes; each client's exchanges
/// go under a number of its own, from 1, `clients`) are recorded under.
pub const PROXY_CONN: u64 = 1;
