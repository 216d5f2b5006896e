//! Nothing secret is recorded (issue 13): a URL's password and token-like query parameters, and
//! a bearer token, are absent from the session log of a run against a real HTTP server (the
//! fixture), and the files the run wrote are readable by the user only.

mod support;

use std::io::{BufRead, BufReader};
use std::os::unix::fs::PermissionsExt;
use std::process::{Command, Stdio};

use support::{fixture_bin, session_path, sonde};

#[test]
fn a_url_password_query_tokens_and_a_bearer_token_never_reach_the_session_log() {
    let bin = fixture_bin().with_file_name("sonde-fixture-http");
    let mut server = Command::new(&bin).stdout(Stdio::piped()).spawn().expect("start the HTTP fixture");
    let mut line = String::new();
    BufReader::new(server.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let port = line.trim().strip_prefix("port ").expect("`port N`").to_owned();
    let home = support::data_home("secrets");
    let url = format!("http://alice:PASSWORD-1@127.0.0.1:{port}/mcp?api_key=KEY-2&sig=SIG-3&page=1");
    let out = sonde(&home, &["--url", &url, "--bearer", "TOKEN-4", "tools", "list"]);
    let _ = server.kill();
    let _ = server.wait();
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
