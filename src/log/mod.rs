//! The wire log: every frame, stderr chunk, lifecycle event and decode error of a session.
//!
//! Owns: appending (assigning `seq` and times), persistence as one JSONL file per session under
//! the data directory, an in-memory index of file offsets, and queries by seq range and filter
//! that read only the entries asked for, and following the session live ([`Follow`]).
//! Refuses: interpreting entries; correlation is filled in by the connection before appending.
//!
//! Appends go to a buffered writer that a background thread flushes every
//! [`FLUSH_INTERVAL`], so a crash loses at most the last batch, not the session.

mod entry;
mod filter;
mod follow;

pub use entry::{Direction, Entry, HttpInfo, Kind, Summary};
pub use filter::{Filter, FilterChip, FilterKey, FilterView, IndexRow};
pub use follow::{Follow, Followed, LogBatch};

use std::fs::{self, File, OpenOptions};
use std::io::{self, BufRead, BufReader, BufWriter, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant, SystemTime};

use tokio::sync::broadcast;

/// How often buffered entries reach the file.
pub const FLUSH_INTERVAL: Duration = Duration::from_millis(25);

/// A session's wire log. Cheap to share as `Arc<WireLog>`; every method takes `&self`.
pub struct WireLog {
    path: PathBuf,
    started: Instant,
    inner: Mutex<Inner>,
    reader: File,
    live: broadcast::Sender<Arc<Entry>>,
}

struct Inner {
    /// `None` for a session opened read-only.
    writer: Option<BufWriter<File>>,
    end: u64,
    dirty: bool,
    index: Vec<IndexRow>,
    /// Method names shared by every index row that has them.
    methods: std::collections::HashSet<Arc<str>>,
}

/// A page of entries and where the next page starts.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "bindings", derive(specta::Type))]
pub struct Page {
    pub entries: Vec<Entry>,
    /// The seq to ask for next, or `None` when the range was read to its end.
    pub next: Option<u64>,
}

impl WireLog {
    /// Creates a new session file in `dir` (created if missing).
    pub fn create_in(dir: &Path) -> io::Result<Arc<WireLog>> {
        fs::create_dir_all(dir)?;
        let stamp = humantime::format_rfc3339_millis(SystemTime::now()).to_string().replace(':', "-");
        let path = dir.join(format!("{stamp}-{}.jsonl", std::process::id()));
        let file = OpenOptions::new().create_new(true).append(true).open(&path)?;
        let log = Arc::new(WireLog::with_writer(
            path,
            Some(BufWriter::with_capacity(256 * 1024, file)),
            0,
            Vec::new(),
        )?);
        spawn_flusher(Arc::downgrade(&log));
        // Old sessions go, so the directory cannot grow without bound; a failure here only
        // leaves more files behind.
        let _ = prune_sessions(dir, KEEP_SESSIONS);
        Ok(log)
    }

    /// Opens a recorded session read-only, indexing it by one streaming pass.
    pub fn open(path: &Path) -> io::Result<Arc<WireLog>> {
        let mut reader = BufReader::with_capacity(1 << 20, File::open(path)?);
        let mut index = Vec::new();
        let mut methods = std::collections::HashSet::new();
        let mut offset = 0u64;
        let mut line = Vec::new();
        loop {
            line.clear();
            let n = reader.read_until(b'\n', &mut line)? as u64;
            if n == 0 {
                break;
            }
            // A crash can leave a partial last line; it is not an entry.
            if line.last() == Some(&b'\n') {
                if let Ok(e) = serde_json::from_slice::<Entry>(&line) {
                    index.push(row_of(&e, offset, n, &mut methods));
                }
            }
            offset += n;
        }
        Ok(Arc::new(WireLog::with_writer(path.to_owned(), None, offset, index)?))
    }

    fn with_writer(
        path: PathBuf,
        writer: Option<BufWriter<File>>,
        end: u64,
        index: Vec<IndexRow>,
    ) -> io::Result<WireLog> {
        Ok(WireLog {
            reader: File::open(&path)?,
            path,
            started: Instant::now(),
            inner: Mutex::new(Inner { writer, end, dirty: false, index, methods: Default::default() }),
            live: broadcast::channel(4096).0,
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
        // Serialized straight into the file buffer, counting the bytes for the index: a huge
        // frame is never held twice more than it must be.
        let mut counter = Counting { inner: inner.writer.as_mut(), count: 0, failed: false };
        serde_json::to_writer(&mut counter, &entry).expect("an entry serializes");
        let _ = counter.write_all(b"\n");
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
        drop(guard);
        let seq = entry.seq;
        if self.live.receiver_count() > 0 {
            let _ = self.live.send(Arc::new(entry));
        }
        seq
    }

    /// Entries appended from now on, as they are appended.
    pub fn follow(&self) -> Follow {
        Follow::new(self.live.subscribe())
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
        let mut inner = self.inner.lock().expect("wire log lock");
        inner.dirty = false;
        match inner.writer.as_mut() {
            Some(w) => w.flush(),
            None => Ok(()),
        }
    }

    /// Reads up to `limit` entries with seq in `from..to` that match `filter`.
    pub fn page(&self, from: u64, to: u64, filter: &Filter, limit: usize) -> io::Result<Page> {
        self.flush()?;
        let rows: Vec<(u64, IndexRow)> = {
            let inner = self.inner.lock().expect("wire log lock");
            let end = to.min(inner.index.len() as u64);
            (from.min(end)..end)
                .filter(|&seq| filter.matches_row(&inner.index[seq as usize]))
                .map(|seq| (seq, inner.index[seq as usize].clone()))
                .collect()
        };
        let mut entries = Vec::new();
        for (seq, row) in rows {
            if entries.len() == limit {
                return Ok(Page { entries, next: Some(seq) });
            }
            let entry = self.read_row(&row)?;
            if filter.matches_text(&entry) {
                entries.push(entry);
            }
        }
        Ok(Page { entries, next: None })
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
        self.flush()?;
        // Only the newest rows are taken from the index (a long session holds millions): an
        // entry's recorded form is never shorter than its text, so rows whose records add up
        // to far more than the budget surely cover it.
        let rows: Vec<IndexRow> = {
            let inner = self.inner.lock().expect("wire log lock");
            let wanted = |r: &&IndexRow| r.conn == conn && matches!(r.kind, Kind::Stderr | Kind::Lifecycle);
            let mut recorded = 0u64;
            let covered = 64 * max_bytes as u64;
            inner
                .index
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

/// Writes the entries matching `filter` to `path` as JSONL, with every occurrence of each of
/// `secrets` (environment values, tokens) replaced by `«redacted»` in the recorded text and
/// details. Returns how many entries were written.
pub fn export_jsonl(log: &WireLog, filter: &Filter, secrets: &[String], path: &Path) -> io::Result<u64> {
    let mut out = BufWriter::new(File::create(path)?);
    let redact = |s: &mut Option<String>| {
        if let Some(text) = s.as_mut() {
            for secret in secrets.iter().filter(|s| !s.is_empty()) {
                if text.contains(secret.as_str()) {
                    *text = text.replace(secret.as_str(), "«redacted»");
                }
            }
        }
    };
    let mut from = 0;
    let mut written = 0;
    loop {
        let page = log.page(from, u64::MAX, filter, 1000)?;
        for mut entry in page.entries {
            redact(&mut entry.text);
            redact(&mut entry.detail);
            serde_json::to_writer(&mut out, &entry)?;
            out.write_all(b"\n")?;
            written += 1;
        }
        match page.next {
            Some(next) => from = next,
            None => break,
        }
    }
    out.flush()?;
    Ok(written)
}

/// Where sessions are kept: `$XDG_DATA_HOME/sonde/sessions` on Linux.
pub fn sessions_dir() -> io::Result<PathBuf> {
    let dirs = directories::ProjectDirs::from("", "", "sonde")
        .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "no home directory to keep sessions in"))?;
    Ok(dirs.data_dir().join("sessions"))
}

/// How many session files a directory keeps: the newest ones.
pub const KEEP_SESSIONS: usize = 500;

/// Removes all but the `keep` newest session files (`*.jsonl`) in `dir`; returns how many went.
pub fn prune_sessions(dir: &Path, keep: usize) -> io::Result<usize> {
    let mut sessions: Vec<(SystemTime, PathBuf)> = Vec::new();
    for item in fs::read_dir(dir)? {
        let item = item?;
        let path = item.path();
        if path.extension().is_some_and(|e| e == "jsonl") {
            sessions.push((item.metadata()?.modified()?, path));
        }
    }
    sessions.sort_by(|a, b| b.cmp(a));
    let old = sessions.split_off(keep.min(sessions.len()));
    for (_, path) in &old {
        fs::remove_file(path)?;
    }
    Ok(old.len())
}

/// The most recent session file in `dir`.
pub fn last_session(dir: &Path) -> io::Result<PathBuf> {
    let mut newest: Option<(SystemTime, PathBuf)> = None;
    for item in fs::read_dir(dir)? {
        let item = item?;
        let path = item.path();
        if path.extension().is_some_and(|e| e == "jsonl") {
            let modified = item.metadata()?.modified()?;
            if newest.as_ref().is_none_or(|(t, p)| (modified, &path) > (*t, p)) {
                newest = Some((modified, path));
            }
        }
    }
    newest
        .map(|(_, p)| p)
        .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, format!("no session in {}", dir.display())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_newest_sessions_are_kept() {
        let dir = std::env::temp_dir().join(format!("sonde-prune-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        for i in 0..5 {
            let path = dir.join(format!("s{i}.jsonl"));
            fs::write(&path, "").unwrap();
            let at = SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000 + i);
            fs::File::options().write(true).open(&path).unwrap().set_modified(at).unwrap();
        }
        fs::write(dir.join("notes.txt"), "not a session").unwrap();
        assert_eq!(prune_sessions(&dir, 2).unwrap(), 3);
        let mut left: Vec<String> =
            fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
        left.sort();
        assert_eq!(left, ["notes.txt", "s3.jsonl", "s4.jsonl"]);
        fs::remove_dir_all(&dir).unwrap();
    }

    fn temp_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("sonde-log-test-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        dir
    }

    fn stderr(text: &str) -> Entry {
        Entry::new(1, Kind::Stderr, Direction::In).with_bytes(text.as_bytes())
    }

    #[test]
    fn last_stderr_is_the_latest_process_s_tail_of_one_connection_cleaned() {
        let log = WireLog::create_in(&temp_dir("last-stderr")).unwrap();
        let spawned = |conn| {
            let mut e = Entry::new(conn, Kind::Lifecycle, Direction::Meta);
            e.lifecycle = Some(crate::lifecycle::Lifecycle::Spawned { pid: 1, command: "x".into() });
            e
        };
        log.append(spawned(1));
        log.append(stderr("first process\r\n"));
        log.append(spawned(1));
        log.append(stderr("\u{1b}[31mError\u{1b}[0m: one\r\r\ntw"));
        log.append(Entry::new(2, Kind::Stderr, Direction::In).with_bytes(b"other connection\n"));
        log.append(stderr("o\r\nthree\r\n"));
        assert_eq!(log.last_stderr(1, 20, 4096).unwrap(), ["Error: one", "two", "three"]);
        assert_eq!(log.last_stderr(1, 2, 4096).unwrap(), ["two", "three"]);
        assert_eq!(log.last_stderr(2, 20, 4096).unwrap(), ["other connection"]);
        assert!(log.last_stderr(3, 20, 4096).unwrap().is_empty());
    }

    #[test]
    fn appended_entries_are_numbered_persisted_and_reopened() {
        let dir = temp_dir("reopen");
        let log = WireLog::create_in(&dir).unwrap();
        for i in 0..10 {
            assert_eq!(log.append(stderr(&format!("line {i}"))), i);
        }
        let path = log.path().to_owned();
        log.flush().unwrap();
        let reopened = WireLog::open(&path).unwrap();
        assert_eq!(reopened.len(), 10);
        let all = reopened.entries(&Filter::default()).unwrap();
        assert_eq!(all[7].text.as_deref(), Some("line 7"));
        assert_eq!(all[7].seq, 7);
        assert_eq!(last_session(&dir).unwrap(), path);
    }

    #[test]
    fn pages_follow_seq_ranges_and_filters() {
        let log = WireLog::create_in(&temp_dir("pages")).unwrap();
        for i in 0..100 {
            let e = if i % 10 == 0 {
                Entry::new(2, Kind::Lifecycle, Direction::Meta).with_detail(format!("step {i}"))
            } else {
                stderr(&format!("noise {i}"))
            };
            log.append(e);
        }
        let page = log.page(10, 50, &Filter::default(), 15).unwrap();
        assert_eq!(page.entries.first().unwrap().seq, 10);
        assert_eq!(page.entries.len(), 15);
        assert_eq!(page.next, Some(25));
        let lifecycle = log.page(0, u64::MAX, &Filter::parse("kind:lifecycle").unwrap(), 100).unwrap();
        assert_eq!(lifecycle.entries.len(), 10);
        assert_eq!(lifecycle.next, None);
        let text = log.entries(&Filter::parse("noise 42").unwrap()).unwrap();
        assert_eq!(text.iter().map(|e| e.seq).collect::<Vec<_>>(), vec![42]);
    }

    #[test]
    fn a_partial_last_line_left_by_a_crash_is_skipped_on_open() {
        let dir = temp_dir("partial");
        let log = WireLog::create_in(&dir).unwrap();
        log.append(stderr("whole"));
        log.flush().unwrap();
        let path = log.path().to_owned();
        drop(log);
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(b"{\"seq\":1,\"ti").unwrap();
        assert_eq!(WireLog::open(&path).unwrap().len(), 1);
    }

    #[test]
    fn exports_redact_secrets() {
        let log = WireLog::create_in(&temp_dir("export")).unwrap();
        log.append(stderr("token=sk-live-1234 ok"));
        log.append(stderr("nothing here"));
        let path = temp_dir("export-out").with_extension("jsonl");
        let n = export_jsonl(&log, &Filter::default(), &["sk-live-1234".into()], &path).unwrap();
        assert_eq!(n, 2);
        let text = fs::read_to_string(&path).unwrap();
        assert!(!text.contains("sk-live-1234") && text.contains("token=«redacted» ok"), "{text}");
    }

    #[test]
    fn the_flusher_writes_without_being_asked() {
        let log = WireLog::create_in(&temp_dir("flusher")).unwrap();
        log.append(stderr("soon on disk"));
        let deadline = Instant::now() + Duration::from_secs(5);
        while fs::read_to_string(log.path()).unwrap().is_empty() {
            assert!(Instant::now() < deadline, "the entry never reached the file");
            std::thread::yield_now();
        }
    }
}
