//! Nothing secret is recorded (issue 13): a URL's password and token-like query parameters, and
//! a bearer token, are absent from the session log of a run against a real HTTP server (the
//! fixture), and the files the run wrote are readable by the user only.

mod support;

use std::os::unix::fs::PermissionsExt;

use support::{http_fixture, session_path, sonde};

#[test]
fn a_url_password_query_tokens_and_a_bearer_token_never_reach_the_session_log() {
    let (server, url) = http_fixture(&[]);
    let home = support::data_home("secrets");
    let url =
        format!("{}?api_key=KEY-2&sig=SIG-3&page=1", url.replacen("http://", "http://alice:PASSWORD-1@", 1));
    let out = sonde(&home, &["--url", &url, "--bearer", "TOKEN-4", "tools", "list"]);
    drop(server);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let log = session_path(&out.stderr);
    let text = std::fs::read_to_string(&log).unwrap();
    for secret in ["PASSWORD-1", "KEY-2", "SIG-3", "TOKEN-4"] {
        assert!(!text.contains(secret), "{secret} is in the session log");
        assert!(!String::from_utf8_lossy(&out.stderr).contains(secret), "{secret} was printed");
    }
    assert!(
        text.contains("alice:[redacted]@") && text.contains("api_key=[redacted]"),
        "the URL is recorded, redacted"
    );
    assert!(text.contains("page=1"), "what is not secret stays");
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&log), 0o600);
    assert_eq!(mode(log.parent().unwrap()), 0o700);
    let cache = home.join("config/sonde/era-cache.json");
    let cached = std::fs::read_to_string(&cache).unwrap();
    assert!(!cached.contains("PASSWORD-1") && !cached.contains("KEY-2"), "{cached}");
    assert_eq!(mode(&cache), 0o600);
}
