//! A suite's skill test: the skill it names (by URI, or the one skill listed by that name) and
//! its file's read as an answer, each way the file is not what the entry lists a `protocol`
//! failure whatever the test expects.

use serde_json::Value;

use super::{Answer, Failure};
use crate::connection::RequestError;
use crate::session::Session;
use crate::skills::{FileCheck, SkillEntry, SkillFileRead};

/// The skill a test names: by URI (`skills/get`), or the one skill `skills/list` lists by that
/// name; a failure when none is, or several are.
pub(super) async fn named(
    session: &Session,
    given: &str,
) -> Result<Result<SkillEntry, Failure>, RequestError> {
    if given.contains("://") {
        return Ok(Ok(session.get_skill(given).await?));
    }
    let listing = session.list_skills().await?;
    let mut named: Vec<SkillEntry> =
        listing.skills.into_iter().filter(|s| s.name.as_deref() == Some(given)).collect();
    Ok(match named.len() {
        1 => Ok(named.remove(0)),
        0 => Err(Failure::new("listed", format!("the server lists no skill named {given:?}"))),
        n => Err(Failure::new(
            "listed",
            format!(
                "{n} skills are named {given:?} ({}); name one by its URI",
                named.iter().map(|s| s.uri.as_str()).collect::<Vec<_>>().join(", ")
            ),
        )),
    })
}

/// A skill file's read as an answer: its content as a `resources/read` result, and each way it
/// is not what the skill's entry lists as a `protocol` failure, whatever the test expects.
pub(super) fn answer(entry: &SkillEntry, read: SkillFileRead) -> Answer {
    let mut failures = Vec::new();
    if let Some(why) = &entry.invalid {
        failures.push(Failure::new("protocol", format!("skill-entry-invalid: {}: {why}", entry.uri)));
    }
    if !read.check.verified() && read.check != FileCheck::Unlisted {
        failures.push(Failure::new(
            "protocol",
            format!("skill-file-unverified: {}: {}", read.uri, read.check.words()),
        ));
    }
    if !read.frontmatter.is_empty() {
        failures.push(Failure::new(
            "protocol",
            format!("skill-frontmatter-mismatch: {}: {}", read.uri, read.frontmatter.join("; ")),
        ));
    }
    let mut item = serde_json::json!({ "uri": read.uri });
    for (key, value) in [("mimeType", &read.mime_type), ("text", &read.text), ("blob", &read.base64)] {
        if let Some(value) = value {
            item[key] = Value::String(value.clone());
        }
    }
    Answer {
        method: "resources/read".to_owned(),
        result: serde_json::json!({ "contents": [item] }),
        problems: Vec::new(),
        check: None,
        rpc_error: false,
        failures,
    }
}
