//! The Skills extension's rules (SEP-2640): what a host must check of a skill entry and of each
//! file it reads, as findings with their fix.

use super::{Finding, Severity};

const ENTRY: &str = "SEP-2640 §Frontmatter, §Resources, §Limits: an entry's name, files, digests and sizes";

/// An entry the spec calls invalid: a host must not load it.
pub fn skill_entry_invalid(detail: String) -> Finding {
    Finding::new(
        "skill-entry-invalid",
        Severity::Error,
        format!("{detail}; give every entry its resources: the complete list of its files, or \"dynamic\""),
        ENTRY,
    )
}

/// Something else wrong with an entry: its name, a file's digest or place, the limits.
pub fn skill_entry(detail: String) -> Finding {
    Finding::new(
        "skill-entry",
        Severity::Warning,
        format!("{detail}; list each file once, inside the skill, with sha256: and its size"),
        ENTRY,
    )
}

/// A file whose bytes are not the entry's: its size or digest differs.
pub fn skill_file_unverified(detail: String) -> Finding {
    Finding::new(
        "skill-file-unverified",
        Severity::Error,
        format!("{detail}; a host must not use it: serve the bytes the entry's digest and size describe, or update the entry"),
        "SEP-2640 §Integrity and verification: hosts verify the digest and size on every read",
    )
}

/// A SKILL.md whose frontmatter is not the entry's, field by field (or not YAML at all).
pub fn skill_frontmatter_mismatch(detail: String) -> Finding {
    Finding::new(
        "skill-frontmatter-mismatch",
        Severity::Error,
        format!("{detail}; the entry's frontmatter must be SKILL.md's, every field as written"),
        "SEP-2640 §Frontmatter: a difference counts as a digest mismatch",
    )
}

/// A 2026-07-28 skills result without the cache fields.
pub fn skills_cache_fields(detail: String) -> Finding {
    Finding::new(
        "skills-cache-fields",
        Severity::Warning,
        format!("{detail}; add ttlMs and cacheScope, as every cacheable 2026-07-28 result has them"),
        "ext-skills specification §Getting a Skill (2026-09-16): GetSkillResult is a CacheableResult",
    )
}
