//! Sonde's engine: owns MCP server processes, records every byte on the wire, speaks JSON-RPC.
//!
//! The desktop shell and the `sonde` CLI both drive it through [`hub::Hub`]. Nothing in this
//! crate knows that a user interface exists.

pub mod auth;
pub mod connection;
pub mod diagnose;
pub mod doctor;
pub mod era;
pub mod era_cache;
pub mod error_code;
pub mod features;
pub mod feed;
pub mod files;
pub mod hub;
pub mod last_words;
pub mod launches;
pub mod lifecycle;
pub mod log;
pub mod log_level;
pub mod mcp;
pub mod negotiate;
pub mod process;
pub mod proxy;
pub mod resend;
pub mod schema;
pub mod server_config;
pub mod servers;
pub mod shape;
pub mod sync;
pub mod terminal_text;
pub mod transport;
pub mod url_elicitation;
pub mod wire;
pub mod wrap;
