//! The session files in the data directory: where they are, what they are named, which one is
//! the newest, pruning the old ones, and listing them with what a person picks one by.
//!
//! Owns: [`sessions_dir`], the file name a session gets (its start time and the writer's pid),
//! the session's *card* (a small JSON file beside it naming the servers it talked to, so a
//! listing reads a few hundred bytes per session and never the log itself), the writer's lock
//! (an advisory `flock` the writing process holds on the file, released by the kernel when the
//! process ends however it ends, so a crash never leaves a session marked as being written),
//! [`list_sessions`] and [`last_session`]. Pruning them is `budget`'s.
//! Refuses: reading entries (the [`super::WireLog`] does) and deciding which session a window
//! shows ([`super::Catalog`] does).

use std::collections::{BTreeMap, HashSet};
use std::fs::{self, File};
use std::io;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde::{Deserialize, Serialize};

use super::entry::Entry;
use super::format::Incomplete;
use crate::lifecycle::Lifecycle;

/// Where sessions are kept: `$XDG_DATA_HOME/sonde/sessions` on Linux.
pub fn sessions_dir() -> io::Result<PathBuf> {
    let dirs = directories::ProjectDirs::from("", "", "sonde")
        .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "no home directory to keep sessions in"))?;
    Ok(dirs.data_dir().join("sessions"))
}

/// One session file as a listing shows it.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SessionInfo {
    /// The file's name in the sessions directory: what opens it.
    pub name: String,
    /// When the session started, RFC 3339 with milliseconds: from the file's name, or its
    /// modification time for a file named otherwise.
    pub started: String,
    /// The program that wrote it (`sonde` for the CLI, `sonde-desktop` for the app), from its
    /// card; `None` when the session has no card.
    pub program: Option<String>,
    /// The servers it talked to, in the order they were first seen: commands as spawned, URLs
    /// without credentials or query. `None` when the session has no card to say.
    pub servers: Option<Vec<String>>,
    /// For a session `sonde proxy` recorded: the client, as its clientInfo names it.
    pub client: Option<String>,
    /// The name the person gave the session (`sonde proxy --name NAME`), by which `--session`
    /// finds it too; `None` when it was given none.
    pub given_name: Option<String>,
    /// The file's size in bytes.
    pub size: u64,
    /// A Sonde process (this one or another) is still writing it.
    pub writing: bool,
    /// It is this process's own session, the one its window shows live.
    pub current: bool,
    /// The person pinned it: it is never pruned.
    pub pinned: bool,
    /// Why the session may lack entries; empty when nothing says so. A listing reads it from
    /// the file's first and last lines and its card; an opened session's is read from every
    /// line (see [`super::WireLog::incomplete`]). Set with [`SessionInfo::mark_incomplete`].
    /// The window shows the words (`why_incomplete`), so its bindings leave the reasons out.
    #[cfg_attr(feature = "bindings", specta(skip))]
    pub incomplete: Vec<Incomplete>,
    /// `incomplete` in words, one sentence ([`Incomplete::words`]); `None` for a session
    /// nothing says is incomplete.
    pub why_incomplete: Option<String>,
}

impl SessionInfo {
    /// Says why the session may lack entries, as data and in words; none: it is whole.
    pub fn mark_incomplete(&mut self, reasons: Vec<Incomplete>) {
        self.why_incomplete = (!reasons.is_empty()).then(|| Incomplete::words(&reasons));
        self.incomplete = reasons;
    }
}

/// What a session's card holds.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(super) struct Card {
    pub program: String,
    pub servers: Vec<String>,
    /// For a proxy's session: the client it stood in front of, as its clientInfo says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client: Option<String>,
    /// The name the person gave the session (`sonde proxy --name`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Gaps the session file has had, and the entries lost in them, for a listing of a
    /// session whose end entry never came.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub gaps: u64,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub lost: u64,
    /// The person pinned the session: it is never pruned (`budget`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub pinned: bool,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// The name of a session file started now by this process.
pub(super) fn file_name(now: SystemTime) -> String {
    // Colons are not welcome in file names everywhere; they come back in `started_of`.
    let stamp = humantime::format_rfc3339_millis(now).to_string().replace(':', "-");
    format!("{stamp}-{}.jsonl", std::process::id())
}

/// When a session named by [`file_name`] started, RFC 3339; `None` for another name.
fn started_of(name: &str) -> Option<String> {
    let stem = name.strip_suffix(".jsonl")?;
    let (stamp, _pid) = stem.rsplit_once('-')?;
    let (date, time) = stamp.split_once('T')?;
    let text = format!("{date}T{}", time.replace('-', ":"));
    let at = humantime::parse_rfc3339(&text).ok()?;
    Some(humantime::format_rfc3339_millis(at).to_string())
}

/// The card beside a session file: `X.jsonl` has `X.card.json`.
pub(super) fn card_path(session: &Path) -> PathBuf {
    session.with_extension("card.json")
}

/// Writes a session's card whole (a temporary file renamed over the old one), so a reader sees
/// the old card or the new one, never half of one.
pub(super) fn write_card(session: &Path, card: &Card) -> io::Result<()> {
    crate::files::write_private(&card_path(session), &serde_json::to_vec(card).expect("a card serializes"))
}

/// Writes the card of a session this process writes: the pin is the person's, set by
/// pinning (`budget.rs`) from any process, and kept as the card on disk has it.
pub(super) fn write_own_card(session: &Path, card: &Card) -> io::Result<()> {
    let pinned = read_card(session).is_some_and(|c| c.pinned);
    write_card(session, &Card { pinned, ..card.clone() })
}

pub(super) fn read_card(session: &Path) -> Option<Card> {
    serde_json::from_slice(&fs::read(card_path(session)).ok()?).ok()
}

/// The program this process runs, as a card names it.
pub(super) fn this_program() -> String {
    std::env::current_exe()
        .ok()
        .and_then(|exe| exe.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "sonde".into())
}

/// The server an entry names, if it is the first entry of its connection that names one: the
/// command of a (failed) spawn, or the URL of an HTTP request without credentials or query.
/// `named` holds the connections named already.
pub(super) fn server_named(entry: &Entry, named: &mut HashSet<u64>) -> Option<String> {
    let name = target_named(entry)?;
    named.insert(entry.conn).then_some(name)
}

/// The command or URL (without credentials, query or fragment) an entry says its connection
/// talks to.
fn target_named(entry: &Entry) -> Option<String> {
    match (&entry.lifecycle, &entry.http) {
        (Some(Lifecycle::Spawned { command, .. } | Lifecycle::SpawnFailed { command, .. }), _) => {
            Some(command.clone())
        }
        (_, Some(http)) => {
            let mut url = url::Url::parse(http.url.as_deref()?).ok()?;
            let _ = url.set_username("");
            let _ = url.set_password(None);
            url.set_query(None);
            url.set_fragment(None);
            Some(url.to_string())
        }
        _ => None,
    }
}

/// A connection and the name it goes by in the log.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ConnectionLabel {
    pub conn: u64,
    /// The saved server the connection opens, else the command or URL it talked to.
    pub server: String,
}

/// Notes the name `entry` gives its connection: a saved server's name always wins; a program's
/// name (see [`program_name`]) or a URL names a connection that has no name yet.
pub(super) fn label(entry: &Entry, labels: &mut BTreeMap<u64, String>) {
    if let Some(Lifecycle::Server { name }) = &entry.lifecycle {
        labels.insert(entry.conn, name.clone());
    } else if let std::collections::btree_map::Entry::Vacant(slot) = labels.entry(entry.conn) {
        if let Some(name) = target_named(entry) {
            let spawned = entry.http.is_none();
            slot.insert(if spawned { program_name(&name) } else { name });
        }
    }
}

/// Programs that start the server a later word names (a package, a script, a module).
const RUNNERS: &[&str] =
    &["npx", "pnpx", "bunx", "uvx", "uv", "pipx", "node", "bun", "deno", "python", "python3", "ruby", "java"];

/// What a command line goes by in a log row when no saved server names it: its program's file
/// name, or for a runner, the package or script it starts, without scope, version or folders
/// (`npx -y @modelcontextprotocol/server-everything@2026.8.31 stdio` goes by
/// `server-everything`, `/opt/bin/sonde-fixture --tools 3` by `sonde-fixture`), never by the
/// first characters of a path.
fn program_name(command: &str) -> String {
    let file = |word: &str| word.rsplit('/').next().unwrap_or(word).to_owned();
    let words = shell_words::split(command)
        .unwrap_or_else(|_| command.split_whitespace().map(str::to_owned).collect());
    let mut words = words.iter().map(String::as_str);
    let Some(program) = words.next().map(file) else { return command.to_owned() };
    if !RUNNERS.contains(&program.as_str()) {
        return program;
    }
    // Options and the runners' own sub-commands (`uv run`, `pipx run`, `deno run`) come first.
    let started = words.find(|w| !w.starts_with('-') && !matches!(*w, "run" | "x" | "exec" | "tool"));
    match started {
        // `@scope/name@version` and `name@version` go by `name`.
        Some(package) => {
            let unscoped =
                package.strip_prefix('@').map_or(package, |p| p.split_once('/').map_or(p, |(_, n)| n));
            file(unscoped.split('@').next().unwrap_or(unscoped))
        }
        None => program,
    }
}

/// Takes the writer's lock on a session file: held while `file` stays open.
///
/// Best effort: on a file system without `flock` the session is written all the same, and
/// listings show it as finished.
pub(super) fn lock_for_writing(file: &File) {
    // SAFETY: flock on a descriptor this `File` owns; it touches no memory.
    let _ = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) };
}

/// Whether a writer holds the lock on the file `file` reads. Takes a shared lock for an instant
/// when none does, which never stands in a writer's way: a writer locks a file as it creates it.
pub(super) fn writer_holds(file: &File) -> bool {
    let fd = file.as_raw_fd();
    // SAFETY: as in `lock_for_writing`.
    if unsafe { libc::flock(fd, libc::LOCK_SH | libc::LOCK_NB) } == 0 {
        // SAFETY: as above; releases the shared lock just taken.
        unsafe { libc::flock(fd, libc::LOCK_UN) };
        return false;
    }
    io::Error::last_os_error().raw_os_error() == Some(libc::EWOULDBLOCK)
}

/// Blocks until no writer holds the lock on the file `file` reads (at once when none does),
/// then lets go of the shared lock it took to know. On a file system without `flock` it
/// returns at once, as [`writer_holds`] says no writer there.
pub(super) fn wait_for_writer(file: &File) {
    loop {
        // SAFETY: as in `lock_for_writing`; a blocking shared lock waits for the writer's to go.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_SH) } == 0 {
            // SAFETY: as above; releases the shared lock just taken.
            unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_UN) };
            return;
        }
        // A signal handled on this thread interrupts the wait; the writer may still be there.
        if io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
            return;
        }
    }
}

fn is_session(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "jsonl")
}

/// One session file as a listing shows it (`current` is false; the catalog knows better).
pub(super) fn info_of(path: &Path) -> io::Result<SessionInfo> {
    let file = File::open(path)?;
    let meta = file.metadata()?;
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let card = read_card(path);
    let writing = writer_holds(&file);
    let gaps = card.as_ref().map_or((0, 0), |c| (c.gaps, c.lost));
    let incomplete = super::format::look(&file, meta.len(), writing, gaps)?;
    let mut info = SessionInfo {
        started: started_of(&name).unwrap_or_else(|| {
            humantime::format_rfc3339_millis(meta.modified().unwrap_or(SystemTime::UNIX_EPOCH)).to_string()
        }),
        name,
        program: card.as_ref().map(|c| c.program.clone()),
        pinned: card.as_ref().is_some_and(|c| c.pinned),
        client: card.as_ref().and_then(|c| c.client.clone()),
        given_name: card.as_ref().and_then(|c| c.name.clone()),
        servers: card.map(|c| c.servers),
        size: meta.len(),
        writing,
        current: false,
        incomplete: Vec::new(),
        why_incomplete: None,
    };
    info.mark_incomplete(incomplete);
    Ok(info)
}

/// Every session file in `dir`, newest first; none when the directory does not exist yet.
/// Reads each file's metadata and card, never its entries.
pub fn list_sessions(dir: &Path) -> io::Result<Vec<SessionInfo>> {
    let items = match fs::read_dir(dir) {
        Ok(items) => items,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let mut sessions = Vec::new();
    for item in items {
        let path = item?.path();
        if !is_session(&path) {
            continue;
        }
        match info_of(&path) {
            Ok(info) => sessions.push(info),
            // Pruned by another process between the listing and the look.
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
    }
    sessions.sort_by(|a, b| (&b.started, &b.name).cmp(&(&a.started, &a.name)));
    Ok(sessions)
}

/// The newest session file in `dir` the person named `name` (`sonde proxy --name`); `None` when
/// no session has that name. The same name may be given to many sessions (a client's config
/// starts the proxy with it each time): the newest is the one meant.
pub fn session_named(dir: &Path, name: &str) -> io::Result<Option<PathBuf>> {
    let sessions = list_sessions(dir)?;
    Ok(sessions.into_iter().find(|s| s.given_name.as_deref() == Some(name)).map(|s| dir.join(s.name)))
}

/// The most recent session file in `dir`.
pub fn last_session(dir: &Path) -> io::Result<PathBuf> {
    let none = || {
        io::Error::new(
            io::ErrorKind::NotFound,
            format!("no sessions recorded yet; they go in {}", dir.display()),
        )
    };
    let mut newest: Option<(SystemTime, PathBuf)> = None;
    let items = match fs::read_dir(dir) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(none()),
        other => other?,
    };
    for item in items {
        let item = item?;
        let path = item.path();
        if is_session(&path) {
            let modified = item.metadata()?.modified()?;
            if newest.as_ref().is_none_or(|(t, p)| (modified, &path) > (*t, p)) {
                newest = Some((modified, path));
            }
        }
    }
    newest.map(|(_, p)| p).ok_or_else(none)
}

#[cfg(test)]
mod tests {
    use super::super::{Direction, Entry, HttpInfo, Kind, WireLog};
    use super::*;

    fn temp_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("sonde-sessions-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        dir
    }

    fn spawned(conn: u64, command: &str) -> Entry {
        let mut e = Entry::new(conn, Kind::Lifecycle, Direction::Meta);
        e.lifecycle = Some(Lifecycle::Spawned { pid: 1, command: command.into() });
        e
    }

    fn posted(conn: u64, url: &str) -> Entry {
        let mut e = Entry::new(conn, Kind::Message, Direction::Out).with_bytes(b"{}");
        e.http = Some(HttpInfo {
            exchange: 1,
            method: Some("POST".into()),
            url: Some(url.into()),
            ..Default::default()
        });
        e
    }

    /// A name given to sessions finds the newest of them, and nothing else.
    #[test]
    fn a_named_session_is_found_by_its_name_the_newest_first() {
        let dir = temp_dir("named");
        // Each written in a folder of its own, then moved in under a start a second apart: two
        // sessions started in the same millisecond would have the same file name.
        let session = |second: u32, name: &str| {
            let written = WireLog::create_in(&temp_dir(&format!("named-{second}"))).unwrap();
            written.set_name(name.into());
            let from = written.path().to_owned();
            drop(written);
            fs::create_dir_all(&dir).unwrap();
            let to = dir.join(format!("2026-11-30T12-00-0{second}.000Z-1.jsonl"));
            fs::rename(&from, &to).unwrap();
            fs::rename(card_path(&from), card_path(&to)).unwrap();
            to
        };
        let older_path = session(1, "nightly");
        session(2, "other");
        let newer_path = session(3, "nightly");
        assert_ne!(older_path, newer_path);
        assert_eq!(session_named(&dir, "nightly").unwrap(), Some(newer_path.clone()));
        assert_eq!(session_named(&dir, "night").unwrap(), None);
        let listed = list_sessions(&dir).unwrap();
        let named: Vec<Option<&str>> = listed.iter().map(|s| s.given_name.as_deref()).collect();
        assert_eq!(named, [Some("nightly"), Some("other"), Some("nightly")]);
        assert_eq!(session_named(&temp_dir("named-none"), "nightly").unwrap(), None);
    }

    #[test]
    fn a_session_s_start_comes_back_from_its_name() {
        let at = humantime::parse_rfc3339("2026-11-30T12:34:56.789Z").unwrap();
        let name = file_name(at);
        assert!(!name.contains(':'), "{name}");
        assert_eq!(started_of(&name).as_deref(), Some("2026-11-30T12:34:56.789Z"));
        assert_eq!(started_of("notes.jsonl"), None);
    }

    #[test]
    fn the_listing_names_servers_sizes_and_the_sessions_still_being_written() {
        let dir = temp_dir("list");
        let finished = WireLog::create_in(&dir).unwrap();
        finished.append(spawned(1, "sonde-fixture --slow"));
        // A respawn of the same connection (the era fallback) names no new server.
        finished.append(spawned(1, "sonde-fixture --slow"));
        finished.append(posted(2, "https://user:pw@example.test:8443/mcp?token=abc#x"));
        finished.append(posted(2, "https://example.test:8443/messages?session=1"));
        finished.append(spawned(3, "sonde-fixture --slow"));
        let finished_path = finished.path().to_owned();
        drop(finished);
        let writing = WireLog::create_in(&dir).unwrap();
        writing.append(spawned(1, "npx server-everything"));
        writing.flush().unwrap();
        fs::write(dir.join("foreign.jsonl"), "{}\n").unwrap();

        let list = list_sessions(&dir).unwrap();
        let by_name = |path: &Path| {
            let name = path.file_name().unwrap().to_str().unwrap();
            list.iter().find(|s| s.name == name).unwrap().clone()
        };
        let done = by_name(&finished_path);
        assert_eq!(
            done.servers.as_deref(),
            Some(&["sonde-fixture --slow".to_owned(), "https://example.test:8443/mcp".to_owned()][..])
        );
        assert!(!done.writing);
        assert_eq!(done.size, fs::metadata(&finished_path).unwrap().len());
        assert!(done.size > 0);
        assert_eq!(done.program.as_deref(), Some(this_program().as_str()));
        let live = by_name(writing.path());
        assert!(live.writing, "a WireLog alive in this process holds its lock");
        assert_eq!(live.servers.as_deref(), Some(&["npx server-everything".to_owned()][..]));
        let foreign = by_name(&dir.join("foreign.jsonl"));
        assert_eq!((foreign.servers, foreign.program, foreign.writing), (None, None, false));
        assert_eq!(list.len(), 3);
        assert!(list.windows(2).all(|w| w[0].started >= w[1].started), "newest first");
        assert!(list_sessions(&dir.join("missing")).unwrap().is_empty());
    }
}

#[cfg(test)]
mod program_names {
    use super::program_name;

    #[test]
    fn a_command_goes_by_its_program_or_what_its_runner_starts() {
        let cases = [
            ("/work/main/target/debug/sonde-fixture --tools 3", "sonde-fixture"),
            ("npx -y @modelcontextprotocol/server-everything@2026.8.31 stdio", "server-everything"),
            ("npx -y mcp-remote@1.2 http://x", "mcp-remote"),
            ("uvx mcp-server-time --local-timezone UTC", "mcp-server-time"),
            ("python3 -m mcp_server_fetch", "mcp_server_fetch"),
            ("uv run /srv/app/server.py", "server.py"),
            ("node", "node"),
            ("sh -c 'exec ./server'", "sh"),
            ("'/opt/my server/bin' --port 3", "bin"),
        ];
        for (command, name) in cases {
            assert_eq!(program_name(command), name, "{command}");
        }
    }
}
