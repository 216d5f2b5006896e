//! When a server fails, the CLI says what it said (its last words) and, for a server started
//! with the minimal environment, which variable it may lack; `--stderr` copies stderr live.

mod support;

use std::path::Path;
use std::process::{Command, Output};

use support::*;

/// `sonde tools list -- sh -c SCRIPT` with `extra` in sonde's own environment.
fn failing(home: &Path, flags: &[&str], program: &[&str], extra: &[(&str, &str)]) -> (Output, String) {
    let mut args = vec!["tools", "list"];
    args.extend(flags);
    args.push("--");
    args.extend(program);
    let out = Command::new(SONDE)
        .args(&args)
        .env("XDG_DATA_HOME", home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .envs(extra.iter().copied())
        .output()
        .expect("run sonde");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    (out, stderr)
}

#[test]
fn a_server_that_exits_at_start_is_shown_with_its_last_words_and_the_environment_hint_only_when_it_names_one()
{
    let home = data_home("last-words-exit");
    let script = "echo starting >&2; printf '\\033[31mfailed\\033[0m\\r\\n' >&2; exit 3";
    let (_, stderr) = failing(&home, &[], &["sh", "-c", script], &[]);
    let words =
        stderr.split("the server's last words on stderr:").nth(1).unwrap_or_else(|| panic!("{stderr}"));
    // One process's words once (the era fallback respawns), colours stripped, `\r` folded.
    assert_eq!(words.matches("  | starting\n").count(), 1, "{stderr}");
    assert!(words.contains("  | failed\n"), "{stderr}");
    assert!(!stderr.contains('\u{1b}') && !stderr.contains('\r'), "{stderr:?}");
    // It names no variable: the environment hint would explain nothing.
    assert!(!stderr.contains("minimal environment"), "{stderr}");

    // A variable Sonde's own environment lacks too: the hint, with the flag for any name.
    let script = "echo 'Error: SONDE_UNSET_SERVICE_TOKEN is not set' >&2; exit 3";
    let (_, stderr) = failing(&home, &[], &["sh", "-c", script], &[]);
    assert!(stderr.contains("minimal environment") && stderr.contains("--inherit-env"), "{stderr}");
    assert!(stderr.contains("--env NAME=…"), "{stderr}");
}

#[test]
fn a_python_traceback_is_shown_whole() {
    let home = data_home("last-words-python");
    let (_, stderr) = failing(&home, &[], &["python3", "-c", "import nonexistent_module_xyz"], &[]);
    assert!(stderr.contains("  | Traceback (most recent call last):"), "{stderr}");
    assert!(stderr.contains("  | ModuleNotFoundError: No module named 'nonexistent_module_xyz'"), "{stderr}");
    assert!(!stderr.contains("minimal environment"), "a missing module is not a missing variable: {stderr}");
}

#[test]
fn a_variable_withheld_by_the_minimal_environment_is_named_and_its_value_never_shown() {
    let home = data_home("last-words-env");
    let script = r#"echo "Error: SONDE_TEST_API_KEY is not set; export it first" >&2; exit 1"#;
    let secret = [("SONDE_TEST_API_KEY", "secret-value-123")];
    let (out, stderr) = failing(&home, &[], &["sh", "-c", script], &secret);
    assert!(stderr.contains("  | Error: SONDE_TEST_API_KEY is not set; export it first"), "{stderr}");
    assert!(stderr.contains("it names SONDE_TEST_API_KEY"), "{stderr}");
    assert!(stderr.contains("--env SONDE_TEST_API_KEY=…"), "{stderr}");
    assert!(!stderr.contains("secret-value-123") && !String::from_utf8_lossy(&out.stdout).contains("secret"));

    // Passed with --env, it is not withheld: the hint names no variable.
    let (_, stderr) = failing(&home, &["--env", "SONDE_TEST_API_KEY=x"], &["sh", "-c", script], &secret);
    assert!(!stderr.contains("it names"), "{stderr}");
    // With the whole environment, there is no minimal-environment hint at all.
    let (_, stderr) = failing(&home, &["--inherit-env"], &["sh", "-c", script], &secret);
    assert!(!stderr.contains("minimal environment"), "{stderr}");
    assert!(stderr.contains("  | Error: SONDE_TEST_API_KEY"), "{stderr}");
}

#[test]
fn stderr_copies_the_servers_stderr_live_with_a_prefix() {
    let home = data_home("stderr-flag");
    let out = with_demo(&home, &["--stderr", "tools", "list"]);
    assert!(out.status.success(), "{out:?}");
    let (_, stderr) =
        failing(&home, &["--stderr"], &["sh", "-c", "echo 'hello from the server' >&2; exit 1"], &[]);
    assert!(stderr.contains("server: hello from the server\n"), "{stderr}");
}

#[test]
fn a_server_that_dies_during_a_call_is_shown_with_its_last_words() {
    let home = data_home("last-words-call");
    let fixture = fixture_bin();
    let out = sonde(
        &home,
        &["call", "echo", "--args", r#"{"text":"x"}"#, "--", fixture.to_str().unwrap(), "--crash-on-call"],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("server exited with code 1 while tools/call was pending"), "{stderr}");
    let words =
        stderr.split("the server's last words on stderr:").nth(1).unwrap_or_else(|| panic!("{stderr}"));
    assert!(words.contains("  | sonde-fixture: crashing during tools/call as asked\n"), "{stderr}");
    // It opened first, so the environment did not stop it starting: no startup hint.
    assert!(!stderr.contains("minimal environment"), "{stderr}");
}
