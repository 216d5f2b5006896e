//! The Skills extension against the fixture (`--skills`) in both eras: the declaration read from
//! the capabilities, `skills/list` followed through every page, each file read and verified
//! (a tampered file, one a byte longer than listed, a frontmatter that differs caught and said
//! in the log), `skills/get`, directory reads where declared, the 2026-07-28 cache fields, and
//! the skills a snapshot keeps; and a published skills server (the TypeScript SDK's extension)
//! read and verified without a false alarm.

mod common;

use common::{fixture, new_log, peer_bin};
use sonde_core::{Era, EraPolicy, FileCheck, Filter, Hub, ServerConfig, SkillsDeclared, SpawnSpec};

/// The fixture's skills server, legacy or modern.
async fn skills_server(name: &str, modern: bool, no_cache: bool) -> (Hub, u64) {
    let hub = Hub::new(new_log(name));
    let mut args = vec![if no_cache { "--skills-no-cache" } else { "--skills" }];
    if modern {
        args.push("--dual-era");
    }
    let id = hub.connect(&fixture(&args)).await.unwrap();
    (hub, id)
}

/// Each finding of `rule` (`any`: of every rule) in the log, as its words; each must be on the
/// reply that shows it.
fn findings(hub: &Hub, rule: &str) -> Vec<String> {
    let entries = hub.log().entries(&Filter::parse(&format!("diag:{rule}")).unwrap()).unwrap();
    entries
        .iter()
        .flat_map(|e| {
            assert!(e.answers.is_some(), "a finding on the reply that shows it: {e:?}");
            e.findings.iter().filter(|f| rule == "any" || f.rule == rule).map(|f| f.detail.clone())
        })
        .collect()
}

#[tokio::test]
async fn skills_are_listed_page_by_page_and_each_file_is_verified_in_both_eras() {
    for modern in [false, true] {
        let (hub, id) = skills_server(&format!("skills-{modern}"), modern, false).await;
        let session = hub.session(id).unwrap();
        assert_eq!(session.era() == Era::Modern, modern);
        assert_eq!(session.skills_declared(), Some(SkillsDeclared { directory_read: true }));

        // Four pages of one skill each, every entry well formed; no file read yet.
        let listing = session.list_skills().await.unwrap();
        let names: Vec<_> = listing.skills.iter().map(|s| s.name.clone().unwrap()).collect();
        assert_eq!(names, ["refunds", "pdf", "sizes", "notes"]);
        assert!(listing.skills.iter().all(|s| s.problems.is_empty() && s.invalid.is_none()), "{listing:?}");
        assert!(findings(&hub, "any").is_empty());
        let [refunds, pdf, sizes, notes] = &listing.skills[..] else { unreachable!() };
        assert_eq!(refunds.uri, "skill://acme/billing/refunds/SKILL.md", "a prefixed path");

        for file in refunds.files.as_ref().unwrap() {
            let read = session.read_skill_file(refunds, &file.uri).await.unwrap();
            assert!(read.verified, "{read:?}");
        }
        let tampered = session.read_skill_file(pdf, "skill://pdf/reference.md").await.unwrap();
        let FileCheck::DigestMismatch { listed, read } = &tampered.check else { panic!("{tampered:?}") };
        assert_ne!(listed, read);
        assert!(!tampered.verified && tampered.text.as_deref() == Some("Use pdftk to FILL forms.\n"));
        let grown = session.read_skill_file(sizes, "skill://sizes/data.txt").await.unwrap();
        assert_eq!(grown.check, FileCheck::SizeMismatch { listed: 6, read: 8 });
        let differs = session.read_skill_file(notes, &notes.uri).await.unwrap();
        assert!(differs.check.verified(), "its bytes are the entry's");
        assert_eq!(
            differs.frontmatter,
            ["description: the entry says \"What the entry says.\", SKILL.md says \"What SKILL.md says.\""]
        );
        assert!(!differs.verified);

        // Each mismatch is a finding in the log, naming the file and both values.
        let unverified = findings(&hub, "skill-file-unverified");
        assert_eq!(unverified.len(), 2, "{unverified:?}");
        assert!(
            unverified[0].contains("skill://pdf/reference.md: digest mismatch")
                && unverified[0].contains(listed)
        );
        assert!(unverified[1]
            .contains("skill://sizes/data.txt: size mismatch: the entry lists 6 bytes, the file has 8"));
        assert_eq!(findings(&hub, "skill-frontmatter-mismatch").len(), 1);

        // skills/get gives the entry listed; a URI that names no skill is -32602.
        assert_eq!(&session.get_skill(&pdf.uri).await.unwrap(), pdf);
        let missing = session.get_skill("skill://nowhere/SKILL.md").await.unwrap_err().to_string();
        assert!(missing.contains("-32602") && missing.contains("No skill is served at"), "{missing}");

        // The directory read where declared: SKILL.md and the scripts directory, then its files.
        let root = session.read_skill_directory("skill://acme/billing/refunds").await.unwrap();
        let kinds: Vec<_> = root
            .iter()
            .map(|c| (c["name"].as_str().unwrap(), c.get("mimeType").and_then(|m| m.as_str())))
            .collect();
        assert_eq!(kinds, [("SKILL.md", None), ("scripts", Some("inode/directory"))]);
        let scripts = session.read_skill_directory("skill://acme/billing/refunds/scripts").await.unwrap();
        assert_eq!(scripts.len(), 2);
        assert!(findings(&hub, "skills-cache-fields").is_empty(), "the fixture sends them on 2026-07-28");

        // A snapshot keeps the skills by URI, with their files' digests (no file read).
        let snapshot = sonde_core::Snapshot::take(&session).await.unwrap();
        let kept = snapshot.skills.expect("the server declares skills");
        let uris: Vec<&str> = kept.iter().map(|s| s["uri"].as_str().unwrap()).collect();
        assert_eq!(
            uris,
            [
                "skill://acme/billing/refunds/SKILL.md",
                "skill://notes/SKILL.md",
                "skill://pdf/SKILL.md",
                "skill://sizes/SKILL.md"
            ]
        );
        assert_eq!(kept[2]["resources"][1]["digest"], pdf.files.as_ref().unwrap()[1].digest.as_str());
        // The session stands in for a snapshot: its last whole skills/list, kept the same way.
        let recorded = sonde_core::Snapshot::from_session(hub.log()).unwrap();
        assert_eq!(recorded.skills.as_ref(), Some(&kept));
        hub.disconnect(id).await.unwrap();
    }
}

#[tokio::test]
async fn the_cache_fields_are_required_on_2026_07_28_and_not_before() {
    for modern in [false, true] {
        let (hub, id) = skills_server(&format!("skills-cache-{modern}"), modern, true).await;
        let session = hub.session(id).unwrap();
        session.get_skill("skill://pdf/SKILL.md").await.unwrap();
        session.list_skills().await.unwrap();
        let said = findings(&hub, "skills-cache-fields");
        if modern {
            // The get, and each of the list's four pages.
            assert_eq!(said.len(), 5, "{said:?}");
            assert!(
                said[0].contains("skills/get: on 2026-07-28")
                    && said[0].contains("ttlMs absent and cacheScope absent"),
                "{said:?}"
            );
            assert!(said[1..].iter().all(|s| s.starts_with("skills/list: on 2026-07-28")), "{said:?}");
        } else {
            assert!(said.is_empty(), "2025-11-25 results need no cache fields: {said:?}");
        }
        hub.disconnect(id).await.unwrap();
    }
}

#[tokio::test]
async fn a_published_skills_server_is_listed_read_and_verified_in_both_eras_without_a_finding() {
    let script = peer_bin("tsv2/ts_skills_server.mjs");
    for (era, modern) in [(EraPolicy::Legacy, false), (EraPolicy::Auto, true)] {
        let hub = Hub::new(new_log(&format!("skills-peer-{modern}")));
        let mut config = ServerConfig::stdio(SpawnSpec::new("node", [script.to_string_lossy().into_owned()]));
        config.era = era;
        let id = hub.connect(&config).await.unwrap();
        let session = hub.session(id).unwrap();
        assert_eq!(session.era() == Era::Modern, modern);
        assert_eq!(session.skills_declared(), Some(SkillsDeclared { directory_read: true }));
        let listing = session.list_skills().await.unwrap();
        let names: Vec<_> = listing.skills.iter().map(|s| s.name.as_deref().unwrap()).collect();
        assert_eq!(names, ["code-review", "hello"]);
        let mut read = 0;
        for skill in &listing.skills {
            assert!(skill.problems.is_empty() && skill.invalid.is_none(), "{skill:?}");
            for file in skill.files.as_ref().unwrap() {
                let got = session.read_skill_file(skill, &file.uri).await.unwrap();
                assert!(got.verified, "{got:?}");
                read += 1;
            }
        }
        assert_eq!(read, 4, "SKILL.md and one more file each, a binary one among them");
        let children = session.read_skill_directory("skill://code-review").await.unwrap();
        assert_eq!(children.len(), 2, "{children:?}");
        assert!(findings(&hub, "any").is_empty(), "{:?}", findings(&hub, "any"));
        hub.disconnect(id).await.unwrap();
    }
}

#[tokio::test]
async fn broken_skills_are_said_and_never_hang_a_listing() {
    // skills/list answered with an error: the error, as the server said it.
    let hub = Hub::new(new_log("skills-list-error"));
    let id = hub.connect(&fixture(&["--skills-broken", "list-error"])).await.unwrap();
    let session = hub.session(id).unwrap();
    let error = session.list_skills().await.unwrap_err().to_string();
    assert!(error.contains("-32603") && error.contains("the skills index is corrupt"), "{error}");
    hub.disconnect(id).await.unwrap();

    // A cursor sent back forever stops the listing with a cursor-loop finding; a frontmatter
    // that is not YAML and a skill past the file limit are each said on the reply that shows it.
    let hub = Hub::new(new_log("skills-bad-input"));
    let id = hub.connect(&fixture(&["--skills-broken", "bad-input"])).await.unwrap();
    let session = hub.session(id).unwrap();
    let looped = session.list_skills().await.unwrap_err().to_string();
    assert!(looped.contains("a cursor loop"), "{looped}");
    let log = hub.log().entries(&Filter::parse("diag:cursor-loop").unwrap()).unwrap();
    assert_eq!(log.len(), 1, "{log:?}");
    let crowded = session.get_skill("skill://crowded/SKILL.md").await.unwrap();
    assert!(
        crowded.problems.iter().any(|p| p == "it lists 513 files (the spec's limit is 512)"),
        "{crowded:?}"
    );
    let yaml = session.get_skill("skill://yaml/SKILL.md").await.unwrap();
    let read = session.read_skill_file(&yaml, &yaml.uri).await.unwrap();
    assert!(read.check.verified() && !read.verified, "{read:?}");
    assert!(read.frontmatter[0].starts_with("its frontmatter is not YAML"), "{read:?}");
    assert!(findings(&hub, "skill-entry").iter().any(|f| f.contains("513 files")));
    assert_eq!(findings(&hub, "skill-frontmatter-mismatch").len(), 1);
    hub.disconnect(id).await.unwrap();
}
