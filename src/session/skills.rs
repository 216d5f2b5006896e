//! The Skills extension over a session: every skill of `skills/list` (every page followed, as the
//! other lists are), one skill by `skills/get`, a skill's file read and verified, a skill
//! directory read where the server declares `directoryRead`, and the 2026-07-28 cache fields
//! checked where the spec requires them.
//!
//! Owns: the requests, and their findings on the frame that shows them (a file that fails
//! verification, a frontmatter that differs, missing cache fields, an invalid entry). Refuses:
//! what an entry or a check means (`crate::skills`) and showing unverified content as verified
//! (a file read says its verdict; a front end shows it).

use base64::Engine;
use serde::Serialize;
use serde_json::{json, Value};

use crate::connection::RequestError;
use crate::diagnose;
use crate::era::Era;
use crate::session::Session;
use crate::skills::{
    check_file, frontmatter_differences, frontmatter_of, skill_entry, FileCheck, SkillEntry, SkillsDeclared,
};

/// Every skill a server listed, and, when the listing stopped before the last page, why.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SkillsListing {
    pub skills: Vec<SkillEntry>,
    pub stopped: Option<String>,
}

/// A skill's file as read: its bytes (as text when they are UTF-8, else base64), and how they
/// compare with the entry. Content that fails the check is here to be shown as unverified.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SkillFileRead {
    pub uri: String,
    pub mime_type: Option<String>,
    pub text: Option<String>,
    pub base64: Option<String>,
    pub size: u64,
    pub check: FileCheck,
    /// For SKILL.md: where its frontmatter differs from the entry's (or why it cannot be read);
    /// the spec counts either as a mismatch.
    pub frontmatter: Vec<String>,
}

impl SkillFileRead {
    /// The spec's verdict: the bytes are the entry's, and SKILL.md's frontmatter too.
    pub fn verified(&self) -> bool {
        self.check.verified() && self.frontmatter.is_empty()
    }

    /// The bytes as read.
    pub fn bytes(&self) -> Vec<u8> {
        match (&self.text, &self.base64) {
            (Some(text), _) => text.clone().into_bytes(),
            (None, Some(b64)) => base64::engine::general_purpose::STANDARD.decode(b64).unwrap_or_default(),
            (None, None) => Vec::new(),
        }
    }
}

impl Session {
    /// Whether the server declared the extension, and with which settings.
    pub fn skills_declared(&self) -> Option<SkillsDeclared> {
        crate::skills::declared(&self.server.capabilities)
    }

    /// Every skill of `skills/list`, every page followed within the listing caps; a repeated
    /// cursor is an error, as for the other lists. Reads no file (the spec's lazy retrieval).
    pub async fn list_skills(&self) -> Result<SkillsListing, RequestError> {
        let modern = self.era() == Era::Modern;
        let seen = |page: &Value| {
            if modern {
                self.check_cache_fields("skills/list", page);
            }
        };
        let listing = self.list_every_seen("skills/list", "skills", &seen).await?;
        let skills: Vec<SkillEntry> = listing.items.iter().map(skill_entry).collect();
        for skill in &skills {
            self.note_entry("skills/list", skill);
        }
        Ok(SkillsListing { skills, stopped: listing.stopped })
    }

    /// `skills/get` of a SKILL.md's URI: the skill's entry (not its content).
    pub async fn get_skill(&self, uri: &str) -> Result<SkillEntry, RequestError> {
        let result = self.request("skills/get", Some(json!({ "uri": uri }))).await?;
        if self.era() == Era::Modern {
            self.check_cache_fields("skills/get", &result);
        }
        let Some(raw) = result.get("skill") else {
            return Err(RequestError::Protocol(format!("skills/get {uri}: the result has no skill")));
        };
        let skill = skill_entry(raw);
        self.note_entry("skills/get", &skill);
        Ok(skill)
    }

    /// Reads `uri`, a file of `skill`, and checks it against the entry: size, digest and, for
    /// SKILL.md, its frontmatter field by field. A mismatch is a finding in the log too.
    pub async fn read_skill_file(
        &self,
        skill: &SkillEntry,
        uri: &str,
    ) -> Result<SkillFileRead, RequestError> {
        let result = self.request("resources/read", Some(json!({ "uri": uri }))).await?;
        let item = result
            .get("contents")
            .and_then(Value::as_array)
            .and_then(|items| {
                items.iter().find(|i| i.get("uri").and_then(Value::as_str) == Some(uri)).or(items.first())
            })
            .ok_or_else(|| {
                RequestError::Protocol(format!("resources/read {uri}: the result has no contents"))
            })?;
        let text = item.get("text").and_then(Value::as_str).map(str::to_owned);
        let blob = item.get("blob").and_then(Value::as_str).map(str::to_owned);
        // Text is hashed as its UTF-8 bytes, a blob as its decoded bytes (as the Inspector and
        // the conformance suite do; the spec leaves it open).
        let bytes = match (&text, &blob) {
            (Some(text), _) => text.as_bytes().to_vec(),
            (None, Some(b64)) => base64::engine::general_purpose::STANDARD.decode(b64).map_err(|e| {
                RequestError::Protocol(format!("resources/read {uri}: its blob is not base64: {e}"))
            })?,
            (None, None) => Vec::new(),
        };
        let check = check_file(&bytes, skill.file(uri));
        let frontmatter = if uri == skill.uri {
            match frontmatter_of(&String::from_utf8_lossy(&bytes)) {
                Ok(read) => frontmatter_differences(&skill.frontmatter, &read),
                Err(why) => vec![why],
            }
        } else {
            Vec::new()
        };
        let read = SkillFileRead {
            uri: uri.to_owned(),
            mime_type: item.get("mimeType").and_then(Value::as_str).map(str::to_owned),
            text,
            base64: blob,
            size: bytes.len() as u64,
            check,
            frontmatter,
        };
        if !read.check.verified() && read.check != FileCheck::Unlisted {
            let detail = format!("{uri}: {}", read.check.words());
            self.conn.note_finding(detail.clone(), diagnose::skill_file_unverified(detail));
        }
        if !read.frontmatter.is_empty() {
            let detail = format!("{uri}: its frontmatter differs: {}", read.frontmatter.join("; "));
            self.conn.note_finding(detail.clone(), diagnose::skill_frontmatter_mismatch(detail));
        }
        Ok(read)
    }

    /// `resources/directory/read` of a skill directory: its direct children. Refused unless
    /// the server declared `directoryRead` (the spec forbids the call otherwise).
    pub async fn read_skill_directory(&self, uri: &str) -> Result<Vec<Value>, RequestError> {
        if !self.skills_declared().is_some_and(|d| d.directory_read) {
            return Err(RequestError::Protocol(
                "the server does not declare directoryRead: resources/directory/read is not called".into(),
            ));
        }
        let mut children = Vec::new();
        let mut cursor: Option<Value> = None;
        let mut seen = std::collections::HashSet::new();
        loop {
            let mut params = json!({ "uri": uri });
            if let Some(c) = &cursor {
                params["cursor"] = c.clone();
            }
            let page = self.request("resources/directory/read", Some(params)).await?;
            children.extend(page.get("resources").and_then(Value::as_array).cloned().unwrap_or_default());
            match page.get("nextCursor") {
                Some(next) if !next.is_null() => {
                    if !seen.insert(next.to_string()) || children.len() > crate::skills::MAX_FILES * 2 {
                        return Err(RequestError::Protocol(format!(
                            "resources/directory/read {uri}: the cursor {next} came back (a cursor loop); stopped"
                        )));
                    }
                    cursor = Some(next.clone());
                }
                _ => return Ok(children),
            }
        }
    }

    /// What is wrong with an entry, as findings on the session.
    fn note_entry(&self, method: &str, skill: &SkillEntry) {
        if let Some(why) = &skill.invalid {
            let detail = format!("{method}: {}: {why}", skill.uri);
            self.conn.note_finding(detail.clone(), diagnose::skill_entry_invalid(detail));
        }
        for problem in &skill.problems {
            let detail = format!("{method}: {}: {problem}", skill.uri);
            self.conn.note_finding(detail.clone(), diagnose::skill_entry(detail));
        }
    }

    /// From 2026-07-28 a skills result says how long it may be kept (`ttlMs`, `cacheScope`).
    fn check_cache_fields(&self, method: &str, result: &Value) {
        let ttl = result.get("ttlMs").and_then(Value::as_u64);
        let scope = result.get("cacheScope").and_then(Value::as_str);
        if ttl.is_none() || !matches!(scope, Some("public" | "private")) {
            let detail = format!(
                "{method}: on 2026-07-28 the result needs ttlMs (an integer ≥ 0) and cacheScope (public or private); it has ttlMs {} and cacheScope {}",
                result.get("ttlMs").map_or("absent".into(), Value::to_string),
                result.get("cacheScope").map_or("absent".into(), Value::to_string),
            );
            self.conn.note_finding(detail.clone(), diagnose::skills_cache_fields(detail));
        }
    }
}
