//! `sonde watch`: the inner loop run for the author. The server is started, its source watched;
//! on a change the build (if any) runs, the old server is stopped with the shutdown ladder, the
//! new one started, and what the change did to the interface is printed, then the check
//! (`--call`, `--test` or `--replay`) runs again, its answer set beside the previous one when it
//! differs. One session log holds the whole watch; each restart is a lifecycle entry naming the
//! file that caused it.
//!
//! Owns: the options, the first start, the check run on each build, and the words. Refuses: the
//! loop's steps (watch, build, restart, compare: `sonde_core::RestartOnChange`, which the
//! window's Restart on change runs too) and running a check (the commands' own code).

use std::sync::Arc;
use std::time::{Duration, Instant};

use sonde_core::{
    source_paths, BuildStep, ChangeSeverity, ConnState, Hub, Rebuild, RebuildOutcome, RequestError,
    RestartOnChange, ServerConfig, Session, Snapshot, SourceWatch, StateEvent, Target, WatchError, WatchSpec,
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

pub async fn run(global: &Global, args: WatchArgs) -> i32 {
    let planned = plan(global, &args);
    let (config, spec, check) = match planned {
        Ok(planned) => planned,
        Err(message) => {
            errln!("sonde: {message}");
            return USAGE;
        }
    };
    let watch = match SourceWatch::start(&spec) {
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
        async move { watch_loop(&hub, &config, &args, &check, watch).await }
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
    hub: &Arc<Hub>,
    config: &ServerConfig,
    args: &WatchArgs,
    check: &Check,
    watch: SourceWatch,
) -> i32 {
    let started = Instant::now();
    let (mut before, mut answer) = (None, None);
    // The first connection, failed or not: the restarts replace it on its lineage.
    let (first, opened) = hub.connect_begun(config, &|_, _| {}).await;
    match opened {
        Ok(id) => {
            noteln!("sonde watch: server ready in {:.1} s", started.elapsed().as_secs_f64());
            match hub.session(id) {
                Ok(session) => {
                    before = interface(&session).await;
                    answer = checked(&session, check, None).await;
                }
                Err(e) => errln!("sonde: {e}"),
            }
        }
        Err(e) => failed_to_start(&e.failure().0, &e.failure().1),
    }
    let Some(first) = first else { return FAILED };
    let build = args.build.clone().map(|command| BuildStep { command, cwd: None });
    let mut restarts =
        RestartOnChange::new(hub, first, watch, build, before).echo_build(|line| errln!("{line}"));
    let exits = tokio::spawn(say_exits(hub.clone(), restarts.lineage()));
    let step = |r: &Rebuild| match &r.outcome {
        RebuildOutcome::Building { command } => noteln!("sonde watch: {}; building: {command}", r.cause),
        RebuildOutcome::Restarting => noteln!("sonde watch: {}; restarting", r.cause),
        _ => {}
    };
    while let Some(rebuild) = restarts.next(hub, &step).await {
        match rebuild.outcome {
            RebuildOutcome::BuildFailed { status, .. } => {
                errln!("sonde watch: the build failed ({status}); the server was not restarted");
            }
            RebuildOutcome::StartFailed { reason } => {
                let words = match hub.states().newest(restarts.lineage()).and_then(|c| hub.states().get(c)) {
                    Some(StateEvent { state: ConnState::Failed { words, .. }, .. }) => words,
                    _ => Default::default(),
                };
                failed_to_start(&reason, &words);
            }
            RebuildOutcome::Restarted { conn, took_ms, changes, brief, .. } => {
                noteln!("sonde watch: server ready in {:.1} s", took_ms as f64 / 1000.0);
                said(changes.as_deref(), &brief);
                match hub.session(conn) {
                    Ok(session) => answer = checked(&session, check, answer).await,
                    Err(e) => errln!("sonde: {e}"),
                }
            }
            RebuildOutcome::Building { .. } | RebuildOutcome::Restarting | RebuildOutcome::Stopped => {}
        }
    }
    exits.abort();
    errln!("sonde watch: the file watcher stopped");
    FAILED
}

/// Says when the lineage's server ends by itself between saves, with its last words.
async fn say_exits(hub: Arc<Hub>, lineage: u64) {
    let mut states = hub.states().follow();
    while let Ok(event) = states.recv().await {
        if let (true, ConnState::Exited { reason, requested: false, words }) =
            (event.lineage == lineage, &event.state)
        {
            errln!("sonde watch: {reason}");
            crate::words::print(words);
            errln!("sonde watch: the next change starts it again");
        }
    }
}

/// A start that failed, with the server's last words; the watch goes on.
fn failed_to_start(reason: &str, words: &sonde_core::LastWords) {
    errln!("sonde: {reason}");
    crate::words::print(words);
    errln!("sonde watch: the next change tries again");
}

/// The interface of the server just started, or nothing to compare the next build with.
async fn interface(session: &Session) -> Option<Snapshot> {
    Snapshot::take(session)
        .await
        .inspect_err(|e| errln!("sonde watch: the interface could not be listed: {e}"))
        .ok()
}

/// What the new build changed in the interface since the previous one, breaking first.
fn said(changes: Option<&[sonde_core::Change]>, brief: &str) {
    let Some(changes) = changes else {
        return errln!("sonde watch: {brief}");
    };
    for c in changes {
        outln!("{:<9} {}: {}", c.severity.name(), c.path, c.detail);
    }
    if changes.iter().any(|c| c.severity == ChangeSeverity::Breaking) {
        errln!("sonde watch: {brief} since the previous build");
    } else {
        noteln!("sonde watch: {brief} since the previous build");
    }
}

/// The check's answer on the new build, beside the previous answer when it differs.
async fn checked(session: &Session, check: &Check, previous: Option<Vec<String>>) -> Option<Vec<String>> {
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
        match &previous {
            Some(before) if before != lines => {
                noteln!("sonde watch: the answer differs from the previous build's:");
                // Each side labelled once, its lines (a text block's own included) aligned under it.
                for (label, side) in [("before:", before), ("now:", lines)] {
                    for (n, line) in side.iter().flat_map(|l| l.lines()).enumerate() {
                        noteln!("  {:<8}{line}", if n == 0 { label } else { "" });
                    }
                }
            }
            Some(_) => noteln!("sonde watch: the same answer as the previous build's"),
            None => {}
        }
    }
    answer
}

/// The tool called with the words, its result as `sonde call` prints it.
async fn answer(session: &Session, tool: &str, pairs: &[String]) -> Result<Vec<String>, RequestError> {
    let definition = match crate::suggest::find_tool(session, tool).await? {
        Ok(definition) => definition,
        Err(not_listed) => return Ok(vec![not_listed]),
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
