//! The fixture's knobs: the command line read into what to break (the list is in main.rs).

#[derive(Default)]
pub struct Knobs {
    pub banner: Option<String>,
    pub grandchild: bool,
    pub ignore_sigterm: bool,
    pub stay_on_eof: bool,
    pub exit_delay_ms: u64,
    pub last_words: Option<String>,
    pub crash_on_call: bool,
    /// Exit (code 1) when asked `ping`, saying so on stderr.
    pub crash_on_ping: bool,
    pub never_answer: bool,
    pub big_mib: Option<u64>,
    pub bad_utf8: bool,
    pub ansi_stderr: bool,
    pub tools: usize,
    pub filler_kib: usize,
    pub page_size: Option<usize>,
    pub ask_ping: bool,
    pub silent_unknown: bool,
    pub exit_on_unknown: bool,
    pub dual_era: bool,
    pub modern_only: bool,
    pub start_delay_ms: u64,
    pub progress_steps: u64,
    pub step_ms: u64,
    pub reply_delay_ms: u64,
    pub ping_delay_ms: u64,
    pub listen_end: Option<String>,
    pub flood: u64,
    pub exit_after_ms: Option<u64>,
    pub exit_code: i32,
    pub record: Option<String>,
    pub malformed_tools: bool,
    /// Tools whose definitions hosts and models read badly (risky.rs).
    pub risky_tools: bool,
    pub invalid_utf8_mib: u64,
    pub ask_many: u64,
    pub string_ids: bool,
    pub no_content: bool,
    /// A tool `count` whose `structuredContent` breaks its `outputSchema` (a string for an
    /// integer).
    pub wrong_structure: bool,
    pub early_notification: bool,
    pub cursor_loop: bool,
    pub echo_prefix: String,
    pub cursor_prefix: String,
    /// An MCP App: `hostile`, `broken` or `missing` (see main.rs).
    pub app: Option<String>,
    /// The Skills extension (see skills.rs), whether 2026-07-28 results leave out the cache
    /// fields, and a server whose skills are broken instead (`list-error`, `bad-input`).
    pub skills: bool,
    pub skills_no_cache: bool,
    pub skills_broken: Option<String>,
    /// Load: the Nth tools/call (from 1) waits `stall_ms` before it is answered, and every call
    /// behind it with it; every Nth call fails (-32603); the Nth call kills the server.
    pub stall_on_call: Option<u64>,
    pub stall_ms: u64,
    pub error_every: Option<u64>,
    pub crash_after_calls: Option<u64>,
}

pub fn parse_args() -> Knobs {
    let mut k = Knobs { tools: 1, step_ms: 100, exit_code: 3, ..Knobs::default() };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = |name: &str| args.next().unwrap_or_else(|| die(&format!("{name} needs a value")));
        match a.as_str() {
            "--banner" => k.banner = Some(value("--banner")),
            "--grandchild" => k.grandchild = true,
            "--ignore-sigterm" => k.ignore_sigterm = true,
            "--stay-on-eof" => k.stay_on_eof = true,
            "--exit-delay-ms" => k.exit_delay_ms = number(&value("--exit-delay-ms")),
            "--last-words" => k.last_words = Some(value("--last-words")),
            "--crash-on-call" => k.crash_on_call = true,
            "--crash-on-ping" => k.crash_on_ping = true,
            "--never-answer" => k.never_answer = true,
            "--big-mib" => k.big_mib = Some(number(&value("--big-mib"))),
            "--bad-utf8" => k.bad_utf8 = true,
            "--ansi-stderr" => k.ansi_stderr = true,
            "--tools" => k.tools = number(&value("--tools")) as usize,
            "--filler-kib" => k.filler_kib = number(&value("--filler-kib")) as usize,
            "--page-size" => k.page_size = Some(number(&value("--page-size")) as usize),
            "--ask-ping" => k.ask_ping = true,
            "--silent-unknown" => k.silent_unknown = true,
            "--exit-on-unknown" => k.exit_on_unknown = true,
            "--dual-era" => k.dual_era = true,
            "--modern-only" => k.modern_only = true,
            "--start-delay-ms" => k.start_delay_ms = number(&value("--start-delay-ms")),
            "--progress-steps" => k.progress_steps = number(&value("--progress-steps")),
            "--step-ms" => k.step_ms = number(&value("--step-ms")),
            "--reply-delay-ms" => k.reply_delay_ms = number(&value("--reply-delay-ms")),
            "--ping-delay-ms" => k.ping_delay_ms = number(&value("--ping-delay-ms")),
            "--flood" => k.flood = number(&value("--flood")),
            "--listen-end" => k.listen_end = Some(value("--listen-end")),
            "--exit-after-ms" => k.exit_after_ms = Some(number(&value("--exit-after-ms"))),
            "--exit-code" => k.exit_code = number(&value("--exit-code")) as i32,
            "--record" => k.record = Some(value("--record")),
            "--malformed-tools" => k.malformed_tools = true,
            "--invalid-utf8-mib" => k.invalid_utf8_mib = number(&value("--invalid-utf8-mib")),
            "--ask-many" => k.ask_many = number(&value("--ask-many")),
            "--string-ids" => k.string_ids = true,
            "--no-content" => k.no_content = true,
            "--wrong-structure" => k.wrong_structure = true,
            "--early-notification" => k.early_notification = true,
            "--cursor-loop" => k.cursor_loop = true,
            "--echo-prefix" => k.echo_prefix = value("--echo-prefix"),
            "--app" => k.app = Some(value("--app")),
            "--skills" => k.skills = true,
            "--risky-tools" => k.risky_tools = true,
            "--skills-no-cache" => (k.skills, k.skills_no_cache) = (true, true),
            "--skills-broken" => (k.skills, k.skills_broken) = (true, Some(value("--skills-broken"))),
            "--cursor-prefix" => k.cursor_prefix = value("--cursor-prefix"),
            "--stall-on-call" => k.stall_on_call = Some(number(&value("--stall-on-call"))),
            "--stall-ms" => k.stall_ms = number(&value("--stall-ms")),
            "--error-every" => k.error_every = Some(number(&value("--error-every")).max(1)),
            "--crash-after-calls" => k.crash_after_calls = Some(number(&value("--crash-after-calls"))),
            other => die(&format!("unknown option {other}")),
        }
    }
    k
}

fn number(s: &str) -> u64 {
    s.parse().unwrap_or_else(|_| die(&format!("{s:?} is not a number")))
}

pub fn die(msg: &str) -> ! {
    eprintln!("sonde-fixture: {msg}");
    std::process::exit(2)
}
