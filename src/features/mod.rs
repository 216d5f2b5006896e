//! The MCP surface beyond tools, written once for both front ends: resources and their
//! templates, prompts, completion, the server's log level, ping, the stream of server
//! notifications, and subscriptions to changes.
//!
//! Owns: the requests each feature makes in either era, and reading their results into values
//! a front end shows as they are (what a content item is, what a notification says).
//! Tasks (`tasks`) are followed to their end here too.
//! Refuses: presentation, and the envelope of a request (`mcp::Session` adds what the era needs).

pub mod completion;
pub mod listen;
pub mod listing;
pub mod notices;
pub mod ping;
pub mod prompts;
pub mod resources;
pub mod tasks;
pub mod template;
