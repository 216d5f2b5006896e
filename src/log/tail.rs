//! Reading a session file as it grows: the lines another process (or another log of this one)
//! appends are indexed and streamed to followers, the same way a live log's appends are.
//!
//! Owns: indexing complete lines from where the index ends (`WireLog::catch_up`, also the first
//! pass of [`super::WireLog::open`]) and tallying what they say about the file (see `format`),
//! doing it again each time the file changes while the writer's lock is held, and ending the
//! log's growth when the lock is let go.
//! Refuses: a polling loop: the kernel says when the file changes (inotify, through `notify`),
//! and when its writer closes it, which is how a writer that ended however it ended lets go.

use std::sync::{mpsc, Arc, Weak};

use notify::Watcher;

use super::entry::Indexed;
use super::format::Header;
use super::{row_of, scan_lines, sessions, WireLog};
use crate::sync::Lock;

/// How many bytes of new lines are indexed per hold of the log's lock.
const CHUNK_BYTES: u64 = 8 << 20;

/// A complete line of a session file, as indexing reads it.
enum Line {
    Header(u32),
    Entry {
        offset: u64,
        len: u64,
        indexed: Box<Indexed>,
    },
    /// Neither: a line a failed write left partial, or one Sonde did not write.
    Broken,
}

impl WireLog {
    /// Indexes the complete lines after the index's end, streaming them to followers, and
    /// tallies what they say about the file (its version, its end, gaps, broken lines).
    pub(super) fn catch_up(&self) -> std::io::Result<()> {
        loop {
            let from = self.inner.locked().end;
            let mut read: Vec<Line> = Vec::new();
            // Parsed without the lock, only as far as indexing needs (`Indexed`). A line that
            // is not an entry is passed over and counted: a write that failed and resumed
            // leaves one such line (a partial last line is not complete, so not read yet).
            let end = scan_lines(&self.reader, from, CHUNK_BYTES, |line, offset| {
                let header = if offset == 0 { Header::of(line) } else { None };
                read.push(match (header, serde_json::from_slice::<Indexed>(line)) {
                    (Some(header), _) => Line::Header(header.format),
                    (None, Ok(indexed)) => {
                        Line::Entry { offset, len: line.len() as u64, indexed: Box::new(indexed) }
                    }
                    (None, Err(_)) => Line::Broken,
                });
            })?;
            if end == from {
                return Ok(());
            }
            let mut guard = self.inner.locked();
            let inner = &mut *guard;
            let live = inner.live.as_ref().filter(|l| l.receiver_count() > 0).cloned();
            for line in read {
                let (offset, len, indexed) = match line {
                    Line::Header(format) => {
                        inner.tally.format = format;
                        continue;
                    }
                    Line::Broken => {
                        inner.tally.broken += 1;
                        continue;
                    }
                    Line::Entry { offset, len, indexed } => (offset, len, *indexed),
                };
                if let Some(gap) = &indexed.gap {
                    inner.tally.gaps += 1;
                    inner.tally.lost += gap.entries;
                }
                inner.tally.ended = indexed.session_end.is_some();
                let pos = inner.index.len() as u64;
                inner.seqs.place(pos, indexed.seq());
                inner.next_seq = inner.seqs.seq(pos) + 1;
                let mut entry = indexed.into_entry();
                entry.seq = inner.next_seq - 1;
                let row = row_of(&entry, offset, len, &mut inner.methods);
                sessions::label(&entry, &mut inner.labels);
                // Followers get the entry whole: read again, a line at a time (a session
                // being followed grows by a few lines per change).
                let whole = live.as_ref().and_then(|_| self.read_row(&row).ok());
                inner.index.push(row);
                if let (Some(live), Some(whole)) = (&live, whole) {
                    let _ = live.send((Arc::new(whole), Some(pos)));
                }
            }
            inner.end = end;
        }
    }

    /// The log will grow no more: its followers hear that it has ended.
    pub(super) fn end_growth(&self) {
        self.inner.locked().live = None;
    }
}

/// What keeps a session written by another process followed: dropped with its log, it stops
/// the watch, and the thread waiting on it ends once the writer has let go too.
pub(super) struct Tailer {
    _watcher: notify::RecommendedWatcher,
}

/// Why the tail thread wakes.
enum Wake {
    /// The kernel says the file changed.
    Changed,
    /// The writer let go of its lock: whatever it wrote is in the file.
    WriterGone,
}

/// Indexes what the writer appends each time the file changes, until the writer lets go of its
/// lock (it finished, or its process ended however it ended) or the log is dropped.
///
/// The end is heard by a second thread that blocks on the lock itself, not read from the close
/// event: the kernel reports a file closed before it releases the lock on it, so a look at the
/// lock on that event can still find it held, and no later event would come to look again.
pub(super) fn spawn_tailer(log: &Arc<WireLog>) -> std::io::Result<Tailer> {
    let (wake, wakes) = mpsc::channel();
    let changed = wake.clone();
    let mut watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
        if event.is_ok() {
            let _ = changed.send(Wake::Changed);
        }
    })
    .map_err(std::io::Error::other)?;
    watcher.watch(log.path(), notify::RecursiveMode::NonRecursive).map_err(std::io::Error::other)?;
    // A first look once the watch is in place: the writer may have appended just before it.
    let _ = wake.send(Wake::Changed);
    let lock_file = std::fs::File::open(log.path())?;
    std::thread::Builder::new().name("wire-log-writer".into()).spawn(move || {
        sessions::wait_for_writer(&lock_file);
        let _ = wake.send(Wake::WriterGone);
    })?;
    let log: Weak<WireLog> = Arc::downgrade(log);
    std::thread::Builder::new().name("wire-log-tail".into()).spawn(move || {
        // Ends when the log is dropped (at the next wake-up) or its writer has gone.
        while let Ok(wake) = wakes.recv() {
            let Some(log) = log.upgrade() else { return };
            // A read that fails (the file is gone, say) is tried again on the next change; the
            // entries indexed so far stay readable.
            let _ = log.catch_up();
            if let Wake::WriterGone = wake {
                log.end_growth();
                return;
            }
        }
    })?;
    Ok(Tailer { _watcher: watcher })
}

#[cfg(test)]
mod tests {
    use std::io::Write as _;
    use std::time::Instant;

    use super::super::{Direction, Entry, Filter, Followed, Kind, LogBatch};
    use super::*;
    use std::time::Duration;

    fn temp_dir(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("sonde-tail-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    fn note(i: usize) -> Entry {
        Entry::new(1, Kind::Note, Direction::Meta).with_detail(format!("note {i}"))
    }

    #[tokio::test]
    async fn a_session_written_by_another_log_is_followed_live_until_its_writer_ends() {
        let writer = WireLog::create_in(&temp_dir("live")).unwrap();
        writer.append(note(0));
        writer.flush().unwrap();
        let reader = WireLog::open(writer.path()).unwrap();
        assert_eq!(reader.len(), 1);
        let mut follow = reader.follow();
        // The writer appends on its own thread, as another process would, flushing on its beat.
        let writing = std::thread::spawn(move || {
            for i in 1..=20 {
                writer.append(note(i));
            }
            writer
        });
        let mut seen = Vec::new();
        let deadline = Duration::from_secs(10);
        while seen.len() < 20 {
            match tokio::time::timeout(deadline, follow.next()).await {
                // Whole, as the writer wrote it (indexing reads less of each line).
                Ok(Some(Followed::Entry(e, _))) => {
                    assert_eq!(e.detail.as_deref(), Some(format!("note {}", e.seq).as_str()));
                    seen.push(e.seq)
                }
                other => panic!("expected entry {} of the writer, got {other:?}", seen.len() + 1),
            }
        }
        assert_eq!(seen, (1..=20).collect::<Vec<u64>>());
        assert_eq!(reader.len(), 21);
        let page = reader.page(15, 18, &Filter::default(), 10).unwrap();
        assert_eq!(page.entries.iter().map(|e| e.seq).collect::<Vec<_>>(), [15, 16, 17]);

        // The writer goes (its lock with it): the follower hears the end, after every entry and
        // the end-of-session entry.
        let writer = writing.join().unwrap();
        writer.append(note(21));
        drop(writer);
        let rest = tokio::time::timeout(deadline, async {
            let mut rest = Vec::new();
            while let Some(followed) = follow.next().await {
                rest.push(followed);
            }
            rest
        })
        .await
        .expect("the follower hears the end within 10 s");
        assert!(
            matches!(&rest[..], [Followed::Entry(e, _), Followed::Entry(end, _)] if e.seq == 21 && end.seq == 22),
            "{rest:?}"
        );
        assert_eq!(reader.len(), 23);
        assert!(
            reader.incomplete().is_empty(),
            "a session closed properly is whole: {:?}",
            reader.incomplete()
        );
    }

    #[tokio::test]
    async fn a_writer_that_lets_go_of_its_lock_last_is_heard_to_end() {
        // The lock is held on a descriptor of its own, as a process's may outlive the one it
        // writes with: the kernel says "closed" for the writes before the lock goes, and the
        // lock's going says nothing to a file watch.
        let dir = temp_dir("lock-last");
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("session.jsonl");
        let mut entry = note(0);
        entry.seq = 0;
        std::fs::write(&path, format!("{}\n", serde_json::to_string(&entry).unwrap())).unwrap();
        let lock = std::fs::File::open(&path).unwrap();
        sessions::lock_for_writing(&lock);
        let reader = WireLog::open(&path).unwrap();
        assert_eq!(reader.len(), 1);
        let mut follow = reader.follow();
        let mut file = std::fs::OpenOptions::new().append(true).open(&path).unwrap();
        entry = note(1);
        entry.seq = 1;
        file.write_all(format!("{}\n", serde_json::to_string(&entry).unwrap()).as_bytes()).unwrap();
        drop(file);
        let deadline = Duration::from_secs(10);
        match tokio::time::timeout(deadline, follow.next()).await {
            Ok(Some(Followed::Entry(e, _))) => assert_eq!(e.seq, 1),
            other => panic!("expected the appended entry, got {other:?}"),
        }
        drop(lock);
        let end = tokio::time::timeout(deadline, follow.next()).await;
        assert!(matches!(end, Ok(None)), "the follower hears the end within 10 s: {end:?}");
    }

    #[tokio::test]
    async fn a_finished_session_ends_its_followers_at_once() {
        let writer = WireLog::create_in(&temp_dir("done")).unwrap();
        writer.append(note(0));
        let path = writer.path().to_owned();
        drop(writer);
        let reader = WireLog::open(&path).unwrap();
        let mut batches: Vec<LogBatch> = Vec::new();
        let ended = tokio::time::timeout(
            Duration::from_secs(10),
            reader.follow().batches(Duration::from_millis(5), |b| {
                batches.push(b);
                true
            }),
        )
        .await;
        assert!(ended.is_ok(), "batches end with the log's growth");
        assert_eq!(batches, [LogBatch { entries: vec![], rows: vec![], skipped: 0, ended: true }]);
    }

    #[test]
    fn a_line_being_written_is_indexed_once_it_is_whole() {
        let writer = WireLog::create_in(&temp_dir("partial")).unwrap();
        writer.append(note(0));
        writer.flush().unwrap();
        let reader = WireLog::open(writer.path()).unwrap();
        // Half a line, as a writer's buffer may reach the file: not an entry yet.
        let line = serde_json::to_string(&{
            let mut e = note(1);
            e.seq = 1;
            e
        })
        .unwrap();
        let (head, tail) = line.split_at(line.len() / 2);
        let mut file = std::fs::OpenOptions::new().append(true).open(writer.path()).unwrap();
        file.write_all(head.as_bytes()).unwrap();
        reader.catch_up().unwrap();
        assert_eq!(reader.len(), 1);
        file.write_all(format!("{tail}\n").as_bytes()).unwrap();
        let deadline = Instant::now() + Duration::from_secs(10);
        while reader.len() < 2 {
            assert!(Instant::now() < deadline, "the whole line was never indexed");
            std::thread::sleep(Duration::from_millis(5));
        }
        let entries = reader.entries(&Filter::default()).unwrap();
        assert_eq!(entries[1].detail.as_deref(), Some("note 1"));
    }
}
