//! The commands that talk to a server: connect, do one thing, shut down gracefully.

use std::sync::Arc;

use serde_json::Value;
use sonde_core::{
    sessions_dir, CompletionRef, EraCache, Hub, HubError, ListKind, ListenSpec, RequestError, ServerConfig,
    Session, Stage, WireLog,
};

use crate::args::{
    Command, Common, Global, ListAction, PromptsAction, ResourcesAction, SkillsAction, TasksAction,
};
use crate::arguments;
use crate::echo;
use crate::exit::{FAILED, INTERRUPTED, USAGE};
use crate::ops::{self, Op};
use crate::recording;
use crate::skills_cmd::SkillsOp;
use crate::tasks::TaskOp;
use crate::words;

pub async fn run(global: &Global, command: Command) -> i32 {
    // Usage errors are found before a session log is made for a run that cannot happen.
    let (common, op) = plan(command);
    let (config, mut op) = match op.and_then(|op| Ok((global.server_config(&common.server)?, op))) {
        Ok(planned) => planned,
        Err(message) => {
            errln!("sonde: {message}");
            if common.json {
                crate::print::json_error(sonde_core::ErrorCode::BadInput, USAGE, &message);
            }
            return USAGE;
        }
    };
    // A baseline is the server's: which one, the config says.
    if let Op::Baseline { target, .. } = &mut op {
        *target = Some(Box::new(config.target.clone()));
    }
    let Some(log) = session_log() else { return FAILED };
    noteln!("sonde: session log {}", log.path().display());
    let teller = recording::start(&log);
    let mut hub = Hub::new(log.clone());
    if !global.no_era_cache {
        match EraCache::default_location() {
            Ok(cache) => hub = hub.with_era_cache(cache),
            Err(e) => errln!("sonde: era verdicts are not cached: {e}"),
        }
    }
    if global.url.is_some() {
        hub = hub.with_authorizer(crate::auth::authorizer(global.no_browser));
    }
    // A replay answers the server's own requests as the recorded client did, and declares
    // what it declared.
    if let Op::Replay { recording, .. } = &op {
        let answers = recording.answers.clone();
        hub = hub.with_responders(move |_, _| Arc::new(answers.clone()) as Arc<dyn sonde_core::Responder>);
    }
    let hub = Arc::new(hub);
    let echo = echo::Echo { stderr: global.stderr, messages: global.log_level.is_some() };
    let copying = (echo.stderr || echo.messages).then(|| echo::start(&log, echo));
    let own_interrupts = matches!(op, Op::Load(_));
    let work = {
        let hub = hub.clone();
        async move { with_server(&hub, &config, &common, op).await }
    };
    // Ctrl-C ends the run, unless the shell or a load run has taken it (a load run stops
    // sending and reports what ran).
    let interrupted = async move {
        if own_interrupts {
            std::future::pending::<()>().await;
        }
        loop {
            let _ = tokio::signal::ctrl_c().await;
            if !crate::shell::owns_interrupts() {
                break;
            }
        }
    };
    let code = tokio::select! {
        code = work => code,
        _ = interrupted => {
            errln!("sonde: interrupted; cancelling and stopping the server");
            hub.cancel_all("interrupted by the user");
            INTERRUPTED
        }
    };
    hub.disconnect_all().await;
    if let Some((stop, task)) = copying {
        let _ = stop.send(());
        let _ = task.await;
    }
    crate::findings::say(&log);
    recording::finish(&log, teller).await;
    code
}

/// Turns a command into its options and the operation to run on its server, checking every
/// argument before anything is started (the options come back either way: a usage error is
/// printed as JSON when they ask for it).
fn plan(command: Command) -> (Common, Result<Op, String>) {
    match command {
        Command::Tools { action: ListAction::List { common } } => (common, Ok(Op::List(ListKind::Tools))),
        Command::Call { tool, pairs, args, task, unlisted, common } => {
            let op = arguments::given("--args", args).and_then(|given| {
                // The words are checked now; they are set once the tool's schema is known.
                arguments::with_words(given.clone(), &pairs, None)?;
                Ok(Op::Call { tool, given, pairs, task, unlisted })
            });
            (common, op)
        }
        Command::Tasks { action: TasksAction::List { common } } => (common, Ok(Op::Tasks(TaskOp::List))),
        Command::Tasks { action: TasksAction::Get { id, common } } => {
            (common, Ok(Op::Tasks(TaskOp::Get(id))))
        }
        Command::Tasks { action: TasksAction::Cancel { id, common } } => {
            (common, Ok(Op::Tasks(TaskOp::Cancel(id))))
        }
        Command::Info { common } => (common, Ok(Op::Info)),
        Command::Test { file, reporter, out, common } => {
            let op = crate::test_cmd::plan(file, reporter, out, common.json)
                .map(|(suite, to)| Op::Test { suite: Box::new(suite), to });
            (common, op)
        }
        Command::Load(mut args) => {
            let common = std::mem::take(&mut args.common);
            let (json, stdio) = (common.json, !common.server.command.is_empty());
            (common, crate::load_cmd::plan(args, json, stdio).map(|opts| Op::Load(Box::new(opts))))
        }
        Command::Replay { session, ignore, ignore_values, rules, strict, skip_gone, common } => {
            let op = crate::replay_cmd::rules(rules.as_deref(), &ignore, &ignore_values, strict, skip_gone)
                .and_then(|rules| {
                    crate::replay_cmd::read(&session)
                        .map(|r| Op::Replay { recording: Box::new(r), rules: Box::new(rules) })
                });
            (common, op)
        }
        Command::Snapshot { out, force, common } => {
            let op = match &out {
                Some(path) => crate::diff_cmd::may_write(path, force),
                None => Ok(()),
            };
            (common, op.map(|()| Op::Snapshot(out)))
        }
        Command::Diff { old, new, baseline, accept, common } => {
            let op = match (new, old) {
                (Some(_), _) => {
                    Err("give the later side as a file or as a server after --, not both".to_owned())
                }
                (None, None) if baseline => Ok(Op::Baseline { accept, target: None }),
                (None, None) => {
                    Err("give the earlier side (a snapshot file or a session), or --baseline".to_owned())
                }
                (None, Some(old)) => crate::diff_cmd::read_side(&old).map(|s| Op::Diff(Box::new(s))),
            };
            (common, op)
        }
        Command::Resources { action: ResourcesAction::List { common } } => {
            (common, Ok(Op::List(ListKind::Resources)))
        }
        Command::Resources { action: ResourcesAction::Templates { common } } => {
            (common, Ok(Op::List(ListKind::Templates)))
        }
        Command::Resources { action: ResourcesAction::Read { uri, common } } => (common, Ok(Op::Read(uri))),
        Command::Skills { action: SkillsAction::List { common } } => (common, Ok(Op::Skills(SkillsOp::List))),
        Command::Skills { action: SkillsAction::Get { skill, file, out, unverified, common } } => {
            (common, Ok(Op::Skills(SkillsOp::Get { skill, file, out, unverified })))
        }
        Command::Prompts { action: PromptsAction::List { common } } => {
            (common, Ok(Op::List(ListKind::Prompts)))
        }
        Command::Prompts { action: PromptsAction::Get { name, pairs, args, common } } => {
            let op = arguments::object("--args", args, &pairs)
                .map(|a| Op::Prompt { name, arguments: a.map(arguments::strings).unwrap_or_default() });
            (common, op)
        }
        Command::Complete { prompt, resource, argument, value, context, common } => {
            let reference = match (prompt, resource) {
                (Some(name), _) => Ok(CompletionRef::Prompt { name }),
                (None, Some(uri)) => Ok(CompletionRef::Resource { uri }),
                (None, None) => {
                    Err("complete needs --prompt NAME or --resource TEMPLATE (a resource template's URI)"
                        .to_owned())
                }
            };
            let op = reference.and_then(|reference| {
                let context =
                    arguments::object("--context", context, &[])?.map(arguments::strings).unwrap_or_default();
                Ok(Op::Complete { reference, argument, value, context })
            });
            (common, op)
        }
        Command::Shell { common } => (common, Ok(Op::Shell)),
        Command::Listen { tools, prompts, resources, resource, count, common } => {
            (common, Ok(Op::Listen(ListenSpec { tools, prompts, resources, uris: resource }, count)))
        }
        Command::Log(_)
        | Command::Export(_)
        | Command::Doctor { .. }
        | Command::Proxy { .. }
        | Command::Wrap(_)
        | Command::Unwrap(_)
        | Command::Sessions { .. }
        | Command::DemoServer
        | Command::Completions { .. }
        | Command::ManPages { .. }
        | Command::Reference { .. }
        | Command::Auth { .. }
        | Command::Watch(_)
        | Command::ConformanceClient { .. } => {
            unreachable!("handled in main")
        }
    }
}

/// A new session log in the user's data directory, or `None` after saying why there is none;
/// the sessions folder is pruned to its budget (the settings file's) and what went is said on
/// stderr.
pub fn session_log() -> Option<Arc<WireLog>> {
    new_session_log(|_, words| errln!("sonde: {words}"))
}

/// A new session log whose folder is pruned to its budget, what the prune removed told by `tell`
/// (`sonde proxy` tells its session log: its stderr is its client's).
pub fn new_session_log(tell: impl Fn(&WireLog, String)) -> Option<Arc<WireLog>> {
    let log = sessions_dir()
        .and_then(|dir| WireLog::create_in(&dir))
        .inspect_err(|e| errln!("sonde: cannot create the session log: {e}"))
        .ok()?;
    let dir = log.path().parent().map(std::path::Path::to_path_buf).unwrap_or_default();
    match log.keep_within(sonde_core::sessions_budget(&dir)) {
        Ok(pruned) => pruned.words().into_iter().for_each(|words| tell(&log, words)),
        Err(e) => tell(&log, format!("could not prune old sessions in {}: {e}", dir.display())),
    }
    Some(log)
}

/// Connects, runs the operation, and reports a failure the way the contract says: when the
/// server failed to open, died under a request or ended by itself, with its last words.
async fn with_server(hub: &Hub, config: &ServerConfig, common: &Common, op: Op) -> i32 {
    let waiting = Arc::new(crate::waiting::Waiting::default());
    let saying = waiting.say(config);
    let report = |_: u64, stage: Stage| {
        waiting.entered(stage);
        say_starting(stage);
    };
    // A suite that cannot run still gets its reports, the run as one error with the server's
    // last words; with --json that report is the document the failure is printed in.
    let reports = match &op {
        Op::Test { to, .. } => Some(to.clone()),
        _ => None,
    };
    let started = std::time::Instant::now();
    // The server is started for this one operation and stopped after it, whatever it gave; the
    // server's description comes back with the outcome, to explain an unknown method after.
    let (json, said_enough) = (common.json, saying.abort_handle());
    let job = |session: sonde_core::Session| async move {
        said_enough.abort();
        let outcome = match op {
            // Over HTTP, a load run may spread its calls over sessions of their own.
            Op::Load(opts) if opts.connections > 1 => {
                Ok(crate::load_cmd::spread(hub, config, &session, *opts).await)
            }
            op => run_op(&session, op, json).await,
        };
        (outcome, session.server.clone())
    };
    let done = hub.one_job(config, None, &report, job).await;
    saying.abort();
    let done = match done {
        Ok(done) => done,
        Err(e) => {
            errln!("sonde: {e}");
            let (_, words) = e.failure();
            match &reports {
                Some(to) => {
                    crate::test_cmd::unstarted(to, &e.to_string(), e.code(), &words, started.elapsed())
                }
                None if common.json => crate::print::json_error(e.code(), FAILED, &e.to_string()),
                None => {}
            }
            words::print(&words);
            return FAILED;
        }
    };
    let (id, (outcome, server)) = (done.conn, done.output);
    let mut died = false;
    let mut unrun = None;
    let code = outcome.unwrap_or_else(|e| {
        errln!("sonde: {e}");
        if reports.is_some() {
            unrun = Some((e.to_string(), e.code()));
        } else if common.json {
            crate::print::json_error(e.code(), FAILED, &e.to_string());
        }
        if let HubError::Request(RequestError::TooLarge { len, .. }) = &e {
            errln!("sonde: --max-line {} (in bytes) reads it whole", len.next_power_of_two());
        }
        if let HubError::Request(RequestError::Rpc { error, .. }) = &e {
            if error.code == -32601 {
                errln!("sonde: {}", declared(&server.capabilities));
            }
        }
        died = matches!(e, HubError::Request(RequestError::Gone(_)));
        FAILED
    });
    match done.stopped {
        Ok(Some(exit)) => {
            // No shutdown step: the server ended by itself, before Sonde asked.
            died |= exit.during.is_none();
            if died {
                errln!("sonde: server {}", exit.describe());
            } else {
                noteln!("sonde: server {}", exit.describe());
            }
        }
        Ok(None) => {}
        Err(e) => errln!("sonde: the server could not be stopped: {e}"),
    }
    let words = if died { hub.last_words(id, config, false) } else { sonde_core::LastWords::default() };
    words::print(&words);
    if let (Some(to), Some((message, code))) = (&reports, unrun) {
        crate::test_cmd::unstarted(to, &message, code, &words, started.elapsed());
    }
    code
}

/// While the server has written nothing at all, says on stderr how long it has been starting,
/// once a second after the first: one line counting up at a terminal, a line a second in a log
/// (a log of a slow start is as useful as the sight of it).
fn say_starting(stage: Stage) {
    if let Stage::Starting(secs) = stage {
        crate::out::status(format_args!("sonde: starting: no output yet, {secs} s"));
    }
}

async fn run_op(session: &Session, op: Op, json: bool) -> Result<i32, HubError> {
    match op {
        Op::Shell => crate::shell::run(session, json).await,
        op => ops::run(session, op, json).await,
    }
    .map_err(HubError::from)
}

/// The capabilities a server declared, for a method it does not have (`-32601`).
fn declared(capabilities: &Value) -> String {
    let names: Vec<&str> =
        capabilities.as_object().map(|c| c.keys().map(String::as_str).collect()).unwrap_or_default();
    if names.is_empty() {
        "the server declared no capabilities".into()
    } else {
        format!("the server declared these capabilities: {}", names.join(", "))
    }
}
