//! The check-up of a server that declares the Skills extension: `resources` declared beside it
//! (the extension requires it), every skill listed, every listed file read and verified against
//! its entry, as a host would before loading the skill.
//!
//! Owns: the `skills` check, its reads and its summary. Refuses: the verdict on each entry, file
//! and result (the `skill-*` and `skills-cache-fields` rules make them on the replies, and the
//! log's findings become checks of their own, with their frames).

use super::{Check, CheckStatus};
use crate::session::Session;
use crate::skills::FileCheck;

/// The most files the check reads, all skills together: enough for any real server, and a
/// bound on a check-up of one that lists thousands.
const MOST_READS: usize = 512;

/// `None` for a server that does not declare the extension.
pub async fn skills(session: &Session) -> Option<Check> {
    session.skills_declared()?;
    let conn = session.conn.id();
    let check = |status, detail: String| Some(Check::new("skills", status, detail, None, conn));
    let listing = match session.list_skills().await {
        Ok(listing) => listing,
        Err(e) => return check(CheckStatus::Fail, format!("skills/list failed: {e}")),
    };
    let mut said = Vec::new();
    let mut status = CheckStatus::Pass;
    if session.server.capabilities.get("resources").is_none() {
        status = CheckStatus::Fail;
        said.push("the extension is declared without the `resources` capability it requires".to_owned());
    }
    let (mut read, mut unverified) = (0, Vec::new());
    'skills: for skill in &listing.skills {
        if let Some(why) = &skill.invalid {
            status = CheckStatus::Fail;
            said.push(format!("{} is invalid: {why}", skill.uri));
            continue;
        }
        let uris: Vec<&str> = match &skill.files {
            Some(files) => files.iter().map(|f| f.uri.as_str()).collect(),
            None => vec![skill.uri.as_str()],
        };
        for uri in uris {
            if read == MOST_READS {
                said.push(format!("the first {MOST_READS} files were read; the rest were not"));
                break 'skills;
            }
            read += 1;
            match session.read_skill_file(skill, uri).await {
                // A file the entry does not list (a dynamic skill's) has nothing to be held to.
                Ok(file)
                    if file.verified
                        || (file.check == FileCheck::Unlisted && file.frontmatter.is_empty()) => {}
                Ok(_) => unverified.push(uri.to_owned()),
                Err(e) => {
                    status = CheckStatus::Fail;
                    said.push(format!("{uri}: {e}"));
                }
            }
        }
    }
    if !unverified.is_empty() {
        status = CheckStatus::Fail;
        said.push(format!(
            "{} of {read} files do not match their entries ({}): see skill-file-unverified and skill-frontmatter-mismatch",
            unverified.len(),
            unverified.join(", ")
        ));
    }
    if let Some(why) = listing.stopped {
        status = status.max(CheckStatus::Warn);
        said.push(why);
    }
    let n = listing.skills.len();
    let head = format!("{n} skill{} listed, {read} file{} read", plural(n), plural(read));
    match said.is_empty() {
        true => check(status, format!("{head}, each verified against its entry")),
        false => check(status, format!("{head}; {}", said.join("; "))),
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}
