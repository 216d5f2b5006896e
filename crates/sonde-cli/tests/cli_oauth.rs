//! The CLI against an OAuth-protected server, with real parts on both sides: a real
//! authorization server (oauth2-mock-server, npm) and an MCP server protected by the Python
//! SDK's resource-server support. The browser step is driven by the test: it reads the URL
//! `--no-browser` prints and follows it as a browser would (Python's urllib), landing on Sonde's
//! loopback listener. Then: a call, a refresh when the server stops taking the token, another
//! call with no browser step, the credential listed and forgotten, and no token, refresh token
//! or code in any session log. Credentials go to a private file when no Secret Service answers,
//! and to the Secret Service when one does (a private session bus with GNOME Keyring).

mod support;

use std::io::{BufRead, BufReader};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::Value;
use support::{peer, session_path, SONDE};

/// A process group killed when dropped.
struct Group(Child);

impl Drop for Group {
    fn drop(&mut self) {
        unsafe { libc::killpg(self.0.id() as i32, libc::SIGKILL) };
        let _ = self.0.wait();
    }
}

fn start(program: &Path, args: &[&str], dir: Option<&Path>) -> Group {
    let mut command = Command::new(program);
    command.args(args).stdout(Stdio::piped()).stderr(Stdio::null()).process_group(0);
    if let Some(dir) = dir {
        command.current_dir(dir);
    }
    Group(command.spawn().unwrap_or_else(|e| panic!("start {}: {e}", program.display())))
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

fn wait_listening(port: u16) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "nothing listened on port {port} within 30 s");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The authorization server and the protected MCP server; the MCP server's URL.
fn servers() -> (Group, Group, String) {
    let node = peer("node22/node_modules/.bin/node");
    let script = peer("oauth/oauth_as.mjs");
    let mut auth = start(&node, &[script.to_str().unwrap()], script.parent());
    let mut line = String::new();
    BufReader::new(auth.0.stdout.take().unwrap()).read_line(&mut line).expect("the issuer line");
    let issuer = line.trim().strip_prefix("issuer ").expect("`issuer URL`").to_owned();
    let port = free_port();
    let python = peer("py/bin/python");
    let server_script = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/peers/py_oauth_server.py");
    let mcp = start(&python, &[server_script, &port.to_string(), &issuer], None);
    wait_listening(port);
    (auth, mcp, format!("http://127.0.0.1:{port}/mcp"))
}

/// The session bus sonde is given: a private one with a Secret Service, or none at all (so a
/// developer's own keyring is never touched).
#[derive(Clone)]
struct Bus(String);

impl Bus {
    fn none() -> Bus {
        Bus("unix:path=/nonexistent".into())
    }
}

/// Runs sonde; when it prints an authorization URL, follows it as a browser would. Returns
/// stdout, stderr and whether a browser step happened.
fn run(home: &Path, bus: &Bus, args: &[&str]) -> (bool, String, String, bool) {
    let mut child = Command::new(SONDE)
        .args(args)
        .env("XDG_DATA_HOME", home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("DBUS_SESSION_BUS_ADDRESS", &bus.0)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run sonde");
    let (lines_tx, lines) = mpsc::channel::<String>();
    let stderr = child.stderr.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = lines_tx.send(line);
        }
    });
    let stdout = child.stdout.take().unwrap();
    let out = std::thread::spawn(move || std::io::read_to_string(stdout).unwrap_or_default());
    let deadline = Instant::now() + Duration::from_secs(60);
    let (mut err, mut browsed, mut asked) = (String::new(), false, false);
    loop {
        match lines.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            Ok(line) => {
                if asked && line.starts_with("  http") {
                    follow(line.trim());
                    browsed = true;
                }
                asked = line.contains("open this URL in a browser");
                err.push_str(&line);
                err.push('\n');
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                let _ = child.kill();
                panic!("sonde {args:?} did not finish within 60 s; stderr so far:\n{err}");
            }
        }
    }
    let status = child.wait().unwrap();
    (status.success(), out.join().unwrap(), err, browsed)
}

/// The browser: GET the authorization URL and follow its redirects to Sonde's listener.
fn follow(url: &str) {
    let python = peer("py/bin/python");
    let page = Command::new(python)
        .args(["-c", "import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1], timeout=30).read().decode())", url])
        .output()
        .expect("run python");
    let page = String::from_utf8_lossy(&page.stdout);
    assert!(page.contains("You can close this window"), "the redirect's page: {page}");
}

fn credentials(home: &Path) -> (PathBuf, Vec<Value>) {
    let path = home.join("config/sonde/credentials.json");
    let file: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    (path, file["credentials"].as_array().cloned().unwrap_or_default())
}

fn secrets_of(credential: &Value) -> Vec<String> {
    ["access_token", "refresh_token"]
        .iter()
        .filter_map(|k| credential[k].as_str().map(str::to_owned))
        .collect()
}

#[test]
fn the_cli_authorizes_calls_refreshes_and_logs_out_and_no_session_log_holds_a_token() {
    let (_auth, _mcp, url) = servers();
    let home = support::data_home("oauth");
    let bus = Bus::none();
    let base = ["--url", url.as_str(), "--no-browser", "--timeout", "20000"];
    let mut sessions = Vec::new();
    let mut secrets = Vec::new();

    // 1. The first call: the server answers 401, the person authorizes (the test's browser).
    let mut args = base.to_vec();
    args.extend(["--client-id", "sonde-test", "call", "add", "a=1", "b=2"]);
    let (ok, out, err, browsed) = run(&home, &bus, &args);
    assert!(ok && browsed, "authorized and called: {err}");
    assert_eq!(out.lines().next(), Some("3.0"), "{out}");
    sessions.push(session_path(err.as_bytes()));
    let (path, kept) = credentials(&home);
    assert_eq!(kept.len(), 1);
    assert_eq!(kept[0]["resource"], url.as_str());
    assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
    assert_eq!(std::fs::metadata(path.parent().unwrap()).unwrap().permissions().mode() & 0o777, 0o700);
    secrets.extend(secrets_of(&kept[0]));

    // 2. The server stops taking that token (as if it expired).
    let mut args = base.to_vec();
    args.extend(["call", "forget_my_token"]);
    let (ok, out, err, browsed) = run(&home, &bus, &args);
    assert!(ok && !browsed, "{err}");
    assert!(out.contains("forgotten"), "{out}");
    sessions.push(session_path(err.as_bytes()));

    // 3. The next run's first request is refused, and Sonde refreshes with no browser step; the
    //    new token is kept.
    let mut args = base.to_vec();
    args.extend(["call", "add", "a=2", "b=5"]);
    let (ok, out, err, browsed) = run(&home, &bus, &args);
    assert!(ok && !browsed, "{err}");
    assert_eq!(out.lines().next(), Some("7.0"));
    let session = session_path(err.as_bytes());
    let log = std::fs::read_to_string(&session).unwrap();
    assert!(log.contains("refreshed the access token"), "the refresh is in the log");
    sessions.push(session);
    let (_, kept) = credentials(&home);
    let fresh = secrets_of(&kept[0]);
    assert!(!secrets.contains(&fresh[0]), "a new access token was kept");
    secrets.extend(fresh);

    // 4. Listed without its tokens, then forgotten.
    let (ok, out, _, _) = run(&home, &bus, &["auth", "list", "--json"]);
    assert!(ok);
    let listed: Value = serde_json::from_str(out.trim()).expect("one JSON line");
    assert_eq!(listed.as_array().map(Vec::len), Some(1), "{listed}");
    assert_eq!(listed[0]["resource"], url.as_str());
    assert_eq!(listed[0]["client_id"], "sonde-test");
    assert!(secrets.iter().all(|s| !out.contains(s.as_str())), "the listing shows no token");
    let (ok, _, err, _) = run(&home, &bus, &["auth", "logout", &url]);
    assert!(ok && err.contains("forgot the credentials"), "{err}");
    let (ok, out, _, _) = run(&home, &bus, &["auth", "list", "--json"]);
    assert!(ok && out.trim() == "[]", "nothing is kept, and --json says so: {out}");

    // 5. No session log holds a token or a refresh token; each shows the flow's steps redacted.
    let first = std::fs::read_to_string(&sessions[0]).unwrap();
    for step in ["authorization · discovery", "authorization · token", "\"[redacted]\""] {
        assert!(first.contains(step), "{step} is in the first session's log");
    }
    for session in &sessions {
        let text = std::fs::read_to_string(session).unwrap();
        for secret in &secrets {
            assert!(!text.contains(secret.as_str()), "{} holds a token", session.display());
        }
    }
}

/// A session bus that activates nothing: with the standard service directories, a call to
/// `org.freedesktop.secrets` made before the test's keyring owns the name starts a second,
/// locked and unprompted GNOME Keyring from `/usr/share/dbus-1/services`, which then owns the name
/// for the rest of the test (seen in CI, under load).
const BUS_CONFIG: &str = r#"<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:tmpdir=/tmp</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
"#;

/// A private session bus with GNOME Keyring's Secret Service on it, unlocked; gone when dropped.
fn secret_service(home: &Path) -> (Group, Group, Bus) {
    std::fs::create_dir_all(home).unwrap();
    let config = home.join("bus.conf");
    std::fs::write(&config, BUS_CONFIG).unwrap();
    let config = format!("--config-file={}", config.display());
    let mut bus = start(Path::new("dbus-daemon"), &[&config, "--nofork", "--print-address=1"], None);
    let mut line = String::new();
    BufReader::new(bus.0.stdout.take().unwrap()).read_line(&mut line).expect("the bus address");
    let address = line.trim().to_owned();
    std::fs::create_dir_all(home.join("keyring")).unwrap();
    let mut keyring = Command::new("gnome-keyring-daemon")
        .args(["--foreground", "--unlock", "--components=secrets"])
        .env("DBUS_SESSION_BUS_ADDRESS", &address)
        .env("XDG_DATA_HOME", home.join("keyring"))
        .env("XDG_RUNTIME_DIR", home.join("keyring"))
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .expect("gnome-keyring-daemon (make test installs gnome-keyring)");
    // --unlock reads the login keyring's password from stdin, up to its end.
    std::io::Write::write_all(&mut keyring.stdin.take().unwrap(), b"sonde-test").unwrap();
    (bus, Group(keyring), Bus(address))
}

#[test]
fn with_a_secret_service_credentials_are_kept_there_and_not_in_a_file() {
    let (_auth, _mcp, url) = servers();
    let home = support::data_home("oauth-keyring");
    let (_bus, _keyring, bus) = secret_service(&home);
    // The service is up once sonde says it keeps credentials there.
    let up = support::wait_for(Duration::from_secs(20), || {
        let (_, _, err, _) = run(&home, &bus, &["auth", "list"]);
        err.contains("Secret Service").then_some(())
    });
    assert!(up.is_some(), "sonde found no Secret Service on the private bus within 20 s");

    let base = ["--url", url.as_str(), "--no-browser", "--timeout", "20000"];
    let mut args = base.to_vec();
    args.extend(["--client-id", "sonde-test", "call", "add", "a=1", "b=2"]);
    let (ok, out, err, browsed) = run(&home, &bus, &args);
    assert!(ok && browsed && out.starts_with("3.0"), "{err}");
    assert!(!home.join("config/sonde/credentials.json").exists(), "nothing is written to a file");

    // The token kept in the keyring is used, and refreshed from there, with no browser step.
    let mut args = base.to_vec();
    args.extend(["call", "forget_my_token"]);
    let (ok, _, err, browsed) = run(&home, &bus, &args);
    assert!(ok && !browsed, "{err}");
    let mut args = base.to_vec();
    args.extend(["call", "add", "a=2", "b=5"]);
    let (ok, _, err, browsed) = run(&home, &bus, &args);
    assert!(ok && !browsed, "{err}");
    let log = std::fs::read_to_string(session_path(err.as_bytes())).unwrap();
    assert!(log.contains("refreshed the access token"));

    let (ok, out, _, _) = run(&home, &bus, &["auth", "list", "--json"]);
    assert!(ok);
    let listed: Value = serde_json::from_str(out.trim()).expect("one JSON line");
    assert_eq!(listed[0]["resource"], url.as_str());
    let (ok, _, err, _) = run(&home, &bus, &["auth", "logout"]);
    assert!(ok && err.contains("forgot the credentials"), "{err}");
    let (_, out, _, _) = run(&home, &bus, &["auth", "list", "--json"]);
    assert_eq!(out.trim(), "[]", "the keyring holds nothing of Sonde's");
}
