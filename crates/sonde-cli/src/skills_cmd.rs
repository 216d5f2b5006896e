//! `sonde skills list|get`: a server's skills (the `io.modelcontextprotocol/skills` extension).
//! `list` reads no file (the spec's lazy retrieval); `get` reads a skill's SKILL.md (or another
//! file, or all of them into a folder) and verifies each against the skill's entry: a size,
//! digest or frontmatter that does not match exits 4 with the file and both values, and the
//! content is printed only when asked, marked unverified.
//!
//! Owns: resolving NAME|URI (a name may be shared: an ambiguous one is a usage error listing the
//! URIs), and the words and files of both commands. Refuses: the checks (the core's).

use std::path::{Path, PathBuf};

use serde_json::json;
use sonde_core::{RequestError, Session, SkillEntry, SkillFileRead, SkillsListing};

use crate::exit::{FAILED, OK, PROTOCOL, USAGE};
use crate::recording;

#[derive(Debug)]
pub enum SkillsOp {
    List,
    Get {
        /// A skill's name, or its SKILL.md's URI.
        skill: String,
        /// Another file of the skill (its path within the skill, or its URI).
        file: Option<String>,
        /// Write every file of the skill under this folder instead.
        out: Option<PathBuf>,
        /// Print content that failed verification (marked so).
        unverified: bool,
    },
}

pub async fn run(session: &Session, op: SkillsOp, json: bool) -> Result<i32, RequestError> {
    let Some(declared) = session.skills_declared() else {
        errln!("sonde: the server does not declare the io.modelcontextprotocol/skills extension");
        return Ok(FAILED);
    };
    match op {
        SkillsOp::List => {
            let listing = match listed(session).await? {
                Ok(listing) => listing,
                Err(code) => return Ok(code),
            };
            if json {
                recording::document(
                    session,
                    &json!({ "skills": listing.skills, "directoryRead": declared.directory_read }),
                );
            } else {
                for skill in &listing.skills {
                    let files = match &skill.files {
                        None => "dynamic".to_owned(),
                        Some(f) => format!("{} file{}", f.len(), if f.len() == 1 { "" } else { "s" }),
                    };
                    let state = match &skill.invalid {
                        Some(why) => format!("invalid: {why}"),
                        None if skill.problems.is_empty() => "not read yet".to_owned(),
                        None => skill.problems.join("; "),
                    };
                    outln!(
                        "{}\t{}\t{}\t{files}\t{state}",
                        skill.name.as_deref().unwrap_or("(no name)"),
                        skill.uri,
                        skill.description.as_deref().unwrap_or("")
                    );
                }
            }
            if let Some(why) = listing.stopped {
                errln!("sonde: {why}");
            }
            let invalid = listing.skills.iter().any(|s| s.invalid.is_some() || !s.problems.is_empty());
            Ok(if invalid { PROTOCOL } else { OK })
        }
        SkillsOp::Get { skill, file, out, unverified } => {
            let entry = match resolve(session, &skill).await? {
                Ok(entry) => entry,
                Err(code) => return Ok(code),
            };
            if let Some(why) = &entry.invalid {
                errln!("sonde: {} is invalid: {why}", entry.uri);
                return Ok(PROTOCOL);
            }
            match out {
                Some(dir) => write_all(session, &entry, &dir).await,
                None => {
                    let uri = match &file {
                        None => entry.uri.clone(),
                        Some(f) if f.contains("://") => f.clone(),
                        Some(path) => format!("{}/{}", entry.root(), path.trim_start_matches('/')),
                    };
                    let read = session.read_skill_file(&entry, &uri).await?;
                    Ok(show(session, &read, unverified, json))
                }
            }
        }
    }
}

/// Every skill listed; a listing the server's answers broke (a cursor sent back, a page
/// without its list) is exit 4, said here, where an error answer stays the request's failure.
async fn listed(session: &Session) -> Result<Result<SkillsListing, i32>, RequestError> {
    match session.list_skills().await {
        Ok(listing) => Ok(Ok(listing)),
        Err(RequestError::Protocol(why)) => {
            errln!("sonde: {why}");
            Ok(Err(PROTOCOL))
        }
        Err(e) => Err(e),
    }
}

/// The skill `given` names: a URI (`skills/get`), else the one listed skill of that name.
async fn resolve(session: &Session, given: &str) -> Result<Result<SkillEntry, i32>, RequestError> {
    if given.contains("://") {
        return Ok(Ok(session.get_skill(given).await?));
    }
    let listing = match listed(session).await? {
        Ok(listing) => listing,
        Err(code) => return Ok(Err(code)),
    };
    let named: Vec<&SkillEntry> =
        listing.skills.iter().filter(|s| s.name.as_deref() == Some(given)).collect();
    Ok(match named[..] {
        [one] => Ok(one.clone()),
        [] => {
            errln!(
                "sonde: the server lists no skill named {given:?}; give its URI if it serves one unlisted"
            );
            Err(USAGE)
        }
        _ => {
            errln!("sonde: {} skills are named {given:?}; give one's URI:", named.len());
            for skill in named {
                errln!("  {}", skill.uri);
            }
            Err(USAGE)
        }
    })
}

/// A file read: its content when verified (or asked for anyway, marked), and why not when not.
fn show(session: &Session, read: &SkillFileRead, unverified: bool, json: bool) -> i32 {
    let verified = read.verified;
    if !read.check.verified() {
        errln!("sonde: {} is not verified: {}", read.uri, read.check.words());
    }
    if !read.frontmatter.is_empty() {
        errln!("sonde: {} is not verified: its frontmatter is not its entry's:", read.uri);
        for difference in &read.frontmatter {
            errln!("sonde:   {difference}");
        }
    }
    if json {
        recording::document(session, &json!({ "file": read, "verified": verified }));
    } else if verified || unverified {
        if !verified {
            errln!("sonde: printed as asked (--unverified): this content failed verification");
        }
        match &read.text {
            Some(text) => outln!("{}", text.trim_end_matches('\n')),
            None => outln!("({} bytes of binary content; --out DIR writes it)", read.size),
        }
    }
    if verified {
        OK
    } else {
        PROTOCOL
    }
}

/// Every file of the skill under `dir`, each verified; one that fails is not written.
async fn write_all(session: &Session, entry: &SkillEntry, dir: &Path) -> Result<i32, RequestError> {
    let Some(files) = &entry.files else {
        errln!("sonde: {} lists its files as \"dynamic\": there is no list to write", entry.uri);
        return Ok(FAILED);
    };
    let mut code = OK;
    for file in files {
        let read = session.read_skill_file(entry, &file.uri).await?;
        let within = file.uri.strip_prefix(entry.root()).unwrap_or(&file.uri).trim_start_matches('/');
        let path = dir.join(within);
        // A path that climbs out of the folder is not written.
        if within.split('/').any(|part| part == ".." || part.is_empty()) {
            errln!("sonde: {}: not written: its path leaves the skill", file.uri);
            code = PROTOCOL;
            continue;
        }
        if !read.verified {
            let why = if read.check.verified() {
                "its frontmatter is not its entry's".to_owned()
            } else {
                read.check.words()
            };
            errln!("sonde: {}: not written: {why}", file.uri);
            code = PROTOCOL;
            continue;
        }
        let written = path
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| std::fs::write(&path, read.bytes()));
        match written {
            Ok(()) => noteln!("sonde: wrote {} (verified)", path.display()),
            Err(e) => {
                errln!("sonde: cannot write {}: {e}", path.display());
                code = FAILED;
            }
        }
    }
    Ok(code)
}
