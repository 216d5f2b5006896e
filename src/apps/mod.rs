//! MCP Apps (the extension `io.modelcontextprotocol/ui`): a tool names an HTML resource
//! (`ui://…`) that a host renders in a sandboxed frame and talks to over `postMessage` JSON-RPC.
//!
//! Owns: which tools bear an app and which are for apps only (`tool`), the app's resource read
//! and checked, with the Content Security Policy built from what it declares (`resource`, `html`),
//! and the host side of the app's protocol as data: what each message from an app asks and
//! what Sonde answers (`bridge`). The hub keeps each open app per connection and records every
//! message as a `Kind::App` entry (`hub/apps.rs`).
//! Refuses: drawing the frame and asking the person; the window does both, through the hub.

pub mod bridge;
mod html;
pub mod resource;
pub mod tool;

pub use bridge::{AppAsk, AppNote, HostContext};
pub use resource::{AppResource, Csp};

use serde_json::{json, Value};

/// The extension's name, as capabilities declare it.
pub const EXTENSION: &str = "io.modelcontextprotocol/ui";

/// The MIME type of an app's HTML, with the profile that marks it.
pub const MIME: &str = "text/html;profile=mcp-app";

/// Adds the extension to a client's capabilities: the one declaration both eras carry (in
/// `initialize`'s capabilities, and in 2026-07-28's per-request `_meta` client capabilities).
/// Only a front end that renders apps declares it: a server may offer other tools to a host
/// that can show its apps, and the CLI cannot.
pub fn declare(caps: &mut Value) {
    if !caps.is_object() {
        *caps = json!({});
    }
    let extensions =
        caps.as_object_mut().expect("an object").entry("extensions").or_insert_with(|| json!({}));
    if let Some(extensions) = extensions.as_object_mut() {
        extensions.insert(EXTENSION.into(), json!({ "mimeTypes": [MIME] }));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_declaration_joins_other_extensions() {
        let mut caps = json!({ "extensions": { "io.modelcontextprotocol/tasks": {} }, "roots": {} });
        declare(&mut caps);
        assert_eq!(caps["extensions"]["io.modelcontextprotocol/tasks"], json!({}));
        assert_eq!(caps["extensions"][EXTENSION], json!({ "mimeTypes": [MIME] }));
        assert_eq!(caps["roots"], json!({}));
        let mut none = json!({});
        declare(&mut none);
        assert_eq!(none["extensions"][EXTENSION]["mimeTypes"][0], MIME);
    }
}
