//! `sonde`: a headless MCP inspector over the Sonde engine.
//!
//! Contract (scripts and tests rely on it): `--json` output goes to stdout, human messages to
//! stderr, every run that talks to a server prints its session log path on stderr. Exit codes:
//! 0 success, 3 a tool result with `isError: true`, 1 a JSON-RPC error or transport failure,
//! 2 a usage error, 130 interrupted.

// First, so its `outln!` is in scope in every module after it.
#[macro_use]
mod out;

mod applies;
mod args;
mod arguments;
mod auth;
mod conformance;
mod diff_cmd;
mod docs;
mod doctor;
mod echo;
mod exit;
mod export_cmd;
mod findings;
mod load_cmd;
mod log_cmd;
mod manual;
mod ops;
mod print;
mod proxy;
mod recording;
mod reference;
mod replay_cmd;
mod reports;
mod run;
mod shell;
mod shell_complete;
mod skills_cmd;
mod suggest;
mod tasks;
mod test_cmd;
mod waiting;
mod watch_cmd;
mod words;
mod wrap;

use clap::FromArgMatches;

/// Sonde's version and the commit it was built from (`build.rs`), as `--version` says it.
pub const VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), " (", env!("SONDE_COMMIT"), ")");

fn main() {
    let definition = applies::command();
    let matches = definition.clone().try_get_matches().unwrap_or_else(|e| {
        // A server command typed without `--` reads as arguments Sonde does not know; with a
        // `--` there, the unknown argument is Sonde's own and the hint would mislead.
        let hint =
            e.kind() == clap::error::ErrorKind::UnknownArgument && !std::env::args().any(|a| a == "--");
        let _ = e.print();
        if hint {
            errln!("sonde: put the server's command after `--`, as in: sonde tools list -- npx -y SERVER");
        }
        std::process::exit(e.exit_code());
    });
    if let Some(refusal) = applies::refused(&definition, &matches) {
        errln!("sonde: {refusal}");
        std::process::exit(exit::USAGE);
    }
    // doctor's probes wait 10 s unless --timeout is given: its default is a minute's patience
    // for real work, not for a ping.
    let timeout_given = matches.value_source("timeout") == Some(clap::parser::ValueSource::CommandLine);
    let cli = args::Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    if cli.global.quiet {
        out::set_quiet();
    }
    let code = match cli.command {
        args::Command::DemoServer => sonde_demo::serve(),
        args::Command::Completions { shell } => docs::completions(shell),
        args::Command::ManPages { dir } => docs::man_pages(&dir),
        args::Command::Reference { dir } => reference::write(&dir),
        args::Command::Log(log) => log_cmd::run(&log),
        args::Command::Export(export) => export_cmd::run(&export),
        // Two files: nothing to start.
        args::Command::Diff { old: Some(old), new: Some(new), common, .. }
            if common.server.command.is_empty() && cli.global.url.is_none() =>
        {
            diff_cmd::offline(&old, &new, common.json)
        }
        args::Command::Wrap(args) => wrap::run(&args, true),
        args::Command::Unwrap(args) => wrap::run(&args, false),
        args::Command::Sessions { json, pin, unpin } => match (pin, unpin) {
            (Some(name), _) => log_cmd::pin(&name, true),
            (None, Some(name)) => log_cmd::pin(&name, false),
            (None, None) => log_cmd::list(json),
        },
        args::Command::Auth { action: args::AuthAction::List { json } } => auth::list(json),
        args::Command::Auth { action: args::AuthAction::Logout { url } } => auth::logout(url.as_deref()),
        // One runtime thread is enough: the stdio proxy copies and records on threads of its
        // own, and the HTTP proxy's work is I/O.
        args::Command::Proxy { name, listen, url, command } => {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("start the async runtime");
            match (listen, url) {
                (Some(listen), Some(url)) => {
                    runtime.block_on(proxy::run_http(&cli.global, name, listen, &url))
                }
                _ => runtime.block_on(proxy::run(&cli.global, name, command)),
            }
        }
        command => {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .expect("start the async runtime");
            let global = cli.global;
            runtime.block_on(on_a_worker(async move {
                match command {
                    args::Command::ConformanceClient { url } => conformance::run(&global, &url).await,
                    args::Command::Doctor { call, args, reporter, out, token_budget, common } => {
                        let asked = doctor::Asked { call, args, reporter, out, token_budget };
                        doctor::run(&global, timeout_given, asked, &common).await
                    }
                    args::Command::Watch(args) => watch_cmd::run(&global, args).await,
                    command => run::run(&global, command).await,
                }
            }))
        }
    };
    std::process::exit(code);
}

/// Runs the command as a task on a runtime worker, beside its connections' loops, rather than
/// on the thread that waits for it: a request sent and its reply received then pass between
/// tasks on the workers, and no other thread is woken for each (sonde-bench's request
/// overhead, p50: 0.071 ms with the caller on this thread, 0.057 ms as a task). A panic in
/// the command is a panic here, as it was.
async fn on_a_worker<F>(command: F) -> F::Output
where
    F: std::future::Future + Send + 'static,
    F::Output: Send + 'static,
{
    match tokio::spawn(command).await {
        Ok(code) => code,
        Err(e) => std::panic::resume_unwind(e.into_panic()),
    }
}
