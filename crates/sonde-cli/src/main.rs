//! `sonde`: a headless MCP inspector over the Sonde engine.
//!
//! Contract (scripts and tests rely on it): `--json` output goes to stdout, human messages to
//! stderr, every run that talks to a server prints its session log path on stderr. Exit codes:
//! 0 success, 3 a tool result with `isError: true`, 1 a JSON-RPC error or transport failure,
//! 2 a usage error, 130 interrupted.

mod args;
mod conformance;
mod exit;
mod log_cmd;
mod ops;
mod print;
mod run;
mod words;

use clap::Parser;

fn main() {
    let cli = args::Cli::parse();
    let code = match cli.command {
        args::Command::DemoServer => sonde_demo::serve(),
        args::Command::Log(log) => log_cmd::run(&log),
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
                command => runtime.block_on(run::run(&cli.global, command)),
            }
        }
    };
    std::process::exit(code);
}
