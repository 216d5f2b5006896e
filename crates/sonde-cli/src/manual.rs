//! What each command's manual says beyond its options: the exit codes it can end with and what
//! each means for it, and examples, kept as data beside the command line's definition. They go
//! into `--help` (each command's after-help), the reference pages (`reference.rs`) and the
//! manual pages (`docs.rs`), so the three say the same.
//!
//! Owns: [`PAGES`], one per command a person runs (a group such as `tools` has none; its
//! commands do), and putting them into the definition ([`annotated`]). Refuses: the shared
//! meaning of each code (`args::EXIT_CODES`, the contract's table) and deciding which code a run
//! earns (each command does).

use clap::Command;

/// One command's exit codes and examples.
pub struct Page {
    /// The command below `sonde`, its words separated by spaces: `doctor`, `tools list`.
    pub command: &'static str,
    /// Each code the command can end with, and what it means for this command.
    pub exits: &'static [(i32, &'static str)],
    /// Command lines, each with what it does.
    pub examples: &'static [(&'static str, &'static str)],
}

const FAILED: (i32, &str) =
    (1, "the server could not be started or reached, died, timed out, or answered with a JSON-RPC error");
const USAGE: (i32, &str) = (2, "a bad option, argument, file or filter");
const INTERRUPTED: (i32, &str) = (130, "interrupted (Ctrl-C)");

/// The codes of a command that asks a server something and prints the answer.
const ASKS: &[(i32, &str)] = &[(0, "the answer was printed"), FAILED, USAGE, INTERRUPTED];

/// Every command's page, in the order `sonde --help` lists the commands.
pub const PAGES: &[Page] = &[
    Page {
        command: "tools list",
        exits: ASKS,
        examples: &[
            ("sonde tools list -- npx -y @modelcontextprotocol/server-everything", "List a stdio server's tools."),
            ("sonde --url http://127.0.0.1:3001/mcp tools list --json", "The same of an HTTP server, as JSON."),
        ],
    },
    Page {
        command: "call",
        exits: &[
            (0, "the tool answered, and its result is well formed"),
            FAILED,
            USAGE,
            (3, "the tool answered with isError: true"),
            (4, "the result broke the protocol: a required field missing, or structuredContent against the tool's outputSchema"),
            INTERRUPTED,
        ],
        examples: &[
            ("sonde call echo text=hi -- sonde demo-server", "Call the demo server's echo tool with one argument."),
            ("sonde call add --args '{\"a\": 1, \"b\": 2}' -- sonde demo-server", "Arguments as one JSON object."),
        ],
    },
    Page {
        command: "tasks list",
        exits: ASKS,
        examples: &[("sonde --url http://127.0.0.1:3001/mcp tasks list", "The tasks an HTTP server keeps.")],
    },
    Page {
        command: "tasks get",
        exits: ASKS,
        examples: &[("sonde --url http://127.0.0.1:3001/mcp tasks get TASK-ID", "One task's status.")],
    },
    Page {
        command: "tasks cancel",
        exits: &[(0, "the server accepted the cancel"), FAILED, USAGE, INTERRUPTED],
        examples: &[("sonde --url http://127.0.0.1:3001/mcp tasks cancel TASK-ID", "Cancel a running task.")],
    },
    Page {
        command: "snapshot",
        exits: &[(0, "the snapshot was printed or written"), FAILED, USAGE, INTERRUPTED],
        examples: &[(
            "sonde snapshot --out before.json -- npx -y my-server",
            "Keep the server's interface, to diff a later build against.",
        )],
    },
    Page {
        command: "diff",
        exits: &[
            (0, "nothing changed that breaks a client (changes and additions may be listed)"),
            FAILED,
            USAGE,
            (5, "a change breaks a client"),
            INTERRUPTED,
        ],
        examples: &[
            ("sonde diff before.json after.json", "Compare two snapshots."),
            ("sonde diff before.json -- npx -y my-server", "Compare a snapshot with the server as it is now."),
            (
                "sonde diff --baseline -- uv run server.py",
                "Compare the server with the interface it was last accepted with (--accept keeps the new one).",
            ),
        ],
    },
    Page {
        command: "replay",
        exits: &[
            (0, "no request failed the replay: each answer the same, or a listing changed without breaking"),
            FAILED,
            USAGE,
            (5, "an answer differed, a call's tool is gone, or a listing broke (with --strict: any difference, or a rule that matched nothing)"),
            INTERRUPTED,
        ],
        examples: &[
            (
                "sonde replay nightly -- npx -y my-server",
                "Send the requests of the newest session named nightly (`sonde proxy --name nightly`) again.",
            ),
            (
                "sonde replay last --ignore-values iso-time --ignore 'tools/call roll:result.content[*].text' -- ./my-server",
                "Replay the last session, expecting times anywhere and the text of roll's answers to differ.",
            ),
        ],
    },
    Page {
        command: "watch",
        exits: &[
            (1, "the session log could not be made, or the file watcher stopped"),
            USAGE,
            INTERRUPTED,
        ],
        examples: &[
            (
                "sonde watch --call add a=2 b=3 -- uv run server.py",
                "Restart a Python server on each save of its folder, and call add again.",
            ),
            (
                "sonde watch --build 'npm run build' --path src --test suite.yaml -- node dist/index.js",
                "Build on each change under src/, then restart the server and run the suite again.",
            ),
        ],
    },
    Page {
        command: "test",
        exits: &[(0, "every test passed"), FAILED, USAGE, (5, "a test failed"), INTERRUPTED],
        examples: &[(
            "sonde test suite.yaml --reporter junit --out report.xml -- npx -y my-server",
            "Run a suite, with a JUnit report for CI.",
        )],
    },
    Page {
        command: "load",
        exits: &[
            (0, "the run ended and its budget held (without --slo: no call failed)"),
            (1, "the server could not be started, or died during the run (the report says when)"),
            USAGE,
            (5, "the budget (--slo) was broken, or without one a call failed"),
            (130, "interrupted (Ctrl-C): sending stopped and the report of what ran was printed"),
        ],
        examples: &[
            (
                "sonde load add a=1 b=2 --rate 500 --duration 30 --slo 'p99<20ms' -- ./server",
                "500 calls a second for 30 s; exit 5 when the 99th percentile reaches 20 ms.",
            ),
            (
                "sonde load search q=item-{{seq}} --stages 10/s:10s,100/s:10s,500/s:10s -- ./server",
                "Stepped load, each call's query numbered.",
            ),
            (
                "sonde load echo message=hi --concurrency 8 --count 10000 --json -- ./server",
                "A closed loop of 8 callers, the report as one JSON document.",
            ),
        ],
    },
    Page {
        command: "info",
        exits: ASKS,
        examples: &[("sonde info -- sonde demo-server", "The demo server's era, serverInfo and capabilities.")],
    },
    Page {
        command: "resources list",
        exits: ASKS,
        examples: &[("sonde resources list -- sonde demo-server", "List the demo server's resources.")],
    },
    Page {
        command: "resources templates",
        exits: ASKS,
        examples: &[("sonde resources templates -- sonde demo-server", "List its resource templates.")],
    },
    Page {
        command: "resources read",
        exits: ASKS,
        examples: &[("sonde resources read file:///notes.txt -- python server.py", "Read one resource.")],
    },
    Page {
        command: "prompts list",
        exits: ASKS,
        examples: &[("sonde prompts list -- sonde demo-server", "List the demo server's prompts.")],
    },
    Page {
        command: "prompts get",
        exits: ASKS,
        examples: &[("sonde prompts get review code=main.rs -- python server.py", "Get a prompt with one argument.")],
    },
    Page {
        command: "skills list",
        exits: &[
            (0, "the skills were listed, every entry well formed"),
            FAILED,
            USAGE,
            (4, "an entry is invalid or wrong (its name, a file's digest or place, the limits)"),
            INTERRUPTED,
        ],
        examples: &[("sonde skills list -- python server.py", "List a server's skills without reading a file.")],
    },
    Page {
        command: "skills get",
        exits: &[
            (0, "the file was read and verified against the skill's entry"),
            FAILED,
            (2, "a bad option, or a name no skill or several skills have (their URIs listed)"),
            (4, "a file's size or digest, or SKILL.md's frontmatter, is not its entry's"),
            INTERRUPTED,
        ],
        examples: &[
            ("sonde skills get refunds -- python server.py", "Print a skill's SKILL.md, verified."),
            (
                "sonde skills get refunds --out ./refunds -- python server.py",
                "Write every file of the skill, each verified; one that fails is not written.",
            ),
        ],
    },
    Page {
        command: "complete",
        exits: ASKS,
        examples: &[(
            "sonde complete --prompt review --argument language --value ru -- python server.py",
            "What the server suggests for a prompt's argument.",
        )],
    },
    Page {
        command: "listen",
        exits: &[(0, "the notifications asked for came, or the server ended the subscription"), FAILED, USAGE, INTERRUPTED],
        examples: &[(
            "sonde listen --tools --count 1 -- python server.py",
            "Wait for the next change of the tool list.",
        )],
    },
    Page {
        command: "shell",
        exits: &[
            (0, "every command ran and found nothing wrong"),
            (1, "the server failed, or a command failed (the first failure's code is the shell's)"),
            USAGE,
            (3, "a call answered with isError: true"),
            (4, "a call's result broke the protocol"),
        ],
        examples: &[
            ("sonde shell -- sonde demo-server", "Type commands at a prompt, on one connection."),
            ("printf 'tools\\ncall echo text=hi\\n' | sonde shell -- sonde demo-server", "Run a script of commands."),
        ],
    },
    Page {
        command: "doctor",
        exits: &[
            (0, "no check failed (warnings may be listed)"),
            (
                1,
                "the server could not be opened at all (a --reporter still writes its report, one error with the server's last words), or the report could not be written",
            ),
            USAGE,
            (5, "a check failed"),
            INTERRUPTED,
        ],
        examples: &[
            ("sonde doctor -- npx -y @modelcontextprotocol/server-everything", "Check a stdio server over."),
            ("sonde doctor --timeout 2000 --json -- python server.py", "Probes wait 2 s each; the report as JSON."),
            (
                "sonde doctor --reporter junit --out doctor.xml -- ./my-server",
                "A JUnit report for CI beside the lines: a check a testcase, a fail a failure, a skip skipped.",
            ),
            (
                "sonde doctor --reporter sarif --out doctor.sarif -- ./my-server",
                "SARIF 2.1.0: a result per failed or warned check, the server as its (logical) location.",
            ),
        ],
    },
    Page {
        command: "conformance-client",
        exits: &[(0, "the scenario ran to its end"), (1, "the scenario failed"), USAGE],
        examples: &[(
            "MCP_CONFORMANCE_SCENARIO=initialize sonde conformance-client http://127.0.0.1:3001/mcp",
            "What the conformance harness runs.",
        )],
    },
    Page {
        command: "proxy",
        exits: &[
            (0, "the server exited with 0, or the HTTP proxy was stopped with SIGTERM"),
            (1, "the server could not be started, or the HTTP proxy could not listen or stopped on an error"),
            USAGE,
            (130, "the HTTP proxy was interrupted (Ctrl-C)"),
        ],
        examples: &[
            (
                "sonde proxy --name nightly -- npx -y my-server",
                "In a client's config: run the server behind Sonde, its session named nightly; otherwise the stdio proxy exits with the server's own code (128 + the signal that ended it).",
            ),
            (
                "sonde proxy --listen 127.0.0.1:0 --url https://example.com/mcp",
                "Record an HTTP server's traffic; stderr says where to point the client.",
            ),
        ],
    },
    Page {
        command: "wrap",
        exits: &[(0, "the config was printed or written"), (1, "the config could not be read or written"), USAGE],
        examples: &[
            ("sonde wrap --client cursor", "Print Cursor's config with its stdio servers behind sonde proxy."),
            ("sonde wrap --client claude-desktop --write", "Write it, after a backup."),
        ],
    },
    Page {
        command: "unwrap",
        exits: &[(0, "the config was printed or written"), (1, "the config could not be read or written"), USAGE],
        examples: &[("sonde unwrap --client cursor --write", "Give the servers their own command lines back.")],
    },
    Page {
        command: "log",
        exits: &[
            (0, "the session was printed"),
            (1, "no such session, or it could not be read"),
            (2, "a bad filter, or a file that is not a session"),
        ],
        examples: &[
            ("sonde log last --filter 'diag:error'", "The frames of the last session that broke a rule."),
            ("sonde log --session nightly --full", "The newest session named nightly, each frame whole."),
        ],
    },
    Page {
        command: "export",
        exits: &[
            (0, "the file was written"),
            (1, "no such session, or the file could not be written"),
            (2, "a bad filter or format, a file that is not a session, or an existing file without --force"),
        ],
        examples: &[("sonde export last --format html --out report.html", "The last session as one HTML report.")],
    },
    Page {
        command: "sessions",
        exits: &[
            (0, "listed, pinned or unpinned"),
            (1, "the sessions folder could not be read"),
            (2, "no such session to pin or unpin"),
        ],
        examples: &[
            ("sonde sessions", "Every recorded session, newest first."),
            ("sonde sessions --pin nightly", "Keep the newest session named nightly whatever the budget."),
        ],
    },
    Page {
        command: "auth list",
        exits: &[(0, "listed"), (1, "the credentials could not be read")],
        examples: &[("sonde auth list", "The servers Sonde holds credentials for.")],
    },
    Page {
        command: "auth logout",
        exits: &[(0, "forgotten"), (1, "the credentials could not be removed")],
        examples: &[("sonde auth logout https://example.com/mcp", "Forget one server's credentials.")],
    },
    Page {
        command: "demo-server",
        exits: &[(0, "its client closed stdin")],
        examples: &[("sonde doctor -- sonde demo-server", "Check the demo server over.")],
    },
    Page {
        command: "completions",
        exits: &[(0, "the script was printed"), (1, "it could not be written"), (2, "a shell it does not know")],
        examples: &[("sonde completions bash > ~/.local/share/bash-completion/completions/sonde", "Install bash's.")],
    },
];

/// The page of `command` (`tools list`), if it has one.
pub fn page(command: &str) -> Option<&'static Page> {
    PAGES.iter().find(|p| p.command == command)
}

/// The exit codes and examples as `--help` prints them after the options.
pub fn after_help(page: &Page) -> String {
    let mut text = String::from("Exit status:");
    for (code, meaning) in page.exits {
        text.push_str(&format!("\n  {code:<4} {meaning}"));
    }
    text.push_str("\n\nExamples:");
    for (line, what) in page.examples {
        text.push_str(&format!("\n  {line}\n      {what}"));
    }
    text
}

/// The definition with each command's page as its after-help.
pub fn annotated(mut cli: Command) -> Command {
    for page in PAGES {
        let words: Vec<&str> = page.command.split(' ').collect();
        cli = with_page(cli, &words, page);
    }
    cli
}

/// `command` with the page set on its subcommand at `path`.
fn with_page(command: Command, path: &[&str], page: &Page) -> Command {
    match path {
        [] => command.after_help(after_help(page)),
        [first, rest @ ..] => {
            let first = first.to_string();
            command.mut_subcommand(first, |sub| with_page(sub, rest, page))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every command's words, below `sonde`, of the commands a person runs (leaves, visible).
    fn leaves(command: &Command, path: Vec<String>, into: &mut Vec<String>) {
        let subs: Vec<&Command> =
            command.get_subcommands().filter(|s| !s.is_hide_set() && s.get_name() != "help").collect();
        if subs.is_empty() && !path.is_empty() {
            into.push(path.join(" "));
        }
        for sub in subs {
            let mut deeper = path.clone();
            deeper.push(sub.get_name().to_owned());
            leaves(sub, deeper, into);
        }
    }

    #[test]
    fn every_command_a_person_runs_has_a_page_and_every_page_a_command() {
        let mut commands = Vec::new();
        leaves(&<crate::args::Cli as clap::CommandFactory>::command(), Vec::new(), &mut commands);
        for command in &commands {
            assert!(page(command).is_some(), "`sonde {command}` has no page in manual.rs");
        }
        for p in PAGES {
            assert!(commands.iter().any(|c| c == p.command), "the page of `{}` names no command", p.command);
            assert!(!p.exits.is_empty() && !p.examples.is_empty(), "`{}`: exits and examples", p.command);
            // Each example runs its command (server options may come before its words).
            let words: Vec<&str> = p.command.split(' ').collect();
            for (line, _) in p.examples {
                let said: Vec<&str> = line.split_whitespace().collect();
                let runs = said
                    .iter()
                    .position(|w| *w == "sonde")
                    .is_some_and(|at| said[at..].windows(words.len()).any(|w| w == words.as_slice()));
                assert!(runs, "an example of `sonde {}` runs something else: {line}", p.command);
            }
        }
    }

    /// The global help's table of exit codes names every command that can exit 5.
    #[test]
    fn the_global_help_names_every_command_that_exits_5() {
        let line = crate::args::EXIT_CODES.lines().find(|l| l.trim_start().starts_with("5 ")).unwrap();
        for p in PAGES.iter().filter(|p| p.exits.iter().any(|(code, _)| *code == 5)) {
            assert!(
                line.contains(p.command),
                "`{}` exits 5 but the global help's line 5 does not name it: {line}",
                p.command
            );
        }
    }
}
