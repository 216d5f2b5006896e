//! The session log when its file cannot be written (a full disk, a file that cannot be cut, its
//! directory removed) and when it is read back (a killed writer, a file of the first format):
//! the session goes on, the log says at once what it lost and records the gap once it can, and
//! every whole entry reads back at the offsets the index holds.
//!
//! Each full-disk test mounts a tmpfs of its own, a few hundred KiB: they run as root, here
//! and in CI.

use std::fs;
use std::io::Write;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

use sonde_core::{
    count_entries, list_sessions, Direction, Entry, Filter, Followed, Incomplete, Kind, Recording, WireLog,
};

/// A tmpfs mounted at a directory of its own, unmounted when dropped, a failing test's
/// unwinding included.
struct Tmpfs {
    dir: PathBuf,
}

impl Tmpfs {
    fn mount(name: &str, size: &str) -> Tmpfs {
        let dir = std::env::temp_dir().join(format!("sonde-tmpfs-{name}-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let status = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(&dir)
            .status()
            .expect("run mount");
        assert!(status.success(), "mount -t tmpfs on {} failed (the tests run as root)", dir.display());
        Tmpfs { dir }
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        // Lazily: a file the test still holds open must not keep the mount.
        let _ = Command::new("umount").arg("-l").arg(&self.dir).status();
        let _ = fs::remove_dir(&self.dir);
    }
}

/// Writes `path` until the file system it is on is full.
fn fill(path: &Path) {
    let mut file = fs::File::create(path).unwrap();
    let chunk = vec![b'f'; 4096];
    while file.write_all(&chunk).is_ok() {}
    while file.write_all(b"f").is_ok() {}
}

/// Marks a file append-only (`chattr +a`): it can grow, and never be cut.
fn append_only(path: &Path) {
    const FS_APPEND_FL: libc::c_long = 0x20;
    let file = fs::File::open(path).unwrap();
    let flags: libc::c_long = FS_APPEND_FL;
    // SAFETY: FS_IOC_SETFLAGS reads one c_long from the pointer, which outlives the call.
    let done = unsafe { libc::ioctl(file.as_raw_fd(), libc::FS_IOC_SETFLAGS, &flags) };
    assert_eq!(done, 0, "chattr +a: {}", std::io::Error::last_os_error());
}

fn note(text: &str) -> Entry {
    Entry::new(1, Kind::Stderr, Direction::In).with_bytes(text.as_bytes())
}

/// The seqs and texts of entries.
fn seqs(entries: &[Entry]) -> Vec<u64> {
    entries.iter().map(|e| e.seq).collect()
}

/// Waits for the recording feed to say `what`, for at most 10 s (the retry comes every half
/// second).
async fn until(feed: &mut sonde_core::Feed<Recording>, what: impl Fn(&Recording) -> bool) -> Recording {
    let wait = async {
        loop {
            let items = feed.next().await.expect("the log is alive");
            if let Some(found) = items.into_iter().find(|r| what(r)) {
                return found;
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(10), wait)
        .await
        .expect("the recording changed as expected within 10 s")
}

/// A log in a tmpfs with three small entries written, then a disk filled to the last byte: the
/// session file has room left only in its last page. Returns the log, the filler, and an entry
/// text that is sure to overflow that room mid-line.
fn log_on_a_full_disk(fs: &Tmpfs) -> (Arc<WireLog>, PathBuf, String) {
    let log = WireLog::create_in(&fs.dir.join("sessions")).unwrap();
    for i in 0..3 {
        log.append(note(&format!("before {i}")));
    }
    log.flush().unwrap();
    let filler = fs.dir.join("filler");
    fill(&filler);
    let len = fs::metadata(log.path()).unwrap().len();
    let room = 4096 - len % 4096;
    (log, filler, "b".repeat(room as usize + 1000))
}

/// Every line of the file after its header, as entries; panics on a line that is not one.
fn lines_of(path: &Path) -> Vec<Entry> {
    let text = fs::read_to_string(path).unwrap();
    assert!(text.ends_with('\n'), "the file ends with a whole line");
    let mut lines = text.lines();
    assert!(lines.next().unwrap().starts_with(&format!(r#"{{"format":{},"#, sonde_core::SESSION_FORMAT)));
    lines.map(|l| Entry::from_line(l.as_bytes()).unwrap_or_else(|e| panic!("{e}: {l}"))).collect()
}

/// A full disk: the write that fails leaves the file with its whole lines only (the part of
/// the line it wrote is cut off), the session goes on (entries are streamed, counted, not
/// kept), the stop is told at once, and once there is room again a note records the gap; the
/// index's offsets stay true throughout, here and read back from the file.
#[tokio::test]
async fn a_full_disk_stops_the_file_at_a_whole_line_and_a_note_records_the_gap_once_there_is_room() {
    let fs = Tmpfs::mount("full", "300k");
    let (log, filler, big) = log_on_a_full_disk(&fs);
    let mut feed = log.follow_recording();
    assert_eq!(feed.now(), [Recording::default()]);
    let mut follow = log.follow();
    assert_eq!(log.append(note(&big)), 3);
    // Streamed with the row the index gave it, before the write failed.
    assert!(matches!(follow.try_next(), Some(Followed::Entry(e, Some(3))) if e.seq == 3));
    let error = log.flush().unwrap_err();
    assert_eq!(error.to_string(), "the session log stopped at entry 3: No space left on device");
    let told = until(&mut feed, |r| r.stopped.is_some()).await;
    let stop = told.stopped.clone().unwrap();
    assert_eq!(
        (stop.at, stop.error.as_str(), stop.row, stop.streamed_until),
        (3, "No space left on device", 3, 4)
    );
    assert_eq!(told.first_stop, told.stopped);
    assert_eq!(seqs(&lines_of(log.path())), [0, 1, 2], "entry 3's partial line was cut off");

    // The session goes on: followers get every entry, without a row, the file none, memory
    // keeps a count.
    for i in 0..50 {
        assert_eq!(log.append(note(&format!("during {i}"))), 4 + i);
    }
    for i in 0..50 {
        match follow.try_next() {
            Some(Followed::Entry(e, None)) => assert_eq!(e.seq, 4 + i),
            other => panic!("entry {} streamed without a row: {other:?}", 4 + i),
        }
    }
    assert_eq!(log.rows(), 3);
    assert_eq!(log.recording().lost, 51);
    assert_eq!(seqs(&log.entries(&Filter::default()).unwrap()), [0, 1, 2]);
    assert_eq!(log.len(), 54);

    fs::remove_file(&filler).unwrap();
    let resumed = until(&mut feed, |r| r.gaps == 1).await;
    assert_eq!(resumed.stopped, None);
    let gap = resumed.last_gap.clone().unwrap();
    assert_eq!((gap.first, gap.entries, gap.error.as_str()), (3, 51, "No space left on device"));
    assert!(gap.from <= gap.to, "{gap:?}");
    assert_eq!(resumed.lost, 51);
    assert_eq!(log.append(note("after")), 55);
    log.flush().unwrap();
    // By row, the gap is one row, its note's, in the row the stop named.
    let streamed: Vec<_> = std::iter::from_fn(|| follow.try_next()).collect();
    assert!(
        matches!(&streamed[..], [Followed::Entry(gap, Some(3)), Followed::Entry(after, Some(4))]
            if gap.seq == 54 && after.seq == 55),
        "{streamed:?}"
    );
    assert_eq!(log.rows(), 5);
    assert_eq!(seqs(&log.row_page(0, 100).unwrap()), [0, 1, 2, 54, 55]);
    assert_eq!(seqs(&log.row_page(3, 1).unwrap()), [54]);
    assert_eq!(
        (log.row_of(2), log.row_of(20), log.row_of(54), log.row_of(56)),
        (Some(2), None, Some(3), None)
    );

    let all = log.entries(&Filter::default()).unwrap();
    assert_eq!(seqs(&all), [0, 1, 2, 54, 55]);
    assert_eq!(all[3].kind, Kind::Note);
    let detail = all[3].detail.as_deref().unwrap();
    assert!(
        detail.starts_with(
            "51 entries were not recorded (seq 3 to 53): the session file could not be written for "
        ) && detail.ends_with(" (No space left on device)"),
        "{detail}"
    );
    assert_eq!(all[4].text.as_deref(), Some("after"));
    assert_eq!(lines_of(log.path()), all, "the file holds what the index says, where it says");
    // A page from inside the gap starts after it; a seq in it has no entry.
    assert_eq!(seqs(&log.page(10, u64::MAX, &Filter::default(), 10).unwrap().entries), [54, 55]);
    assert!(log.page(20, 21, &Filter::default(), 10).unwrap().entries.is_empty());
    let text = Filter::parse("after").unwrap();
    assert_eq!(seqs(&log.entries(&text).unwrap()), [55]);
    assert_eq!(log.count_matches(&text, u64::MAX, 100).unwrap().scanned, 56);

    // Read back while it is written: the same entries, and the gap.
    let read = WireLog::open(log.path()).unwrap();
    assert_eq!(read.entries(&Filter::default()).unwrap(), all);
    assert_eq!((read.len(), read.rows()), (56, 5));
    assert_eq!(read.row_of(55), Some(4));
    assert_eq!(read.incomplete(), [Incomplete::Gaps { gaps: 1, entries: 51 }]);
    drop(read);

    // Closed: the end entry counts what was lost, and a listing says it without reading the
    // entries.
    let path = log.path().to_owned();
    let closed = log.close();
    assert_eq!((closed.gaps, closed.lost, closed.stopped), (1, 51, None));
    drop(log);
    let read = WireLog::open(&path).unwrap();
    let end = read.entries(&Filter::default()).unwrap().pop().unwrap();
    assert_eq!(end.detail.as_deref(), Some("the session ended: 56 entries, 51 of them not recorded"));
    assert_eq!(read.incomplete(), [Incomplete::Gaps { gaps: 1, entries: 51 }]);
    let listed = list_sessions(path.parent().unwrap()).unwrap();
    assert_eq!(listed[0].incomplete, [Incomplete::Gaps { gaps: 1, entries: 51 }]);
    assert_eq!(count_entries(&path).unwrap(), 6);
}

/// A file that cannot be cut (append-only, as some file systems refuse a truncation): the
/// partial line a failed write left stays, and when writing resumes it is ended with `!` and
/// a newline, so it parses as nothing and the gap note starts a line of its own. Readers pass
/// over that one line and say so.
#[tokio::test]
async fn a_partial_line_that_cannot_be_cut_off_is_ended_so_that_no_reader_takes_it_for_an_entry() {
    let fs = Tmpfs::mount("uncut", "300k");
    let (log, filler, big) = log_on_a_full_disk(&fs);
    append_only(log.path());
    let mut feed = log.follow_recording();
    log.append(note(&big));
    assert!(log.flush().is_err());
    let text = fs::read_to_string(log.path()).unwrap();
    let torn = text.rsplit('\n').next().unwrap();
    assert!(torn.starts_with(r#"{"seq":3,"#) && torn.len() > 100, "a partial line is left: {torn:?}");

    fs::remove_file(&filler).unwrap();
    until(&mut feed, |r| r.gaps == 1).await;
    log.append(note("after"));
    log.flush().unwrap();
    let text = fs::read_to_string(log.path()).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 7, "header, 3 entries, the ended line, the note, one more: {lines:#?}");
    assert!(lines[4].starts_with(r#"{"seq":3,"#) && lines[4].ends_with('!'), "{}", lines[4]);
    assert!(serde_json::from_str::<serde_json::Value>(lines[4]).is_err());
    let all = log.entries(&Filter::default()).unwrap();
    assert_eq!(seqs(&all), [0, 1, 2, 4, 5]);
    assert_eq!(all[3].detail.as_deref().map(|d| d.starts_with("entry 3 was not recorded")), Some(true));
    assert_eq!(all[4].text.as_deref(), Some("after"));

    let read = WireLog::open(log.path()).unwrap();
    assert_eq!(read.entries(&Filter::default()).unwrap(), all);
    assert_eq!(
        read.incomplete(),
        [Incomplete::BrokenLines { count: 1 }, Incomplete::Gaps { gaps: 1, entries: 1 }]
    );
}

/// The session file removed with its directory: writes would go on to a file no one can open,
/// so the log stops for good, says why, and the session goes on; nothing is created again.
#[test]
fn a_removed_session_file_stops_the_log_for_good_and_the_session_goes_on() {
    let dir = std::env::temp_dir().join(format!("sonde-log-removed-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    let log = WireLog::create_in(&dir.join("sessions")).unwrap();
    log.append(note("kept"));
    log.flush().unwrap();
    fs::remove_dir_all(&dir).unwrap();
    let mut follow = log.follow();
    assert_eq!(log.append(note("lost")), 1);
    assert!(matches!(follow.try_next(), Some(Followed::Entry(e, _)) if e.seq == 1));
    let error = log.flush().unwrap_err();
    assert_eq!(error.to_string(), "the session log stopped at entry 1: the session file was removed");
    let closed = log.close();
    let stop = closed.stopped.expect("still stopped after the last try");
    assert_eq!((stop.at, closed.lost), (1, 2), "the entry and the end entry");
    assert!(!dir.exists(), "nothing is created again");
    assert_eq!(log.entries(&Filter::default()).unwrap().len(), 1, "what was written reads back");
}

/// Lines as the first format wrote them, before the header and the end entry existed.
const FIRST_FORMAT: &str = r#"{"seq":0,"time":"2026-11-30T12:00:00.001Z","ms":0.012,"conn":1,"kind":"lifecycle","dir":"meta","detail":"spawned sonde demo-server (pid 4242)","lifecycle":{"event":"spawned","pid":4242,"command":"sonde demo-server"}}
{"seq":1,"time":"2026-11-30T12:00:00.002Z","ms":1.5,"conn":1,"kind":"message","dir":"out","text":"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}","summary":{"type":"request","method":"ping","id":"1"}}
{"seq":2,"time":"2026-11-30T12:00:00.004Z","ms":3.25,"conn":1,"kind":"message","dir":"in","text":"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}","summary":{"type":"result","method":"ping","id":"1"},"answers":1,"latency_ms":1.75}
"#;

/// A session written before the format had a version (no header, no end entry) reads as it
/// always did, and is not called incomplete for lacking what did not exist.
#[test]
fn a_session_of_the_first_format_reads_as_it_always_did() {
    let dir = std::env::temp_dir().join(format!("sonde-log-first-format-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    let path = dir.join("2026-11-30T12-00-00.000Z-4242.jsonl");
    fs::write(&path, FIRST_FORMAT).unwrap();
    let log = WireLog::open(&path).unwrap();
    let entries = log.entries(&Filter::default()).unwrap();
    assert_eq!(seqs(&entries), [0, 1, 2]);
    assert_eq!(entries[1].summary.as_ref().unwrap().method.as_deref(), Some("ping"));
    assert_eq!(log.reply_to(1), Some(2));
    assert!(log.incomplete().is_empty(), "{:?}", log.incomplete());
    assert!(list_sessions(&dir).unwrap()[0].incomplete.is_empty());
    assert_eq!(count_entries(&path).unwrap(), 3);
}

/// A writer killed (no end entry, perhaps a partial last line) leaves a file whose whole
/// entries read back, and which readers and the listing call incomplete, saying why.
#[test]
fn a_session_whose_writer_was_killed_reads_whole_entries_and_says_it_is_incomplete() {
    let dir = std::env::temp_dir().join(format!("sonde-log-killed-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    let header = "{\"format\":2,\"program\":\"sonde\"}\n";
    let killed = dir.join("2026-11-30T12-00-00.000Z-1.jsonl");
    fs::write(&killed, format!("{header}{FIRST_FORMAT}")).unwrap();
    let torn = dir.join("2026-11-30T12-00-01.000Z-2.jsonl");
    fs::write(&torn, format!("{header}{FIRST_FORMAT}{{\"seq\":3,\"time\":\"2026-")).unwrap();

    for (path, reasons) in
        [(&killed, vec![Incomplete::NoEnd]), (&torn, vec![Incomplete::PartialLastLine, Incomplete::NoEnd])]
    {
        let log = WireLog::open(path).unwrap();
        assert_eq!(seqs(&log.entries(&Filter::default()).unwrap()), [0, 1, 2]);
        assert_eq!(log.incomplete(), reasons, "{}", path.display());
        let name = path.file_name().unwrap().to_str().unwrap();
        let listed = list_sessions(&dir).unwrap().into_iter().find(|s| s.name == name).unwrap();
        assert_eq!(listed.incomplete, reasons, "{name}");
        assert_eq!(count_entries(path).unwrap(), 3);
    }
    assert_eq!(
        Incomplete::words(&[Incomplete::PartialLastLine, Incomplete::NoEnd]),
        "its last line is partial (its writer was killed, or its disk filled, mid-write); it has no \
         end-of-session entry (its writer was killed or crashed, or could not write to the end)"
    );
}
