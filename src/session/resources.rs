//! Reading a resource, and what each item of its `contents` is, so a front end shows it by
//! kind: text as text with its MIME type respected (JSON pretty, Markdown and HTML as source,
//! never rendered), images and audio inline, anything else as its size.
//!
//! Owns: `resources/read`, reading its result into [`ReadView`]s with what is wrong with it,
//! and saving a blob a person asks for where they say ([`save_blob`], [`SaveError`]).
//! Refuses: rendering.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use base64::Engine;
use serde::Serialize;
use serde_json::{json, Value};

use crate::connection::RequestError;
use crate::error_code::ErrorCode;
use crate::session::Session;
pub use crate::shape::content::{content_view, ContentKind, ContentView};

/// A read's result as Sonde reads it.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReadView {
    pub contents: Vec<ContentView>,
    /// What keeps the result from being read as the protocol says, in words.
    pub problems: Vec<String>,
    pub result: Value,
}

impl Session {
    /// `resources/read` of `uri`, read item by item.
    pub async fn read_resource(&self, uri: &str) -> Result<ReadView, RequestError> {
        let result = self.request("resources/read", Some(json!({ "uri": uri }))).await?;
        Ok(read_view(result))
    }

    /// An MCP App's resource, read and checked (`crate::apps`): what the window draws and
    /// `sonde doctor` checks, one reading for both. `listed` is its `resources/list` entry,
    /// whose `_meta.ui` counts when the content has none.
    pub async fn read_app(&self, uri: &str, listed: Option<&Value>) -> crate::apps::AppResource {
        match self.request("resources/read", Some(json!({ "uri": uri }))).await {
            Ok(result) => crate::apps::AppResource::read(uri, &result, listed),
            Err(e) => crate::apps::AppResource::unreadable(uri, e.to_string()),
        }
    }
}

/// Reads a `ReadResourceResult`.
pub fn read_view(result: Value) -> ReadView {
    let mut problems = Vec::new();
    let mut contents = Vec::new();
    match result.get("contents") {
        Some(Value::Array(items)) => {
            if items.is_empty() {
                problems.push("`contents` is empty".to_owned());
            }
            for (at, item) in items.iter().enumerate() {
                match content_view(item) {
                    Ok(view) => contents.push(view),
                    Err(why) => problems.push(format!("contents[{at}]: {why}")),
                }
            }
        }
        Some(other) => problems.push(format!("`contents` is {}, not an array", crate::shape::kind(other))),
        None => problems.push("the result has no `contents`".to_owned()),
    }
    ReadView { contents, problems, result }
}

/// Writes a blob (base64, as a read gave it) to `path`, and returns the path written. A relative
/// path is taken in the user's download directory (the home directory without one); a file
/// already there is never overwritten.
pub fn save_blob(path: &str, blob: &str) -> Result<PathBuf, SaveError> {
    let bytes =
        base64::engine::general_purpose::STANDARD.decode(blob.trim()).map_err(SaveError::NotBase64)?;
    save_bytes(path, &bytes)
}

/// Writes `bytes` to `path` as [`save_blob`] does: a relative path in the download directory,
/// never over a file already there.
pub fn save_bytes(path: &str, bytes: &[u8]) -> Result<PathBuf, SaveError> {
    let path = Path::new(path.trim());
    if path.as_os_str().is_empty() {
        return Err(SaveError::NoName);
    }
    let path = if path.is_absolute() {
        path.to_owned()
    } else {
        crate::files::download_dir().ok_or(SaveError::NoHome)?.join(path)
    };
    let write = |error| SaveError::Write { path: path.clone(), error };
    let mut file = std::fs::OpenOptions::new().write(true).create_new(true).open(&path).map_err(write)?;
    file.write_all(bytes).map_err(write)?;
    Ok(path)
}

/// Why a blob was not saved: what was given cannot be saved, or the file cannot be written.
#[derive(Debug, thiserror::Error)]
pub enum SaveError {
    #[error("the blob is not base64: {0}")]
    NotBase64(base64::DecodeError),
    #[error("no file name given")]
    NoName,
    #[error("no home directory to save in")]
    NoHome,
    /// Creating or writing the file failed; a file already there is this too.
    #[error("cannot write {}: {error}", .path.display())]
    Write { path: PathBuf, error: io::Error },
}

impl SaveError {
    /// The stable code a front end shows with the message.
    pub fn code(&self) -> ErrorCode {
        match self {
            SaveError::NotBase64(_) | SaveError::NoName => ErrorCode::BadInput,
            SaveError::NoHome | SaveError::Write { .. } => ErrorCode::Io,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_are_read_by_kind() {
        let view = read_view(json!({"contents": [
            {"uri": "a://j", "mimeType": "application/json", "text": "{\"a\":1}"},
            {"uri": "a://bad", "mimeType": "application/json", "text": "{not json"},
            {"uri": "a://m", "mimeType": "text/markdown", "text": "# hi"},
            {"uri": "a://p", "mimeType": "image/png", "blob": "iVBORw0KGgo="},
            {"uri": "a://w", "mimeType": "audio/wav", "blob": "UklGRg=="},
            {"uri": "a://z", "mimeType": "application/gzip", "blob": "H4sI"},
        ]}));
        let kinds: Vec<ContentKind> = view.contents.iter().map(|c| c.kind).collect();
        use ContentKind::*;
        assert_eq!(kinds, [Json, Text, Text, Image, Audio, Binary]);
        assert_eq!(view.contents[0].text.as_deref(), Some("{\n  \"a\": 1\n}"));
        assert_eq!(view.contents[3].size, 8);
        assert!(view.problems.is_empty());
    }

    #[test]
    fn a_blob_is_saved_decoded_and_never_over_a_file() {
        let dir = std::env::temp_dir().join(format!("sonde-save-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("x.bin");
        let _ = std::fs::remove_file(&path);
        let written = save_blob(path.to_str().unwrap(), "AAEC").unwrap();
        assert_eq!(std::fs::read(&written).unwrap(), [0, 1, 2]);
        let again = save_blob(path.to_str().unwrap(), "AAEC").unwrap_err();
        assert_eq!(again.code(), ErrorCode::Io);
        let words = again.to_string();
        assert!(words.starts_with(&format!("cannot write {}: ", path.display())), "{words}");
        let garbled = save_blob(path.to_str().unwrap(), "@@").unwrap_err();
        assert_eq!(garbled.code(), ErrorCode::BadInput);
        assert!(garbled.to_string().starts_with("the blob is not base64: "), "{garbled}");
        assert_eq!(save_blob(" ", "AAEC").unwrap_err().code(), ErrorCode::BadInput);
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn what_cannot_be_read_is_said() {
        let view =
            read_view(json!({"contents": [{"uri": "a://x"}, {"uri": "a://y", "blob": "@@"}, {"text": 3}]}));
        assert_eq!(
            view.problems,
            [
                "contents[0]: neither `text` nor `blob`",
                "contents[1]: `blob` is not base64: Invalid symbol 64, offset 0.",
                "contents[2]: `text` is a number, not a string"
            ]
        );
        assert_eq!(read_view(json!({})).problems, ["the result has no `contents`"]);
    }
}
