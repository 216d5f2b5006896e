//! MCP Apps from the CLI (issue 36): `sonde tools list` marks the tools that draw an app and the
//! tools only apps call; `sonde doctor` checks every app a server declares, on the fixture's
//! good, broken and missing apps and on the official basic-vanillajs example.

mod support;

use serde_json::Value;
use support::{fixture_bin, peer, sonde};

fn doctor(home: &std::path::Path, command: &[&str]) -> (Value, i32) {
    let mut args = vec!["doctor", "--json", "--"];
    args.extend(command);
    let out = sonde(home, &args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {stderr}"));
    let apps = report["checks"].as_array().unwrap().iter().find(|c| c["id"] == "apps").cloned();
    (apps.unwrap_or(Value::Null), out.status.code().unwrap_or(-1))
}

#[test]
fn tools_list_marks_app_tools_and_app_only_tools() {
    let home = support::data_home("apps-tools");
    let fixture = fixture_bin();
    let out = sonde(&home, &["tools", "list", "--", fixture.to_str().unwrap(), "--app", "hostile"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let line = |name: &str| {
        stdout.lines().find(|l| l.starts_with(name)).unwrap_or_else(|| panic!("{stdout}")).to_owned()
    };
    assert!(line("show_app").contains("[app ui://fixture/app.html] Shows the fixture's app."), "{stdout}");
    assert!(line("poll").contains("[app only] Only the app calls it."), "{stdout}");
    assert!(!line("secret").contains("[app"), "{stdout}");
    assert!(!line("echo").contains("[app"), "{stdout}");
}

#[test]
fn doctor_checks_every_app_resource() {
    let home = support::data_home("apps-doctor");
    let fixture = fixture_bin();
    let fixture = fixture.to_str().unwrap();

    let (good, code) = doctor(&home, &[fixture, "--app", "hostile"]);
    assert_eq!((good["status"].as_str(), code), (Some("pass"), 0), "{good}");
    assert_eq!(
        good["detail"],
        "ui://fixture/app.html: readable, text/html;profile=mcp-app, parses, declares its CSP domains"
    );

    let (broken, code) = doctor(&home, &[fixture, "--app", "broken"]);
    assert_eq!((broken["status"].as_str(), code), (Some("fail"), 5), "{broken}");
    let detail = broken["detail"].as_str().unwrap();
    for words in [
        "the mimeType \"text/html\" lacks the profile",
        "the app's HTML does not parse cleanly: line 3",
        "csp.connectDomains lists \"*\", which is not an origin",
        "the CSP key \"scriptDomains\" is not one the extension knows",
        "the permission \"telepathy\" is not one the extension knows",
    ] {
        assert!(detail.contains(words), "{words:?} in {detail}");
    }

    let (missing, code) = doctor(&home, &[fixture, "--app", "missing"]);
    assert_eq!((missing["status"].as_str(), code), (Some("fail"), 5), "{missing}");
    assert!(
        missing["detail"].as_str().unwrap().contains("ui://fixture/gone.html, which does not resolve"),
        "{missing}"
    );

    // A server with no app has no such check.
    let (none, _) = doctor(&home, &[fixture]);
    assert!(none.is_null(), "{none}");

    // The official examples pass.
    for name in ["vanillajs", "react"] {
        let example = peer(&format!("apps/node_modules/.bin/mcp-server-basic-{name}"));
        let (example, code) = doctor(&home, &[example.to_str().unwrap(), "--stdio"]);
        assert_eq!((example["status"].as_str(), code), (Some("pass"), 0), "{name}: {example}");
        assert!(
            example["detail"].as_str().unwrap().starts_with("ui://get-time/mcp-app.html: readable"),
            "{example}"
        );
    }
}
