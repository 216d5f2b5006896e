//! The Skills extension's rules (SEP-2640): what a host must check of a skill entry and of each
//! file it reads, as findings with their fix, on the reply that shows them: a `skills/list` or
//! `skills/get` reply by itself ([`skills_reply`]), a skill file's read against its entry
//! ([`skill_file_read`], which only the reader, knowing the entry, can ask for).

use serde_json::Value;

use super::{Finding, Severity};
use crate::skills::{skill_entry as entry_of, FileCheck, SkillFileRead};

/// What a `skills/list` page or a `skills/get` result shows by itself: each entry's faults, and
/// on 2026-07-28 missing cache fields. Nothing for another method.
pub fn skills_reply(method: &str, result: &Value, modern: bool) -> Vec<Finding> {
    let entries: Vec<&Value> = match method {
        "skills/list" => {
            result.get("skills").and_then(Value::as_array).map(|l| l.iter().collect()).unwrap_or_default()
        }
        "skills/get" => result.get("skill").into_iter().collect(),
        _ => return Vec::new(),
    };
    let mut found = Vec::new();
    for skill in entries.into_iter().map(entry_of) {
        if let Some(why) = &skill.invalid {
            found.push(skill_entry_invalid(format!("{method}: {}: {why}", skill.uri)));
        }
        found.extend(skill.problems.iter().map(|p| skill_entry(format!("{method}: {}: {p}", skill.uri))));
    }
    let ttl = result.get("ttlMs").and_then(Value::as_u64);
    let scope = result.get("cacheScope").and_then(Value::as_str);
    if modern && (ttl.is_none() || !matches!(scope, Some("public" | "private"))) {
        let absent = |key: &str| result.get(key).map_or("absent".into(), Value::to_string);
        found.push(skills_cache_fields(format!(
            "{method}: on 2026-07-28 the result needs ttlMs (an integer ≥ 0) and cacheScope (public or private); it has ttlMs {} and cacheScope {}",
            absent("ttlMs"),
            absent("cacheScope"),
        )));
    }
    found
}

/// A skill file's read that is not what its entry lists: its size or digest, or SKILL.md's
/// frontmatter. A file the entry does not list has nothing to be checked against.
pub fn skill_file_read(read: &SkillFileRead) -> Vec<Finding> {
    let mut found = Vec::new();
    if !read.check.verified() && read.check != FileCheck::Unlisted {
        found.push(skill_file_unverified(format!("{}: {}", read.uri, read.check.words())));
    }
    if !read.frontmatter.is_empty() {
        found.push(skill_frontmatter_mismatch(format!(
            "{}: its frontmatter differs: {}",
            read.uri,
            read.frontmatter.join("; ")
        )));
    }
    found
}

const ENTRY: &str = "SEP-2640 §Frontmatter, §Resources, §Limits: an entry's name, files, digests and sizes";

/// An entry the spec calls invalid: a host must not load it.
fn skill_entry_invalid(detail: String) -> Finding {
    Finding::new(
        "skill-entry-invalid",
        Severity::Error,
        format!("{detail}; give every entry its resources: the complete list of its files, or \"dynamic\""),
        ENTRY,
    )
}

/// Something else wrong with an entry: its name, a file's digest or place, the limits.
fn skill_entry(detail: String) -> Finding {
    Finding::new(
        "skill-entry",
        Severity::Warning,
        format!("{detail}; list each file once, inside the skill, with sha256: and its size"),
        ENTRY,
    )
}

/// A file whose bytes are not the entry's: its size or digest differs.
fn skill_file_unverified(detail: String) -> Finding {
    Finding::new(
        "skill-file-unverified",
        Severity::Error,
        format!("{detail}; a host must not use it: serve the bytes the entry's digest and size describe, or update the entry"),
        "SEP-2640 §Integrity and verification: hosts verify the digest and size on every read",
    )
}

/// A SKILL.md whose frontmatter is not the entry's, field by field (or not YAML at all).
fn skill_frontmatter_mismatch(detail: String) -> Finding {
    Finding::new(
        "skill-frontmatter-mismatch",
        Severity::Error,
        format!("{detail}; the entry's frontmatter must be SKILL.md's, every field as written"),
        "SEP-2640 §Frontmatter: a difference counts as a digest mismatch",
    )
}

/// A 2026-07-28 skills result without the cache fields.
fn skills_cache_fields(detail: String) -> Finding {
    Finding::new(
        "skills-cache-fields",
        Severity::Warning,
        format!("{detail}; add ttlMs and cacheScope, as every cacheable 2026-07-28 result has them"),
        "ext-skills specification §Getting a Skill (2026-09-16): GetSkillResult is a CacheableResult",
    )
}
