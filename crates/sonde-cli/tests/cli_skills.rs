//! `sonde skills` against the fixture's skills server (`--skills`), in both eras: the list reads
//! no file; `get` prints a verified SKILL.md, refuses a tampered file with both digests (exit 4)
//! unless `--unverified`, says a frontmatter that differs, and `--out` writes only what verifies.

mod support;

use support::*;

fn skills(home: &std::path::Path, modern: bool, args: &[&str]) -> std::process::Output {
    let fixture = fixture_bin();
    let mut all: Vec<&str> = args.to_vec();
    all.extend(["--", fixture.to_str().unwrap(), "--skills"]);
    if modern {
        all.push("--dual-era");
    }
    sonde(home, &all)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn skills_are_listed_without_reading_a_file_and_read_verified_in_both_eras() {
    for modern in [false, true] {
        let home = data_home(&format!("skills-{modern}"));
        let out = skills(&home, modern, &["skills", "list"]);
        assert!(out.status.success(), "{out:?}");
        let listed = text(&out.stdout);
        let names: Vec<&str> = listed.lines().map(|l| l.split('\t').next().unwrap()).collect();
        assert_eq!(names, ["refunds", "pdf", "sizes", "notes"], "{listed}");
        assert!(
            listed.contains("skill://acme/billing/refunds/SKILL.md\tRefund a charge to a customer.\t3 files")
        );
        assert!(listed.contains("What the entry says.\t1 file\t"), "{listed}");
        // Nothing was wrong with what the server said (its 2026-07-28 results whole too).
        assert!(!text(&out.stderr).contains("protocol error"), "{out:?}");

        // SKILL.md by name, verified.
        let out = skills(&home, modern, &["skills", "get", "refunds"]);
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        assert!(text(&out.stdout).starts_with("---\nname: refunds"), "{out:?}");
        let out = skills(&home, modern, &["skills", "get", "refunds", "--file", "scripts/refund.sh"]);
        assert!(text(&out.stdout).contains("echo refund"), "{out:?}");
    }
}

#[test]
fn a_tampered_file_exits_4_with_both_digests_and_is_printed_only_when_asked() {
    let home = data_home("skills-tampered");
    let out = skills(&home, false, &["skills", "get", "pdf", "--file", "reference.md"]);
    assert_eq!(out.status.code(), Some(4), "{out:?}");
    let said = text(&out.stderr);
    assert!(
        said.contains("skill://pdf/reference.md is not verified: digest mismatch: the entry lists sha256:"),
        "{said}"
    );
    assert_eq!(said.matches("sha256:").count(), 2, "both digests: {said}");
    assert!(out.stdout.is_empty(), "tampered content printed: {out:?}");
    let out = skills(&home, false, &["skills", "get", "pdf", "--file", "reference.md", "--unverified"]);
    assert_eq!(out.status.code(), Some(4));
    assert_eq!(text(&out.stdout), "Use pdftk to FILL forms.\n");
    assert!(text(&out.stderr).contains("(--unverified): this content failed verification"));

    let out = skills(&home, false, &["skills", "get", "sizes", "--file", "data.txt"]);
    assert!(text(&out.stderr).contains("size mismatch: the entry lists 6 bytes, the file has 8"), "{out:?}");
    let out = skills(&home, false, &["skills", "get", "skill://notes/SKILL.md"]);
    assert_eq!(out.status.code(), Some(4));
    let said = text(&out.stderr);
    assert!(
        said.contains("skill://notes/SKILL.md is not verified: its frontmatter is not its entry's:"),
        "{said}"
    );
    assert!(said.contains("  description: the entry says \"What the entry says.\", SKILL.md says"), "{said}");
    assert!(!said.contains("not verified: verified"), "{said}");
}

#[test]
fn out_writes_the_files_that_verify_and_a_name_nobody_has_is_a_usage_error() {
    let home = data_home("skills-out");
    let dir = home.join("written");
    let out = skills(&home, true, &["skills", "get", "refunds", "--out", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(std::fs::read_to_string(dir.join("scripts/refund.sh")).unwrap().contains("echo refund"));
    assert!(std::fs::read_to_string(dir.join("SKILL.md")).unwrap().starts_with("---"));
    let tampered = home.join("pdf");
    let out = skills(&home, true, &["skills", "get", "pdf", "--out", tampered.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(4), "{out:?}");
    assert!(tampered.join("SKILL.md").exists() && !tampered.join("reference.md").exists());
    let out = skills(&home, true, &["skills", "get", "nobody"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(text(&out.stderr).contains("lists no skill named \"nobody\""));
}

/// Broken skills never hang the CLI: an error answer to skills/list is the request's failure
/// (exit 1, the server's words); a cursor sent back forever stops the listing (exit 4); a
/// frontmatter that is not YAML refuses the file (exit 4, the parser's words).
#[test]
fn broken_skills_exit_with_what_went_wrong() {
    let home = data_home("skills-broken");
    let fixture = fixture_bin();
    let fixture = fixture.to_str().unwrap();
    let out = sonde(&home, &["skills", "list", "--", fixture, "--skills-broken", "list-error"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(
        text(&out.stderr).contains("skills/list failed: the skills index is corrupt (code -32603)"),
        "{out:?}"
    );
    let out = sonde(&home, &["skills", "list", "--", fixture, "--skills-broken", "bad-input"]);
    assert_eq!(out.status.code(), Some(4), "{out:?}");
    assert!(text(&out.stderr).contains("(a cursor loop); stopped"), "{out:?}");
    let out = sonde(
        &home,
        &["skills", "get", "skill://yaml/SKILL.md", "--", fixture, "--skills-broken", "bad-input"],
    );
    assert_eq!(out.status.code(), Some(4), "{out:?}");
    assert!(text(&out.stderr).contains("its frontmatter is not YAML"), "{out:?}");
    assert!(out.stdout.is_empty(), "nothing unverified printed: {out:?}");
}
