//! What the package installs beside the binary, from the CLI's own definition: `--version` with
//! the commit, shell completions that know every subcommand, and a manual page per subcommand.

mod support;

use support::sonde;

#[test]
fn the_version_names_the_commit_it_was_built_from() {
    let home = support::data_home("docs-version");
    let out = sonde(&home, &["--version"]);
    assert!(out.status.success());
    let version = String::from_utf8(out.stdout).unwrap();
    let commit = std::process::Command::new("git").args(["rev-parse", "--short=9", "HEAD"]).output().unwrap();
    let commit = String::from_utf8(commit.stdout).unwrap();
    assert_eq!(version.trim(), format!("sonde {} ({})", env!("CARGO_PKG_VERSION"), commit.trim()));
}

#[test]
fn completions_know_every_subcommand_in_each_shell() {
    let home = support::data_home("docs-completions");
    for (shell, marker) in
        [("bash", "complete -F _sonde"), ("zsh", "#compdef sonde"), ("fish", "complete -c sonde")]
    {
        let out = sonde(&home, &["completions", shell]);
        assert!(out.status.success(), "{shell}");
        let script = String::from_utf8(out.stdout).unwrap();
        assert!(script.contains(marker), "{shell}: {}", &script[..200.min(script.len())]);
        for sub in ["tools", "call", "resources", "sessions", "completions"] {
            assert!(script.contains(sub), "{shell} does not know `{sub}`");
        }
    }
    let out = sonde(&home, &["completions", "tcsh"]);
    assert_eq!(out.status.code(), Some(2), "an unknown shell is a usage error");
}

#[test]
fn a_manual_page_is_written_for_sonde_and_each_subcommand() {
    let home = support::data_home("docs-man");
    let dir = home.join("man1");
    let out = sonde(&home, &["man-pages", dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let page = std::fs::read_to_string(dir.join("sonde.1")).unwrap();
    assert!(page.contains(".TH sonde 1"), "{}", &page[..200.min(page.len())]);
    assert!(
        page.contains("tools") && page.contains(sonde_version()),
        "the page names its subcommands and version"
    );
    // The exit-code table of every command, in the page as in `sonde --help`.
    assert!(page.contains("the server broke the protocol in an answer"), "no exit codes in sonde.1");
    let help = String::from_utf8(sonde(&home, &["--help"]).stdout).unwrap();
    assert!(help.contains("Exit codes:") && help.contains("5    a check found what it looks for"), "{help}");
    for name in ["sonde-tools.1", "sonde-tools-list.1", "sonde-call.1", "sonde-auth-logout.1"] {
        assert!(dir.join(name).is_file(), "{name} is missing");
    }
    assert!(!dir.join("sonde-help.1").exists(), "clap's help subcommand gets no page");
    // Each command's page has its exit codes and examples, and lists the server options it
    // takes: every one for doctor, only --quiet for log.
    let doctor = std::fs::read_to_string(dir.join("sonde-doctor.1")).unwrap();
    for part in [".SH \"EXIT STATUS\"", "a check failed", ".SH \"EXAMPLES\"", "\\-\\-timeout", "\\-\\-url"] {
        assert!(doctor.contains(part), "{part} in sonde-doctor.1");
    }
    let log = std::fs::read_to_string(dir.join("sonde-log.1")).unwrap();
    assert!(log.contains(".SH \"EXIT STATUS\"") && log.contains("quiet"), "sonde-log.1");
    assert!(!log.contains("\\-\\-timeout"), "sonde log takes no --timeout");
    assert!(page.contains(".SH \"EXIT STATUS\""), "sonde.1 has the table as its EXIT STATUS");
}

/// `--help` of a command ends with its exit codes and examples; the global help's table names
/// every command that exits 5.
#[test]
fn help_says_each_command_s_exit_codes_and_examples() {
    let home = support::data_home("docs-help-exits");
    let help = String::from_utf8(sonde(&home, &["doctor", "--help"]).stdout).unwrap();
    let exits = help.split_once("Exit status:").map(|(_, rest)| rest).unwrap_or_else(|| panic!("{help}"));
    assert!(exits.contains("5    a check failed") && exits.contains("Examples:"), "{exits}");
    assert!(exits.contains("sonde doctor -- "), "{exits}");
    let help = String::from_utf8(sonde(&home, &["--help"]).stdout).unwrap();
    let five = help.lines().find(|l| l.trim_start().starts_with("5 ")).unwrap_or_else(|| panic!("{help}"));
    for command in ["doctor", "diff", "replay", "test"] {
        assert!(five.contains(command), "{command} exits 5: {five}");
    }
}

fn sonde_version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

/// The guide's reference pages are what `sonde reference` writes now: a command, option or
/// filter key changed without `make reference` fails here, naming the page.
#[test]
fn the_guide_s_reference_pages_match_the_program() {
    let home = support::data_home("docs-reference");
    let dir = home.join("reference");
    let out = sonde(&home, &["reference", dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let committed = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/reference");
    for page in ["cli.md", "filter.md"] {
        let now = std::fs::read_to_string(dir.join(page)).unwrap();
        let kept = std::fs::read_to_string(committed.join(page)).unwrap_or_default();
        assert!(now == kept, "docs/reference/{page} is not what the program says now: run `make reference`");
    }
    let cli = std::fs::read_to_string(dir.join("cli.md")).unwrap();
    for heading in ["## `sonde call`", "## `sonde doctor`", "### `sonde tools list`", "- `--timeout <MS>`"] {
        assert!(cli.contains(heading), "{heading} in cli.md");
    }
    // Each command's section says which server options it takes, its exit codes and examples.
    let section = |name: &str| {
        let start = cli.find(&format!("`sonde {name}`\n")).unwrap_or_else(|| panic!("no {name} in cli.md"));
        let rest = &cli[start..];
        let end = rest[1..].find("\n## ").map_or(rest.len(), |i| i + 1);
        rest[..end].to_owned()
    };
    let doctor = section("doctor");
    for part in [
        "It also takes every one of the [server options]",
        "Exit status:",
        "- `5`: a check failed",
        "Examples:",
    ] {
        assert!(doctor.contains(part), "{part} in the doctor section:\n{doctor}");
    }
    let log = section("log");
    assert!(log.contains("it takes only `-q, --quiet`.") && log.contains("Exit status:"), "{log}");
    let proxy = section("proxy");
    assert!(proxy.contains("`--grace-stdin <MS>`") && !proxy.contains("every one of"), "{proxy}");
    assert!(cli.contains("Exit status of every command"), "the shared table");
    let filter = std::fs::read_to_string(dir.join("filter.md")).unwrap();
    for row in ["| `kind:` |", "| `method:` |", "| free text |", "- `app`", "- `stdout-not-protocol`"] {
        assert!(filter.contains(row), "{row} in filter.md");
    }
}
