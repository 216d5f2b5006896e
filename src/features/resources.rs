//! Reading a resource, and what each item of its `contents` is, so a front end shows it by
//! kind: text as text with its MIME type respected (JSON pretty, Markdown and HTML as source,
//! never rendered), images and audio inline, anything else as its size.
//!
//! Owns: `resources/read`, and reading its result into [`ReadView`]s with what is wrong with it.
//! Refuses: rendering, and saving bytes (a front end does that with what it was given).

use std::io::Write;
use std::path::{Path, PathBuf};

use base64::Engine;
use serde::Serialize;
use serde_json::{json, Value};

use crate::connection::RequestError;
use crate::mcp::Session;

/// How a content item is shown.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ContentKind {
    /// Text, shown as it is (Markdown and HTML included: as source).
    Text,
    /// Text that parsed as JSON; `text` holds it pretty-printed.
    Json,
    Image,
    Audio,
    /// Bytes of another type: their size, and saving them.
    Binary,
}

/// One item of a read's `contents`.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ContentView {
    pub uri: Option<String>,
    pub mime_type: Option<String>,
    pub kind: ContentKind,
    /// The text (pretty for JSON) of a text item.
    pub text: Option<String>,
    /// The base64 of a blob item, as the server sent it.
    pub blob: Option<String>,
    /// Bytes: of the text as UTF-8, or of the decoded blob.
    pub size: u64,
}

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

fn content_view(item: &Value) -> Result<ContentView, String> {
    let string = |key: &str| item.get(key).and_then(Value::as_str).map(str::to_owned);
    let uri = string("uri");
    let mime_type = string("mimeType");
    let mime = mime_type.as_deref().unwrap_or_default().to_ascii_lowercase();
    let essence = mime.split(';').next().unwrap_or_default().trim().to_owned();
    if let Some(text) = item.get("text") {
        let Some(text) = text.as_str() else {
            return Err(format!("`text` is {}, not a string", crate::shape::kind(text)));
        };
        let size = text.len() as u64;
        let is_json = essence == "application/json" || essence.ends_with("+json");
        let pretty = is_json.then(|| serde_json::from_str::<Value>(text).ok()).flatten();
        let (kind, text) = match pretty {
            Some(parsed) => {
                (ContentKind::Json, serde_json::to_string_pretty(&parsed).expect("a value serializes"))
            }
            None => (ContentKind::Text, text.to_owned()),
        };
        return Ok(ContentView { uri, mime_type, kind, text: Some(text), blob: None, size });
    }
    if let Some(blob) = item.get("blob") {
        let Some(blob) = blob.as_str() else {
            return Err(format!("`blob` is {}, not a string", crate::shape::kind(blob)));
        };
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(blob.trim())
            .map_err(|e| format!("`blob` is not base64: {e}"))?;
        let kind = if essence.starts_with("image/") {
            ContentKind::Image
        } else if essence.starts_with("audio/") {
            ContentKind::Audio
        } else {
            ContentKind::Binary
        };
        return Ok(ContentView {
            uri,
            mime_type,
            kind,
            text: None,
            blob: Some(blob.to_owned()),
            size: bytes.len() as u64,
        });
    }
    Err("neither `text` nor `blob`".to_owned())
}

/// Writes a blob (base64, as a read gave it) to `path`, and returns the path written. A relative
/// path is taken in the user's download directory (the home directory without one); a file
/// already there is never overwritten.
pub fn save_blob(path: &str, blob: &str) -> Result<PathBuf, String> {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(blob.trim())
        .map_err(|e| format!("the blob is not base64: {e}"))?;
    let path = Path::new(path.trim());
    if path.as_os_str().is_empty() {
        return Err("no file name given".into());
    }
    let path = if path.is_absolute() {
        path.to_owned()
    } else {
        let dirs = directories::UserDirs::new().ok_or("no home directory to save in")?;
        dirs.download_dir().unwrap_or(dirs.home_dir()).join(path)
    };
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path)
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    file.write_all(&bytes).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(path)
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
        assert!(again.contains("cannot write"), "{again}");
        assert!(save_blob(path.to_str().unwrap(), "@@").unwrap_err().contains("not base64"));
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
