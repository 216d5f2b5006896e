//! `sonde shell`: one server, many steps. One connection stays open while commands are read:
//! typed at a prompt with line editing, history and Tab (rustyline), or read from a pipe as a
//! script, so a tool that creates a resource can be followed by reading it. Ctrl-C stops the
//! command running and gives the prompt back; Ctrl-D leaves.
//!
//! Owns: the shell's small command language and its loop. Refuses: what each step does; the
//! same operations as the one-shot commands run them (`ops`).

use std::collections::VecDeque;
use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use sonde_core::{Filter, ListKind, ListenSpec, Lock, RequestError, Session};

use crate::exit::{FAILED, OK};
use crate::ops::{self, Op};
use crate::shell_complete::{Helper, Names};
use crate::tasks::TaskOp;
use crate::{arguments, print, suggest};

const COMMANDS: [&str; 16] = [
    "tools",
    "prompts",
    "resources",
    "templates",
    "info",
    "call",
    "read",
    "prompt",
    "listen",
    "tasks",
    "task",
    "cancel",
    "log",
    "help",
    "exit",
    "quit",
];

const HELP: &str = "\
tools | prompts | resources | templates   list them
info                                      protocol, server, capabilities
call NAME [KEY=VALUE…]                    call a tool (a task is followed to its result)
read URI                                  read a resource
prompt NAME [KEY=VALUE…]                  get a prompt
listen [tools] [prompts] [resources] [N]  print N change notifications (default 1)
tasks | task ID | cancel ID                list the tasks, get one, cancel one
log [FILTER…]                             this session's log, filtered
help, exit";

/// One line of the shell, read.
enum Step {
    Run(Op),
    Log(String),
    Help,
    Exit,
}

fn parse(line: &str) -> Result<Option<Step>, String> {
    let words = shell_words::split(line).map_err(|e| format!("cannot split the line: {e}"))?;
    let Some((command, rest)) = words.split_first() else { return Ok(None) };
    if command.starts_with('#') {
        return Ok(None);
    }
    let name = |what: &str| rest.first().cloned().ok_or_else(|| format!("{command} needs {what}"));
    let step = match command.as_str() {
        "tools" => Step::Run(Op::List(ListKind::Tools)),
        "prompts" => Step::Run(Op::List(ListKind::Prompts)),
        "resources" => Step::Run(Op::List(ListKind::Resources)),
        "templates" => Step::Run(Op::List(ListKind::Templates)),
        "info" => Step::Run(Op::Info),
        "call" => {
            let tool = name("a tool name")?;
            let pairs = rest[1..].to_vec();
            arguments::with_words(None, &pairs, None)?;
            Step::Run(Op::Call { tool, given: None, pairs, task: false, unlisted: false })
        }
        "read" => Step::Run(Op::Read(name("a URI")?.to_owned())),
        "prompt" => {
            let prompt = name("a prompt name")?.to_owned();
            let arguments =
                arguments::object("prompt", None, &rest[1..])?.map(arguments::strings).unwrap_or_default();
            Step::Run(Op::Prompt { name: prompt, arguments })
        }
        "listen" => {
            let mut spec = ListenSpec::default();
            let mut count = Some(1);
            for word in rest {
                match word.as_str() {
                    "tools" => spec.tools = true,
                    "prompts" => spec.prompts = true,
                    "resources" => spec.resources = true,
                    n => {
                        count =
                            Some(n.parse().map_err(|_| format!("listen: {n:?} is not a kind or a count"))?)
                    }
                }
            }
            Step::Run(Op::Listen(spec, count))
        }
        "tasks" => Step::Run(Op::Tasks(TaskOp::List)),
        "task" => Step::Run(Op::Tasks(TaskOp::Get(name("a task id")?))),
        "cancel" => Step::Run(Op::Tasks(TaskOp::Cancel(name("a task id")?))),
        "log" => Step::Log(rest.join(" ")),
        "help" => Step::Help,
        "exit" | "quit" => Step::Exit,
        other => {
            return Err(format!("{}; help lists the commands", suggest::words(other, &COMMANDS, "command")))
        }
    };
    Ok(Some(step))
}

type Editor = rustyline::Editor<Helper, rustyline::history::DefaultHistory>;

/// Where lines come from: an editor at a terminal (Tab completing from `names`), with the lines
/// of a paste not run yet; or a pipe.
enum Input {
    Terminal(Box<Editor>, VecDeque<String>),
    Pipe,
}

impl Input {
    fn open(names: &Arc<Mutex<Names>>) -> Input {
        if std::io::stdin().is_terminal() {
            if let Ok(mut editor) = Editor::new() {
                if let Some(path) = history() {
                    let _ = editor.load_history(&path);
                }
                editor.set_helper(Some(Helper { commands: &COMMANDS, names: names.clone() }));
                return Input::Terminal(Box::new(editor), VecDeque::new());
            }
        }
        Input::Pipe
    }

    /// The next line, or `None` at the end (Ctrl-D, or the end of the script). Ctrl-C at the
    /// prompt gives an empty line, as in other shells. Each line typed is in the history file
    /// at once, so a shell ended by a signal loses none.
    fn next(&mut self) -> Option<String> {
        match self {
            Input::Terminal(editor, pasted) => {
                if let Some(line) = pasted.pop_front() {
                    errln!("sonde> {line}");
                    return Some(line);
                }
                match editor.readline("sonde> ") {
                    // A paste of several lines is several commands, run in order.
                    Ok(text) => {
                        let mut lines =
                            text.split(['\n', '\r']).filter(|l| !l.trim().is_empty()).map(str::to_owned);
                        let first = lines.next().unwrap_or_default();
                        pasted.extend(lines);
                        for line in std::iter::once(&first).chain(pasted.iter()) {
                            remember(editor, line);
                        }
                        Some(first)
                    }
                    Err(rustyline::error::ReadlineError::Interrupted) => Some(String::new()),
                    Err(_) => None,
                }
            }
            Input::Pipe => {
                let mut line = String::new();
                match std::io::stdin().read_line(&mut line) {
                    Ok(0) | Err(_) => None,
                    Ok(_) => Some(line.trim_end_matches(['\n', '\r']).to_owned()),
                }
            }
        }
    }
}

/// Puts `line` in the history, and the history in its file at once.
fn remember(editor: &mut Editor, line: &str) {
    let _ = editor.add_history_entry(line);
    if let Some(path) = history() {
        let _ = editor.save_history(&path);
    }
}

/// The history file, beside the sessions directory. A script has none: its run makes no
/// history file (nor the data directory again, when it was removed meanwhile).
fn history() -> Option<std::path::PathBuf> {
    let dir = sonde_core::sessions_dir().ok()?.parent()?.to_path_buf();
    // What was typed may hold secrets: the history is private (0600 in a 0700 directory).
    let path = dir.join("shell-history");
    sonde_core::append_private(&path).ok()?;
    Some(path)
}

/// Runs the shell on `session` until the input ends or `exit`. The exit code is the first
/// failure's (a script stops being trusted once a step failed), or 0.
pub async fn run(session: &Session, json: bool) -> Result<i32, RequestError> {
    let names = Arc::new(Mutex::new(Names::default()));
    let mut input = Some(Input::open(&names));
    if matches!(input, Some(Input::Terminal(..))) {
        // For Tab: what the server lists, once, before the first prompt.
        *names.locked() = Names::listed(session).await;
    }
    let mut code = OK;
    let _interrupts = Interrupts::owned();
    noteln!("sonde: shell on one connection; help lists the commands; Ctrl-C stops a command, Ctrl-D leaves");
    loop {
        // The reading blocks (a terminal, a pipe): off the runtime's threads.
        let mut taken = input.take().expect("put back after each line");
        let (taken, line) = tokio::task::spawn_blocking(move || {
            let line = taken.next();
            (taken, line)
        })
        .await
        .expect("the line reader does not panic");
        input = Some(taken);
        let Some(line) = line else { break };
        let step = match parse(&line) {
            Ok(Some(step)) => step,
            Ok(None) => continue,
            Err(e) => {
                errln!("sonde: {e}");
                code = if code == OK { FAILED } else { code };
                continue;
            }
        };
        let done = match step {
            Step::Exit => break,
            Step::Help => {
                errln!("{HELP}");
                Ok(OK)
            }
            Step::Log(filter) => log(session, &filter),
            // Ctrl-C stops this command, not the shell: its requests are cancelled (a listen
            // ended), and the prompt comes back.
            Step::Run(op) => tokio::select! {
                done = ops::run(session, op, json) => done,
                _ = tokio::signal::ctrl_c() => {
                    session.conn.cancel_all("interrupted by the user");
                    errln!("sonde: interrupted; the command was cancelled (Ctrl-D leaves the shell)");
                    Ok(OK)
                }
            },
        };
        match done {
            Ok(OK) => {}
            Ok(failed) => code = if code == OK { failed } else { code },
            // The connection is gone: nothing after this can run.
            Err(e @ RequestError::Gone(_)) => return Err(e),
            Err(e) => {
                errln!("sonde: {e}");
                code = if code == OK { FAILED } else { code };
            }
        }
    }
    Ok(code)
}

/// Whether the shell takes Ctrl-C itself (a command of it running, or its prompt): then the
/// command line's own handler, which ends the run, lets it be.
static OWNS_INTERRUPTS: AtomicBool = AtomicBool::new(false);

pub fn owns_interrupts() -> bool {
    OWNS_INTERRUPTS.load(Ordering::SeqCst)
}

/// Ctrl-C belongs to the shell while this lives.
struct Interrupts;

impl Interrupts {
    fn owned() -> Interrupts {
        OWNS_INTERRUPTS.store(true, Ordering::SeqCst);
        Interrupts
    }
}

impl Drop for Interrupts {
    fn drop(&mut self) {
        OWNS_INTERRUPTS.store(false, Ordering::SeqCst);
    }
}

/// This session's log, filtered, one entry a line.
fn log(session: &Session, filter: &str) -> Result<i32, RequestError> {
    let filter = match Filter::parse_whole(filter) {
        Ok(filter) => filter,
        Err(e) => {
            errln!("sonde: {e}");
            return Ok(FAILED);
        }
    };
    let entries = session.conn.log().entries(&filter).map_err(|e| RequestError::Protocol(e.to_string()))?;
    for entry in &entries {
        outln!("{}", print::entry(entry, false));
    }
    if entries.is_empty() {
        errln!("sonde: no entry matches");
    }
    Ok(OK)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_read_as_steps_and_mistakes_are_named() {
        assert!(matches!(parse("call echo text='hi there'"), Ok(Some(Step::Run(Op::Call { .. })))));
        assert!(matches!(parse("  # a comment"), Ok(None)));
        assert!(matches!(parse(""), Ok(None)));
        assert!(matches!(parse("log kind:lifecycle"), Ok(Some(Step::Log(f))) if f == "kind:lifecycle"));
        assert_eq!(
            parse("tols").err().unwrap(),
            "there is no command tols; did you mean tools?; help lists the commands"
        );
        assert_eq!(parse("call").err().unwrap(), "call needs a tool name");
        assert!(parse("listen tools x").err().unwrap().contains("not a kind or a count"));
    }
}
