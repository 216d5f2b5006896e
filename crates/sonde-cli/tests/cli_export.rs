//! `sonde export` (issue 37): a real HTTP session (the fixture, a secret header) exported as HAR
//! is valid against the HAR 1.2 schema as the `har-schema` package publishes it (installed into
//! ui/node_modules by `make ui-deps`), with a saved secret gone; HAR of a stdio session is
//! refused, naming the formats that fit, and writes nothing; an existing file is replaced only
//! with `--force`; JSONL is redacted and filtered; a file that is no session is a usage error.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{json, Value};
use support::{http_fixture, sonde, with_demo};

const SECRET: &str = "SEKRET-7731";

/// The saved servers' file of `home`, with one server keeping `SECRET` as a secret header and
/// as an environment value.
fn save_a_server_with_a_secret(home: &Path) {
    let dir = home.join("config/sonde");
    std::fs::create_dir_all(&dir).unwrap();
    let servers = json!({"servers": [{
        "id": "s1",
        "name": "fixture",
        "url": "http://127.0.0.1:1/mcp",
        "headers": [{"name": "X-Api-Token", "value": SECRET, "secret": true}],
        "env": [{"key": "TOKEN", "value": SECRET}],
    }]});
    std::fs::write(dir.join("servers.json"), servers.to_string()).unwrap();
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A validator of HAR 1.2 from the `har-schema` package's files (JSON Schema draft-06, each
/// naming the others by a relative `$ref`).
fn har_validator() -> jsonschema::Validator {
    let lib = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../ui/node_modules/har-schema/lib");
    assert!(lib.join("har.json").exists(), "{} is missing: run `make ui-deps`", lib.display());
    let base = "https://har-schema.invalid/lib/";
    let mut resources = Vec::new();
    for file in std::fs::read_dir(&lib).unwrap() {
        let path = file.unwrap().path();
        if path.extension().is_some_and(|e| e == "json") {
            let schema: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            resources.push((format!("{base}{name}"), jsonschema::Resource::from_contents(schema)));
        }
    }
    assert!(resources.len() >= 18, "the package's schemas changed: {}", resources.len());
    let registry = jsonschema::Registry::new().extend(resources).unwrap().prepare().unwrap();
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft6)
        .with_registry(&registry)
        .should_validate_formats(true)
        .build(&json!({"$ref": format!("{base}har.json")}))
        .expect("the HAR schema builds")
}

fn errors(validator: &jsonschema::Validator, har: &Value) -> Vec<String> {
    validator.iter_errors(har).map(|e| format!("{e} at {}", e.instance_path())).collect()
}

/// A session recorded against the HTTP fixture with a secret header, whose echo call carries
/// the secret in its body both ways; the session file.
fn record_http_session(home: &Path) -> PathBuf {
    let (_server, url) = http_fixture(&[]);
    // A token in the query is recorded redacted, as `[redacted]`, which no URI may hold as it is.
    let url = format!("{url}?page=1&api_key=KEY-55");
    let header = format!("X-Api-Token: {SECRET}");
    let text = format!("text={SECRET}");
    let out = sonde(home, &["--url", &url, "--secret-header", &header, "call", "echo", &text]);
    assert!(out.status.success(), "{}", stderr(&out));
    support::session_path(&out.stderr)
}

#[test]
fn har_of_a_real_http_session_is_valid_har_1_2_without_the_saved_secret() {
    let home = support::data_home("export-har");
    save_a_server_with_a_secret(&home);
    let session = record_http_session(&home);
    assert!(std::fs::read_to_string(&session).unwrap().contains(SECRET), "the echo's body holds it");

    let har_path = home.join("session.har");
    let out = sonde(&home, &["export", "--format", "har", "--out", har_path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = std::fs::read_to_string(&har_path).unwrap();
    assert!(!text.contains(SECRET), "the saved secret is in the HAR");
    let har: Value = serde_json::from_str(&text).unwrap();
    let entries = har["log"]["entries"].as_array().unwrap();
    assert_eq!(
        stderr(&out).trim(),
        format!("sonde: wrote {} exchanges to {}", entries.len(), har_path.display())
    );

    let validator = har_validator();
    let found = errors(&validator, &har);
    assert!(found.is_empty(), "{found:#?}");
    // The schema checks what it says it checks (a status is a number, a date has its form).
    let mut broken = har.clone();
    broken["log"]["entries"][0]["response"]["status"] = json!("200");
    assert!(!validator.is_valid(&broken), "the schema checks a response's status");
    broken = har.clone();
    broken["log"]["entries"][0]["startedDateTime"] = json!("yesterday");
    assert!(!validator.is_valid(&broken), "the schema checks a start's date");

    // What the schema leaves to the reader: the call's stream, its secret header, its times.
    let call = entries
        .iter()
        .find(|e| e["response"]["content"]["mimeType"] == "text/event-stream")
        .expect("the echo call answered with an event stream");
    let events = call["response"]["content"]["text"].as_str().unwrap();
    assert!(events.contains("data: {\"jsonrpc\":\"2.0\"") && events.contains("«redacted»"), "{events}");
    assert!(call["request"]["postData"]["text"].as_str().unwrap().contains("tools/call"));
    let token = call["request"]["headers"].as_array().unwrap().iter().find(|h| h["name"] == "X-Api-Token");
    assert_eq!(token.unwrap()["value"], "[redacted]");
    assert_eq!(
        call["request"]["queryString"],
        json!([{"name": "page", "value": "1"}, {"name": "api_key", "value": "[redacted]"}])
    );
    assert!(!text.contains("KEY-55"));
    for entry in entries {
        let t = &entry["timings"];
        let (wait, receive) = (t["wait"].as_f64().unwrap(), t["receive"].as_f64().unwrap());
        assert!(wait >= 0.0 && receive >= 0.0, "{t}");
        assert!((entry["time"].as_f64().unwrap() - wait - receive).abs() < 1e-6, "{entry}");
        assert!(entry["_sondeConnection"].as_u64().is_some() && entry["_sondeSeqs"].is_array());
    }

    // A filter keeps the exchanges it matches an entry of, each whole.
    let calls = home.join("calls.har");
    let out = sonde(
        &home,
        &["export", "--format", "har", "--filter", "method:tools/call", "--out", calls.to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stderr(&out).contains("wrote 1 exchange to"), "{}", stderr(&out));
    let calls: Value = serde_json::from_str(&std::fs::read_to_string(&calls).unwrap()).unwrap();
    assert!(errors(&validator, &calls).is_empty());
    assert_eq!(
        calls["log"]["entries"][0]["response"]["content"]["text"],
        call["response"]["content"]["text"]
    );

    // JSONL of the same session, by its path: every entry, the secret redacted.
    let jsonl = home.join("session.jsonl");
    let by_path = session.to_str().unwrap();
    let out = sonde(&home, &["export", "--session", by_path, "--out", jsonl.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = std::fs::read_to_string(&jsonl).unwrap();
    assert!(!text.contains(SECRET) && text.contains("«redacted»"), "{text}");
    assert!(stderr(&out).contains(&format!("wrote {} entries to", text.lines().count())), "{}", stderr(&out));
}

#[test]
fn har_of_a_stdio_session_is_refused_with_the_formats_that_fit_and_writes_nothing() {
    let home = support::data_home("export-stdio");
    let recorded = with_demo(&home, &["tools", "list"]);
    assert!(recorded.status.success(), "{}", stderr(&recorded));
    let har = home.join("stdio.har");
    let out = sonde(&home, &["export", "last", "--format", "har", "--out", har.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let said = stderr(&out);
    assert!(said.contains("HAR describes HTTP exchanges") && said.contains("stdio"), "{said}");
    assert!(said.contains("jsonl") && said.contains("html"), "{said}");
    assert!(!har.exists(), "no file is created");
}

#[test]
fn an_existing_file_is_replaced_only_with_force() {
    let home = support::data_home("export-force");
    let recorded = with_demo(&home, &["tools", "list"]);
    assert!(recorded.status.success(), "{}", stderr(&recorded));
    std::fs::create_dir_all(&home).unwrap();
    let out_file = home.join("taken.jsonl");
    std::fs::write(&out_file, "mine\n").unwrap();
    let path = out_file.to_str().unwrap();

    let refused = sonde(&home, &["export", "--out", path]);
    assert_eq!(refused.status.code(), Some(2), "{}", stderr(&refused));
    assert!(stderr(&refused).contains(path) && stderr(&refused).contains("--force"), "{}", stderr(&refused));
    assert_eq!(std::fs::read_to_string(&out_file).unwrap(), "mine\n", "left as it was");

    let replaced = sonde(&home, &["export", "--out", path, "--force"]);
    assert_eq!(replaced.status.code(), Some(0), "{}", stderr(&replaced));
    let text = std::fs::read_to_string(&out_file).unwrap();
    assert!(text.lines().all(|l| serde_json::from_str::<Value>(l).is_ok()) && text.lines().count() > 3);
}

#[test]
fn jsonl_hides_a_saved_secret_and_a_filter_keeps_only_its_matches() {
    let home = support::data_home("export-jsonl");
    save_a_server_with_a_secret(&home);
    let text = format!("text=say {SECRET} twice");
    let recorded = with_demo(&home, &["call", "echo", &text]);
    assert!(recorded.status.success(), "{}", stderr(&recorded));

    let all = home.join("all.jsonl");
    let out = sonde(&home, &["export", "--out", all.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let whole = std::fs::read_to_string(&all).unwrap();
    assert!(!whole.contains(SECRET), "{whole}");
    assert!(whole.contains("say «redacted» twice"), "{whole}");

    let some = home.join("lifecycle.jsonl");
    let out = sonde(&home, &["export", "--filter", "kind:lifecycle", "--out", some.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let kept: Vec<Value> =
        std::fs::read_to_string(&some).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert!(!kept.is_empty() && kept.len() < whole.lines().count());
    assert!(kept.iter().all(|e| e["kind"] == "lifecycle"), "{kept:?}");
    assert!(stderr(&out).contains(&format!("wrote {} entries to", kept.len())), "{}", stderr(&out));
}

#[test]
fn a_file_that_is_no_session_a_bad_filter_and_an_unknown_session_are_usage_errors() {
    let home = support::data_home("export-usage");
    std::fs::create_dir_all(&home).unwrap();
    let other = home.join("notes.txt");
    std::fs::write(&other, "not a session\nat all\n").unwrap();
    let out_file = home.join("out.jsonl");
    let out = out_file.to_str().unwrap();

    let not_one = sonde(&home, &["export", other.to_str().unwrap(), "--out", out]);
    assert_eq!(not_one.status.code(), Some(2), "{}", stderr(&not_one));
    assert!(stderr(&not_one).contains("is not a Sonde session"), "{}", stderr(&not_one));

    let bad = sonde(&home, &["export", other.to_str().unwrap(), "--filter", "kind:nope", "--out", out]);
    assert_eq!(bad.status.code(), Some(2), "{}", stderr(&bad));
    assert!(stderr(&bad).contains("bad --filter"), "{}", stderr(&bad));

    let unknown = sonde(&home, &["export", "--session", "no-such-session", "--out", out]);
    assert_eq!(unknown.status.code(), Some(2), "{}", stderr(&unknown));
    assert!(stderr(&unknown).contains("no session \"no-such-session\""), "{}", stderr(&unknown));

    let format = sonde(&home, &["export", "--format", "csv", "--out", out]);
    assert_eq!(format.status.code(), Some(2), "{}", stderr(&format));
    assert!(!out_file.exists(), "nothing was written");
}

/// The HTML report of a real HTTP session opened in headless Chromium with the network refused,
/// as someone without Sonde opens it (`scripts/check-report.mjs`): its timeline draws the calls,
/// a request's title says how long it took, a click shows its entry, the latency table has
/// rows, nothing is fetched, and the saved secret is nowhere on the page.
#[test]
fn the_html_report_opens_offline_in_a_browser_and_holds_no_secret() {
    let home = support::data_home("export-html");
    save_a_server_with_a_secret(&home);
    let session = record_http_session(&home);
    let report = home.join("report.html");
    let out = sonde(
        &home,
        &["export", "--format", "html", "--out", report.to_str().unwrap(), session.to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let html = std::fs::read_to_string(&report).unwrap();
    assert!(!html.contains(SECRET), "the saved secret is in the report");
    assert!(
        html.contains("<svg id=\"timeline\"") && html.contains("class=\"latency\""),
        "timeline and latency"
    );
    assert!(!html.contains("<link") && !html.contains(" src="), "the page fetches nothing");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let looked = Command::new("node")
        .current_dir(&root)
        .args(["scripts/check-report.mjs", report.to_str().unwrap(), "--secret", SECRET])
        .output()
        .expect("node runs");
    let said = String::from_utf8_lossy(&looked.stdout);
    assert!(looked.status.success(), "{said}{}", stderr(&looked));
    assert!(said.contains("requests drawn") && !said.contains(" 0 requests drawn"), "{said}");
}
