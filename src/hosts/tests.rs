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
        if let Some(l) = &host.limits.result_size {
            cited(&l.source, "resultSize");
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
            headers: Default::default(),
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
        result_size: None,
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

fn sized(confirmed: bool) -> HostProfile {
    let size = ResultSize { tokens: 100, warn_tokens: Some(50), past: "it refuses it".into() };
    host(Limits { result_size: Some(Limit { value: size, source: vec![0], confirmed }), ..Limits::default() })
}

/// A result of `bytes` bytes of content, as JSON.
fn result_of(bytes: usize) -> Value {
    let overhead = serde_json::to_string(&json!([{"type": "text", "text": ""}])).unwrap().len();
    json!({"content": [{"type": "text", "text": "x".repeat(bytes - overhead)}]})
}

#[test]
fn a_result_past_the_size_a_host_takes_warns_past_its_warning_size_notes_and_within_says_nothing() {
    let limited = sized(true);
    // 4 bytes a token: 200 bytes are 50 tokens (not past 50), 201 are 51.
    assert!(result_size(&limited, &result_of(200)).is_empty());
    let noted = result_size(&limited, &result_of(201));
    assert_eq!(noted.len(), 1);
    assert_eq!(noted[0].severity, Severity::Note);
    assert_eq!(
        noted[0].detail,
        "this result is ~51 tokens (estimated at 4 bytes a token): H warns its user past 50; page or trim what the tool returns"
    );
    assert!(
        result_size(&limited, &result_of(400)).iter().all(|f| f.severity == Severity::Note),
        "100 is not past 100"
    );
    let past = result_size(&limited, &result_of(401));
    assert_eq!(past[0].severity, Severity::Warning);
    assert_eq!(past[0].rule, "host-result-size");
    assert!(past[0].detail.starts_with(
        "this result is ~101 tokens (estimated at 4 bytes a token), past the 100 H takes: it refuses it"
    ));
    let reported = result_size(&sized(false), &result_of(401));
    assert!(reported[0].detail.contains("past the 100 H takes (unconfirmed)"), "{reported:?}");
    assert!(result_size(&host(Limits::default()), &result_of(4_000)).is_empty(), "no limit, nothing said");
    assert!(
        result_size(&limited, &json!({"structuredContent": {"x": "y".repeat(1000)}})).is_empty(),
        "content only"
    );
}

#[test]
fn a_host_adds_its_headers_but_never_over_one_the_person_gave() {
    let mut theirs = host(Limits::default());
    theirs.connects.headers.insert("User-Agent".into(), "openai-mcp/1.0.0".into());
    theirs.connects.headers.insert("X-Host".into(), "h".into());
    let mut headers = vec![Header { name: "user-agent".into(), value: "mine".into(), secret: false }];
    theirs.headers_onto(&mut headers);
    let got: Vec<(&str, &str)> = headers.iter().map(|h| (h.name.as_str(), h.value.as_str())).collect();
    assert_eq!(got, [("user-agent", "mine"), ("X-Host", "h")]);
    let chatgpt = profile("chatgpt").unwrap();
    assert_eq!(chatgpt.connects.headers.get("User-Agent").map(String::as_str), Some("openai-mcp/1.0.0"));
}
