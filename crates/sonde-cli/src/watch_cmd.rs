//! `sonde watch`: the inner loop run for the author. The server is started, its source watched;
//! on a change the build (if any) runs, the old server is stopped with the shutdown ladder, the
//! new one started, and what the change did to the interface is printed, then the check
//! (`--call`, `--test` or `--replay`) runs again, its answer set beside the previous one when it
//! differs. One session log holds the whole watch; each restart is a lifecycle entry naming the
//! file that caused it.
//!
//! Owns: the options, the loop and its words. Refuses: watching files (`sonde_core::SourceWatch`),
//! comparing interfaces (`sonde_core::diff`), and running a check (the commands' own code).

use std::sync::Arc;
use std::time::{Duration, Instant};

use sonde_core::{
    diff, source_paths, ChangeSeverity, ConnState, Hub, HubError, ListKind, RequestError, ServerConfig,
    Session, Snapshot, SourceWatch, Stage, Target, WatchError, WatchSpec,
};

use crate::args::{Global, Reporter, WatchArgs};
use crate::exit::{FAILED, INTERRUPTED, USAGE};

/// What runs after each start.
enum Check {
    None,
    Call { tool: String, pairs: Vec<String> },
    Test(Box<(sonde_core::Suite, crate::test_cmd::Outputs)>),
    Replay(Box<(sonde_core::RecordedRequests, sonde_core::Rules)>),
}

/// What one build gave: its interface, and the check's answer in words.
struct Build {
    interface: Option<Snapshot>,
    answer: Option<Vec<String>>,
}

pub async fn run(global: &Global, args: WatchArgs) -> i32 {
    let planned = plan(global, &args);
    let (config, spec, check) = match planned {
        Ok(planned) => planned,
        Err(message) => {
            errln!("sonde: {message}");
            return USAGE;
        }
    };
    let mut watch = match SourceWatch::start(&spec) {
        Ok(watch) => watch,
        Err(e) => {
            errln!("sonde: {e}");
            return if matches!(e, WatchError::Unwatchable { .. }) { FAILED } else { USAGE };
        }
    };
    if let Some(why) = &watch.polling {
        errln!("sonde watch: {why}");
    }
    let shown: Vec<String> = spec.paths.iter().map(|p| p.display().to_string()).collect();
    noteln!("sonde watch: watching {} (Ctrl-C stops)", shown.join(", "));
    let Some(log) = crate::run::session_log() else { return FAILED };
    noteln!("sonde: session log {}", log.path().display());
    let teller = crate::recording::start(&log);
    let hub = Arc::new(Hub::new(log.clone()));
    let looped = {
        let hub = hub.clone();
        async move { watch_loop(&hub, &config, &args, &check, &mut watch).await }
    };
    let code = tokio::select! {
        code = looped => code,
        _ = tokio::signal::ctrl_c() => {
            errln!("sonde watch: interrupted; stopping the server");
            hub.cancel_all("interrupted by the user");
            INTERRUPTED
        }
    };
    hub.disconnect_all().await;
    crate::findings::say(&log);
    crate::recording::finish(&log, teller).await;
    code
}

/// The options checked before anything starts: the server (a command: a URL's server is
/// restarted by whoever runs it), what to watch, and the check.
fn plan(global: &Global, args: &WatchArgs) -> Result<(ServerConfig, WatchSpec, Check), String> {
    let config = global.server_config(&args.server)?;
    let Target::Stdio(spawn) = &config.target else {
        return Err("watch starts a server from its command, after --; a URL's server is restarted by whoever runs it"
            .into());
    };
    let paths = if args.paths.is_empty() { source_paths(spawn) } else { args.paths.clone() };
    if let Some(missing) = paths.iter().find(|p| !p.exists()) {
        return Err(WatchError::NoSuchPath(missing.clone()).to_string());
    }
    let spec =
        WatchSpec { paths, ignore: args.ignore.clone(), debounce: Duration::from_millis(args.debounce) };
    let check = match (args.call.split_first(), &args.test, &args.replay) {
        (Some((tool, pairs)), _, _) => {
            crate::arguments::with_words(None, pairs, None)?;
            Check::Call { tool: tool.clone(), pairs: pairs.to_vec() }
        }
        (None, Some(file), _) => {
            let planned = crate::test_cmd::plan(file.clone(), Reporter::Text, None, false)?;
            Check::Test(Box::new(planned))
        }
        (None, None, Some(session)) => {
            let rules = crate::replay_cmd::rules(None, &[], &[], false, false)?;
            Check::Replay(Box::new((crate::replay_cmd::read(session)?, rules)))
        }
        (None, None, None) => Check::None,
    };
    Ok((config, spec, check))
}

/// Starts the server, and again after each change, until the watch ends.
async fn watch_loop(
    hub: &Hub,
    config: &ServerConfig,
    args: &WatchArgs,
    check: &Check,
    watch: &mut SourceWatch,
) -> i32 {
    let report = |_: u64, _: Stage| {};
    let mut previous = Build { interface: None, answer: None };
    let mut running: Option<u64> = None;
    let mut cause: Option<String> = None;
    loop {
        let started = Instant::now();
        let opened = match (running, &cause) {
            (Some(id), Some(why)) => hub.restart_because(id, why, &report).await,
            _ => hub.connect(config).await,
        };
        match opened {
            Ok(id) => {
                running = Some(id);
                noteln!("sonde watch: server ready in {:.1} s", started.elapsed().as_secs_f64());
                match hub.session(id) {
                    Ok(session) => previous = built(&session, check, previous).await,
                    Err(e) => errln!("sonde: {e}"),
                }
            }
            Err(e) => {
                running = None;
                failed_to_start(&e);
            }
        }
        // The next change that builds; a failed build leaves the running server as it was. A
        // server that ends by itself meanwhile is said, with its last words.
        let mut states = hub.states().follow();
        loop {
            let change = tokio::select! {
                change = watch.next() => change,
                Ok(event) = states.recv() => {
                    if let (true, ConnState::Exited { reason, requested: false, words }) =
                        (Some(event.conn) == running, &event.state)
                    {
                        errln!("sonde watch: {reason}");
                        crate::words::print(words);
                        errln!("sonde watch: the next change starts it again");
                    }
                    continue;
                }
            };
            let Some(change) = change else {
                errln!("sonde watch: the file watcher stopped");
                return FAILED;
            };
            let why = change.cause();
            noteln!("sonde watch: {why}; restarting");
            cause = Some(why);
            match &args.build {
                Some(build) if !built_ok(build).await => {
                    errln!("sonde watch: the build failed; the running server is left as it was");
                }
                _ => break,
            }
        }
    }
}

/// A start that failed, with the server's last words; the watch goes on.
fn failed_to_start(e: &HubError) {
    errln!("sonde: {e}");
    crate::words::print(&e.failure().1);
    errln!("sonde watch: the next change tries again");
}

/// Runs `build` through sh with Sonde's terminal; whether it succeeded.
async fn built_ok(build: &str) -> bool {
    noteln!("sonde watch: building: {build}");
    match tokio::process::Command::new("sh").arg("-c").arg(build).status().await {
        Ok(status) if status.success() => true,
        Ok(status) => {
            errln!("sonde watch: the build {status}");
            false
        }
        Err(e) => {
            errln!("sonde watch: cannot run the build: {e}");
            false
        }
    }
}

/// What the new build changed in the interface since the previous one, then the check's
/// answer, beside the previous answer when it differs.
async fn built(session: &Session, check: &Check, previous: Build) -> Build {
    let interface = match Snapshot::take(session).await {
        Ok(now) => Some(now),
        Err(e) => {
            errln!("sonde watch: the interface could not be listed: {e}");
            None
        }
    };
    if let (Some(before), Some(now)) = (&previous.interface, &interface) {
        let mut changes = diff(before, now);
        changes.sort_by_key(|c| c.severity);
        if changes.is_empty() {
            noteln!("sonde watch: interface unchanged");
        }
        for c in &changes {
            outln!("{:<9} {}: {}", c.severity.name(), c.path, c.detail);
        }
        let breaking = changes.iter().filter(|c| c.severity == ChangeSeverity::Breaking).count();
        if breaking > 0 {
            errln!("sonde watch: {breaking} breaking change(s) since the previous build");
        }
    }
    let answer = match check {
        Check::None => None,
        Check::Call { tool, pairs } => match answer(session, tool, pairs).await {
            Ok(lines) => Some(lines),
            Err(e) => Some(vec![format!("error: {e}")]),
        },
        Check::Test(planned) => {
            let (suite, to) = planned.as_ref();
            let code = crate::test_cmd::run(session, suite, to).await.unwrap_or(FAILED);
            Some(vec![format!("sonde test exited {code}")])
        }
        Check::Replay(planned) => {
            let (recording, rules) = planned.as_ref();
            let code = crate::replay_cmd::run(session, recording, rules, false).await;
            Some(vec![format!("sonde replay exited {code}")])
        }
    };
    if let Some(lines) = &answer {
        if matches!(check, Check::Call { .. }) {
            for line in lines {
                outln!("{line}");
            }
        }
        match &previous.answer {
            Some(before) if before != lines => {
                noteln!("sonde watch: the answer differs from the previous build's:");
                for line in before {
                    noteln!("  before: {line}");
                }
                for line in lines {
                    noteln!("  now:    {line}");
                }
            }
            Some(_) => noteln!("sonde watch: the same answer as the previous build's"),
            None => {}
        }
    }
    Build { interface, answer }
}

/// The tool called with the words, its result as `sonde call` prints it.
async fn answer(session: &Session, tool: &str, pairs: &[String]) -> Result<Vec<String>, RequestError> {
    let listing = session.list_all(ListKind::Tools).await?;
    let definition = listing.items.iter().find(|t| t["name"] == tool).cloned();
    let Some(definition) = definition else {
        let names: Vec<&str> = listing.items.iter().filter_map(|t| t["name"].as_str()).collect();
        return Ok(vec![crate::suggest::words(tool, &names, "tool")]);
    };
    let arguments = match crate::arguments::with_words(None, pairs, Some(&definition["inputSchema"])) {
        Ok(arguments) => arguments,
        Err(e) => return Ok(vec![format!("not called: {e}")]),
    };
    let outcome = session.call_tool_checked(tool, Some(&definition), arguments, false, |_| {}).await?;
    let mut lines = crate::print::call_result_lines(&outcome.result);
    if outcome.result.get("isError") == Some(&serde_json::Value::Bool(true)) {
        lines.push("(isError: true)".into());
    }
    Ok(lines)
}
