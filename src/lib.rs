//! Sonde's engine: owns MCP server processes, records every byte on the wire, speaks JSON-RPC.
//!
//! The desktop shell and the `sonde` CLI both drive it through [`hub::Hub`]. Nothing in this
//! crate knows that a user interface exists.

pub mod config;
pub mod connection;
pub mod era;
pub mod hub;
pub mod log;
pub mod mcp;
pub mod negotiate;
pub mod process;
pub mod schema;
pub mod servers;
pub mod transport;
pub mod wire;
