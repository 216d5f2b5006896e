//! A listing is bounded by Sonde, not by the server (issue 13): `sonde tools list` against a
//! server offering 50,000 tools prints the first 10,000, says on stderr that it stopped and why,
//! and `--json` carries the same reason next to the items.

mod support;

use support::{fixture_bin, sonde};

#[test]
fn fifty_thousand_tools_are_listed_up_to_the_cap_with_the_reason() {
    let fixture = fixture_bin();
    let fixture = fixture.to_str().unwrap();
    let home = support::data_home("listing-caps");
    let server = ["--", fixture, "--tools", "50000", "--page-size", "5000"];

    let out = sonde(&home, &[&["tools", "list"][..], &server].concat());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("sonde: tools/list stopped after 10000 items (Sonde lists at most 10000)"),
        "{stderr}"
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("filler_10000") && !stdout.contains("filler_10001"), "the first 10,000 only");

    let out = sonde(&home, &[&["tools", "list", "--json"][..], &server].concat());
    let value: serde_json::Value = serde_json::from_slice(&out.stdout).expect("--json is JSON");
    assert_eq!(value["tools"].as_array().map(Vec::len), Some(10_000));
    assert!(value["stopped"].as_str().is_some_and(|why| why.contains("10000 items")), "{value}");
}
