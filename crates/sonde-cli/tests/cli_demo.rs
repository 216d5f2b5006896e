//! The bundled demo server serves all of MCP in both eras, as a user meets it through `sonde`
//! (`--era legacy` is 2025-11-25, `--era modern` 2026-07-28): resources, the greeting template,
//! completion, prompts, log messages and a subscription to the clock. What the CLI cannot show
//! is in `demo_wire.rs`.

mod support;

use serde_json::{json, Value};
use support::*;

const ERAS: [(&str, &str); 2] = [("legacy", "2025-11-25"), ("modern", "2026-07-28")];

/// `sonde ARGS --era ERA --json -- sonde demo-server`, which must succeed; its stdout as JSON.
fn demo_json(home: &std::path::Path, era: &str, args: &[&str]) -> Value {
    let mut all = args.to_vec();
    all.extend(["--era", era, "--json"]);
    let out = with_demo(home, &all);
    assert!(out.status.success(), "{args:?} in {era}: {}", String::from_utf8_lossy(&out.stderr));
    stdout_json(&out)
}

#[test]
fn resources_and_the_greeting_template_are_listed_and_read_in_both_eras() {
    let home = data_home("demo-resources");
    for (era, version) in ERAS {
        assert_eq!(demo_json(&home, era, &["info"])["protocolVersion"], version);
        let listed = demo_json(&home, era, &["resources", "list"]);
        let names: Vec<&str> =
            listed["resources"].as_array().unwrap().iter().map(|r| r["name"].as_str().unwrap()).collect();
        assert_eq!(names, ["readme", "config", "logo", "clock"], "{era}");
        assert_eq!(listed["resources"][0]["annotations"]["priority"], 0.8, "{era}");

        let readme = demo_json(&home, era, &["resources", "read", "demo://readme"]);
        let text = readme["contents"][0]["text"].as_str().unwrap();
        assert!(text.starts_with("# Sonde demo\n") && text.contains("demo://clock"), "{era}: {text}");
        assert_eq!(readme["contents"][0]["mimeType"], "text/markdown");
        let config = demo_json(&home, era, &["resources", "read", "demo://config.json"]);
        let parsed: Value = serde_json::from_str(config["contents"][0]["text"].as_str().unwrap()).unwrap();
        assert_eq!(parsed, json!({"greeting": "hello", "retries": 3}), "{era}");
        let logo = demo_json(&home, era, &["resources", "read", "demo://logo.png"]);
        assert!(logo["contents"][0]["blob"].as_str().unwrap().starts_with("iVBORw0KGgo"), "{era}: a PNG");
        assert_eq!(logo["contents"][0]["mimeType"], "image/png");

        let templates = demo_json(&home, era, &["resources", "templates"]);
        assert_eq!(templates["resourceTemplates"][0]["uriTemplate"], "demo://greeting/{name}", "{era}");
        let greeting = demo_json(&home, era, &["resources", "read", "demo://greeting/Ada%20Lovelace"]);
        assert_eq!(greeting["contents"][0]["text"], "Hello, Ada Lovelace!", "{era}");
    }
}

#[test]
fn completion_suggests_names_languages_and_styles_that_fit_the_language() {
    let home = data_home("demo-complete");
    for (era, _) in ERAS {
        let names = demo_json(
            &home,
            era,
            &["complete", "--resource", "demo://greeting/{name}", "--argument", "name", "--value", "a"],
        );
        assert_eq!(
            names["completion"],
            json!({"values": ["Ada", "Alan"], "total": 2, "hasMore": false}),
            "{era}"
        );
        let languages = demo_json(
            &home,
            era,
            &["complete", "--prompt", "review", "--argument", "language", "--value", "Ru"],
        );
        assert_eq!(languages["completion"]["values"], json!(["rust"]), "{era}");
        let rust =
            &["complete", "--prompt", "review", "--argument", "style", "--context", r#"{"language":"rust"}"#];
        assert_eq!(
            demo_json(&home, era, rust)["completion"]["values"],
            json!(["clippy", "idiomatic", "unsafe-audit"])
        );
        let other =
            &["complete", "--prompt", "review", "--argument", "style", "--context", r#"{"language":"go"}"#];
        assert_eq!(
            demo_json(&home, era, other)["completion"]["values"],
            json!(["concise", "thorough"]),
            "{era}"
        );
    }
}

#[test]
fn prompts_are_filled_in_with_their_arguments_and_a_missing_one_is_named() {
    let home = data_home("demo-prompts");
    for (era, _) in ERAS {
        let listed = demo_json(&home, era, &["prompts", "list"]);
        assert_eq!(listed["prompts"][1]["arguments"][0]["required"], true, "{era}");
        let review = demo_json(&home, era, &["prompts", "get", "review", "language=rust", "style=idiomatic"]);
        let messages = review["messages"].as_array().unwrap();
        assert_eq!(messages[0]["content"]["text"], "Review this rust code in a idiomatic style.", "{era}");
        assert_eq!(messages[1]["content"]["type"], "resource");
        assert_eq!(messages[1]["content"]["resource"]["uri"], "demo://readme");
        assert_eq!(messages[2]["role"], "assistant");
        let hello = demo_json(&home, era, &["prompts", "get", "hello"]);
        assert_eq!(hello["messages"][0]["content"]["text"], "Say hello to Sonde.", "{era}");

        let missing = with_demo(&home, &["prompts", "get", "review", "style=concise", "--era", era]);
        let said = String::from_utf8_lossy(&missing.stderr);
        assert_eq!(missing.status.code(), Some(1), "{said}");
        assert!(
            said.contains("needs the argument \"language\"") && said.contains("code -32602"),
            "{era}: {said}"
        );
    }
}

#[test]
fn an_unknown_resource_is_32002_in_2025_and_32602_in_2026() {
    let home = data_home("demo-not-found");
    for (era, code) in [("legacy", "code -32002"), ("modern", "code -32602")] {
        let out = with_demo(&home, &["resources", "read", "demo://nope", "--era", era]);
        let said = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{said}");
        assert!(said.contains("Resource not found") && said.contains(code), "{era}: {said}");
    }
}

#[test]
fn log_level_info_shows_the_demos_message_about_each_call() {
    let home = data_home("demo-log-level");
    for (era, _) in ERAS {
        let out = with_demo(&home, &["call", "echo", "text=hi", "--log-level", "info", "--era", era]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{stderr}");
        assert!(stderr.contains("server log [info] demo: tools/call echo\n"), "{era}: {stderr}");
        assert!(!stderr.contains("server log [debug]"), "{era}: debug is below info: {stderr}");
        let quiet = with_demo(&home, &["call", "echo", "text=hi", "--era", era]);
        assert!(
            !String::from_utf8_lossy(&quiet.stderr).contains("server log"),
            "{era}: no level, no messages"
        );
    }
}

#[test]
fn listen_hears_the_clock_tick_in_both_eras() {
    let home = data_home("demo-listen");
    for (era, _) in ERAS {
        let out = with_demo(
            &home,
            &[
                "listen",
                "--resource",
                "demo://clock",
                "--count",
                "1",
                "--json",
                "--era",
                era,
                "--timeout",
                "20000",
            ],
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{era}: {stderr}");
        let update = stdout_json(&out);
        assert_eq!(update["method"], "notifications/resources/updated", "{era}");
        assert_eq!(update["params"]["uri"], "demo://clock", "{era}");
    }
}

/// A 2026-07-28 listen outlives the request timeout: only its acknowledgement is bounded by it
/// (the clock ticks every 2 s, so three ticks take four times the timeout and more).
#[test]
fn a_modern_listen_lives_past_the_request_timeout() {
    let home = data_home("demo-listen-lives");
    let args = ["listen", "--resource", "demo://clock", "--count", "3", "--json", "--era", "2026-07-28"];
    let mut all = args.to_vec();
    all.extend(["--timeout", "1000"]);
    let out = with_demo(&home, &all);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(!stderr.contains("within"), "nothing timed out: {stderr}");
    let ticks = String::from_utf8_lossy(&out.stdout).matches("notifications/resources/updated").count();
    assert_eq!(ticks, 3, "{}", String::from_utf8_lossy(&out.stdout));
}
