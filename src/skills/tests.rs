use serde_json::json;

use super::*;

const SKILL_MD: &str =
    "---\nname: refunds\ndescription: Refund a charge.\nversion: 2\ntags: [billing, money]\n---\n# Refunds\n";

fn entry(resources: Value) -> Value {
    json!({
        "uri": "skill://acme/billing/refunds/SKILL.md",
        "frontmatter": {"name": "refunds", "description": "Refund a charge.", "version": 2, "tags": ["billing", "money"]},
        "resources": resources,
    })
}

fn listed(uri: &str, bytes: &[u8]) -> Value {
    json!({"uri": uri, "digest": digest_of(bytes), "size": bytes.len()})
}

#[test]
fn the_extension_is_read_from_the_capabilities_with_its_settings_inline() {
    let caps = json!({"resources": {}, "extensions": {EXTENSION: {"directoryRead": true}}});
    assert_eq!(declared(&caps), Some(SkillsDeclared { directory_read: true }));
    let plain = json!({"extensions": {EXTENSION: {}}});
    assert_eq!(declared(&plain), Some(SkillsDeclared { directory_read: false }));
    assert_eq!(declared(&json!({"resources": {}})), None);
    assert_eq!(declared(&json!({"extensions": {"io.modelcontextprotocol/ui": {}}})), None);
}

#[test]
fn an_entry_with_a_prefixed_path_and_its_files_is_read_whole() {
    let script = b"echo refund\n";
    let skill = skill_entry(&entry(json!([
        listed("skill://acme/billing/refunds/SKILL.md", SKILL_MD.as_bytes()),
        listed("skill://acme/billing/refunds/scripts/run.sh", script),
    ])));
    assert_eq!(skill.name.as_deref(), Some("refunds"));
    assert_eq!(skill.root(), "skill://acme/billing/refunds");
    assert!(skill.problems.is_empty() && skill.invalid.is_none(), "{skill:?}");
    let file = skill.file("skill://acme/billing/refunds/scripts/run.sh").unwrap();
    assert_eq!(check_file(script, Some(file)), FileCheck::Verified);
}

#[test]
fn a_skill_without_resources_is_invalid_and_dynamic_is_not() {
    let mut raw = entry(json!("dynamic"));
    let dynamic = skill_entry(&raw);
    assert_eq!((dynamic.files.clone(), dynamic.invalid.clone()), (None, None));
    raw.as_object_mut().unwrap().remove("resources");
    assert!(skill_entry(&raw).invalid.unwrap().contains("no resources"));
    assert!(skill_entry(&entry(json!({"a": 1}))).invalid.unwrap().contains("neither a list nor"));
}

#[test]
fn what_is_wrong_with_an_entry_is_said_each_on_its_own() {
    let raw = json!({
        "uri": "skill://tools/pdf/SKILL.md",
        "frontmatter": {"name": "PDF_Tools", "description": "d"},
        "resources": [
            {"uri": "skill://tools/pdf/a.txt", "digest": "sha256:XYZ", "size": 3},
            {"uri": "skill://elsewhere/b.txt", "digest": digest_of(b""), "size": 0},
            {"uri": "skill://tools/pdf/c.txt", "digest": digest_of(b"")},
        ],
    });
    let problems = skill_entry(&raw).problems.join("\n");
    for said in [
        "is not 1 to 64 lowercase letters",
        "is not the last segment of its path",
        "a.txt: its digest \"sha256:XYZ\" is not sha256: and 64 lowercase hex",
        "b.txt: it is outside the skill",
        "c.txt: it has no size",
        "do not list its SKILL.md",
    ] {
        assert!(problems.contains(said), "{said:?} not in:\n{problems}");
    }
}

#[test]
fn the_limits_are_counted_in_files_and_bytes() {
    let root = "skill://big/big";
    let mut files: Vec<Value> = (0..=MAX_FILES)
        .map(|i| json!({"uri": format!("{root}/f{i}"), "digest": digest_of(b""), "size": 0}))
        .collect();
    files.push(
        json!({"uri": format!("{root}/SKILL.md"), "digest": digest_of(b""), "size": MAX_SKILL_BYTES + 1}),
    );
    let raw = json!({"uri": format!("{root}/SKILL.md"), "frontmatter": {"name": "big", "description": "d"}, "resources": files});
    let problems = skill_entry(&raw).problems.join("\n");
    assert!(problems.contains("lists 514 files (the spec's limit is 512)"), "{problems}");
    assert!(problems.contains("(the spec's limit is 16 MiB)"), "{problems}");
}

#[test]
fn a_file_is_checked_by_its_size_then_its_digest() {
    let file = SkillFile { uri: "u".into(), digest: digest_of(b"abc"), size: 3 };
    assert_eq!(check_file(b"abc", Some(&file)), FileCheck::Verified);
    assert_eq!(check_file(b"abcd", Some(&file)), FileCheck::SizeMismatch { listed: 3, read: 4 });
    let tampered = check_file(b"abd", Some(&file));
    assert_eq!(tampered, FileCheck::DigestMismatch { listed: file.digest.clone(), read: digest_of(b"abd") });
    assert!(tampered.words().contains(&file.digest) && tampered.words().contains(&digest_of(b"abd")));
    assert_eq!(check_file(b"abc", None), FileCheck::Unlisted);
    // The spec's form: sha256 of the raw bytes, lowercase hex.
    assert_eq!(digest_of(b"abc"), "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

#[test]
fn the_frontmatter_is_compared_field_by_field() {
    let read = frontmatter_of(SKILL_MD).unwrap();
    let listed = entry(json!("dynamic"))["frontmatter"].clone();
    assert_eq!(frontmatter_differences(&listed, &read), Vec::<String>::new());
    let mut changed = listed.clone();
    changed["description"] = json!("Something else.");
    changed.as_object_mut().unwrap().remove("tags");
    changed["extra"] = json!(true);
    assert_eq!(
        frontmatter_differences(&changed, &read),
        [
            "description: the entry says \"Something else.\", SKILL.md says \"Refund a charge.\"",
            "extra: in the entry, not in SKILL.md",
            "tags: in SKILL.md, not in the entry",
        ]
    );
}

#[test]
fn a_frontmatter_that_is_not_there_or_not_yaml_says_why() {
    assert!(frontmatter_of("# no frontmatter").unwrap_err().contains("does not begin with"));
    assert!(frontmatter_of("---\nname: x\n").unwrap_err().contains("no closing"));
    assert!(frontmatter_of("---\nname: [unclosed\n---\n").unwrap_err().contains("is not YAML"));
    assert!(frontmatter_of("---\n- a\n- b\n---\n").unwrap_err().contains("not a mapping"));
    assert_eq!(frontmatter_of("---\r\nname: x\r\n---\r\nbody").unwrap()["name"], "x");
}

#[test]
fn the_body_is_what_follows_the_frontmatter_and_the_whole_text_without_one() {
    assert_eq!(body_of("---\nname: x\n---\n# Title\n\ntext\n"), "# Title\n\ntext\n");
    assert_eq!(body_of("\u{feff}---\r\nname: x\r\n---\r\nbody"), "body");
    assert_eq!(body_of("---\nname: x\n---"), "", "a closing line without a newline ends it");
    assert_eq!(body_of("# no frontmatter"), "# no frontmatter");
    assert_eq!(body_of("---\nname: x\n"), "---\nname: x\n", "an unclosed one is all body");
}
