//! Which of the server options (`args::Global`) each command takes.
//!
//! Owns: the list of commands that talk to no server, and what `sonde proxy` takes of the
//! options; hiding the others from those commands' help and man pages; refusing them, with
//! exit 2, when given. Commands that talk to a server take every option, before or after the
//! subcommand (`sonde --url URL tools list`), as documented.
//! Refuses: the options themselves (`args` declares them) and what each does.

use clap::parser::ValueSource;
use clap::{Arg, ArgMatches, Command, CommandFactory};

/// Commands that talk to no server: none of the server options applies to them.
const NO_SERVER: &[&str] =
    &["log", "sessions", "auth", "wrap", "unwrap", "completions", "man-pages", "demo-server", "export"];

/// What the proxy takes: the shutdown graces and the longest line. The client chose the
/// server's environment, directory, era and roots; the proxy passes them on untouched.
const PROXY_TAKES: &[&str] = &["grace_stdin", "grace_term", "max_line", "quiet"];

/// What every command takes, a server or none: `--quiet`.
const ALL_TAKE: &[&str] = &["quiet"];

/// The server options that do not apply to the top-level subcommand `name`, with why.
fn not_for(name: &str) -> Option<(&'static [&'static str], &'static str)> {
    match name {
        "proxy" => Some((PROXY_TAKES, "the proxy passes on what the client gives the server")),
        n if NO_SERVER.contains(&n) => Some((ALL_TAKE, "it talks to no server")),
        _ => None,
    }
}

/// The command line's definition, each command showing only the server options it takes, and
/// its exit codes and examples (`manual`) after its help.
pub fn command() -> Command {
    let mut cli = crate::manual::annotated(crate::args::Cli::command());
    let globals: Vec<Arg> = cli.get_arguments().filter(|a| a.is_global_set()).cloned().collect();
    let names: Vec<String> = cli.get_subcommands().map(|c| c.get_name().to_owned()).collect();
    for name in names {
        if let Some((takes, _)) = not_for(&name) {
            let others: Vec<Arg> =
                globals.iter().filter(|a| !takes.contains(&a.get_id().as_str())).cloned().collect();
            cli = cli.mut_subcommand(name, |c| hidden(c, &others));
        }
    }
    cli
}

/// `command` (and its own subcommands) with a hidden, local copy of each of `args`: clap then
/// does not hand it the global option, so its help leaves it out, and one given is kept here
/// for [`refused`] to name.
fn hidden(mut command: Command, args: &[Arg]) -> Command {
    for arg in args {
        if command.get_arguments().all(|a| a.get_id() != arg.get_id()) {
            command = command.arg(arg.clone().global(false).hide(true));
        }
    }
    let names: Vec<String> = command.get_subcommands().map(|c| c.get_name().to_owned()).collect();
    for name in names {
        command = command.mut_subcommand(name, |c| hidden(c, args));
    }
    command
}

/// A server option given to a command it does not apply to, in words; None when all apply.
pub fn refused(cli: &Command, matches: &ArgMatches) -> Option<String> {
    let (name, mut sub) = matches.subcommand()?;
    let (takes, why) = not_for(name)?;
    // Each level's matches with its definition: an option a subcommand has of its own under
    // the same name (the proxy's --url) is its own, not the server option.
    let mut definition = cli.find_subcommand(name)?;
    let mut own = vec![definition];
    let mut levels = vec![matches, sub];
    let mut path = vec![name.to_owned()];
    while let Some((name, deeper)) = sub.subcommand() {
        path.push(name.to_owned());
        definition = definition.find_subcommand(name)?;
        own.push(definition);
        levels.push(deeper);
        sub = deeper;
    }
    for arg in cli.get_arguments().filter(|a| a.is_global_set() && !takes.contains(&a.get_id().as_str())) {
        let id = arg.get_id().as_str();
        // clap hands a subcommand's own value up under the same name, too.
        let its_own = own
            .iter()
            .any(|c| c.get_arguments().any(|a| a.get_id() == id && !a.is_global_set() && !a.is_hide_set()));
        let given = !its_own
            && levels.iter().any(|m| {
                m.ids().any(|i| i.as_str() == id) && m.value_source(id) == Some(ValueSource::CommandLine)
            });
        if given {
            let flag = arg.get_long().map(|l| format!("--{l}")).unwrap_or_else(|| id.to_owned());
            return Some(format!("{flag} does not apply to `sonde {}`: {why}", path.join(" ")));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refusal(words: &[&str]) -> Option<String> {
        let cli = command();
        let matches = cli.clone().try_get_matches_from(words).expect("parses");
        refused(&cli, &matches)
    }

    #[test]
    fn server_options_are_refused_where_no_server_is_talked_to() {
        assert_eq!(
            refusal(&["sonde", "sessions", "--url", "http://x", "--bearer", "abc"]).as_deref(),
            Some("--url does not apply to `sonde sessions`: it talks to no server")
        );
        assert_eq!(
            refusal(&["sonde", "--env", "A=1", "auth", "list"]).as_deref(),
            Some("--env does not apply to `sonde auth list`: it talks to no server")
        );
        assert!(refusal(&["sonde", "proxy", "--cwd", "/nonexistent", "--", "srv"])
            .unwrap()
            .starts_with("--cwd"));
        // What applies is taken, before or after the subcommand.
        assert_eq!(refusal(&["sonde", "proxy", "--grace-term", "10", "--", "srv"]), None);
        assert_eq!(refusal(&["sonde", "proxy", "--listen", "127.0.0.1:0", "--url", "http://x/mcp"]), None);
        assert_eq!(refusal(&["sonde", "--url", "http://x", "tools", "list"]), None);
        assert_eq!(refusal(&["sonde", "tools", "list", "--url", "http://x"]), None);
        assert_eq!(refusal(&["sonde", "sessions"]), None);
    }

    #[test]
    fn a_commands_help_shows_only_the_options_it_takes() {
        let mut cli = command();
        let help = |cli: &mut Command, path: &[&str]| {
            let mut c = cli.clone();
            c.build();
            let mut at = &mut c;
            for name in path {
                at = at.find_subcommand_mut(name).expect("a subcommand");
            }
            at.render_help().to_string()
        };
        let sessions = help(&mut cli, &["sessions"]);
        assert!(!sessions.contains("--url") && !sessions.contains("--bearer"), "{sessions}");
        let proxy = help(&mut cli, &["proxy"]);
        assert!(
            proxy.contains("--grace-term") && !proxy.contains("--cwd") && !proxy.contains("--era"),
            "{proxy}"
        );
        let call = help(&mut cli, &["call"]);
        assert!(call.contains("--url") && call.contains("--cwd"), "{call}");
    }
}
