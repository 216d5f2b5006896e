//! The wire log: every frame, stderr chunk, lifecycle event and decode error of a session.
//!
//! Owns: appending (assigning `seq` and times), persistence as one JSONL file per session under
//! the data directory, an in-memory index of file offsets, queries by seq range and filter that
//! read only the entries asked for, a filter's matches by position ([`MatchCount`]), following
//! the session live ([`Follow`]), whether this process writes it or another one does (`tail`),
//! and the session files themselves (`sessions`, [`Catalog`]).
//! Refuses: interpreting entries; correlation is filled in by the connection before appending.
//!
//! Appends go to a buffered writer that a background thread flushes every
//! [`FLUSH_INTERVAL`], so a crash loses at most the last batch, not the session.

mod catalog;
mod entry;
mod export;
mod filter;
mod follow;
mod matches;
mod pairs;
mod scan;
mod sessions;
mod tail;

pub use catalog::{Catalog, CatalogError, OpenedSession};
pub use entry::{Direction, Entry, HttpInfo, Kind, Summary, PREVIEW_BYTES};
pub use export::export_jsonl;
pub use filter::{Filter, FilterChip, FilterKey, FilterView, IndexRow};
pub use follow::{Follow, Followed, LogBatch};
pub use matches::{MatchCount, COUNT_BUDGET};
pub use sessions::{
    last_session, list_sessions, prune_sessions, sessions_dir, ConnectionLabel, SessionInfo, KEEP_SESSIONS,
};
pub use tail::TAIL_INTERVAL;

use std::collections::HashSet;
use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Read, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant, SystemTime};

use tokio::sync::broadcast;

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
}

struct Inner {
    /// `None` for a session opened read-only.
    writer: Option<BufWriter<File>>,
    /// Where the next entry goes in the file: after the last complete line.
    end: u64,
    dirty: bool,
    index: Vec<IndexRow>,
    /// Method names shared by every index row that has them.
    methods: HashSet<Arc<str>>,
    /// Where entries are streamed as they are added; `None` once the log can grow no more (a
    /// session read from a file no process writes).
    live: Option<broadcast::Sender<Arc<Entry>>>,
    /// The servers the session talked to, for its card, and the connections already named.
    servers: Vec<String>,
    named: HashSet<u64>,
    /// The name each connection goes by (see `sessions::label`).
    labels: std::collections::BTreeMap<u64, String>,
    /// Where an entry is serialized before it is written, reused from one to the next.
    scratch: Vec<u8>,
}

/// Entries whose payload is smaller are serialized whole before they are written; larger ones
/// are written as they are serialized.
const WHOLE_BYTES: usize = 64 * 1024;

/// A page of entries and where the next page starts.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "bindings", derive(specta::Type))]
pub struct Page {
    pub entries: Vec<Entry>,
    /// The seq to ask for next, or `None` when the range was read to its end.
    pub next: Option<u64>,
}

impl WireLog {
    /// Creates a new session file in `dir` (created if missing), locked as being written for as
    /// long as the log lives.
    pub fn create_in(dir: &Path) -> io::Result<Arc<WireLog>> {
        let path = dir.join(sessions::file_name(SystemTime::now()));
        let file = crate::files::create_new_private(&path)?;
        let card = sessions::Card { program: sessions::this_program(), servers: Vec::new(), client: None };
        let log = WireLog::new(path, Some(BufWriter::with_capacity(256 * 1024, file)), Some(card))?;
        sessions::lock_for_writing(&log.reader);
        // A card from the start, so a listing tells "no server yet" from "no card"; a session
        // without one is recorded all the same.
        let _ = log.write_card();
        let log = Arc::new(log);
        spawn_flusher(Arc::downgrade(&log));
        // Old sessions go, so the directory cannot grow without bound; a failure here only
        // leaves more files behind.
        let _ = prune_sessions(dir, KEEP_SESSIONS);
        Ok(log)
    }

    /// Opens a recorded session read-only, indexing it by one streaming pass. A session another
    /// process (or this one) is still writing goes on growing: entries it appends are indexed
    /// and streamed to followers within [`TAIL_INTERVAL`], until its writer lets go.
    pub fn open(path: &Path) -> io::Result<Arc<WireLog>> {
        let log = Arc::new(WireLog::new(path.to_owned(), None, None)?);
        // The lock is looked at before the file is read: once it is free, what the writer wrote
        // is all in the file, and nothing more will come.
        let writing = sessions::writer_holds(&log.reader);
        log.catch_up()?;
        if writing {
            *log.tailer.lock().expect("tailer lock") = Some(tail::spawn_tailer(&log)?);
        } else {
            log.end_growth();
        }
        Ok(log)
    }

    fn new(
        path: PathBuf,
        writer: Option<BufWriter<File>>,
        card: Option<sessions::Card>,
    ) -> io::Result<WireLog> {
        Ok(WireLog {
            reader: File::open(&path)?,
            path,
            started: Instant::now(),
            inner: Mutex::new(Inner {
                writer,
                end: 0,
                dirty: false,
                index: Vec::new(),
                methods: HashSet::new(),
                live: Some(broadcast::channel(4096).0),
                servers: Vec::new(),
                named: HashSet::new(),
                labels: Default::default(),
                scratch: Vec::new(),
            }),
            card: card.map(Mutex::new),
            matches: Mutex::default(),
            tailer: Mutex::default(),
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
    /// A write error is not fatal to the session: a full disk must not stop the inspector, and
    /// the entry is still indexed and streamed.
    pub fn append(&self, mut entry: Entry) -> u64 {
        let mut guard = self.inner.lock().expect("wire log lock");
        let inner = &mut *guard;
        entry.seq = inner.index.len() as u64;
        entry.time = humantime::format_rfc3339_millis(SystemTime::now()).to_string();
        entry.ms = (self.elapsed_ms() * 1000.0).round() / 1000.0;
        let mut counter = Counting { inner: inner.writer.as_mut(), count: 0, failed: false };
        let payload = entry.text.as_ref().or(entry.base64.as_ref()).map_or(0, String::len);
        if payload < WHOLE_BYTES {
            // Serialized whole, then copied into the file buffer once: writing each escaped run
            // of a frame through to the file buffer cost more than the escaping itself.
            inner.scratch.clear();
            serde_json::to_writer(&mut inner.scratch, &entry).expect("an entry serializes");
            inner.scratch.push(b'\n');
            let _ = counter.write_all(&inner.scratch);
        } else {
            // Straight into the file buffer: a huge frame is never held twice.
            serde_json::to_writer(&mut counter, &entry).expect("an entry serializes");
            let _ = counter.write_all(b"\n");
        }
        let (len, failed) = (counter.count, counter.failed);
        if failed {
            // The file now ends in a partial line; later entries stay in memory and in the live
            // stream only, and reading them back from the file reports the error.
            inner.writer = None;
        }
        let offset = inner.end;
        inner.end += len;
        inner.dirty = true;
        let row = row_of(&entry, offset, len, &mut inner.methods);
        inner.index.push(row);
        sessions::label(&entry, &mut inner.labels);
        let new_server =
            sessions::server_named(&entry, &mut inner.named).filter(|s| !inner.servers.contains(s));
        if let Some(server) = &new_server {
            inner.servers.push(server.clone());
        }
        let seq = entry.seq;
        // Streamed under the lock, so followers get entries in seq order.
        if let Some(live) = inner.live.as_ref().filter(|l| l.receiver_count() > 0) {
            let _ = live.send(Arc::new(entry));
        }
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
        match &self.inner.lock().expect("wire log lock").live {
            Some(live) => Follow::new(live.subscribe()),
            // Its sender is dropped here: the receiver is closed from the start.
            None => Follow::new(broadcast::channel(1).1),
        }
    }

    /// How many entries the session holds.
    pub fn len(&self) -> u64 {
        self.inner.lock().expect("wire log lock").index.len() as u64
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Writes buffered entries to the file.
    pub fn flush(&self) -> io::Result<()> {
        self.flushed().map(|_| ())
    }

    /// Writes buffered entries to the file; returns how many entries the file then holds, all
    /// of them readable from it (entries appended meanwhile wait in the buffer).
    fn flushed(&self) -> io::Result<u64> {
        let mut inner = self.inner.lock().expect("wire log lock");
        inner.dirty = false;
        if let Some(w) = inner.writer.as_mut() {
            w.flush()?;
        }
        Ok(inner.index.len() as u64)
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
                if filter.matches_text(&entry) {
                    entries.push(entry);
                }
            }
        }
    }

    /// The rows in one chunk of the index from `from` (below `to`) that `filter` may match
    /// (everything but its text is checked), with the seq after the chunk; `None` at the end.
    fn rows_matching(&self, filter: &Filter, from: u64, to: u64) -> Option<(Vec<(u64, IndexRow)>, u64)> {
        let inner = self.inner.lock().expect("wire log lock");
        let end = to.min(inner.index.len() as u64);
        if from >= end {
            return None;
        }
        let stop = end.min(from.saturating_add(INDEX_CHUNK));
        let rows = (from..stop)
            .filter(|&seq| filter.matches_row(&inner.index[seq as usize]))
            .map(|seq| (seq, inner.index[seq as usize].clone()))
            .collect();
        Some((rows, stop))
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
        let written = self.flushed()? as usize;
        // Only the newest rows are taken from the index (a long session holds millions): an
        // entry's recorded form is never shorter than its text, so rows whose records add up
        // to far more than the budget surely cover it.
        let rows: Vec<IndexRow> = {
            let inner = self.inner.lock().expect("wire log lock");
            let wanted = |r: &&IndexRow| r.conn == conn && matches!(r.kind, Kind::Stderr | Kind::Lifecycle);
            let mut recorded = 0u64;
            let covered = 64 * max_bytes as u64;
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
        Ok(crate::last_words::tail(&crate::last_words::clean(&chunks.concat()), max_lines, max_bytes))
    }

    fn read_row(&self, row: &IndexRow) -> io::Result<Entry> {
        let mut buf = vec![0; row.len as usize];
        self.reader.read_exact_at(&mut buf, row.offset)?;
        serde_json::from_slice(&buf).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
    }

    /// Names the client a proxy stands in front of, on the session's card (a log this process
    /// writes only).
    pub fn set_client(&self, client: String) {
        if let Some(card) = &self.card {
            card.lock().expect("card lock").client = Some(client);
            let _ = self.write_card();
        }
    }

    /// Rewrites the card with the servers seen so far (a log this process writes only).
    fn write_card(&self) -> io::Result<()> {
        let Some(card) = &self.card else { return Ok(()) };
        let mut card = card.lock().expect("card lock");
        card.servers = self.inner.lock().expect("wire log lock").servers.clone();
        sessions::write_card(&self.path, &card)
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

fn row_of(e: &Entry, offset: u64, len: u64, methods: &mut std::collections::HashSet<Arc<str>>) -> IndexRow {
    let summary = e.summary.as_ref();
    let method = summary.and_then(|s| s.method.as_deref()).map(|m| match methods.get(m) {
        Some(shared) => shared.clone(),
        None => {
            let shared: Arc<str> = m.into();
            methods.insert(shared.clone());
            shared
        }
    });
    IndexRow {
        offset,
        len,
        conn: e.conn,
        kind: e.kind,
        dir: e.dir,
        method,
        id: summary.and_then(|s| s.id.as_deref()).map(Into::into),
        answers: e.answers,
        diag: crate::diagnose::worst(&e.findings),
        base64: e.base64.is_some(),
    }
}

/// Passes bytes to the session file (if any) and counts them. A write error stops the writing
/// but not the counting: a full disk must not stop the inspector.
struct Counting<'a> {
    inner: Option<&'a mut BufWriter<File>>,
    count: u64,
    failed: bool,
}

impl Write for Counting<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if let Some(w) = self.inner.as_mut() {
            if w.write_all(buf).is_err() {
                self.inner = None;
                self.failed = true;
            }
        }
        self.count += buf.len() as u64;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Flushes the log on a fixed beat until the log is dropped.
fn spawn_flusher(log: Weak<WireLog>) {
    std::thread::Builder::new()
        .name("wire-log-flush".into())
        .spawn(move || loop {
            std::thread::sleep(FLUSH_INTERVAL);
            let Some(log) = log.upgrade() else { return };
            let dirty = log.inner.lock().map(|i| i.dirty).unwrap_or(false);
            if dirty {
                let _ = log.flush();
            }
        })
        .expect("spawn the wire log flusher");
}

impl Drop for WireLog {
    fn drop(&mut self) {
        if let Ok(inner) = self.inner.get_mut() {
            if let Some(w) = inner.writer.as_mut() {
                let _ = w.flush();
            }
        }
    }
}

#[cfg(test)]
mod tests;
