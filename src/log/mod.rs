//! The wire log: every frame, stderr chunk, lifecycle event and decode error of a session.
//!
//! Owns: appending (assigning `seq` and times), persistence as one JSONL file per session under
//! the data directory (its format and version, `format`; writing it and a write that fails,
//! `sink`), an in-memory index of file offsets (and, after a gap, of which seq each row holds,
//! `seqs`), queries by seq range and filter that read only the entries asked for, and by row
//! (`rows`: a list without the holes a gap leaves in seqs), a filter's matches by position
//! ([`MatchCount`]), following the session live ([`Follow`]), whether this process writes it
//! or another one does (`tail`), what the file took ([`Recording`]) and, for a session read
//! back, why it may be incomplete ([`Incomplete`]), and the session files themselves
//! (`sessions`, [`Catalog`]).
//! Refuses: interpreting entries; correlation is filled in by the connection before appending.
//!
//! Appends go to a buffer that a background thread writes out every [`FLUSH_INTERVAL`], so a
//! crash loses at most the last batch, not the session, and leaves at most one partial line.
//! A session ends with [`WireLog::close`] (dropping the log, and the process's normal exit,
//! close it too): an end-of-session entry says it was closed properly.

mod budget;
mod catalog;
mod entry;
mod export;
mod filter;
mod follow;
mod format;
mod har;
mod line;
mod matches;
mod pairs;
mod rows;
mod scan;
mod seqs;
mod sessions;
mod sink;
mod tail;

pub use budget::{pin_session, size_words, Budget, Pruned, KEEP_SESSIONS, MAX_BYTES};
pub use catalog::{Catalog, CatalogError, OpenedSession};
pub use entry::{Direction, Entry, HttpInfo, Kind, RequestOutcome, Summary, PREVIEW_BYTES};
pub use export::{export_jsonl, redacted, secret_words, ExportError, ExportFormat, REDACTED_MARK};
pub use filter::{Filter, FilterError, FilterView, IndexRow, Rpc, KEYS as FILTER_KEYS};
pub use follow::{Follow, Followed, LogBatch};
pub use format::{count_entries, Incomplete, SESSION_FORMAT};
pub use har::{check_har, export_har};
pub use matches::{MatchCount, COUNT_BUDGET};
pub use pairs::Outcome;
pub use sessions::{last_session, list_sessions, session_named, sessions_dir, ConnectionLabel, SessionInfo};
pub use sink::{stopped_words, Recording};

use std::collections::HashSet;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant, SystemTime};

use tokio::sync::broadcast;

use crate::sync::Lock;

/// How often buffered entries reach the file.
pub const FLUSH_INTERVAL: Duration = Duration::from_millis(25);

/// How many seqs of the index a query looks at per hold of its lock.
const INDEX_CHUNK: u64 = 4096;

/// A session's wire log. Cheap to share as `Arc<WireLog>`; every method takes `&self`.
pub struct WireLog {
    path: PathBuf,
    started: Instant,
    inner: Mutex<Inner>,
    /// Reads entries back. In the process that writes the session it also holds the writer's
    /// lock, which goes with it when the log is dropped or the process ends.
    reader: File,
    /// The session's card, for a log this process writes; its lock makes rewrites of the file
    /// follow one another, so the last one written names every server.
    card: Option<Mutex<sessions::Card>>,
    /// The last few filters' matches (see `matches`).
    matches: Mutex<matches::Matches>,
    /// For a session another process writes: what keeps it followed (see `tail`).
    tailer: Mutex<Option<tail::Tailer>>,
    /// Where changes of [`Recording`] go (see `sink`).
    changes: broadcast::Sender<Recording>,
    /// The sessions budget the front end keeps this session's folder within (`keep_within`),
    /// as it was when the session started.
    keeping: Mutex<budget::Keeping>,
}

struct Inner {
    /// `None` for a session opened read-only.
    sink: Option<sink::Sink>,
    /// For a session opened read-only: where its next line starts in the file, after the last
    /// complete line read.
    end: u64,
    dirty: bool,
    /// A row for each entry in the file, in order (an entry a failed write lost has none).
    index: Vec<IndexRow>,
    /// Which seq each row holds, where that is not its position (after a gap).
    seqs: seqs::Seqs,
    /// The seq the next entry gets.
    next_seq: u64,
    /// The last entry is an end-of-session entry.
    ended: bool,
    /// For a log this process writes: what the file took (see `sink`).
    recording: Recording,
    /// For a session opened read-only: what its lines said about the file itself.
    tally: format::Tally,
    /// Method names shared by every index row that has them.
    methods: HashSet<Arc<str>>,
    /// Where entries are streamed as they are added; `None` once the log can grow no more (a
    /// session read from a file no process writes).
    live: Option<broadcast::Sender<follow::Streamed>>,
    /// The servers the session talked to, for its card, and the connections already named.
    servers: Vec<String>,
    named: HashSet<u64>,
    /// The name each connection goes by (see `sessions::label`).
    labels: std::collections::BTreeMap<u64, String>,
    /// The wall clock as entries' `time` says it.
    wall: sink::WallClock,
}

/// A page of entries and where the next page starts.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "bindings", derive(specta::Type))]
pub struct Page {
    pub entries: Vec<Entry>,
    /// The seq to ask for next, or `None` when the range was read to its end.
    pub next: Option<u64>,
}

/// Rows of the index with consecutive seqs: positions `start..end`, the first holding `seq`.
struct Block {
    start: usize,
    end: usize,
    seq: u64,
}

impl Block {
    /// The seq after the block's last row.
    fn stop(&self) -> u64 {
        self.seq + (self.end - self.start) as u64
    }
}

impl Inner {
    /// The rows from the first with seq `from` or above, below seq `to`, up to the next gap
    /// and at most `max` of them; `None` when there is none.
    fn block(&self, from: u64, to: u64, max: u64) -> Option<Block> {
        let len = self.index.len() as u64;
        let start = self.seqs.pos(from).min(len);
        let end = self
            .seqs
            .pos(to)
            .min(len)
            .min(self.seqs.next_gap(start).unwrap_or(len))
            .min(start.saturating_add(max));
        (start < end).then(|| Block { start: start as usize, end: end as usize, seq: self.seqs.seq(start) })
    }

    /// Streams `entry` to followers, if any, with its row when the index took it: `rows` is
    /// how many rows the index had before the entry was recorded.
    fn stream(&self, entry: Entry, rows: usize) {
        if let Some(live) = self.live.as_ref().filter(|l| l.receiver_count() > 0) {
            let row = (self.index.len() > rows).then_some(rows as u64);
            let _ = live.send((Arc::new(entry), row));
        }
    }

    /// The row holding `seq`, if the file holds it.
    fn row(&self, seq: u64) -> Option<&IndexRow> {
        let pos = self.seqs.exact(seq, self.index.len() as u64)?;
        Some(&self.index[pos as usize])
    }
}

impl WireLog {
    /// Creates a new session file in `dir` (created if missing), locked as being written for as
    /// long as the log lives, and writes its header at once: a writer killed before its first
    /// flush still leaves a file that says its format.
    pub fn create_in(dir: &Path) -> io::Result<Arc<WireLog>> {
        let path = dir.join(sessions::file_name(SystemTime::now()));
        let file = crate::files::create_new_private(&path)?;
        let program = sessions::this_program();
        let sink = sink::Sink::new(file, &program);
        let card = sessions::Card { program, ..Default::default() };
        let log = WireLog::new(path, Some(sink), Some(card))?;
        sessions::lock_for_writing(&log.reader);
        // A header that cannot be written (a full disk) stops the file at entry 0, said as any
        // stop is.
        log.write_out(&mut log.inner.locked());
        // A card from the start, so a listing tells "no server yet" from "no card"; a session
        // without one is recorded all the same.
        let _ = log.write_card();
        let log = Arc::new(log);
        spawn_flusher(Arc::downgrade(&log));
        close_at_exit(&log);
        // Old sessions go when the front end gives the budget (`keep_within`), not here: the
        // budget is the person's setting.
        Ok(log)
    }

    /// Opens a recorded session read-only, indexing it by one streaming pass. A session another
    /// process (or this one) is still writing goes on growing: entries it appends are indexed
    /// and streamed to followers within about 100 ms past its writer's flush (inotify's delay), until its writer lets go.
    pub fn open(path: &Path) -> io::Result<Arc<WireLog>> {
        let log = Arc::new(WireLog::new(path.to_owned(), None, None)?);
        // The lock is looked at before the file is read: once it is free, what the writer wrote
        // is all in the file, and nothing more will come.
        let writing = sessions::writer_holds(&log.reader);
        log.catch_up()?;
        if writing {
            *log.tailer.locked() = Some(tail::spawn_tailer(&log)?);
        } else {
            log.end_growth();
        }
        Ok(log)
    }

    fn new(path: PathBuf, sink: Option<sink::Sink>, card: Option<sessions::Card>) -> io::Result<WireLog> {
        Ok(WireLog {
            reader: File::open(&path)?,
            path,
            started: Instant::now(),
            inner: Mutex::new(Inner {
                sink,
                end: 0,
                dirty: false,
                index: Vec::new(),
                seqs: seqs::Seqs::default(),
                next_seq: 0,
                ended: false,
                recording: Recording::default(),
                tally: format::Tally::new(),
                methods: HashSet::new(),
                live: Some(broadcast::channel(4096).0),
                servers: Vec::new(),
                named: HashSet::new(),
                labels: Default::default(),
                wall: Default::default(),
            }),
            card: card.map(Mutex::new),
            matches: Mutex::default(),
            tailer: Mutex::default(),
            changes: broadcast::channel(16).0,
            keeping: Mutex::default(),
        })
    }

    /// The session file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Milliseconds since the session started.
    pub fn elapsed_ms(&self) -> f64 {
        self.started.elapsed().as_secs_f64() * 1000.0
    }

    /// Appends an entry, assigning its seq and times, and returns the seq.
    ///
    /// A write error is not fatal to the session: a full disk must not stop the inspector. The
    /// entry is streamed all the same, and counted in the gap the file then has (see `sink`).
    pub fn append(&self, mut entry: Entry) -> u64 {
        let mut guard = self.inner.locked();
        let inner = &mut *guard;
        let rows = inner.index.len();
        let new_server = self.record(inner, &mut entry, format::Marks::default());
        let seq = entry.seq;
        // Streamed under the lock, so followers get entries in seq order.
        inner.stream(entry, rows);
        drop(guard);
        if new_server.is_some() {
            // Rare (once per server), so the card is rewritten at once rather than on a beat.
            let _ = self.write_card();
        }
        seq
    }

    /// Entries added from now on, as they are added. For a log that can grow no more, the
    /// follower hears at once that it has ended.
    pub fn follow(&self) -> Follow {
        match &self.inner.locked().live {
            Some(live) => Follow::new(live.subscribe()),
            // Its sender is dropped here: the receiver is closed from the start.
            None => Follow::new(broadcast::channel(1).1),
        }
    }

    /// How many entries the session holds: the seq the next one gets, entries a failed write
    /// lost included.
    pub fn len(&self) -> u64 {
        self.inner.locked().next_seq
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Writes buffered entries to the file. An error says the file has stopped taking entries
    /// (see [`WireLog::recording`]); the session goes on.
    pub fn flush(&self) -> io::Result<()> {
        self.flushed()?;
        match &self.inner.locked().recording.stopped {
            Some(stop) => {
                Err(io::Error::other(format!("the session log stopped at entry {}: {}", stop.at, stop.error)))
            }
            None => Ok(()),
        }
    }

    /// Writes buffered entries to the file; returns the seq below which every entry the file
    /// holds is readable from it (entries appended meanwhile wait in the buffer).
    fn flushed(&self) -> io::Result<u64> {
        let mut inner = self.inner.locked();
        inner.dirty = false;
        self.write_out(&mut inner);
        Ok(inner.next_seq)
    }

    /// Whether the file read is a session at all (contracts: "is this a session file?" is this one
    /// check): one whose lines are none of them entries is another kind of file (`sonde log
    /// /etc/passwd`), not an empty session. An empty file, or a header alone, is a session yet.
    pub fn is_a_session(&self) -> bool {
        !self.is_empty() || !self.incomplete().iter().any(|i| matches!(i, Incomplete::BrokenLines { .. }))
    }

    /// Why the session may lack entries: for a session read back, what its lines say (a
    /// partial last line and a missing end only once no process writes it); for this
    /// process's own, the gaps its file has. Empty when nothing says so: a session written
    /// before the format had a version lacks no end entry, only a partial or broken line says
    /// it is incomplete.
    pub fn incomplete(&self) -> Vec<Incomplete> {
        let inner = self.inner.locked();
        if inner.sink.is_some() {
            let recording = sink::recording_of(&inner);
            let gaps = recording.gaps + u64::from(recording.stopped.is_some());
            return match recording.lost {
                0 => Vec::new(),
                entries => vec![Incomplete::Gaps { gaps, entries }],
            };
        }
        let writing = inner.live.is_some();
        let partial = self.reader.metadata().is_ok_and(|m| m.len() > inner.end);
        inner.tally.verdict(partial, writing)
    }

    /// Reads up to `limit` entries with seq in `from..to` that match `filter`. The range ends
    /// where the file ended as the page began: an entry appended meanwhile is left to the next
    /// call (or to the live stream).
    pub fn page(&self, from: u64, to: u64, filter: &Filter, limit: usize) -> io::Result<Page> {
        let to = to.min(self.flushed()?);
        if let Some(finder) = filter::TextFinder::new(filter) {
            return self.page_scanning(from, to, filter, limit, &finder);
        }
        let mut entries = Vec::new();
        let mut seq = from;
        loop {
            // The index is read a chunk at a time, so a page of a huge log never copies more
            // than a chunk of rows and never holds the lock for long.
            let rows = match self.rows_matching(filter, seq, to) {
                Some((rows, stop)) => {
                    seq = stop;
                    rows
                }
                None => return Ok(Page { entries, next: None }),
            };
            for (at, row) in rows {
                if entries.len() == limit {
                    return Ok(Page { entries, next: Some(at) });
                }
                let entry = self.read_row(&row)?;
                if filter.matches_entry(&entry) {
                    entries.push(entry);
                }
            }
        }
    }

    /// The rows in one chunk of the index from seq `from` (below `to`) that `filter` may match
    /// (everything but its text is checked), with their seqs and the seq after the chunk;
    /// `None` when no row is left in the range.
    fn rows_matching(&self, filter: &Filter, from: u64, to: u64) -> Option<(Vec<(u64, IndexRow)>, u64)> {
        let inner = self.inner.locked();
        let block = inner.block(from, to, INDEX_CHUNK)?;
        let rows = (block.start..block.end)
            .filter(|&pos| filter.matches_row(&inner.index[pos]))
            .map(|pos| (block.seq + (pos - block.start) as u64, inner.index[pos].clone()))
            .collect();
        Some((rows, block.stop()))
    }

    /// Every entry matching `filter`, in order (reads them one by one from the file).
    pub fn entries(&self, filter: &Filter) -> io::Result<Vec<Entry>> {
        Ok(self.page(0, u64::MAX, filter, usize::MAX)?.entries)
    }
    /// The last stderr lines of connection `conn`'s latest process (a respawn for the era
    /// fallback starts a new one), made safe to print (see [`crate::last_words::clean`]): at
    /// most `max_lines` lines and `max_bytes` bytes. Reads only the newest chunks, enough to
    /// fill the budget.
    pub fn last_stderr(&self, conn: u64, max_lines: usize, max_bytes: usize) -> io::Result<Vec<String>> {
        // Up to the end of the file: an entry appended meanwhile is still in the buffer.
        let written = self.flushed()?;
        // Only the newest rows are taken from the index (a long session holds millions): an
        // entry's recorded form is never shorter than its text, so rows whose records add up
        // to far more than the budget surely cover it.
        let rows: Vec<IndexRow> = {
            let inner = self.inner.locked();
            let wanted = |r: &&IndexRow| r.conn == conn && matches!(r.kind, Kind::Stderr | Kind::Lifecycle);
            let mut recorded = 0u64;
            let covered = 64 * max_bytes as u64;
            let written = inner.seqs.pos(written).min(inner.index.len() as u64) as usize;
            inner.index[..written]
                .iter()
                .rev()
                .filter(wanted)
                .take_while(|r| {
                    let more = recorded <= covered;
                    recorded += r.len;
                    more
                })
                .cloned()
                .collect()
        };
        // Newest first until the raw text surely covers the budget; colour codes, which
        // cleaning drops, are why the byte margin is wide.
        let mut chunks = Vec::new();
        let (mut bytes, mut newlines) = (0, 0);
        for row in rows {
            if bytes > 4 * max_bytes || newlines > max_lines + 1 {
                break;
            }
            let entry = self.read_row(&row)?;
            if matches!(entry.lifecycle, Some(crate::lifecycle::Lifecycle::Spawned { .. })) {
                break;
            }
            if entry.kind != Kind::Stderr {
                continue;
            }
            let text = String::from_utf8_lossy(&entry.bytes().unwrap_or_default()).into_owned();
            bytes += text.len();
            newlines += text.matches('\n').count();
            chunks.push(text);
        }
        chunks.reverse();
        Ok(crate::last_words::tail(
            &crate::last_words::clean_last_words(&chunks.concat()),
            max_lines,
            max_bytes,
        ))
    }

    fn read_row(&self, row: &IndexRow) -> io::Result<Entry> {
        let mut buf = vec![0; row.len as usize];
        self.reader.read_exact_at(&mut buf, row.offset)?;
        Entry::from_line(&buf).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
    }

    /// Names the client a proxy stands in front of, on the session's card (a log this process
    /// writes only).
    pub fn set_client(&self, client: String) {
        if let Some(card) = &self.card {
            card.locked().client = Some(client);
            let _ = self.write_card();
        }
    }

    /// Names the session as the person asked (`sonde proxy --name`), on its card (a log this
    /// process writes only), so a listing shows the name and `--session` finds it by it.
    pub fn set_name(&self, name: String) {
        if let Some(card) = &self.card {
            card.locked().name = Some(name);
            let _ = self.write_card();
        }
    }

    /// Rewrites the card with the servers seen so far (a log this process writes only). A
    /// session file removed (with its directory, say) gets no card, nor its directory again.
    fn write_card(&self) -> io::Result<()> {
        let Some(card) = &self.card else { return Ok(()) };
        if !self.path.exists() {
            return Ok(());
        }
        let mut card = card.locked();
        {
            let inner = self.inner.locked();
            card.servers = inner.servers.clone();
            let recording = sink::recording_of(&inner);
            (card.gaps, card.lost) = (recording.gaps, recording.lost);
        }
        sessions::write_own_card(&self.path, &card)
    }
}

/// Calls `on_line` with each complete line of `file` from offset `from` and the line's offset,
/// until `max` bytes have been read or the file ends; returns the offset after the last
/// complete line. A partial last line (being written, or left by a crash) is not a line yet.
fn scan_lines(file: &File, from: u64, max: u64, mut on_line: impl FnMut(&[u8], u64)) -> io::Result<u64> {
    let mut reader = BufReader::with_capacity(1 << 20, ReadAt { file, at: from });
    let mut line = Vec::new();
    let mut offset = from;
    while offset - from < max {
        line.clear();
        let n = reader.read_until(b'\n', &mut line)? as u64;
        if n == 0 || line.last() != Some(&b'\n') {
            break;
        }
        on_line(&line, offset);
        offset += n;
    }
    Ok(offset)
}

/// Reads a file from an offset of its own, leaving the file's shared position alone.
struct ReadAt<'a> {
    file: &'a File,
    at: u64,
}

impl Read for ReadAt<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.file.read_at(buf, self.at)?;
        self.at += n as u64;
        Ok(n)
    }
}

fn row_of(e: &Entry, offset: u64, len: u64, names: &mut std::collections::HashSet<Arc<str>>) -> IndexRow {
    // Methods and targets repeat across a session: each is held once, shared by its rows.
    let mut shared = |name: &str| match names.get(name) {
        Some(shared) => shared.clone(),
        None => {
            let shared: Arc<str> = name.into();
            names.insert(shared.clone());
            shared
        }
    };
    let summary = e.summary.as_ref();
    IndexRow {
        offset,
        len,
        ms: e.ms,
        conn: e.conn,
        kind: e.kind,
        dir: e.dir,
        method: summary.and_then(|s| s.method.as_deref()).map(&mut shared),
        id: summary.and_then(|s| s.id.as_deref()).map(Into::into),
        target: summary.and_then(|s| s.target.as_deref()).map(&mut shared),
        answers: e.answers,
        rpc: summary.and_then(|s| filter::Rpc::of(&s.kind)),
        part_of: e.part_of.as_deref().map(Into::into),
        ends: e.ends,
        is_error: summary.is_some_and(|s| s.is_error),
        diag: crate::diagnose::worst(&e.findings),
        base64: e.base64.is_some(),
    }
}

/// Writes the log out on a fixed beat, and tries a stopped file again when it is due, until the
/// log is dropped.
fn spawn_flusher(log: Weak<WireLog>) {
    std::thread::Builder::new()
        .name("wire-log-flush".into())
        .spawn(move || loop {
            std::thread::sleep(FLUSH_INTERVAL);
            let Some(log) = log.upgrade() else { return };
            let mut inner = log.inner.locked();
            let resumed = log.resume(&mut inner, false);
            if inner.dirty {
                inner.dirty = false;
                log.write_out(&mut inner);
            }
            drop(inner);
            if resumed {
                // The card counts the gaps, for a listing of a session whose end never comes.
                let _ = log.write_card();
            }
        })
        .expect("spawn the wire log flusher");
}

/// The logs this process writes, closed when it exits normally: a front end that ends with
/// `exit` (the window's quit does) drops nothing, and a session it wrote must still read as
/// closed properly. A process killed runs no exit hook, which is how a reader tells.
static WRITING: Mutex<Vec<Weak<WireLog>>> = Mutex::new(Vec::new());

fn close_at_exit(log: &Arc<WireLog>) {
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        // SAFETY: registers a function that takes no arguments and never unwinds out.
        unsafe { libc::atexit(close_all) };
    });
    let mut writing = WRITING.locked();
    writing.retain(|l| l.strong_count() > 0);
    writing.push(Arc::downgrade(log));
}

extern "C" fn close_all() {
    // A panic must not cross into C; an exit hook has nothing better to do with one.
    let _ = std::panic::catch_unwind(|| {
        let logs: Vec<Arc<WireLog>> = WRITING.locked().iter().filter_map(Weak::upgrade).collect();
        for log in logs {
            log.close();
        }
    });
}

impl Drop for WireLog {
    fn drop(&mut self) {
        self.close();
    }
}

#[cfg(test)]
mod tests;
