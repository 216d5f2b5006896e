use serde_json::json;

use super::*;

#[test]
fn every_profile_file_is_listed_read_and_cites_a_source_for_each_fact() {
    let folder = concat!(env!("CARGO_MANIFEST_DIR"), "/src/hosts/profiles");
    let mut on_disk: Vec<String> = std::fs::read_dir(folder)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().trim_end_matches(".json").to_owned())
        .collect();
    on_disk.sort();
    let listed: Vec<&str> = FILES.iter().map(|(name, _)| *name).collect();
    assert_eq!(on_disk, listed, "a profile file not in FILES, or the other way round");
    for host in profiles() {
        let cited = |sources: &[usize], what: &str| {
            assert!(!sources.is_empty(), "{}: {what} cites no source", host.name);
            for &i in sources {
                assert!(i < host.sources.len(), "{}: {what} cites source {i}, which is not there", host.name);
            }
        };
        cited(&host.connects.source, "connects");
        cited(&host.shows.source, "shows");
        if let Some(l) = &host.limits.tool_name {
            cited(&l.source, "toolName");
            Regex::new(&l.value).unwrap_or_else(|e| panic!("{}: toolName is not a pattern: {e}", host.name));
        }
        if let Some(l) = &host.limits.tool_count {
            cited(&l.source, "toolCount");
        }
        if let Some(l) = &host.limits.schema_keywords {
            cited(&l.source, "schemaKeywords");
        }
        for source in &host.sources {
            assert!(
                source.read.len() == 10 && source.read.starts_with("20"),
                "{}: {source:?} has no date read",
                host.name
            );
        }
    }
    assert!(profile("chatgpt").is_ok());
    let unknown = profile("netscape").unwrap_err().to_string();
    assert_eq!(
        unknown,
        "no host profile \"netscape\"; the hosts are chatgpt, claude-code, claude-desktop, cursor, vscode"
    );
}

fn host(limits: Limits) -> HostProfile {
    HostProfile {
        name: "h".into(),
        title: "H".into(),
        connects: Connects {
            client_info: json!({"name": "h", "version": "1"}),
            protocol_version: "2025-06-18".into(),
            capabilities: json!({}),
            source: vec![0],
            confirmed: true,
        },
        shows: Shows {
            tools: true,
            resources: false,
            prompts: false,
            apps: false,
            source: vec![0],
            confirmed: true,
        },
        limits,
        sources: vec![],
    }
}

#[test]
fn a_tool_is_refused_for_its_name_its_place_past_the_count_and_a_keyword_each_said() {
    let limits = Limits {
        tool_name: Some(Limit { value: "^[a-zA-Z0-9_-]{1,64}$".into(), source: vec![0], confirmed: true }),
        qualified_name: Some(Limit {
            value: QualifiedName { form: "mcp__{server}__{tool}".into(), max: 20 },
            source: vec![0],
            confirmed: true,
        }),
        tool_count: Some(Limit { value: 2, source: vec![0], confirmed: false }),
        schema_keywords: Some(Limit {
            value: vec!["oneOf".into(), "$ref".into()],
            source: vec![0],
            confirmed: false,
        }),
    };
    let tools = [
        json!({"name": "fine", "inputSchema": {"type": "object", "properties": {"oneOf": {"type": "string"}}}}),
        json!({"name": "files.read", "inputSchema": {"type": "object"}}),
        json!({"name": "third", "inputSchema": {"type": "object", "properties": {"x": {"oneOf": [{"$ref": "#/a"}]}}}}),
    ];
    let said = verdicts(&host(limits), &tools, "srv");
    assert!(said[0].refused.is_empty(), "a property named oneOf is not the keyword: {said:?}");
    assert_eq!(
        said[1].refused,
        [Refusal {
            limit: "name".into(),
            why: "H accepts tool names matching ^[a-zA-Z0-9_-]{1,64}$".into(),
            confirmed: true
        }]
    );
    let third: Vec<&str> = said[2].refused.iter().map(|r| r.why.as_str()).collect();
    assert_eq!(
        third,
        ["H offers its model at most 2 tools; this is tool 3", "H refuses the schema keywords oneOf, $ref"]
    );
    assert!(said[2].refused.iter().all(|r| !r.confirmed));
    let named = Limits { qualified_name: said_limits(), ..Limits::default() };
    let long = verdicts(&host(named), &[json!({"name": "abcdefghijk"})], "srv");
    assert_eq!(
        long[0].refused[0].why,
        "H names it mcp__srv__abcdefghijk (21 characters), past the 20 it takes"
    );
    assert!(
        verdicts(&host(Limits::default()), &tools, "srv").iter().all(|v| v.refused.is_empty()),
        "no limit, nothing refused"
    );
}

#[test]
fn connecting_as_a_host_presents_its_client_and_declares_only_what_sonde_answers_too() {
    let basic = crate::connection::BasicResponder {
        roots: vec!["/tmp".into()],
        sample_reply: Some("ok".into()),
        ..Default::default()
    };
    let mut profile = host(Limits::default());
    profile.connects.capabilities = json!({"roots": {"listChanged": true}, "elicitation": {}});
    let profile: &'static HostProfile = Box::leak(Box::new(profile));
    let as_host = AsHost::new(std::sync::Arc::new(basic), profile);
    use crate::connection::Responder;
    assert_eq!(as_host.client_info(), Some(json!({"name": "h", "version": "1"})));
    assert_eq!(as_host.requested_version().as_deref(), Some("2025-06-18"));
    // Roots: both; sampling: Sonde's only; elicitation: the host's only (Sonde has no answer).
    assert_eq!(as_host.capabilities(), json!({"roots": {}}));
}

fn said_limits() -> Option<Limit<QualifiedName>> {
    Some(Limit {
        value: QualifiedName { form: "mcp__{server}__{tool}".into(), max: 20 },
        source: vec![0],
        confirmed: true,
    })
}

#[test]
fn tools_of_two_servers_a_host_names_alike_shadow_one_another_and_a_host_without_a_known_naming_says_nothing()
{
    let named = Limits { qualified_name: said_limits(), ..Limits::default() };
    let claude = host(named);
    let mine = [json!({"name": "read"}), json!({"name": "write"})];
    let theirs = [json!({"name": "Read"}), json!({"name": "list"})];
    let this = Served { server: "my-files", tools: &mine };
    let others = [Served { server: "my_files", tools: &theirs }, Served { server: "other", tools: &mine }];
    assert_eq!(
        shadowed(&claude, &this, &others),
        ["read here (mcp__my-files__read) and Read of my_files (mcp__my_files__Read) are one name to H"]
    );
    assert!(shadowed(&host(Limits::default()), &this, &others).is_empty(), "no naming a source gives");
    let view = table(&this, &json!({"resources": {}}), &others);
    assert_eq!(view.len(), profiles().len());
    let code = view.iter().find(|v| v.name == "claude-code").unwrap();
    assert_eq!(code.shadowed.len(), 1, "{code:?}");
}
