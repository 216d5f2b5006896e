use super::*;
use serde_json::json;

fn snapshot(tools: Value) -> Snapshot {
    Snapshot {
        sonde_snapshot: 1,
        server_info: json!({"name": "s", "version": "1"}),
        protocol_version: "2025-11-25".into(),
        era: "legacy".into(),
        era_choice: EraChoice::Negotiated,
        capabilities: json!({"tools": {}}),
        instructions: None,
        tools: Some(tools.as_array().unwrap().clone()),
        prompts: None,
        resources: None,
        resource_templates: None,
        skills: None,
    }
}

fn lines(old: Value, new: Value) -> Vec<String> {
    said(&diff(&snapshot(old), &snapshot(new)))
}

fn said(changes: &[Change]) -> Vec<String> {
    changes.iter().map(|c| format!("{} {}: {}", c.severity.name(), c.path, c.detail)).collect()
}

/// A snapshot listed in `era`, chosen as `choice`, with `capabilities`.
fn listed(era: &str, choice: EraChoice, capabilities: Value) -> Snapshot {
    let mut s = snapshot(json!([]));
    s.era = era.into();
    s.protocol_version = if era == "modern" { "2026-07-28" } else { "2025-11-25" }.into();
    s.era_choice = choice;
    s.capabilities = capabilities;
    s
}

#[test]
fn input_schemas_break_when_they_accept_less() {
    let add = |props: Value, required: Value| json!([{"name": "add", "inputSchema": {"type": "object", "properties": props, "required": required}}]);
    let old =
        add(json!({"a": {"type": "number"}, "mode": {"type": "string", "enum": ["x", "y"]}}), json!(["a"]));
    let new = add(
        json!({"a": {"type": "integer"}, "mode": {"type": "string", "enum": ["x"]}, "c": {"type": "integer"}}),
        json!(["a", "c"]),
    );
    assert_eq!(
        lines(old.clone(), new),
        [
            "breaking tools/add/inputSchema/properties/a/type: type number became integer",
            "breaking tools/add/inputSchema/properties/mode/enum: enum value \"y\" was removed",
            "breaking tools/add/inputSchema/properties/c: new required argument \"c\" (integer)",
        ]
    );
    let wider = add(
        json!({"a": {"type": ["number", "string"]}, "mode": {"type": "string", "enum": ["x", "y", "z"]}, "d": {"type": "string"}}),
        json!([]),
    );
    assert_eq!(
        lines(old, wider),
        [
            "addition tools/add/inputSchema/properties/a: property \"a\" is now optional",
            "addition tools/add/inputSchema/properties/a/type: type number became number|string",
            "addition tools/add/inputSchema/properties/mode/enum: enum value \"z\" was added",
            "addition tools/add/inputSchema/properties/d: new optional argument \"d\" (string)",
        ]
    );
}

#[test]
fn output_schemas_break_when_they_promise_less_and_refs_are_followed() {
    let tool = |output: Value| json!([{"name": "weather", "inputSchema": {"type": "object"}, "outputSchema": output}]);
    let old = tool(
        json!({"type": "object", "$defs": {"t": {"type": "integer"}}, "properties": {"temp": {"$ref": "#/$defs/t"}, "sky": {"type": "string"}}, "required": ["temp", "sky"]}),
    );
    let new = tool(
        json!({"type": "object", "$defs": {"t": {"type": "number"}}, "properties": {"temp": {"$ref": "#/$defs/t"}}, "required": []}),
    );
    assert_eq!(
        lines(old, new),
        [
            "breaking tools/weather/outputSchema/properties/temp: property \"temp\" is now optional",
            "breaking tools/weather/outputSchema/properties/temp/type: type integer became number",
            "breaking tools/weather/outputSchema/properties/sky: property \"sky\" is no longer in the output",
        ]
    );
}

#[test]
fn removed_and_added_items_words_and_undecidable_changes() {
    let old = json!([{"name": "a", "description": "A", "inputSchema": {"type": "object", "properties": {"s": {"type": "string", "pattern": "^x"}}}}, {"name": "gone", "inputSchema": {"type": "object"}}]);
    let new = json!([{"name": "a", "description": "A!", "inputSchema": {"type": "object", "properties": {"s": {"type": "string", "pattern": "^y"}}}}, {"name": "fresh", "inputSchema": {"type": "object", "properties": {"n": {"type": "integer"}}}}]);
    assert_eq!(
        lines(old.clone(), new),
        [
            "breaking tools/a/inputSchema/properties/s/pattern: its pattern changed; could not tell whether this narrows what it accepts",
            "breaking tools/gone: the tool was removed",
            "change tools/a/description: its description changed",
            "addition tools/fresh: a new tool",
        ]
    );
    assert!(lines(old.clone(), old).is_empty(), "a snapshot against itself has no change");
    // A capability withdrawn is said once, not as every tool removed.
    let mut none = snapshot(json!([]));
    none.capabilities = json!({});
    none.tools = None;
    let changes = diff(&snapshot(json!([{"name": "a"}])), &none);
    assert_eq!(changes.len(), 1, "{changes:?}");
    assert_eq!(changes[0].detail, "the tools capability was withdrawn, and with it its listing (1 tool)");
}

/// An era the client forced is what it chose, not what the server offers: no change, and
/// the sentence says which era each side was listed in; only two negotiated sides judge it.
#[test]
fn an_era_the_client_forced_is_not_a_server_change() {
    use EraChoice::{Forced, Negotiated};
    let caps = json!({"tools": {}});
    let forced_legacy = listed("legacy", Forced, caps.clone());
    let negotiated_modern = listed("modern", Negotiated, caps.clone());
    for (old, new) in [(&forced_legacy, &negotiated_modern), (&negotiated_modern, &forced_legacy)] {
        assert!(diff(old, new).is_empty(), "{:?}", diff(old, new));
        assert!(eras_chosen(old, new).is_some());
    }
    assert_eq!(
        eras_chosen(&forced_legacy, &negotiated_modern).unwrap(),
        "the sides were listed in different eras, chosen by the client, which is not a change of \
         the server: the old in legacy (2025-11-25, forced by the client), the new in modern \
         (2026-07-28, negotiated)"
    );
    let forced_modern = listed("modern", Forced, caps.clone());
    assert!(diff(&forced_legacy, &forced_modern).is_empty(), "two eras the client chose");
    assert!(eras_chosen(&forced_legacy, &listed("legacy", Negotiated, caps.clone())).is_none());
    // Both negotiated: the server's own. Modern lost breaks; modern gained cannot tell
    // whether legacy is still answered.
    let negotiated_legacy = listed("legacy", Negotiated, caps.clone());
    assert_eq!(
        said(&diff(&negotiated_modern, &negotiated_legacy)),
        ["breaking era: the server no longer speaks modern (2026-07-28): both sides negotiated, \
          the old in modern (2026-07-28), the new in legacy (2025-11-25)"]
    );
    let gained = diff(&negotiated_legacy, &negotiated_modern);
    assert_eq!(gained.len(), 1);
    assert_eq!(gained[0].severity, ChangeSeverity::Breaking);
    assert!(gained[0].detail.contains("could not tell whether it still answers initialize"), "{gained:?}");
    assert!(eras_chosen(&negotiated_legacy, &negotiated_modern).is_none());
    // Across eras a capability is written differently: a difference there is a change that
    // says so, never a verdict (here a dual-era server offering subscribe in modern only).
    let modern = listed("modern", Negotiated, json!({"resources": {"subscribe": true}}));
    let legacy = listed("legacy", Forced, json!({"resources": {"subscribe": false}}));
    let across = said(&diff(&modern, &legacy));
    assert_eq!(across.len(), 1, "{across:?}");
    assert!(across[0].starts_with("change capabilities/resources/subscribe: resources.subscribe was withdrawn; the sides were listed in different eras"), "{across:?}");
}

/// A sub-capability withdrawn breaks, named; one offered anew is an addition; `false` and
/// absent are the same; any other option a change.
#[test]
fn a_sub_capability_withdrawn_breaks_and_is_named_and_one_added_is_an_addition() {
    let caps = |c: Value| listed("legacy", EraChoice::Negotiated, c);
    let both =
        caps(json!({"resources": {"subscribe": true, "listChanged": true}, "tools": {"listChanged": true}}));
    let fewer = caps(json!({"resources": {"listChanged": true}, "tools": {"listChanged": false}}));
    assert_eq!(
        said(&diff(&both, &fewer)),
        [
            "breaking capabilities/resources/subscribe: resources.subscribe was withdrawn",
            "breaking capabilities/tools/listChanged: tools.listChanged was withdrawn",
        ]
    );
    assert_eq!(
        said(&diff(&fewer, &both)),
        [
            "addition capabilities/resources/subscribe: resources.subscribe is new",
            "addition capabilities/tools/listChanged: tools.listChanged is new",
        ]
    );
    let unset = caps(json!({"resources": {"listChanged": true}, "tools": {}}));
    assert!(diff(&fewer, &unset).is_empty(), "false and absent offer the same: nothing");
    // A nested one: tasks' requests.
    let tasks = |requests: Value| caps(json!({"tasks": {"list": {}, "requests": requests}}));
    assert_eq!(
        said(&diff(&tasks(json!({"tools": {"call": {}}})), &tasks(json!({"tools": {}})))),
        ["breaking capabilities/tasks/requests/tools/call: tasks.requests.tools.call was withdrawn"]
    );
    assert_eq!(
        said(&diff(
            &caps(json!({"logging": {"level": "info"}})),
            &caps(json!({"logging": {"level": "debug"}}))
        )),
        ["change capabilities/logging: the logging capability's options changed"]
    );
}

/// A capability withdrawn is said once, with what its listing held, whether the listing is
/// absent on the new side or present and empty; one new likewise.
#[test]
fn a_capability_withdrawn_is_said_once_whether_its_listing_is_absent_or_empty() {
    let mut old = snapshot(json!([{"name": "a"}, {"name": "b"}]));
    old.prompts = Some(vec![json!({"name": "p"})]);
    old.capabilities = json!({"tools": {}, "prompts": {}});
    let mut absent = old.clone();
    absent.capabilities = json!({"prompts": {}});
    absent.tools = None;
    let mut empty = absent.clone();
    empty.tools = Some(vec![]);
    for new in [&absent, &empty] {
        assert_eq!(
            said(&diff(&old, new)),
            ["breaking capabilities/tools: the tools capability was withdrawn, and with it its listing (2 tools)"]
        );
        assert_eq!(said(&diff(new, &old)), ["addition capabilities/tools: the tools capability is new"]);
    }
    // A capability kept with its listing emptied: each item is what went.
    let mut emptied = old.clone();
    emptied.tools = Some(vec![]);
    assert_eq!(
        lines_of(&old, &emptied),
        ["breaking tools/a: the tool was removed", "breaking tools/b: the tool was removed"]
    );
}

fn lines_of(old: &Snapshot, new: &Snapshot) -> Vec<String> {
    said(&diff(old, new))
}

/// Hints are judged as they mean, through their defaults, each flip both ways.
#[test]
fn annotation_hints_are_judged_through_their_defaults_both_ways() {
    let tool = |annotations: Value| json!([{"name": "t", "inputSchema": {"type": "object"}, "annotations": annotations}]);
    let judged = |old: Value, new: Value| lines(tool(old), tool(new));
    assert_eq!(
        judged(json!({"readOnlyHint": true}), json!({})),
        ["breaking tools/t/annotations/readOnlyHint: readOnlyHint true became absent (false by default): it is no longer read-only (by its hints now destructive and not idempotent)"]
    );
    assert_eq!(
        judged(json!({"readOnlyHint": false, "destructiveHint": false, "idempotentHint": true}), json!({"readOnlyHint": true})),
        ["addition tools/t/annotations/readOnlyHint: readOnlyHint false became true: it is now read-only (it was not destructive and idempotent)"]
    );
    assert_eq!(
        judged(json!({"destructiveHint": false}), json!({})),
        ["breaking tools/t/annotations/destructiveHint: destructiveHint false became absent (true by default): it may now be destructive"]
    );
    assert_eq!(
        judged(json!({}), json!({"destructiveHint": false})),
        ["addition tools/t/annotations/destructiveHint: destructiveHint absent (true by default) became false: it is no longer destructive"]
    );
    assert_eq!(
        judged(json!({"idempotentHint": true}), json!({"idempotentHint": false})),
        ["breaking tools/t/annotations/idempotentHint: idempotentHint true became false: it is no longer idempotent: calling it again may have more effect"]
    );
    assert_eq!(
        judged(json!({"idempotentHint": false}), json!({"idempotentHint": true})),
        ["addition tools/t/annotations/idempotentHint: idempotentHint false became true: it is now idempotent"]
    );
    assert_eq!(
        judged(json!({"openWorldHint": false}), json!({})),
        ["breaking tools/t/annotations/openWorldHint: openWorldHint false became absent (true by default): it may now reach an open world of outside entities"]
    );
    assert_eq!(
        judged(json!({}), json!({"openWorldHint": false})),
        ["addition tools/t/annotations/openWorldHint: openWorldHint absent (true by default) became false: it no longer reaches outside entities (a closed world)"]
    );
    // Destructive and idempotent mean nothing for a read-only tool; a default written out is
    // the default; the other keys are words.
    assert!(judged(
        json!({"readOnlyHint": true, "destructiveHint": true}),
        json!({"readOnlyHint": true, "idempotentHint": false})
    )
    .is_empty());
    assert!(judged(json!({"destructiveHint": true, "openWorldHint": true}), json!({})).is_empty());
    assert_eq!(
        judged(json!({"title": "T"}), json!({"title": "Tee"})),
        ["change tools/t/annotations/title: its annotations' title changed"]
    );
}

/// A removed and an added item of one shape are said to be a likely rename, the removal
/// still breaking; a shape shared by two is no hint, nor is a different one.
#[test]
fn a_removed_and_an_added_item_of_one_shape_are_a_likely_rename() {
    let schema = json!({"type": "object", "properties": {"q": {"type": "string"}}});
    let tool = |name: &str, input: &Value| json!({"name": name, "inputSchema": input});
    assert_eq!(
        said(&listings(ListKind::Tools, &[tool("search", &schema)], &[tool("find", &schema)])),
        [
            "breaking tools/search: the tool was removed; likely renamed to \"find\" (the same schemas)",
            "addition tools/find: a new tool; likely \"search\" renamed to it (the same schemas)",
        ]
    );
    let other = json!({"type": "object", "properties": {"q": {"type": "integer"}}});
    assert_eq!(
        said(&listings(ListKind::Tools, &[tool("search", &schema)], &[tool("find", &other)])),
        ["breaking tools/search: the tool was removed", "addition tools/find: a new tool"]
    );
    let mut output = tool("find", &schema);
    output["outputSchema"] = json!({"type": "object"});
    assert_eq!(
        said(&listings(ListKind::Tools, &[tool("search", &schema)], &[output])),
        ["breaking tools/search: the tool was removed", "addition tools/find: a new tool"],
        "an output schema is part of the shape"
    );
    let two = said(&listings(
        ListKind::Tools,
        &[tool("search", &schema)],
        &[tool("find", &schema), tool("seek", &schema)],
    ));
    assert!(two.iter().all(|l| !l.contains("likely")), "two candidates are a guess: {two:?}");
    let prompt = |name: &str| json!({"name": name, "arguments": [{"name": "who", "required": true}]});
    assert_eq!(
        said(&listings(ListKind::Prompts, &[prompt("greet")], &[prompt("hello")])),
        [
            "breaking prompts/greet: the prompt was removed; likely renamed to \"hello\" (the same arguments)",
            "addition prompts/hello: a new prompt; likely \"greet\" renamed to it (the same arguments)",
        ]
    );
    let resource = |uri: &str, mime: &str| json!({"uri": uri, "name": "readme", "mimeType": mime});
    assert_eq!(
        said(&listings(ListKind::Resources, &[resource("file:///a", "text/plain")], &[resource("file:///b", "text/plain")])),
        [
            "breaking resources/file:///a: the resource was removed; likely renamed to \"file:///b\" (the same name and MIME type)",
            "addition resources/file:///b: a new resource; likely \"file:///a\" renamed to it (the same name and MIME type)",
        ]
    );
    assert!(!said(&listings(
        ListKind::Resources,
        &[resource("file:///a", "text/plain")],
        &[resource("file:///b", "text/html")]
    ))[0]
        .contains("likely"));
}

/// Null dropped or allowed, in each spelling, judged by side: an input's dropped null is a
/// change and an added one an addition; an output's breaks both ways.
#[test]
fn null_dropped_or_allowed_is_judged_by_side_in_each_spelling() {
    let input = |a: Value| json!([{"name": "t", "inputSchema": {"type": "object", "properties": {"a": a}}}]);
    let output = |a: Value| json!([{"name": "t", "inputSchema": {"type": "object"}, "outputSchema": {"type": "object", "properties": {"a": a}}}]);
    let optional = [
        json!({"anyOf": [{"type": "string"}, {"type": "null"}], "title": "A", "default": null}),
        json!({"oneOf": [{"type": "null"}, {"type": "string"}], "title": "A", "default": null}),
        json!({"type": ["string", "null"], "title": "A", "default": null}),
    ];
    let plain = json!({"type": "string", "title": "A", "default": null});
    for nullable in optional {
        assert_eq!(
            lines(input(nullable.clone()), input(plain.clone())),
            ["change tools/t/inputSchema/properties/a: null is no longer accepted; clients leave an optional argument out rather than send null, so this is the schema tidied"],
            "{nullable}"
        );
        assert_eq!(
            lines(input(plain.clone()), input(nullable.clone())),
            ["addition tools/t/inputSchema/properties/a: null is now accepted too"]
        );
        assert_eq!(
            lines(output(nullable.clone()), output(plain.clone())),
            ["breaking tools/t/outputSchema/properties/a: it is no longer declared nullable: the result's declared shape changed, which generated client types see"]
        );
        assert_eq!(
            lines(output(plain.clone()), output(nullable.clone())),
            ["breaking tools/t/outputSchema/properties/a: it may now be null: the output promises less"]
        );
    }
    // Null on both sides, in two spellings: only what is beside it is compared.
    assert!(lines(
        input(json!({"anyOf": [{"type": "string"}, {"type": "null"}]})),
        input(json!({"type": ["string", "null"]}))
    )
    .is_empty());
    assert_eq!(
        lines(
            input(json!({"anyOf": [{"type": "number"}, {"type": "null"}]})),
            input(json!({"anyOf": [{"type": "integer"}, {"type": "null"}]}))
        ),
        ["breaking tools/t/inputSchema/properties/a/type: type number became integer"]
    );
    // A $ref beside the null is followed.
    let referenced = |null: bool| {
        let a = if null {
            json!({"anyOf": [{"$ref": "#/$defs/P"}, {"type": "null"}]})
        } else {
            json!({"$ref": "#/$defs/P"})
        };
        json!([{"name": "t", "inputSchema": {"type": "object", "$defs": {"P": {"type": "object"}}, "properties": {"a": a}}}])
    };
    assert_eq!(lines(referenced(true), referenced(false)).len(), 1);
    assert!(lines(referenced(true), referenced(false))[0]
        .starts_with("change tools/t/inputSchema/properties/a: null is no longer accepted"));
}

/// Task support lost either way breaks, gained is an addition, the default `forbidden`
/// written out is no change; across eras it is the era's.
#[test]
fn task_support_lost_breaks_and_gained_is_an_addition() {
    let tool = |support: Option<&str>| match support {
        Some(s) => {
            json!([{"name": "t", "inputSchema": {"type": "object"}, "execution": {"taskSupport": s}}])
        }
        None => json!([{"name": "t", "inputSchema": {"type": "object"}}]),
    };
    let judged = |old: Option<&str>, new: Option<&str>| lines(tool(old), tool(new));
    let at = "tools/t/execution/taskSupport";
    assert_eq!(
        judged(Some("optional"), Some("required")),
        [format!(
            "breaking {at}: taskSupport optional became required: it no longer takes a call without a task"
        )]
    );
    assert_eq!(
        judged(Some("optional"), None),
        [format!(
            "breaking {at}: taskSupport optional became forbidden: it no longer takes a call as a task"
        )]
    );
    assert_eq!(
        judged(Some("required"), Some("forbidden")),
        [format!(
            "breaking {at}: taskSupport required became forbidden: it no longer takes a call as a task"
        )]
    );
    assert_eq!(
        judged(None, Some("optional")),
        [format!("addition {at}: taskSupport forbidden became optional: it now takes a call as a task")]
    );
    assert_eq!(
        judged(Some("required"), Some("optional")),
        [format!("addition {at}: taskSupport required became optional: it now takes a call without a task")]
    );
    assert!(judged(None, Some("forbidden")).is_empty());
    let old = listed("legacy", EraChoice::Forced, json!({"tools": {}}));
    let mut old = Snapshot { tools: Some(tool(Some("optional")).as_array().unwrap().clone()), ..old };
    let mut new = listed("modern", EraChoice::Negotiated, json!({"tools": {}}));
    new.tools = Some(tool(None).as_array().unwrap().clone());
    let across = said(&diff(&old, &new));
    assert_eq!(across.len(), 1);
    assert!(across[0].starts_with("change tools/t/execution/taskSupport:"), "{across:?}");
    old.era = "modern".into();
    assert!(said(&diff(&old, &new))[0].starts_with("breaking"), "the same era judges it");
}

#[test]
fn changes_in_brief_say_breaking_first_and_whole_items_by_kind() {
    use super::super::change::in_brief;
    let add = |required: Value| json!({"name": "add", "inputSchema": {"type": "object", "properties": {"a": {}, "b": {}}, "required": required}});
    let mul = json!({"name": "mul", "inputSchema": {"type": "object"}});
    let brief = |old: Value, new: Value| in_brief(&diff(&snapshot(old), &snapshot(new)));
    assert_eq!(brief(json!([add(json!(["a"]))]), json!([add(json!(["a"]))])), "interface unchanged");
    assert_eq!(
        brief(json!([add(json!(["a"]))]), json!([add(json!(["a", "b"])), mul.clone()])),
        "1 breaking change, 1 tool added"
    );
    // A tool removed is breaking, not an item "removed" said apart; an argument made optional is
    // an addition that is not a whole tool.
    assert_eq!(
        brief(json!([add(json!(["a", "b"])), mul]), json!([add(json!(["a"]))])),
        "1 breaking change, 1 other addition"
    );
}

#[test]
fn a_skill_removed_breaks_and_a_changed_file_or_frontmatter_is_a_change() {
    let skill = |uri: &str, name: &str, description: &str, digest: &str| {
        json!({"uri": uri, "frontmatter": {"name": name, "description": description},
               "resources": [{"uri": uri, "digest": format!("sha256:{digest}"), "size": 10}]})
    };
    let mut old = snapshot(json!([]));
    old.skills = Some(vec![
        skill("skill://a/SKILL.md", "a", "A.", "aa"),
        skill("skill://b/SKILL.md", "b", "B.", "bb"),
    ]);
    let mut new = snapshot(json!([]));
    new.skills = Some(vec![
        skill("skill://b/SKILL.md", "b", "B, better.", "b2"),
        skill("skill://c/SKILL.md", "c", "C.", "cc"),
    ]);
    assert_eq!(
        said(&diff(&old, &new)),
        [
            "breaking skills/skill://a/SKILL.md: skill \"a\" (skill://a/SKILL.md) was removed",
            "change skills/skill://b/SKILL.md/frontmatter: skill \"b\"'s frontmatter changed",
            "change skills/skill://b/SKILL.md/resources: skill \"b\"'s files: skill://b/SKILL.md changed",
            "addition skills/skill://c/SKILL.md: skill \"c\" (skill://c/SKILL.md) was added",
        ]
    );
    // The same skills: nothing; one side never listed them: not compared.
    assert!(diff(&new, &new).is_empty());
    let unlisted = snapshot(json!([]));
    assert!(diff(&old, &unlisted).is_empty());
}
