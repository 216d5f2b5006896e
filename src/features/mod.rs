//! MCP features built on a [`Session`](crate::mcp::Session), one file each, that both front
//! ends reach through the hub.

pub mod tasks;
