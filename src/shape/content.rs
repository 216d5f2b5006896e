//! What a content item carrying a resource is, so a front end shows it by kind: an item of a
//! `resources/read` result's `contents`, or the `resource` of an embedded resource in a tool
//! result or a prompt. Text is text with its MIME type respected (JSON pretty, Markdown and HTML
//! as source, never rendered); a blob of text (`text/*`, JSON) is decoded to be read; images and
//! audio go inline; anything else is its size.
//!
//! Owns: [`content_view`] and [`embedded_views`]. Refuses: rendering and saving bytes.

use base64::Engine;
use serde::Serialize;
use serde_json::Value;

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

/// Reads one item carrying a resource (`uri`, `mimeType`, and `text` or `blob`).
// Err is words, not a failure: what is wrong with the server's item, shown in its place.
pub fn content_view(item: &Value) -> Result<ContentView, String> {
    let string = |key: &str| item.get(key).and_then(Value::as_str).map(str::to_owned);
    let uri = string("uri");
    let mime_type = string("mimeType");
    let mime = mime_type.as_deref().unwrap_or_default().to_ascii_lowercase();
    let essence = mime.split(';').next().unwrap_or_default().trim().to_owned();
    if let Some(text) = item.get("text") {
        let Some(text) = text.as_str() else {
            return Err(format!("`text` is {}, not a string", crate::shape::kind(text)));
        };
        let (kind, text) = text_kind(&essence, text);
        return Ok(ContentView { uri, mime_type, kind, text: Some(text), blob: None, size: text_size(item) });
    }
    if let Some(blob) = item.get("blob") {
        let Some(blob) = blob.as_str() else {
            return Err(format!("`blob` is {}, not a string", crate::shape::kind(blob)));
        };
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(blob.trim())
            .map_err(|e| format!("`blob` is not base64: {e}"))?;
        let size = bytes.len() as u64;
        let blob = Some(blob.to_owned());
        // A blob of text is decoded to be read (the blob stays, to be saved as it came).
        let decoded = (essence.starts_with("text/") || is_json(&essence))
            .then(|| String::from_utf8(bytes).ok())
            .flatten();
        if let Some(text) = decoded {
            let (kind, text) = text_kind(&essence, &text);
            return Ok(ContentView { uri, mime_type, kind, text: Some(text), blob, size });
        }
        let kind = if essence.starts_with("image/") {
            ContentKind::Image
        } else if essence.starts_with("audio/") {
            ContentKind::Audio
        } else {
            ContentKind::Binary
        };
        return Ok(ContentView { uri, mime_type, kind, text: None, blob, size });
    }
    Err("neither `text` nor `blob`".to_owned())
}

fn is_json(essence: &str) -> bool {
    essence == "application/json" || essence.ends_with("+json")
}

/// Text as shown: JSON pretty when its type says JSON and it parses, else as it is.
fn text_kind(essence: &str, text: &str) -> (ContentKind, String) {
    match is_json(essence).then(|| serde_json::from_str::<Value>(text).ok()).flatten() {
        Some(parsed) => {
            (ContentKind::Json, serde_json::to_string_pretty(&parsed).expect("a value serializes"))
        }
        None => (ContentKind::Text, text.to_owned()),
    }
}

/// The bytes of an item's `text` as UTF-8.
fn text_size(item: &Value) -> u64 {
    item.get("text").and_then(Value::as_str).map_or(0, |t| t.len() as u64)
}

/// An embedded resource of a result's `content`, read as [`content_view`] reads an item: the
/// block's index, and its view or why it cannot be read.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EmbeddedView {
    pub index: u32,
    pub view: Option<ContentView>,
    pub problem: Option<String>,
}

/// Every embedded resource (`{"type": "resource", "resource": …}`) of a result's `content`.
pub fn embedded_views(result: &Value) -> Vec<EmbeddedView> {
    let Some(Value::Array(content)) = result.get("content") else { return Vec::new() };
    embedded_in(content.iter())
}

/// Every embedded resource among `blocks` (a result's content, a prompt's messages' content),
/// by its place among them.
pub fn embedded_in<'a>(blocks: impl Iterator<Item = &'a Value>) -> Vec<EmbeddedView> {
    blocks
        .enumerate()
        .filter(|(_, block)| block.get("type").and_then(Value::as_str) == Some("resource"))
        .map(|(index, block)| {
            let read = match block.get("resource") {
                Some(resource @ Value::Object(_)) => content_view(resource),
                Some(other) => Err(format!("`resource` is {}, not an object", super::kind(other))),
                None => Err("the block has no `resource`".to_owned()),
            };
            let (view, problem) = match read {
                Ok(view) => (Some(view), None),
                Err(why) => (None, Some(why)),
            };
            EmbeddedView { index: index as u32, view, problem }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_blob_of_text_is_decoded_and_kept() {
        let b64 = |s: &str| base64::engine::general_purpose::STANDARD.encode(s);
        let view =
            content_view(&json!({"uri": "a", "mimeType": "application/json", "blob": b64("{\"a\":1}")}))
                .unwrap();
        assert_eq!(
            (view.kind, view.text.as_deref(), view.size),
            (ContentKind::Json, Some("{\n  \"a\": 1\n}"), 7)
        );
        assert!(view.blob.is_some());
        let view = content_view(&json!({"uri": "t", "mimeType": "text/plain", "blob": b64("hi")})).unwrap();
        assert_eq!((view.kind, view.text.as_deref()), (ContentKind::Text, Some("hi")));
        // Bytes that are not UTF-8 stay bytes, whatever the type says.
        let bytes = base64::engine::general_purpose::STANDARD.encode([0xff, 0xfe]);
        let view = content_view(&json!({"uri": "b", "mimeType": "text/plain", "blob": bytes})).unwrap();
        assert_eq!((view.kind, view.text), (ContentKind::Binary, None));
    }

    #[test]
    fn embedded_resources_are_read_by_their_index() {
        let result = json!({"content": [
            {"type": "text", "text": "before"},
            {"type": "resource", "resource": {"uri": "x", "mimeType": "text/plain", "text": "hello"}},
            {"type": "resource", "resource": "not an object"},
            {"type": "resource", "resource": {"uri": "y"}}
        ]});
        let views = embedded_views(&result);
        assert_eq!(views.iter().map(|v| v.index).collect::<Vec<_>>(), [1, 2, 3]);
        assert_eq!(views[0].view.as_ref().unwrap().text.as_deref(), Some("hello"));
        assert_eq!(views[1].problem.as_deref(), Some("`resource` is a string, not an object"));
        assert_eq!(views[2].problem.as_deref(), Some("neither `text` nor `blob`"));
        assert!(embedded_views(&json!({"content": "nope"})).is_empty());
    }
}
