//! `sonde diff --baseline`: a server's interface kept between runs, per command line, and what
//! changed since said. A Python SDK server whose file the test rewrites: its first run keeps
//! the baseline; a tool that stops being read-only is a breaking change (exit 5), until
//! `--accept` makes the new interface the baseline.

mod support;

use std::path::Path;

use support::*;

const READ_ONLY: &str = r#"from mcp.server.mcpserver import MCPServer
from mcp_types import ToolAnnotations

server = MCPServer("weather", version="1")


@server.tool(annotations=ToolAnnotations(readOnlyHint=True))
def get_weather(city: str) -> str:
    """The weather in a city."""
    return f"sunny in {city}"


server.run("stdio")
"#;

fn diff(home: &Path, server: &Path, extra: &[&str]) -> (i32, String, String) {
    let python = peer("py/bin/python");
    let mut args = vec!["diff", "--baseline"];
    args.extend(extra);
    args.extend(["--", python.to_str().unwrap(), server.to_str().unwrap()]);
    let out = sonde(home, &args);
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.code().unwrap(), text(&out.stdout), text(&out.stderr))
}

#[test]
fn the_first_run_keeps_the_baseline_a_lost_hint_breaks_and_accept_replaces_it() {
    let home = data_home("baseline");
    std::fs::create_dir_all(&home).unwrap();
    let server = home.join("weather.py");
    std::fs::write(&server, READ_ONLY).unwrap();

    let (code, _, err) = diff(&home, &server, &[]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("this server had no baseline; its interface now is kept as one"), "{err}");
    let (code, out, err) = diff(&home, &server, &[]);
    assert_eq!((code, out.as_str()), (0, ""), "{err}");
    assert!(err.contains("against the baseline kept 20"), "{err}");
    assert!(err.contains("0 breaking, 0 changes, 0 additions"), "{err}");

    // The next build: get_weather is no longer read-only (its hint gone: false by default).
    std::fs::write(&server, READ_ONLY.replace("annotations=ToolAnnotations(readOnlyHint=True)", "")).unwrap();
    let (code, out, err) = diff(&home, &server, &[]);
    assert_eq!(code, 5, "{out}{err}");
    assert!(out.contains("breaking  tools/get_weather/annotations/readOnlyHint:"), "{out}");
    assert!(out.contains("it is no longer read-only"), "{out}");
    // Still the old baseline until accepted.
    assert_eq!(diff(&home, &server, &[]).0, 5);
    let (code, out, err) = diff(&home, &server, &["--accept"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("no longer read-only") && err.contains("accepted; its interface now is the baseline"),
        "{err}"
    );
    let (code, out, err) = diff(&home, &server, &[]);
    assert_eq!((code, out.as_str()), (0, ""), "{err}");

    // Another server (another command line) has a baseline of its own.
    let other = home.join("other.py");
    std::fs::write(&other, READ_ONLY).unwrap();
    let (code, _, err) = diff(&home, &other, &[]);
    assert!(code == 0 && err.contains("had no baseline"), "{err}");
    let _ = std::fs::remove_dir_all(&home);
}

#[test]
fn baseline_needs_a_server_and_accept_needs_baseline() {
    let home = data_home("baseline-usage");
    let out = sonde(&home, &["diff", "--accept", "--", "sonde", "demo-server"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let out = sonde(&home, &["diff", "--baseline", "old.json", "--", "sonde", "demo-server"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let out = sonde(&home, &["diff", "--", "sonde", "demo-server"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
}
