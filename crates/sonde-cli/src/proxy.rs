//! `sonde proxy -- CMD`: the server a client's config names, run behind Sonde, as if Sonde were
//! not there: stdout is the client's protocol stream, and stderr is the client's too (contracts:
//! the proxies' words), so the server's stderr reaches it as the server wrote it, through the
//! same kind of stream the client gave, and Sonde adds nothing of its own but why it could not
//! run the server at all; the session is found with `sonde sessions`. `sonde proxy --listen
//! ADDR --url URL`: the same for an HTTP server, which the proxy reaches and never runs; that
//! one is started by a person, so its stderr says where to point the client.
//!
//! Owns: turning the command line into the proxy's spawn or listener, the signals that stop
//! it, its spans sent live (said in its session log), and the exit code. Refuses: the pass-through itself (the core's `proxy`).

use sonde_core::{
    bind_proxy, proxy_http, proxy_stdio, shown_url, shown_url_text, ClientStreams, Direction, Entry,
    ExitInfo, Graces, Kind, SpawnSpec, PROXY_CONN,
};
use std::net::SocketAddr;
use std::sync::Arc;

use sonde_core::WireLog;

use crate::args::Global;
use crate::exit::{FAILED, INTERRUPTED, OK, USAGE};

pub async fn run(global: &Global, name: Option<String>, command: Vec<String>) -> i32 {
    let Some((program, args)) = command.split_first() else {
        errln!("sonde: proxy needs the server's command after --");
        return USAGE;
    };
    // What the client chose reaches the server unchanged: its whole environment, its directory.
    let spec = SpawnSpec {
        program: program.clone(),
        args: args.to_vec(),
        cwd: None,
        env: Vec::new(),
        inherit_env: true,
    };
    let Some(log) = session_log(name, PROXY_CONN) else { return FAILED };
    let graces = Graces {
        stdin: std::time::Duration::from_millis(global.grace_stdin),
        term: std::time::Duration::from_millis(global.grace_term),
    };
    let client = match ClientStreams::of_this_process() {
        Ok(streams) => streams,
        Err(e) => {
            errln!("sonde: cannot use the proxy's stdin and stdout: {e}");
            return FAILED;
        }
    };
    let stop = async {
        stopped().await;
    };
    let live = live_spans(&log);
    let ended = proxy_stdio(&spec, log.clone(), graces, global.max_line, client, stop).await;
    last_spans(&log, live).await;
    // A log that stopped is said by its gap note, not on stderr, which is the client's.
    let _ = log.close();
    match ended {
        Ok(Some(exit)) => code_of(&exit),
        Ok(None) => FAILED,
        Err(e) => {
            errln!("sonde: could not start {}: {e}", spec.command_line());
            FAILED
        }
    }
}

/// Serves HTTP on `listen`, forwarding to `url`, until Ctrl+C or SIGTERM.
pub async fn run_http(global: &Global, name: Option<String>, listen: SocketAddr, url: &str) -> i32 {
    let upstream = match url::Url::parse(url) {
        Ok(u) if ["http", "https"].contains(&u.scheme()) => u,
        Ok(u) => {
            errln!("sonde: --url must be http or https, not {}:", u.scheme());
            return USAGE;
        }
        Err(e) => {
            errln!("sonde: --url {}: {e}", shown_url_text(url));
            return USAGE;
        }
    };
    let listener = match bind_proxy(listen).await {
        Ok(listener) => listener,
        Err(e) if e.kind() == std::io::ErrorKind::InvalidInput => {
            errln!("sonde: --listen {e}");
            return USAGE;
        }
        Err(e) => {
            errln!("sonde: cannot listen on {listen}: {e}");
            return FAILED;
        }
    };
    let Some(log) = session_log(name, PROXY_CONN) else { return FAILED };
    noteln!("sonde: session log {}", log.path().display());
    let local = listener.local_addr().map(|a| a.to_string()).unwrap_or_else(|_| listen.to_string());
    errln!(
        "sonde: point the client at http://{local}{} (forwarded to {})",
        upstream.path(),
        shown_url(&upstream)
    );
    let signal = std::sync::OnceLock::new();
    let stop = async {
        let _ = signal.set(stopped().await);
    };
    let live = live_spans(&log);
    let served = proxy_http(listener, upstream, log.clone(), global.max_line, stop).await;
    last_spans(&log, live).await;
    let _ = log.close();
    match served {
        // It serves until it is told to stop: 130 on Ctrl+C, 0 on SIGTERM.
        Ok(()) => signal.get().copied().unwrap_or(INTERRUPTED),
        Err(e) => {
            errln!("sonde: the proxy stopped: {e}");
            FAILED
        }
    }
}

/// The proxy's session log, with the session's name when the user gave one (in a note and on
/// the session's card).
fn session_log(name: Option<String>, conn: u64) -> Option<std::sync::Arc<sonde_core::WireLog>> {
    let log = crate::run::new_session_log(note)?;
    if let Some(name) = name {
        log.append(
            Entry::new(conn, Kind::Note, Direction::Meta).with_detail(format!("proxy session {name:?}")),
        );
        // On the card too, where `sonde sessions`, `--session NAME` and the window read it.
        log.set_name(name);
    }
    Some(log)
}

/// The session's spans sent live when the environment names a collector; what goes wrong is
/// a note in the session log (stderr is the client's).
fn live_spans(log: &Arc<WireLog>) -> Option<sonde_core::LiveSpans> {
    let to = log.clone();
    crate::recording::live_spans(log, move |words| note(&to, words))
}

/// Sends the last spans and notes in the session log what was sent and dropped.
async fn last_spans(log: &WireLog, live: Option<sonde_core::LiveSpans>) {
    if let Some(live) = live {
        note(log, crate::recording::last_spans(live).await.words());
    }
}

fn note(log: &WireLog, words: String) {
    log.append(Entry::new(PROXY_CONN, Kind::Note, Direction::Meta).with_detail(words));
}

/// Resolves on Ctrl+C or SIGTERM, with the exit code of the contract: 130 for an interrupt,
/// 0 for SIGTERM, the polite request to stop a service (what systemd and `kill` send).
async fn stopped() -> i32 {
    let mut term =
        tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).expect("SIGTERM handler");
    tokio::select! {
        _ = tokio::signal::ctrl_c() => INTERRUPTED,
        _ = term.recv() => OK,
    }
}

/// The server's exit code, or 128 + the signal that ended it, as a shell reports it.
fn code_of(exit: &ExitInfo) -> i32 {
    match (exit.code, exit.signal) {
        (Some(code), _) => code,
        (None, Some(signal)) => 128 + signal,
        (None, None) => FAILED,
    }
}
