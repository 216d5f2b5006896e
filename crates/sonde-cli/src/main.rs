//! `sonde`: a headless MCP inspector over the Sonde engine.
//!
//! Contract (scripts and tests rely on it): `--json` output goes to stdout, human messages to
//! stderr, every run that talks to a server prints its session log path on stderr. Exit codes:
//! 0 success, 3 a tool result with `isError: true`, 1 a JSON-RPC error or transport failure,
//! 2 a usage error, 130 interrupted.

// First, so its `outln!` is in scope in every module after it.
#[macro_use]
mod out;

mod args;
mod arguments;
mod auth;
mod conformance;
mod docs;
mod doctor;
mod echo;
mod exit;
mod log_cmd;
mod ops;
mod print;
mod proxy;
mod run;
mod shell;
mod suggest;
mod tasks;
mod waiting;
mod words;
mod wrap;

use clap::Parser;

/// Sonde's version and the commit it was built from (`build.rs`), as `--version` says it.
pub const VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), " (", env!("SONDE_COMMIT"), ")");

fn main() {
    let cli = args::Cli::try_parse().unwrap_or_else(|e| {
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
    let code = match cli.command {
        args::Command::DemoServer => sonde_demo::serve(),
        args::Command::Completions { shell } => docs::completions(shell),
        args::Command::ManPages { dir } => docs::man_pages(&dir),
        args::Command::Log(log) => log_cmd::run(&log),
        args::Command::Wrap(args) => wrap::run(&args, true),
        args::Command::Unwrap(args) => wrap::run(&args, false),
        args::Command::Sessions { json } => log_cmd::list(json),
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
            match command {
                args::Command::ConformanceClient { url } => {
                    runtime.block_on(conformance::run(&cli.global, &url))
                }
                args::Command::Doctor { call, args, common } => {
                    runtime.block_on(doctor::run(&cli.global, call, args, &common))
                }
                command => runtime.block_on(run::run(&cli.global, command)),
            }
        }
    };
    std::process::exit(code);
}
