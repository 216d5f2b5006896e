//! The command line: global options, subcommands, and turning them into a server config.

use std::path::PathBuf;
use std::time::Duration;

use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::{Args, Parser, Subcommand, ValueEnum};
use sonde_core::{
    ElicitAnswer, EraPolicy, ExportFormat, Header, HttpTarget, HttpTimeouts, ServerConfig, SpawnSpec,
};

/// The exit codes of every command (`../shared/contracts.md`), as `sonde --help` and the man
/// page print them.
pub const EXIT_CODES: &str = "Exit codes:
  0    done; nothing wrong found
  1    the server or the connection failed: could not start, died, timed out, a transport error, or a JSON-RPC error answer
  2    usage: a bad option, argument, file or filter
  3    a tool answered with isError: true
  4    the server broke the protocol in an answer (a result without its required fields, structuredContent against its outputSchema)
  5    a check found what it looks for: doctor a fail, diff a breaking change, replay a difference, test a failing test, load a broken budget
  130  interrupted (Ctrl-C)
When two apply, the lowest non-zero code other than 2 wins.";

#[derive(Parser, Debug)]
#[command(
    name = "sonde",
    version = crate::VERSION,
    about = "Inspect MCP servers: every byte on the wire, every process owned.",
    after_help = EXIT_CODES
)]
pub struct Cli {
    #[command(flatten)]
    pub global: Global,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Args, Debug, Clone)]
pub struct Global {
    /// Request timeout and connect (handshake) deadline, in milliseconds.
    #[arg(help_heading = "Server process", long, global = true, value_name = "MS", default_value_t = 60_000)]
    pub timeout: u64,
    /// Shutdown: how long to wait after closing stdin before SIGTERM.
    #[arg(help_heading = "Server process", long, global = true, value_name = "MS", default_value_t = 2_000)]
    pub grace_stdin: u64,
    /// Shutdown: how long to wait after SIGTERM before SIGKILL.
    #[arg(help_heading = "Server process", long, global = true, value_name = "MS", default_value_t = 2_000)]
    pub grace_term: u64,
    /// A variable for the server's environment (repeatable). Only PATH, HOME, USER, LOGNAME,
    /// SHELL, TERM and LANG are passed through unless --inherit-env is given.
    #[arg(help_heading = "Server process", long = "env", global = true, value_name = "K=V", value_parser = parse_env)]
    pub env: Vec<(String, String)>,
    /// Say nothing on stderr but errors, warnings and the server's own words: no session log
    /// path, progress, counts or waits (for scripts; the exit code tells how it went).
    #[arg(short, long, global = true)]
    pub quiet: bool,
    /// Pass Sonde's whole environment to the server.
    #[arg(help_heading = "Server process", long, global = true)]
    pub inherit_env: bool,
    /// Copy the server's stderr to Sonde's stderr as it arrives, each line prefixed `server: `.
    #[arg(help_heading = "Server process", long, global = true)]
    pub stderr: bool,
    /// The server's working directory.
    #[arg(help_heading = "Server process", long, global = true, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
    /// The longest stdout line kept whole, in bytes (default 64 MiB).
    #[arg(help_heading = "Server process", long, global = true, value_name = "BYTES", default_value_t = sonde_core::DEFAULT_MAX_LINE)]
    pub max_line: usize,
    /// Start a trace for each request Sonde sends: a W3C traceparent in its _meta, so a server
    /// that traces with OpenTelemetry joins it. Sonde's span of the request (sent live with
    /// OTEL_EXPORTER_OTLP_ENDPOINT, or by export --format otlp) is the trace's first.
    #[arg(help_heading = "Server process", long, global = true)]
    pub trace: bool,
    /// Protocol era: auto probes with server/discover and falls back to initialize; legacy
    /// sends initialize (2025-11-25); modern speaks 2026-07-28 only.
    #[arg(
        help_heading = "Protocol era",
        long,
        global = true,
        value_name = "auto|legacy|modern",
        default_value = "auto"
    )]
    pub era: EraPolicy,
    /// Connect as this host does: its clientInfo, protocol version, client capabilities and
    /// HTTP headers (claude-desktop, claude-code, chatgpt, vscode, cursor; its era replaces
    /// --era), and hold each tool's result to the size it takes; sonde doctor also checks the
    /// host's limits.
    #[arg(help_heading = "Protocol era", long, global = true, value_name = "HOST")]
    pub host: Option<String>,
    /// How long to wait for the server/discover probe before also sending initialize on the
    /// same process; whichever answers first decides the era.
    #[arg(help_heading = "Protocol era", long, global = true, value_name = "MS", default_value_t = 3_000)]
    pub probe_timeout: u64,
    /// Ignore and do not update the cached era verdict of this server.
    #[arg(help_heading = "Protocol era", long, global = true)]
    pub no_era_cache: bool,
    /// Answer the server's elicitation requests: accept:JSON, defaults (accept with each
    /// field's schema default), decline or cancel.
    #[arg(
        help_heading = "Answering the server",
        long,
        global = true,
        value_name = "accept:JSON|defaults|decline|cancel"
    )]
    pub elicit: Option<ElicitAnswer>,
    /// Answer the server's sampling requests with this text.
    #[arg(help_heading = "Answering the server", long, global = true, value_name = "TEXT")]
    pub sample_reply: Option<String>,
    /// Ask the server for log messages at this level (debug, info, notice, warning, error, …).
    #[arg(help_heading = "Answering the server", long, global = true, value_name = "LEVEL")]
    pub log_level: Option<sonde_core::LogLevel>,
    /// A directory offered to the server as a root (repeatable).
    #[arg(help_heading = "Answering the server", long = "root", global = true, value_name = "PATH")]
    pub roots: Vec<PathBuf>,
    /// Talk to an HTTP server at this URL instead of starting a command (Streamable HTTP in
    /// either era; the 2024-11-05 HTTP+SSE transport is found when that is refused).
    #[arg(help_heading = "HTTP servers", long, global = true, value_name = "URL")]
    pub url: Option<String>,
    /// An extra HTTP request header, `Name: value` (repeatable).
    #[arg(help_heading = "HTTP servers", long = "header", global = true, value_name = "NAME:VALUE")]
    pub headers: Vec<String>,
    /// An extra HTTP header whose value is a secret: sent, never recorded (repeatable).
    /// Authorization, Cookie and names with token, secret, key, password or credential in them
    /// (X-Auth-Key) are secret anyway.
    #[arg(help_heading = "HTTP servers", long = "secret-header", global = true, value_name = "NAME:VALUE")]
    pub secret_headers: Vec<String>,
    /// Sends `Authorization: Bearer TOKEN` (never recorded).
    #[arg(help_heading = "HTTP servers", long, global = true, value_name = "TOKEN")]
    pub bearer: Option<String>,
    /// HTTP: how long opening a connection may take.
    #[arg(help_heading = "HTTP servers", long, global = true, value_name = "MS", default_value_t = 10_000)]
    pub connect_timeout: u64,
    /// HTTP: how long a response's headers may take (default: --timeout).
    #[arg(help_heading = "HTTP servers", long, global = true, value_name = "MS")]
    pub headers_timeout: Option<u64>,
    /// HTTP: the longest silence on a response stream before it is given up.
    #[arg(help_heading = "HTTP servers", long, global = true, value_name = "MS", default_value_t = 300_000)]
    pub idle_timeout: u64,
    /// OAuth: a client id registered beforehand with the server's authorization server (else
    /// Sonde registers itself where the server allows it).
    #[arg(help_heading = "Authorization (OAuth)", long, global = true, value_name = "ID")]
    pub client_id: Option<String>,
    /// OAuth: the secret of --client-id, if it has one (never recorded).
    #[arg(
        help_heading = "Authorization (OAuth)",
        long,
        global = true,
        value_name = "SECRET",
        requires = "client_id"
    )]
    pub client_secret: Option<String>,
    /// OAuth: the scopes to ask for, space-separated (default: what the server asks for).
    #[arg(help_heading = "Authorization (OAuth)", long, global = true, value_name = "SCOPES")]
    pub scope: Option<String>,
    /// OAuth: an HTTPS URL serving Sonde's Client ID Metadata Document, used as the client id
    /// where the authorization server supports them.
    #[arg(help_heading = "Authorization (OAuth)", long, global = true, value_name = "URL")]
    pub client_metadata_url: Option<String>,
    /// OAuth: print the authorization URL instead of opening a browser.
    #[arg(help_heading = "Authorization (OAuth)", long, global = true)]
    pub no_browser: bool,
}

fn parse_env(s: &str) -> Result<(String, String), String> {
    match s.split_once('=') {
        Some((k, v)) if !k.is_empty() => Ok((k.to_owned(), v.to_owned())),
        _ => Err(format!("{s:?} is not K=V")),
    }
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Tools of a server.
    Tools {
        #[command(subcommand)]
        action: ListAction,
    },
    /// Call a tool and print its result (progress on stderr, outputSchema checked). A call that
    /// becomes a task is followed to its result, its status changes on stderr.
    Call {
        /// The tool's name.
        tool: String,
        /// Arguments as KEY=VALUE (VALUE is JSON when it parses, else a string; `a.b=1` nests).
        #[arg(value_name = "KEY=VALUE")]
        pairs: Vec<String>,
        /// The arguments, a JSON object: the text, @FILE, or - for stdin.
        #[arg(long, value_name = "JSON|@FILE|-")]
        args: Option<String>,
        /// Run it as a task where the tool makes that optional (2025-11-25 `taskSupport:
        /// optional`); a tool that requires a task always runs as one.
        #[arg(long)]
        task: bool,
        /// Call the tool even when the server does not list it (servers may accept tools they do
        /// not list); otherwise a name not listed is not called, the closest are named, exit 2.
        #[arg(long)]
        unlisted: bool,
        #[command(flatten)]
        common: Common,
    },
    /// Call a tool many times and measure how the server holds up: an open loop by default
    /// (--rate calls a second for --duration, each latency from when the call was due, so a
    /// stall shows in the tail), or --concurrency callers (a closed loop); --stages for stepped
    /// load, --mix for a weighted mix of tools, resource reads and prompts; `{{seq}}` and
    /// `{{rand}}` in argument values are filled per call. A progress line each second on
    /// stderr, the report at the end (latency p50 to max from an HDR histogram, errors by kind,
    /// the rate reached, each second, the server's CPU and memory where Sonde owns its
    /// process). Exit 5 when --slo is broken (without one: when any call failed), 1 when the
    /// server died, 130 on Ctrl-C (sending stops, calls in flight are waited for, the report
    /// is printed). Every call is in the session log.
    Load(LoadArgs),
    /// Tasks of a server (2025-11-25 tasks, the 2026-07-28 tasks extension). A server that keeps
    /// its tasks between connections (over HTTP) answers about tasks of an earlier run.
    Tasks {
        #[command(subcommand)]
        action: TasksAction,
    },
    /// The server's interface as one JSON document, in a stable order so two diff cleanly:
    /// serverInfo, the era and whether the client forced it, capabilities, instructions, and
    /// every tool, prompt, resource and template, each listing followed to its end. Printed, or
    /// --out FILE (an existing file is replaced only with --force).
    Snapshot {
        /// Write it to FILE instead of printing it.
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
        /// Replace FILE if it exists; without it an existing file is left as it is.
        #[arg(long)]
        force: bool,
        #[command(flatten)]
        common: Common,
    },
    /// What changed between two snapshots (files of sonde snapshot, or sessions standing in
    /// for them with the interface as they listed it), or between OLD and the server after
    /// `--` (or --url), each change breaking, a change, or an addition. Exit 5 when something
    /// breaks a client, 0 when nothing does.
    Diff {
        /// The earlier side: a snapshot file, or a session (`last`, a name or a path).
        #[arg(required_unless_present = "baseline")]
        old: Option<String>,
        /// The later side, as OLD (or give a server after `--`).
        new: Option<String>,
        /// Compare the server after `--` (or --url) with its baseline: the interface it was
        /// last accepted with (kept per command line and directory, or URL). The first time,
        /// its interface becomes the baseline.
        #[arg(long, conflicts_with = "old")]
        baseline: bool,
        /// Make the server's interface now its baseline (after saying what changed); exit 0.
        #[arg(long, requires = "baseline")]
        accept: bool,
        #[command(flatten)]
        common: Common,
    },
    /// Sends a recorded session's requests again to the server after `--` (or --url), in
    /// order and as recorded, and judges each answer against the recorded one: `same`;
    /// `differs` with each differing path and both values; `gone` for a call of a tool or
    /// prompt the server no longer lists (still sent, unless --skip-gone); `changed` for a
    /// listing whose items changed, each change with diff's verdict and said once. Only the
    /// server's tokens (a cursor, a task id) are replaced by the new server's, by where they
    /// came from; names, URIs and arguments never. Rules come from --rules, else from
    /// `.sonde-replay.yaml` in the working directory when there is one, then the flags. Exit 5
    /// when an answer differs, a call is gone or a listing has a breaking change (with
    /// --strict: any difference, or a rule that matched nothing), 0 otherwise.
    Replay {
        /// The recorded session: `last`, a name in the sessions folder, or a path (one
        /// `sonde proxy` recorded replays the same way).
        session: String,
        /// A path whose differences are expected, for every request (`result.content[*].text`)
        /// or for one method and name (`tools/call get_time:result.content[*].text`); each
        /// ignored path is named once, and a rule that matched nothing is said. Repeatable.
        /// The `_meta` a server stamps is ignored.
        #[arg(long, value_name = "RULE")]
        ignore: Vec<String>,
        /// Values that differ by nature, wherever they are: `uuid`, `iso-time`, `epoch` (a
        /// comma-separated list of these), or a regular expression. A string differs only if
        /// it differs outside such values. Repeatable.
        #[arg(long, value_name = "PATTERNS")]
        ignore_values: Vec<String>,
        /// A replay file (YAML: `ignore`, `ignore-values`, `strict`, `skip-gone`); by default
        /// `.sonde-replay.yaml` in the working directory, when there is one.
        #[arg(long, value_name = "FILE")]
        rules: Option<PathBuf>,
        /// Fail on any difference: a listing's change or addition too, and a rule that matched
        /// nothing.
        #[arg(long)]
        strict: bool,
        /// Do not send a call of a tool or prompt the server no longer lists (it is still
        /// reported as gone).
        #[arg(long)]
        skip_gone: bool,
        #[command(flatten)]
        common: Common,
    },
    /// Runs the server after `--` and restarts it when its source changes: on each change
    /// (after --build, if given, succeeds) the old server is stopped with the shutdown ladder
    /// and the new one started, what the change did to its interface is printed (breaking
    /// changes first, or "interface unchanged"), and --call, --test or --replay runs again, its
    /// answer set beside the previous one when it differs. A server that fails to start prints
    /// its last words and the next change tries again. Ctrl-C stops the server and exits 130.
    Watch(WatchArgs),
    /// Runs a suite of saved calls with expectations against the server after `--` (or
    /// --url): a YAML (or JSON) file of `tests:`, each a `call` (with `args`), `read`,
    /// `prompt`, `skill` (with `file`) or `method` (with `params`), and what its answer must
    /// hold (`isError`, `text`, `structured`, `schema`, `within_ms`). A call of a tool the
    /// server does not list fails unless the test says `unlisted: true`; an answer that breaks
    /// the protocol, or a skill file that is not what its entry lists, fails whatever is
    /// expected. One line a test; exit 5 when one fails, 0 when all pass.
    Test {
        /// The suite file.
        file: PathBuf,
        /// The report: a line a test (text), one JSON document with totals (json), JUnit XML
        /// (junit) or SARIF 2.1.0 (sarif), which CI systems read; written even when the server
        /// cannot start, as one error with its last words.
        #[arg(long, value_enum, default_value_t = Reporter::Text)]
        reporter: Reporter,
        /// Write the report to FILE (the lines still go to stdout).
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
        #[command(flatten)]
        common: Common,
    },
    /// Protocol version and how it was decided, serverInfo, capabilities, instructions.
    Info {
        #[command(flatten)]
        common: Common,
    },
    /// Resources of a server.
    Resources {
        #[command(subcommand)]
        action: ResourcesAction,
    },
    /// Prompts of a server.
    Prompts {
        #[command(subcommand)]
        action: PromptsAction,
    },
    /// Skills of a server (the io.modelcontextprotocol/skills extension): list them, and read a
    /// skill's files, each verified against its entry (digest, size, frontmatter).
    Skills {
        #[command(subcommand)]
        action: SkillsAction,
    },
    /// Ask for completions of a prompt or resource-template argument.
    #[command(group(clap::ArgGroup::new("reference").required(true).args(["prompt", "resource"])))]
    Complete {
        /// Complete an argument of this prompt.
        #[arg(long, value_name = "NAME")]
        prompt: Option<String>,
        /// Complete a variable of this resource template (its URI template).
        #[arg(long, value_name = "TEMPLATE")]
        resource: Option<String>,
        /// The argument being completed.
        #[arg(long, value_name = "NAME")]
        argument: String,
        /// What has been typed so far.
        #[arg(long, value_name = "TEXT", default_value = "")]
        value: String,
        /// Values of other arguments already chosen, a JSON object of strings.
        #[arg(long, value_name = "JSON")]
        context: Option<String>,
        #[command(flatten)]
        common: Common,
    },
    /// Print change notifications as they arrive (2026-07-28 subscriptions/listen; in
    /// 2025-11-25 resources/subscribe and the unprompted list_changed notifications).
    Listen {
        /// Hear changes to the tools list (tools/list_changed). With none of --tools, --prompts,
        /// --resources and --resource, every change notification is heard.
        #[arg(long)]
        tools: bool,
        /// Hear changes to the prompts list (prompts/list_changed).
        #[arg(long)]
        prompts: bool,
        /// Hear changes to the resources list (resources/list_changed).
        #[arg(long)]
        resources: bool,
        /// Subscribe to updates of this resource (repeatable).
        #[arg(long = "resource", value_name = "URI")]
        resource: Vec<String>,
        /// Stop after this many notifications (default: until interrupted or ended by the server).
        #[arg(long, value_name = "N")]
        count: Option<usize>,
        #[command(flatten)]
        common: Common,
    },
    /// Keep one connection open and run commands on it, typed at a prompt (with line editing
    /// and history) or read from a pipe as a script: tools, call NAME K=V…, read URI, prompt
    /// NAME K=V…, listen, log FILTER, help.
    Shell {
        #[command(flatten)]
        common: Common,
    },
    /// Check a server over, as a server author would before shipping it: the opening exchange,
    /// ping, an unknown method (-32601), invalid params (-32602), its tools' schemas, its
    /// listings to the end, stdout, every protocol rule its frames broke, and whether it exits
    /// when stdin closes, in each era it answers (a server that answers server/discover is
    /// checked with initialize too, each check naming its era). Each check says pass, warn or
    /// fail, and the seq of its evidence in the session log (`sonde log last`). Each probe
    /// waits 10 s for its answer, or --timeout when given. Exit 0 when nothing fails, 5 when a
    /// check fails, 1 when the server cannot be opened at all.
    Doctor {
        /// Also call TOOL and cancel it once it runs, to check that cancelling is honoured (off
        /// by default: a tool call has effects).
        #[arg(long, value_name = "TOOL")]
        call: Option<String>,
        /// The arguments of the --call, a JSON object: the text, @FILE, or - for stdin.
        #[arg(long, value_name = "JSON|@FILE|-", requires = "call")]
        args: Option<String>,
        /// The report: a line a check (text), one JSON document with totals (json), JUnit XML
        /// (junit) or SARIF 2.1.0 (sarif), which CI systems read, a check a case (a fail a
        /// failure, a skip skipped, a warn passing with its warning); written even when the
        /// server cannot start, as one error with its last words. --json keeps its own document.
        #[arg(long, value_enum, default_value_t = Reporter::Text)]
        reporter: Reporter,
        /// Write the report to FILE (the lines, or --json's document, still go to stdout).
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
        /// The budget of the tool definitions a host sends in every request, in tokens
        /// (estimated at 4 bytes a token); past it, context-cost warns.
        #[arg(long, value_name = "TOKENS", default_value_t = sonde_core::TOKEN_BUDGET)]
        token_budget: u64,
        #[command(flatten)]
        common: Common,
    },
    /// Stand between a client and a server, recording every message. stdio: put `sonde proxy --`
    /// before the server's command in the client's config. Bytes pass through unchanged both
    /// ways; the server gets the environment and working directory the client gave the proxy,
    /// and the same kind of stderr (a pipe for a pipe), where what it writes reaches the client
    /// as it wrote it; Sonde adds nothing there (find the session with `sonde sessions`). When
    /// the client closes stdin the server is
    /// stopped with the shutdown ladder; the proxy exits with the server's exit code. HTTP:
    /// `sonde proxy --listen 127.0.0.1:PORT --url URL`, then point the client at the same path
    /// on http://127.0.0.1:PORT; requests and streams are forwarded as they come.
    Proxy {
        /// A name for the session: `sonde sessions` shows it, and `--session NAME` (`sonde log`,
        /// `export`, `replay`) finds the newest session of that name. Without it, the session
        /// is listed by its client's name from its clientInfo.
        #[arg(long, value_name = "NAME")]
        name: Option<String>,
        /// Serve HTTP on this loopback address (port 0 picks a free one) and forward to --url.
        #[arg(long, value_name = "ADDR", requires = "url", conflicts_with = "command")]
        listen: Option<std::net::SocketAddr>,
        /// The Streamable HTTP (or 2024-11-05 SSE) server the HTTP proxy forwards to.
        #[arg(long, value_name = "URL", requires = "listen")]
        url: Option<String>,
        /// The server command line, after `--`.
        #[arg(last = true, value_name = "CMD", required_unless_present = "listen")]
        command: Vec<String>,
    },
    /// Route a client's stdio servers through `sonde proxy`, so every session it has with them
    /// is recorded: prints the client's config with the change (or writes it with --write,
    /// after a timestamped backup). Everything else in the file stays as it was.
    Wrap(WrapArgs),
    /// Undo `sonde wrap`: the servers get their own command lines back.
    Unwrap(WrapArgs),
    /// Print a recorded session.
    Log(LogArgs),
    /// Write a recorded session (or what --filter keeps of it) to a file: JSONL, the HTTP
    /// exchanges as HAR 1.2, or an HTML report, with every saved server's secrets redacted.
    /// An existing file is replaced only with --force.
    Export(ExportArgs),
    /// List the recorded sessions, newest first: when, which program and servers, size. The
    /// oldest are removed when the folder outgrows its budget (the settings file's
    /// `sessions.keep` and `sessions.maxBytes`), never a pinned one.
    Sessions {
        /// One JSON object per session on stdout.
        #[arg(long)]
        json: bool,
        /// Pin the session NAME (`last`, a file name, a `sonde proxy --name` or a path): it is never removed to keep the
        /// sessions folder within its budget.
        #[arg(long, value_name = "NAME", conflicts_with = "unpin")]
        pin: Option<String>,
        /// Unpin the session NAME: it goes when it is among the oldest again.
        #[arg(long, value_name = "NAME")]
        unpin: Option<String>,
    },
    /// Credentials kept from authorizing with OAuth-protected servers.
    Auth {
        #[command(subcommand)]
        action: AuthAction,
    },
    /// Run the bundled demo MCP server on stdio.
    DemoServer,
    /// Print a completion script for bash, zsh or fish.
    ///
    /// The package installs them; by hand:
    /// `sonde completions bash > ~/.local/share/bash-completion/completions/sonde`.
    Completions {
        /// bash, zsh or fish (also elvish, powershell).
        shell: clap_complete::Shell,
    },
    /// Write the manual pages (sonde.1 and one per subcommand) into DIR; the package build runs it.
    #[command(hide = true)]
    ManPages {
        /// Where to write them.
        dir: PathBuf,
    },
    /// Write the guide's reference pages (cli.md, filter.md) into DIR; `make docs` runs it.
    #[command(hide = true)]
    Reference {
        /// Where to write them.
        dir: PathBuf,
    },
    /// The client the official MCP conformance harness runs: `sonde conformance-client URL`,
    /// with the scenario, revision and context from the MCP_CONFORMANCE_* environment.
    ConformanceClient {
        /// The mock server's URL (the harness appends it).
        url: String,
    },
}

#[derive(Subcommand, Debug)]
pub enum ListAction {
    /// Connect, list every item (following nextCursor), shut down gracefully.
    List {
        #[command(flatten)]
        common: Common,
    },
}

#[derive(Subcommand, Debug)]
pub enum AuthAction {
    /// Which servers Sonde holds tokens for: the server, its authorization server, the client,
    /// the scopes and when the token expires (never the token).
    List {
        /// A JSON array of the credentials on stdout (`[]` when none is kept).
        #[arg(long)]
        json: bool,
    },
    /// Forget the credentials of the server at URL, or of every server.
    Logout {
        /// The server's URL, as given to --url (default: every server).
        url: Option<String>,
    },
}

#[derive(Subcommand, Debug)]
pub enum TasksAction {
    /// List the server's tasks (2025-11-25 `tasks/list`; the 2026-07-28 extension has none).
    List {
        #[command(flatten)]
        common: Common,
    },
    /// A task's state now (`tasks/get`).
    Get {
        /// The task's id.
        id: String,
        #[command(flatten)]
        common: Common,
    },
    /// Ask the server to cancel a task (`tasks/cancel`).
    Cancel {
        /// The task's id.
        id: String,
        #[command(flatten)]
        common: Common,
    },
}

#[derive(Subcommand, Debug)]
pub enum ResourcesAction {
    /// List every resource.
    List {
        #[command(flatten)]
        common: Common,
    },
    /// List every resource template.
    Templates {
        #[command(flatten)]
        common: Common,
    },
    /// Read one resource.
    Read {
        uri: String,
        #[command(flatten)]
        common: Common,
    },
}

#[derive(Subcommand, Debug)]
pub enum SkillsAction {
    /// List every skill (reads no file): name, URI, description, files, and what is wrong with
    /// an entry. Exits 4 when an entry is invalid or wrong.
    List {
        #[command(flatten)]
        common: Common,
    },
    /// Print a skill's SKILL.md (or --file), verified: a digest, size or frontmatter that does
    /// not match exits 4 with both values, and prints the content only with --unverified.
    Get {
        /// The skill: its name (refused when several share it) or its SKILL.md's URI.
        #[arg(value_name = "NAME|URI")]
        skill: String,
        /// Another file of the skill: its path within the skill, or its URI.
        #[arg(long, value_name = "PATH")]
        file: Option<String>,
        /// Write every file of the skill under DIR, each verified (one that fails is not written).
        #[arg(long, value_name = "DIR", conflicts_with = "file")]
        out: Option<std::path::PathBuf>,
        /// Print content that failed verification, marked so on stderr.
        #[arg(long)]
        unverified: bool,
        #[command(flatten)]
        common: Common,
    },
}

#[derive(Subcommand, Debug)]
pub enum PromptsAction {
    /// List every prompt.
    List {
        #[command(flatten)]
        common: Common,
    },
    /// Get a prompt with its arguments filled in.
    Get {
        name: String,
        /// Arguments as KEY=VALUE (prompt arguments are strings).
        #[arg(value_name = "KEY=VALUE")]
        pairs: Vec<String>,
        /// The arguments, a JSON object of strings: the text, @FILE, or - for stdin.
        #[arg(long, value_name = "JSON|@FILE|-")]
        args: Option<String>,
        #[command(flatten)]
        common: Common,
    },
}

/// What every server command takes: `--json` and the server after `--`.
#[derive(Args, Debug, Default)]
pub struct Common {
    /// Print JSON on stdout.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub server: Server,
}

#[derive(Args, Debug, Default)]
pub struct Server {
    /// The server command line, after `--` (or give --url instead).
    #[arg(last = true, value_name = "CMD")]
    pub command: Vec<String>,
}

/// `sonde load`'s options (see the command's help).
#[derive(Args, Debug)]
pub struct LoadArgs {
    /// The tool's name (or give --mix).
    #[arg(required_unless_present = "mix")]
    pub tool: Option<String>,
    /// Arguments as KEY=VALUE, as `sonde call` takes them.
    #[arg(value_name = "KEY=VALUE")]
    pub pairs: Vec<String>,
    /// The arguments, a JSON object: the text, @FILE, or - for stdin.
    #[arg(long, value_name = "JSON|@FILE|-")]
    pub args: Option<String>,
    /// Calls a second (open loop). Default 10.
    #[arg(long, value_name = "R", conflicts_with_all = ["concurrency", "stages"])]
    pub rate: Option<String>,
    /// How long to send, counted after the warm-up: 30s, 500ms, 2m, or seconds. Default 10s
    /// (or until --count).
    #[arg(long, value_name = "D", conflicts_with = "stages")]
    pub duration: Option<String>,
    /// Stop after N calls (counted after the warm-up).
    #[arg(long, value_name = "N")]
    pub count: Option<u64>,
    /// A closed loop of C callers, each sending its next call when the last is answered
    /// (latency from when each was sent), instead of a rate.
    #[arg(long, value_name = "C", conflicts_with = "stages")]
    pub concurrency: Option<usize>,
    /// Send for this long first without counting: warm caches and JITs.
    #[arg(long, value_name = "D")]
    pub warmup: Option<String>,
    /// Stepped load, each step a rate held for a while: "10/s:10s,100/s:10s,500/s:10s".
    #[arg(long, value_name = "STEPS")]
    pub stages: Option<String>,
    /// A weighted mix of calls instead of one tool: a YAML or JSON list of entries, each
    /// `tool:` (with `arguments:`), `resource:` (a URI) or `prompt:` (with `arguments:`),
    /// and `weight:` (default 1).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["tool", "args"])]
    pub mix: Option<PathBuf>,
    /// A budget the run must hold, terms joined by commas: p50|p90|p99|p999|max<DURATION,
    /// errors<PERCENT% or errors<COUNT, rate>CALLS_A_SECOND. Broken: exit 5.
    #[arg(long, value_name = "TERMS")]
    pub slo: Option<String>,
    /// Over HTTP (--url): spread the calls over N sessions of their own, in turn (over stdio,
    /// one server takes every call, pipelined on its connection).
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub connections: usize,
    /// Seeds {{rand}}, so a run can be sent again the same.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub seed: u64,
    /// The report: the text report (text), the JSON document (json), JUnit XML (junit) or
    /// SARIF 2.1.0 (sarif), a case a budget term.
    #[arg(long, value_enum, default_value_t = Reporter::Text)]
    pub reporter: Reporter,
    /// Write the report to FILE (the text report, or --json's document, still goes to stdout).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    #[command(flatten)]
    pub common: Common,
}

#[derive(Args, Debug)]
pub struct WatchArgs {
    /// A file or folder to watch (repeatable; folders recursively). By default, the folder of
    /// the script or program the command names, else the working directory.
    #[arg(long = "path", value_name = "P")]
    pub paths: Vec<PathBuf>,
    /// Files whose change is no change, as .gitignore lines (repeatable). Always left out:
    /// .gitignore'd files, target/, node_modules/, __pycache__/, .git/ and editors' swap files.
    #[arg(long, value_name = "GLOB")]
    pub ignore: Vec<String>,
    /// A command run through sh before each restart, its output shown; when it fails, the
    /// server is not restarted.
    #[arg(long, value_name = "CMD")]
    pub build: Option<String>,
    /// How long the files must be quiet before a change counts, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 300)]
    pub debounce: u64,
    /// After each start, call a tool: its name, then K=V arguments as `sonde call` takes them.
    #[arg(long, value_name = "NAME [K=V]...", num_args = 1.., conflicts_with_all = ["test", "replay"])]
    pub call: Vec<String>,
    /// After each start, run this test suite (as `sonde test` does).
    #[arg(long, value_name = "SUITE", conflicts_with = "replay")]
    pub test: Option<PathBuf>,
    /// After each start, replay this session's requests (as `sonde replay` does).
    #[arg(long, value_name = "SESSION")]
    pub replay: Option<String>,
    #[command(flatten)]
    pub server: Server,
}

#[derive(Args, Debug)]
pub struct WrapArgs {
    /// The client whose config to edit: claude-desktop, cursor, vscode (the workspace's
    /// .vscode/mcp.json) or claude-code.
    #[arg(long, value_name = "CLIENT", value_parser = ["claude-desktop", "cursor", "vscode", "claude-code"])]
    pub client: String,
    /// Only this server (default: every stdio server in the config).
    #[arg(long, value_name = "NAME")]
    pub server: Option<String>,
    /// The config file (default: where the client keeps it).
    #[arg(long, value_name = "PATH")]
    pub config: Option<PathBuf>,
    /// Write the file (after copying it to PATH.sonde-backup-TIME) instead of printing it.
    #[arg(long)]
    pub write: bool,
}

#[derive(Args, Debug)]
pub struct LogArgs {
    /// One JSON entry per line on stdout.
    #[arg(long)]
    pub json: bool,
    /// The session, as `--session` takes it (`sonde log last`).
    #[arg(value_name = "SESSION", conflicts_with = "session")]
    pub which: Option<String>,
    /// `last` (the most recent), a session's file name as `sonde sessions` lists it (`.jsonl`
    /// may be left off), the name given with `sonde proxy --name` (the newest session of that
    /// name), or a path to a session file.
    #[arg(long, value_name = "NAME|PATH|last", default_value = "last")]
    pub session: String,
    /// Print each frame whole instead of clipped to one line.
    #[arg(long)]
    pub full: bool,
    /// Terms like `kind:lifecycle dir:in method:tools/call id:3 conn:1 diag:error hide:stderr` (keys and values in
    /// any case, ids as written);
    /// other words are text, and double quotes group words: `"Error: not found"`.
    #[arg(long, value_name = "EXPR")]
    pub filter: Option<String>,
}

#[derive(Args, Debug)]
pub struct ExportArgs {
    /// The session, as `--session` takes it (`sonde export last --out s.jsonl`).
    #[arg(value_name = "SESSION", conflicts_with = "session")]
    pub which: Option<String>,
    /// `last` (the most recent), a session's file name as `sonde sessions` lists it (`.jsonl`
    /// may be left off), the name given with `sonde proxy --name` (the newest session of that
    /// name), or a path to a session file.
    #[arg(long, value_name = "NAME|PATH|last", default_value = "last")]
    pub session: String,
    /// jsonl: every entry, one JSON object a line. har: the HTTP exchanges as HAR 1.2, which
    /// browser developer tools and HAR viewers open (an event stream's events are the
    /// response's content). html: one self-contained report, readable offline in any browser.
    /// otlp: the requests as OpenTelemetry spans in OTLP/JSON, the body a collector's
    /// /v1/traces takes (a request that carried _meta.traceparent joins the caller's trace).
    #[arg(
        long,
        value_name = "jsonl|har|html|otlp",
        default_value = "jsonl",
        value_parser = export_formats()
    )]
    pub format: ExportFormat,
    /// Only the entries matching these terms, as `sonde log --filter` takes them; for har, the
    /// HTTP exchanges with an entry matching, each whole; for otlp, the requests matching or
    /// answered by an entry matching.
    #[arg(long, value_name = "EXPR")]
    pub filter: Option<String>,
    /// The file to write (created readable by you only).
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// Replace FILE if it exists; without it an existing file is left as it is.
    #[arg(long)]
    pub force: bool,
}

/// The export formats by the names the core gives them (listed in help and completions).
fn export_formats() -> impl TypedValueParser<Value = ExportFormat> {
    PossibleValuesParser::new(ExportFormat::ALL.map(ExportFormat::name))
        .map(|s| ExportFormat::parse(&s).expect("one of the names"))
}

impl Global {
    /// The server to talk to: `--url`, or the command after `--`; exactly one of them.
    pub fn server_config(&self, server: &Server) -> Result<ServerConfig, String> {
        let mut config = match (&self.url, server.command.split_first()) {
            (Some(_), Some(_)) => return Err("give either --url or a command after --, not both".into()),
            (None, None) => return Err("no server: give a command after -- or --url URL".into()),
            (Some(url), None) => ServerConfig::http(self.http_target(url)?),
            (None, Some((program, args))) => {
                let mut spec = SpawnSpec::new(program.clone(), args.iter().cloned());
                spec.env = self.env.clone();
                spec.inherit_env = self.inherit_env;
                spec.cwd = self.cwd.clone();
                ServerConfig::stdio(spec)
            }
        };
        config.connect_timeout = Duration::from_millis(self.timeout);
        config.options.request_timeout = Duration::from_millis(self.timeout);
        config.options.graces.stdin = Duration::from_millis(self.grace_stdin);
        config.options.graces.term = Duration::from_millis(self.grace_term);
        config.options.max_line = self.max_line;
        config.options.trace = self.trace;
        config.answers.roots = self.roots.clone();
        config.answers.elicit = self.elicit.clone();
        config.answers.sample_reply = self.sample_reply.clone();
        config.log_level = self.log_level;
        config.era = self.era;
        config.probe_timeout = Duration::from_millis(self.probe_timeout);
        if let Some(name) = &self.host {
            config = config.as_host(sonde_core::host_profile(name).map_err(|e| e.to_string())?);
        }
        Ok(config)
    }

    fn http_target(&self, url: &str) -> Result<HttpTarget, String> {
        let mut target = HttpTarget::new(url).map_err(|e| e.to_string())?;
        for text in &self.headers {
            target.headers.push(Header::parse(text, false).map_err(|e| e.to_string())?);
        }
        for text in &self.secret_headers {
            target.headers.push(Header::parse(text, true).map_err(|e| e.to_string())?);
        }
        if let Some(token) = &self.bearer {
            target.headers.push(Header {
                name: "Authorization".into(),
                value: format!("Bearer {token}"),
                secret: true,
            });
        }
        target.auth = sonde_core::OAuthSettings {
            client_id: self.client_id.clone(),
            client_secret: self.client_secret.clone(),
            scope: self.scope.clone(),
            client_metadata_url: self.client_metadata_url.clone(),
        };
        target.timeouts = HttpTimeouts {
            connect: Duration::from_millis(self.connect_timeout),
            headers: Duration::from_millis(self.headers_timeout.unwrap_or(self.timeout)),
            idle: Duration::from_millis(self.idle_timeout),
        };
        Ok(target)
    }
}

/// The report `sonde test` and `sonde doctor` write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Reporter {
    Text,
    Json,
    Junit,
    Sarif,
}
