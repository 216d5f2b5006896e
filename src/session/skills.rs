//! The Skills extension over a session: every skill of `skills/list` (every page followed, as the
//! other lists are), one skill by `skills/get`, a skill's file read and verified, a skill
//! directory read where the server declares `directoryRead`.
//!
//! Owns: the requests, each file read carrying its entry's check so a mismatch is a finding on
//! the reply that shows it. Refuses: what an entry or a check means (`crate::skills`), the rules
//! a skills reply is held to by itself (`diagnose`, on every reply) and showing unverified content
//! as verified (a file read says its verdict; a front end shows it).

use serde::Serialize;
use serde_json::{json, Value};

use crate::connection::{ReplyCheck, Request, RequestError};
use crate::session::Session;
use crate::skills::{file_read, skill_entry, SkillEntry, SkillFileRead, SkillsDeclared};

/// Every skill a server listed, and, when the listing stopped before the last page, why.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SkillsListing {
    pub skills: Vec<SkillEntry>,
    pub stopped: Option<String>,
}

impl Session {
    /// Whether the server declared the extension, and with which settings.
    pub fn skills_declared(&self) -> Option<SkillsDeclared> {
        self.server.skills
    }

    /// Every skill of `skills/list`, every page followed within the listing caps; a repeated
    /// cursor is an error, as for the other lists. Reads no file (the spec's lazy retrieval).
    pub async fn list_skills(&self) -> Result<SkillsListing, RequestError> {
        let listing = self.list_every("skills/list", "skills").await?;
        let skills = listing.items.iter().map(skill_entry).collect();
        Ok(SkillsListing { skills, stopped: listing.stopped })
    }

    /// `skills/get` of a SKILL.md's URI: the skill's entry (not its content).
    pub async fn get_skill(&self, uri: &str) -> Result<SkillEntry, RequestError> {
        let result = self.request("skills/get", Some(json!({ "uri": uri }))).await?;
        match result.get("skill") {
            Some(raw) => Ok(skill_entry(raw)),
            None => Err(RequestError::Protocol(format!("skills/get {uri}: the result has no skill"))),
        }
    }

    /// Reads `uri`, a file of `skill`, and checks it against the entry: size, digest and, for
    /// SKILL.md, its frontmatter field by field. A mismatch is a finding on the reply too.
    pub async fn read_skill_file(
        &self,
        skill: &SkillEntry,
        uri: &str,
    ) -> Result<SkillFileRead, RequestError> {
        let (entry, file) = (skill.clone(), uri.to_owned());
        let check = ReplyCheck::new(move |result| {
            file_read(&entry, &file, result)
                .map(|read| crate::diagnose::skill_file_read(&read))
                .unwrap_or_default()
        });
        let request =
            Request { check: Some(check), ..Request::new("resources/read", Some(json!({ "uri": uri }))) };
        let result = self.request_with(request).await?;
        // The server broke the protocol: RequestError::Protocol carries its `protocol` code.
        file_read(skill, uri, &result).map_err(|e| RequestError::Protocol(e.to_string()))
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
}
