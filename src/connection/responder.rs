//! Answers to the requests a server sends the client (2025-11-25: `ping`, `roots/list`, …).
//!
//! Owns: the `Responder` interface the front ends implement, and the basic responder that
//! answers `ping` and `roots/list` from configured roots. Every request gets an answer;
//! anything a responder does not handle is `-32601`, so no server waits forever.
//! Refuses: asking a person. A front end with a UI supplies a responder that does.

use std::path::PathBuf;

use serde_json::{json, Value};

use crate::wire::ErrorObject;

/// Answers server→client requests, and declares what it can answer.
pub trait Responder: Send + Sync {
    /// The client capabilities this responder really supports.
    fn capabilities(&self) -> Value;

    /// The result for `method`, or the error to send back.
    fn answer(&self, method: &str, params: Option<&Value>) -> Result<Value, ErrorObject>;
}

/// Answers `ping` and `roots/list`; everything else is `-32601`.
#[derive(Debug, Clone, Default)]
pub struct BasicResponder {
    pub roots: Vec<PathBuf>,
}

impl Responder for BasicResponder {
    fn capabilities(&self) -> Value {
        // Roots are declared only when some are configured: a server told the client has roots
        // may ask for them after Sonde has already closed stdin (server-everything does, then
        // waits for the answer instead of exiting).
        if self.roots.is_empty() {
            json!({})
        } else {
            json!({ "roots": {} })
        }
    }

    fn answer(&self, method: &str, _params: Option<&Value>) -> Result<Value, ErrorObject> {
        match method {
            "ping" => Ok(json!({})),
            "roots/list" => {
                let roots: Vec<Value> = self
                    .roots
                    .iter()
                    .map(|p| {
                        let name = p
                            .file_name()
                            .map_or_else(|| p.display().to_string(), |n| n.to_string_lossy().into());
                        json!({ "uri": file_uri(p), "name": name })
                    })
                    .collect();
                Ok(json!({ "roots": roots }))
            }
            _ => Err(not_handled(method)),
        }
    }
}

/// The `-32601` every unhandled server request gets.
pub fn not_handled(method: &str) -> ErrorObject {
    ErrorObject {
        code: -32601,
        message: format!("Method not found: Sonde does not handle {method}"),
        data: None,
    }
}

/// A `file://` URI for an absolute path, percent-encoding what a URI cannot hold.
pub fn file_uri(path: &std::path::Path) -> String {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_owned());
    let mut uri = String::from("file://");
    for b in absolute.to_string_lossy().bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~".contains(&b) {
            uri.push(b as char);
        } else {
            uri.push_str(&format!("%{b:02X}"));
        }
    }
    uri
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roots_are_listed_as_file_uris_and_unknown_methods_are_refused() {
        let r = BasicResponder { roots: vec![PathBuf::from("/srv/my project")] };
        assert_eq!(
            r.answer("roots/list", None).unwrap(),
            json!({"roots": [{"uri": "file:///srv/my%20project", "name": "my project"}]})
        );
        assert_eq!(r.answer("ping", None).unwrap(), json!({}));
        assert_eq!(r.answer("sampling/createMessage", None).unwrap_err().code, -32601);
    }
}
