//! A skill's file as a `resources/read` result gives it, checked against the entry that lists
//! it: its bytes' size and digest, and for SKILL.md its frontmatter field by field.
//!
//! Owns: [`SkillFileRead`], [`file_read`] and why it finds nothing to check ([`NoContent`]). Refuses: sending the read (`session::skills`) and
//! the findings a mismatch makes (`diagnose`).

use base64::Engine;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{body_of, check_file, frontmatter_differences, frontmatter_of, FileCheck, SkillEntry};

/// A skill's file as read: its bytes (as text when the server sent text, else base64), and how
/// they compare with the entry. Content that fails the check is here to be shown as unverified.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SkillFileRead {
    pub uri: String,
    pub mime_type: Option<String>,
    pub text: Option<String>,
    pub base64: Option<String>,
    pub size: u64,
    pub check: FileCheck,
    /// The spec's verdict: the bytes are the entry's, and SKILL.md's frontmatter too.
    pub verified: bool,
    /// For SKILL.md: where its frontmatter differs from the entry's (or why it cannot be read);
    /// the spec counts either as a mismatch.
    pub frontmatter: Vec<String>,
    /// For SKILL.md: its instructions, the text after its frontmatter.
    pub body: Option<String>,
}

impl SkillFileRead {
    /// The bytes as read.
    pub fn bytes(&self) -> Vec<u8> {
        match (&self.text, &self.base64) {
            (Some(text), _) => text.clone().into_bytes(),
            (None, Some(b64)) => base64::engine::general_purpose::STANDARD.decode(b64).unwrap_or_default(),
            (None, None) => Vec::new(),
        }
    }
}

/// Why a `resources/read` result holds no content of a skill's file to check.
#[derive(Debug, thiserror::Error)]
pub enum NoContent {
    #[error("resources/read {0}: the result has no contents")]
    NoContents(String),
    #[error("resources/read {uri}: its blob is not base64: {error}")]
    NotBase64 { uri: String, error: base64::DecodeError },
}

/// `uri`'s content in `result` (a `resources/read` result), checked against `skill`'s entry.
pub fn file_read(skill: &SkillEntry, uri: &str, result: &Value) -> Result<SkillFileRead, NoContent> {
    let item = result
        .get("contents")
        .and_then(Value::as_array)
        .and_then(|items| {
            items.iter().find(|i| i.get("uri").and_then(Value::as_str) == Some(uri)).or(items.first())
        })
        .ok_or_else(|| NoContent::NoContents(uri.to_owned()))?;
    let text = item.get("text").and_then(Value::as_str).map(str::to_owned);
    let blob = item.get("blob").and_then(Value::as_str).map(str::to_owned);
    // Text is hashed as its UTF-8 bytes, a blob as its decoded bytes (as the Inspector and the
    // conformance suite do; the spec leaves it open).
    let bytes = match (&text, &blob) {
        (Some(text), _) => text.as_bytes().to_vec(),
        (None, Some(b64)) => base64::engine::general_purpose::STANDARD
            .decode(b64)
            .map_err(|error| NoContent::NotBase64 { uri: uri.to_owned(), error })?,
        (None, None) => Vec::new(),
    };
    let check = check_file(&bytes, skill.file(uri));
    let (frontmatter, body) = if uri == skill.uri {
        let text = String::from_utf8_lossy(&bytes);
        let differences = match frontmatter_of(&text) {
            Ok(read) => frontmatter_differences(&skill.frontmatter, &read),
            Err(why) => vec![why],
        };
        (differences, Some(body_of(&text).to_owned()))
    } else {
        (Vec::new(), None)
    };
    Ok(SkillFileRead {
        uri: uri.to_owned(),
        mime_type: item.get("mimeType").and_then(Value::as_str).map(str::to_owned),
        text,
        base64: blob,
        size: bytes.len() as u64,
        verified: check.verified() && frontmatter.is_empty(),
        check,
        frontmatter,
        body,
    })
}
