//! `doctor`: an active check-up of a server, each check a verdict with a sentence and the seq of
//! its evidence in the session log, for a server author who wants to know what real clients
//! will trip on.
//!
//! Owns: the order of the checks, what each one sends, and what counts as pass, warn or fail.
//! The checks only ask what a client may ask without effects (ping, an unknown method, invalid
//! params, the listings); a tool is called only when the caller names it (`CheckupPlan::call`).
//! Refuses: judging single frames (the rules of `diagnose` do, as the frames are recorded; the
//! doctor reports what they found) and presenting the report (the front ends do; `reports`
//! makes of it the reports CI reads).

mod evidence;
mod hosts;
mod http_rules;
mod probes;
pub mod reports;
mod skills;
pub mod tools;

pub use hosts::saved_beside;

use std::time::Duration;

use serde::Serialize;
use serde_json::Value;

use crate::era::{Era, EraPolicy};
use crate::hub::{Hub, ServerConfig};
use crate::server_config::Target;
use crate::sync::Lock;

/// A check's verdict. `Skip` is a check that did not apply to this server (a tool call only when
/// one was named; the shutdown only for a process Sonde started).
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CheckStatus {
    Skip,
    Pass,
    Warn,
    Fail,
}

impl CheckStatus {
    pub fn name(self) -> &'static str {
        match self {
            CheckStatus::Skip => "skip",
            CheckStatus::Pass => "pass",
            CheckStatus::Warn => "warn",
            CheckStatus::Fail => "fail",
        }
    }
}

/// One check of the check-up.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Check {
    /// A stable name: `handshake`, `ping`, `unknown-method`, … or the rule of a finding.
    pub id: String,
    pub status: CheckStatus,
    /// One sentence: what was done and what came back.
    pub detail: String,
    /// The session log entry that shows it.
    pub seq: Option<u64>,
    /// The connection the evidence is on.
    pub conn: Option<u64>,
    /// The era the check was made in: a server that answers both `server/discover` and
    /// `initialize` is checked in each, and each check says which. `None` for an opening that
    /// failed before an era was decided.
    pub era: Option<Era>,
}

impl Check {
    fn new(id: &str, status: CheckStatus, detail: impl Into<String>, seq: Option<u64>, conn: u64) -> Check {
        Check { id: id.to_owned(), status, detail: detail.into(), seq, conn: Some(conn), era: None }
    }

    /// The protocol revision of the check's era (`2025-11-25`, `2026-07-28`), as a person
    /// names it.
    pub fn revision(&self) -> Option<&'static str> {
        self.era.map(|era| match era {
            Era::Legacy => crate::era::LEGACY_REVISION,
            Era::Modern => crate::era::MODERN_REVISION,
        })
    }
}

/// What the check-up may do beyond asking, and how long it waits.
#[derive(Debug, Clone, Default)]
pub struct CheckupPlan {
    /// Call this tool with these arguments to see that cancelling it is honoured (in each era
    /// the server is checked in).
    pub call: Option<(String, Value)>,
    /// How long each probe (ping, the unknown method, the invalid params) waits for its answer.
    /// `None`: [`PROBE_TIMEOUT`], or the config's request timeout when that is shorter.
    pub probe_timeout: Option<Duration>,
    /// The budget of the tool definitions' context cost, in estimated tokens (`None`:
    /// [`tools::TOKEN_BUDGET`]).
    pub token_budget: Option<u64>,
    /// The other servers the host runs beside this one, as last seen: with `--host`, a tool
    /// of theirs the host would name as one of this server's is said (`host-shadowing`).
    pub beside: Vec<Beside>,
}

/// A server beside the one checked: the name the host knows it by, its tools, and when they
/// were seen (`its baseline of 2026-12-07T10:00:00Z`).
#[derive(Debug, Clone, PartialEq)]
pub struct Beside {
    pub server: String,
    pub tools: Vec<Value>,
    pub seen: String,
}

/// The check-up's outcome, in the order the checks ran.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Checkup {
    pub checks: Vec<Check>,
    /// "7 pass, 1 warn, 0 fail" (", 1 skipped").
    pub tally: String,
}

impl Checkup {
    pub fn failed(&self) -> bool {
        self.checks.iter().any(|c| c.status == CheckStatus::Fail)
    }

    /// Whether the server could not be opened at all: the first opening's handshake failed
    /// (a failed opening in a second era is a fail like any other).
    pub fn unopened(&self) -> bool {
        self.checks.first().is_some_and(|c| c.id == HANDSHAKE && c.status == CheckStatus::Fail)
    }

    fn finished(mut self) -> Checkup {
        self.tally = self.count();
        self
    }

    fn count(&self) -> String {
        let count = |s| self.checks.iter().filter(|c| c.status == s).count();
        let mut words = format!(
            "{} pass, {} warn, {} fail",
            count(CheckStatus::Pass),
            count(CheckStatus::Warn),
            count(CheckStatus::Fail)
        );
        let skipped = count(CheckStatus::Skip);
        if skipped > 0 {
            words.push_str(&format!(", {skipped} skipped"));
        }
        words
    }
}

/// The id of the check of an opening exchange.
const HANDSHAKE: &str = "handshake";

/// What comes before a failed opening's last words in its handshake's sentence.
const LAST_WORDS: &str = "; its last words on stderr: ";

/// Collects checks, each marked with the era being checked, and tells `each` of every one as
/// it is made.
struct Checks<'a> {
    report: Checkup,
    each: &'a (dyn Fn(&Check) + Send + Sync),
    /// The era of the connection being checked, once known.
    era: Option<Era>,
    /// How long a probe waits for its answer.
    timeout: Duration,
    /// The tool definitions' budget, in estimated tokens.
    token_budget: u64,
    /// The host the check-up connects as, whose limits it checks too, and the name it knows
    /// the server by.
    host: Option<(&'static crate::hosts::HostProfile, String)>,
    /// The servers beside this one ([`CheckupPlan::beside`]).
    beside: &'a [Beside],
}

impl Checks<'_> {
    fn push(&mut self, check: Check) {
        let check = Check { era: check.era.or(self.era), ..check };
        (self.each)(&check);
        self.report.checks.push(check);
    }
}

/// How long a probe that should be answered at once may take, unless the plan says otherwise.
pub const PROBE_TIMEOUT: Duration = Duration::from_secs(10);

/// Runs the check-up of the server `config` describes, on connections of `hub` (so their frames
/// are in its log, and a window shows them as they happen). `each` hears every check as it is
/// made. A server whose `server/discover` result lists 2025-11-25 too is checked in both eras,
/// each on a connection of its own, since a dual-era server pins the era at its first message.
/// The server is shut down at the end; nothing is left running.
pub async fn check_up(
    hub: &Hub,
    config: &ServerConfig,
    plan: &CheckupPlan,
    each: &(dyn Fn(&Check) + Send + Sync),
) -> Checkup {
    let timeout = plan.probe_timeout.unwrap_or(PROBE_TIMEOUT.min(config.options.request_timeout));
    let era = match config.era {
        EraPolicy::Auto => None,
        EraPolicy::Legacy => Some(Era::Legacy),
        EraPolicy::Modern => Some(Era::Modern),
    };
    let token_budget = plan.token_budget.unwrap_or(tools::TOKEN_BUDGET);
    let mut checks = Checks {
        report: Checkup::default(),
        each,
        era,
        timeout,
        token_budget,
        host: config.host.map(|h| (h, config.host_name())),
        beside: &plan.beside,
    };
    // Never restarted, and the era decided afresh, as a new client would.
    let config = ServerConfig { restart: None, fresh_era: true, job: true, ..config.clone() };
    let Some(opened) = check_era(hub, &config, plan, &mut checks, true).await else {
        return checks.report.finished();
    };
    // A server that answered `server/discover` may answer `initialize` too (the Python SDK's
    // does, though its discover result lists 2026-07-28 alone): a 2025-11-25 client is checked
    // as well. Only a server that claims 2025-11-25 fails for not answering it; one that does
    // not claim it gets its answer within the probe timeout, as an era it may not speak.
    if config.era == EraPolicy::Auto && opened.era == Era::Modern {
        let legacy = if opened.claims_legacy {
            ServerConfig { era: EraPolicy::Legacy, ..config.clone() }
        } else {
            let connect_timeout = config.connect_timeout.min(timeout);
            ServerConfig { era: EraPolicy::Legacy, connect_timeout, ..config.clone() }
        };
        checks.era = Some(Era::Legacy);
        check_era(hub, &legacy, plan, &mut checks, opened.claims_legacy).await;
    }
    checks.report.finished()
}

/// What the check of one era found out about the others.
struct Opened {
    era: Era,
    /// The `server/discover` result lists 2025-11-25 among its versions.
    claims_legacy: bool,
}

/// Opens a connection as `config` says and runs every check on it: the probes, the named call,
/// the HTTP header rule (2026-07-28), then what the log shows once the server was asked to end.
/// `None` when the connection did not open: a fail when the server must open in that era
/// (`required`), else a skip that says the server was not checked in it.
async fn check_era(
    hub: &Hub,
    config: &ServerConfig,
    plan: &CheckupPlan,
    checks: &mut Checks<'_>,
    required: bool,
) -> Option<Opened> {
    let conn = match open(hub, config, checks, required).await {
        Ok(conn) => conn,
        Err(_) if !required => return None,
        Err(tried) => {
            // What the frames of the failed opening broke says why it failed.
            let entries = evidence::entries(hub.log(), tried);
            for check in evidence::read_opening(&entries, tried, config) {
                checks.push(check);
            }
            return None;
        }
    };
    let session = hub.session(conn).expect("a connection just opened");
    let died = probes::ask(&session, checks).await;
    if let Some((tool, arguments)) = &plan.call {
        let check = probes::cancellation(&session, tool, arguments.clone(), checks.timeout).await;
        checks.push(check);
    }
    if let (Target::Http(target), Era::Modern) = (&config.target, session.era()) {
        checks.push(http_rules::header_mismatch(&session, target, hub.log()).await);
    }
    settle(hub, conn).await;
    let exit = hub.disconnect(conn).await.ok().flatten();
    let entries = evidence::entries(hub.log(), conn);
    for check in evidence::read(&entries, conn, exit.as_ref(), config) {
        // A server that died during the probes was never asked to end: that one death is the
        // probe's fail, not the shutdown's too.
        match &died {
            Some(ended) if check.id == "shutdown" => {
                checks.push(Check { status: CheckStatus::Skip, detail: format!("not run: {ended}"), ..check })
            }
            _ => checks.push(check),
        }
    }
    Some(Opened { era: session.era(), claims_legacy: evidence::claims_legacy(&entries) })
}

/// How long the server must have said nothing before it is asked to end, and the longest the
/// check-up waits for that.
const QUIET: Duration = Duration::from_millis(500);
const SETTLE: Duration = Duration::from_secs(3);

/// Before the server is asked to end: waits until it has said nothing on `conn` for [`QUIET`]
/// (at most [`SETTLE`]), its requests answered meanwhile, as a client in use would. A server may
/// ask something of its own a moment after the opening (server-everything asks for the roots
/// 350 ms after `initialized`); stdin closed under that question leaves the server waiting for an
/// answer that cannot come, and the shutdown check would blame it for the check-up's haste.
async fn settle(hub: &Hub, conn: u64) {
    use crate::log::{Direction, Followed};
    use tokio::time::{timeout_at, Instant};
    let mut follow = hub.log().follow();
    let deadline = Instant::now() + SETTLE;
    let mut quiet_until = (Instant::now() + QUIET).min(deadline);
    loop {
        match timeout_at(quiet_until, follow.next()).await {
            // Quiet for long enough, or waited long enough; or the log is gone.
            Err(_) | Ok(None) => return,
            Ok(Some(Followed::Entry(entry, _))) if entry.conn == conn && entry.dir == Direction::In => {
                quiet_until = (Instant::now() + QUIET).min(deadline);
            }
            // Another connection's entry, or entries skipped: the quiet is still measured.
            Ok(Some(_)) => {}
        }
    }
}

/// Opens a connection: the handshake's verdict, and the connection when it opened (the one
/// tried when it did not). An opening that failed fails the handshake when it was `required`,
/// and skips it otherwise.
async fn open(hub: &Hub, config: &ServerConfig, checks: &mut Checks<'_>, required: bool) -> Result<u64, u64> {
    let opening = std::sync::Mutex::new(0);
    let connected = hub.connect_reporting(config, &|conn, _| *opening.locked() = conn).await;
    let tried = *opening.locked();
    match connected {
        Ok(conn) => {
            let server = hub.server(conn).expect("a connection just opened");
            let entries = evidence::entries(hub.log(), conn);
            let seq = evidence::handshake_reply(&entries);
            let detail = format!("protocol {} by {}", server.protocol_version, server.decided_by);
            checks.era = Some(server.era);
            checks.push(Check::new(HANDSHAKE, CheckStatus::Pass, detail, seq, conn));
            // Opened only by starting it again: the era probe, a 2026-07-28 client's first
            // message, ended it, and such a client cannot use it.
            if let Some(death) = server.decided_by.strip_suffix(crate::negotiate::RESPAWNED) {
                let detail = format!(
                    "{death}, the era probe a 2026-07-28 client sends first; answer a method you do not know \
                     with -32601 (method not found) and go on"
                );
                checks.push(Check::new("era-probe", CheckStatus::Fail, detail, seq, conn));
            }
            Ok(conn)
        }
        Err(e) => {
            let entries = evidence::entries(hub.log(), tried);
            let seq = entries.last().map(|e| e.seq);
            // The server's last words go with it: a crash at start is explained by what it
            // said (`Error: boom`) more than by the exit code.
            let (reason, words) = e.failure();
            let said = match words.lines.as_slice() {
                [] => String::new(),
                lines => format!("{LAST_WORDS}{}", lines[lines.len().saturating_sub(3)..].join(" | ")),
            };
            let (status, detail) = match required {
                true => (CheckStatus::Fail, format!("the opening exchange failed: {reason}{said}")),
                false => (
                    CheckStatus::Skip,
                    format!(
                        "not checked in this era: its server/discover result does not list it, and the \
                         opening exchange failed ({reason}{said})"
                    ),
                ),
            };
            checks.push(Check::new(HANDSHAKE, status, detail, seq, tried));
            Err(tried)
        }
    }
}

/// Whether the config starts a process (whose shutdown can be checked).
fn is_stdio(config: &ServerConfig) -> bool {
    matches!(config.target, Target::Stdio(_))
}
