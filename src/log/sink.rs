//! Writing the session file, and what happens when a write fails.
//!
//! Owns: [`Sink`] (the file as this process writes it: the header, a buffer of whole lines,
//! how much of the file is written), a failed write, the retries, the note of a gap, the
//! end-of-session entry, and [`Recording`], which tells a front end at once when the file
//! stopped taking entries and when it took them again.
//!
//! When a write fails (a full disk, a quota, an I/O error, the file removed), the session goes
//! on: the entries that did not wholly reach the file leave the index (their seqs are kept, so
//! replies still name their requests), the part of a line written is cut off (or, when the file
//! cannot be cut, ended with `!` and a newline when writing resumes, so no reader takes it for
//! an entry and the next entry starts on a line of its own), and the index's offsets stay
//! those of whole lines. Entries appended while the file is stopped are streamed to followers
//! as ever, then forgotten: counted by their seqs, never kept, so memory stays bounded. Every
//! [`RETRY_INTERVAL`] the flusher tries again; once a write goes through, a note records the
//! gap (which seqs, from when to when, why) and recording goes on. A file that was removed is
//! never written again: whoever removed it meant it gone, and writing on would fill the disk
//! out of sight.
//!
//! Refuses: keeping the entries it could not write, and saying any of this to a person (front
//! ends follow [`Recording`]).

use std::fs::File;
use std::io::{self, Write};
use std::os::unix::fs::MetadataExt;
use std::time::{Duration, Instant, SystemTime};

use serde::Serialize;

use super::format::{End, Gap, Header, Marks};
use super::{row_of, Direction, Entry, Inner, Kind, WireLog};
use crate::sync::Lock;

/// How many bytes of entries wait in memory before they are written (the flusher writes them
/// sooner, every [`super::FLUSH_INTERVAL`]).
const BUFFER: usize = 256 * 1024;

/// Entries whose payload is smaller are serialized whole before they are written; larger ones
/// are written as they are serialized, so a huge frame is never held twice.
const WHOLE_BYTES: usize = 64 * 1024;

/// An entry as one JSON object: by hand when it has the common shape, by serde otherwise.
fn entry_object(buf: &mut Vec<u8>, entry: &Entry) {
    if !super::line::write(buf, entry) {
        serde_json::to_writer(buf, entry).expect("an entry serializes");
    }
}

/// How often a stopped session file is tried again.
pub const RETRY_INTERVAL: Duration = Duration::from_millis(500);

/// The session file as this process writes it.
pub(super) struct Sink {
    file: File,
    /// Lines not written yet: whole ones, but for the start of a large entry being serialized.
    buf: Vec<u8>,
    /// How many bytes of the file are written, as the writes said: where `buf` goes.
    written: u64,
    /// The header line, written first, and again if the file lost it.
    header: Vec<u8>,
    stop: Option<Stop>,
}

/// Why and since when the file takes no entries.
struct Stop {
    /// The first seq not written.
    first: u64,
    since: SystemTime,
    error: String,
    /// Where the file's last whole line ends: what it is cut back to.
    whole: u64,
    next_try: Instant,
    /// The file was removed: it is not written again.
    removed: bool,
}

/// The session file stopped taking entries: from which, since when, why.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Stopped {
    /// The first entry (seq) the file did not take.
    pub at: u64,
    /// RFC 3339.
    pub since: String,
    /// The error the write met, in words (`No space left on device`).
    pub error: String,
    /// How many entries the file holds: the row the gap's note takes when writing resumes.
    pub row: u64,
    /// The seq the next entry got when the file stopped: the entries from `at` to this one
    /// were streamed with rows before it stopped, and are lost all the same.
    pub streamed_until: u64,
}

/// Whether the session file takes every entry, as a front end tells the person: at once when it
/// stops, and once when it takes entries again.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Recording {
    /// The file takes no entries now.
    pub stopped: Option<Stopped>,
    /// The session's first stop, kept once it is over: what a command's report names.
    pub first_stop: Option<Stopped>,
    /// Gaps closed by a note in the file.
    pub gaps: u64,
    /// Entries not recorded so far, in those gaps and since the stop now in force.
    pub lost: u64,
    /// The last gap closed.
    pub last_gap: Option<Gap>,
    /// The stop in force in words, as a front end tells it ([`Stopped::words`]).
    pub stopped_words: Option<String>,
    /// The last gap closed in words, as a front end tells it ([`Gap::resumed_words`]).
    pub resumed_words: Option<String>,
    /// Set once the session file is larger by itself than the sessions budget it is kept
    /// within (it is never cut), in words ([`WireLog::outgrown`]).
    pub outgrown: Option<String>,
}

impl Stopped {
    /// What a front end tells the person when the file stops taking entries.
    pub fn words(&self) -> String {
        stopped_words(self.at, &self.error)
    }
}

/// The words of a stop at entry `at` that met `error`.
pub fn stopped_words(at: u64, error: &str) -> String {
    format!("the session log stopped at entry {at}: {error}; the connection goes on unrecorded")
}

impl Sink {
    /// A sink for `file`, new and empty, whose first line is the header.
    pub(super) fn new(file: File, program: &str) -> Sink {
        let header = Header::line(program);
        Sink { file, buf: header.clone(), written: 0, header, stop: None }
    }

    /// Where the next entry goes.
    fn end(&self) -> u64 {
        self.written + self.buf.len() as u64
    }

    pub(super) fn stopped(&self) -> bool {
        self.stop.is_some()
    }

    /// Puts `entry`'s line in the buffer (writing the buffer out as it fills, for a large one);
    /// returns the line's length. A frame that is JSON ends the line verbatim, as its `frame`
    /// (format 4); the text goes back into the entry afterwards.
    fn serialize(&mut self, entry: &mut Entry, marks: Marks) -> io::Result<u64> {
        let marked = marks.gap.is_some() || marks.session_end.is_some();
        let frame = if entry.json && !marked { entry.text.take() } else { None };
        let written = self.serialize_line(entry, marked.then_some(marks), frame.as_deref());
        if frame.is_some() {
            entry.text = frame;
        }
        written
    }

    fn serialize_line(
        &mut self,
        entry: &Entry,
        marks: Option<Marks>,
        frame: Option<&str>,
    ) -> io::Result<u64> {
        let before = self.buf.len();
        if let Some(frame) = frame {
            // The entry's fields, then the frame before their closing brace; a large frame
            // passes through the buffer a piece at a time, so it is never held twice.
            entry_object(&mut self.buf, entry);
            self.buf.pop();
            self.buf.extend_from_slice(b",\"frame\":");
            let fields = (self.buf.len() - before) as u64;
            let mut through = Through { sink: self, count: fields, error: None };
            for piece in frame.as_bytes().chunks(BUFFER).chain([&b"}\n"[..]]) {
                let _ = through.write_all(piece);
            }
            return through.done();
        }
        let payload = entry.text.as_ref().or(entry.base64.as_ref()).map_or(0, String::len);
        if payload < WHOLE_BYTES {
            // Serialized straight into the buffer, then written with others: one write per
            // flush, not one per entry.
            if let Some(marks) = marks {
                serde_json::to_writer(&mut self.buf, &Marked { entry, marks }).expect("an entry serializes");
            } else {
                entry_object(&mut self.buf, entry);
            }
            self.buf.push(b'\n');
            return Ok((self.buf.len() - before) as u64);
        }
        let mut through = Through { sink: self, count: 0, error: None };
        serde_json::to_writer(&mut through, entry).expect("an entry serializes");
        let _ = through.write_all(b"\n");
        through.done()
    }

    /// Writes the buffer out. On an error the bytes written leave the buffer and count in
    /// `written`; the rest stay.
    fn write_buf(&mut self) -> io::Result<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        if removed(&self.file) {
            return Err(io::Error::new(io::ErrorKind::NotFound, "the session file was removed"));
        }
        let mut done = 0;
        let result = loop {
            if done == self.buf.len() {
                break Ok(());
            }
            match self.file.write(&self.buf[done..]) {
                Ok(0) => break Err(io::ErrorKind::WriteZero.into()),
                Ok(n) => {
                    done += n;
                    self.written += n as u64;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => break Err(e),
            }
        };
        self.buf.drain(..done);
        result
    }
}

/// The file was unlinked (its directory removed, say): writes would still go through, to a
/// file no one can open.
fn removed(file: &File) -> bool {
    file.metadata().is_ok_and(|m| m.nlink() == 0)
}

/// An error in words, without the `(os error 28)` a person has no use for.
fn words(error: &io::Error) -> String {
    let text = error.to_string();
    match error.raw_os_error() {
        Some(code) => text.strip_suffix(&format!(" (os error {code})")).unwrap_or(&text).to_owned(),
        None => text,
    }
}

fn rfc3339(at: SystemTime) -> String {
    humantime::format_rfc3339_millis(at).to_string()
}

/// Entries' wall-clock times, RFC 3339 with milliseconds, as [`rfc3339`] writes them: the date
/// and time of day are formatted once a second and only the milliseconds for each entry (the
/// whole formatting was a tenth of recording a frame).
#[derive(Default)]
pub(super) struct WallClock {
    /// The second `head` says, since the epoch.
    second: Option<u64>,
    /// `2026-12-04T07:16:09.`
    head: String,
}

impl WallClock {
    pub(super) fn time(&mut self, at: SystemTime) -> String {
        let since = at.duration_since(SystemTime::UNIX_EPOCH).unwrap_or_default();
        if self.second != Some(since.as_secs()) {
            let whole = rfc3339(SystemTime::UNIX_EPOCH + Duration::from_secs(since.as_secs()));
            // `….000Z`: the head is everything before the milliseconds.
            self.head = whole[..whole.len() - 4].to_owned();
            self.second = Some(since.as_secs());
        }
        let ms = since.subsec_millis();
        let mut time = String::with_capacity(self.head.len() + 4);
        time.push_str(&self.head);
        time.extend(
            [b'0' + (ms / 100) as u8, b'0' + (ms / 10 % 10) as u8, b'0' + (ms % 10) as u8, b'Z']
                .map(char::from),
        );
        time
    }
}

/// A large entry on its way to the file: bytes gather in the sink's buffer and are written out
/// as it fills. After an error, bytes are counted and dropped.
struct Through<'a> {
    sink: &'a mut Sink,
    count: u64,
    error: Option<io::Error>,
}

impl Through<'_> {
    /// The line's length, or the error a write met.
    fn done(self) -> io::Result<u64> {
        match self.error {
            Some(e) => Err(e),
            None => Ok(self.count),
        }
    }
}

impl Write for Through<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.error.is_none() {
            self.sink.buf.extend_from_slice(buf);
            if self.sink.buf.len() >= BUFFER {
                self.error = self.sink.write_buf().err();
            }
        }
        self.count += buf.len() as u64;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl WireLog {
    /// Gives `entry` its seq and times, writes it (or counts it lost) and indexes it when it is
    /// in the file or its buffer; returns a server it names for the first time. The caller
    /// streams it, under the same hold of the lock.
    pub(super) fn record(&self, inner: &mut Inner, entry: &mut Entry, marks: Marks) -> Option<String> {
        entry.seq = inner.next_seq;
        inner.next_seq += 1;
        entry.time = inner.wall.time(SystemTime::now());
        entry.ms = (self.elapsed_ms() * 1000.0).round() / 1000.0;
        inner.ended = marks.session_end.is_some();
        self.put(inner, entry, marks);
        super::sessions::label(entry, &mut inner.labels);
        let server =
            super::sessions::server_named(entry, &mut inner.named).filter(|s| !inner.servers.contains(s))?;
        inner.servers.push(server.clone());
        Some(server)
    }

    /// Writes `entry` to the buffer and indexes it; a stopped file takes nothing.
    fn put(&self, inner: &mut Inner, entry: &mut Entry, marks: Marks) {
        let Some(sink) = inner.sink.as_mut().filter(|s| !s.stopped()) else { return };
        let offset = sink.end();
        match sink.serialize(entry, marks) {
            Ok(len) => {
                let full = sink.buf.len() >= BUFFER;
                let pos = inner.index.len() as u64;
                inner.seqs.place(pos, entry.seq);
                let row = row_of(entry, offset, len, &mut inner.methods);
                inner.index.push(row);
                inner.dirty = true;
                if full {
                    self.write_out(inner);
                }
            }
            Err(e) => self.fail(inner, &e, Some(entry.seq)),
        }
    }

    /// Writes the buffered lines to the file.
    pub(super) fn write_out(&self, inner: &mut Inner) {
        let Some(sink) = inner.sink.as_mut().filter(|s| !s.stopped()) else { return };
        if let Err(e) = sink.write_buf() {
            return self.fail(inner, &e, None);
        }
        // Told once, the moment the file outgrows the whole budget.
        if inner.recording.outgrown.is_none() {
            if let Some(words) = self.outgrown_at(sink.written) {
                inner.recording.outgrown = Some(words);
                let _ = self.changes.send(recording_of(inner));
            }
        }
    }

    /// A write failed: the file keeps its whole lines, and takes no more until it is tried
    /// again. `current` is the entry being written, whose row is not in the index yet.
    fn fail(&self, inner: &mut Inner, error: &io::Error, current: Option<u64>) {
        let Some(sink) = inner.sink.as_mut() else { return };
        sink.buf.clear();
        // The rows of lines wholly in the file; the others' entries are lost.
        let kept = inner.index.partition_point(|r| r.offset + r.len <= sink.written);
        let whole = match kept.checked_sub(1) {
            Some(last) => inner.index[last].offset + inner.index[last].len,
            None if sink.written >= sink.header.len() as u64 => sink.header.len() as u64,
            None => 0,
        };
        let first = match (kept < inner.index.len(), current) {
            (true, _) => inner.seqs.seq(kept as u64),
            (false, Some(seq)) => seq,
            (false, None) => inner.next_seq,
        };
        inner.index.truncate(kept);
        inner.seqs.truncate(kept as u64);
        let removed = removed(&sink.file);
        // The part of a line written goes; if it cannot, resuming ends it.
        if !removed && sink.written > whole && sink.file.set_len(whole).is_ok() {
            sink.written = whole;
        }
        let since = SystemTime::now();
        let error = if removed { "the session file was removed".to_owned() } else { words(error) };
        sink.stop = Some(Stop {
            first,
            since,
            error: error.clone(),
            whole,
            next_try: Instant::now() + RETRY_INTERVAL,
            removed,
        });
        let stopped = Stopped {
            at: first,
            since: rfc3339(since),
            error,
            row: kept as u64,
            streamed_until: inner.next_seq,
        };
        inner.recording.first_stop.get_or_insert_with(|| stopped.clone());
        inner.recording.stopped = Some(stopped);
        let _ = self.changes.send(recording_of(inner));
    }

    /// Tries a stopped file again, when it is due (`now` past its next try) or at once for a
    /// last try: the part of a line a failed write left is cut off or ended, and a note of the
    /// gap is written and streamed. Returns whether writing resumed (the card is then due).
    pub(super) fn resume(&self, inner: &mut Inner, last_try: bool) -> bool {
        let now = Instant::now();
        let Some(sink) = inner.sink.as_mut() else { return false };
        let Some(stop) = sink.stop.as_mut() else { return false };
        if stop.removed || (!last_try && now < stop.next_try) {
            return false;
        }
        stop.next_try = now + RETRY_INTERVAL;
        if removed(&sink.file) {
            stop.removed = true;
            return false;
        }
        let Ok(meta) = sink.file.metadata() else { return false };
        let mut len = meta.len();
        if len > stop.whole && sink.file.set_len(stop.whole).is_ok() {
            len = stop.whole;
        }
        sink.written = len;
        let mut bytes = Vec::new();
        if len > stop.whole {
            // A partial line that could not be cut: `!` makes sure no reader takes it for an
            // entry, even one short of its newline only.
            bytes.extend_from_slice(b"!\n");
        }
        if stop.whole < sink.header.len() as u64 {
            bytes.extend_from_slice(&sink.header);
        }
        let seq = inner.next_seq;
        let to = SystemTime::now();
        let gap = Gap {
            first: stop.first,
            entries: seq - stop.first,
            from: rfc3339(stop.since),
            to: rfc3339(to),
            error: stop.error.clone(),
        };
        let mut note = Entry::new(0, Kind::Note, Direction::Meta)
            .with_detail(gap.describe(to.duration_since(stop.since).unwrap_or_default()));
        note.seq = seq;
        note.time = gap.to.clone();
        note.ms = (self.elapsed_ms() * 1000.0).round() / 1000.0;
        let offset = len + bytes.len() as u64;
        let marks = Marks { gap: Some(&gap), session_end: None };
        serde_json::to_writer(&mut bytes, &Marked { entry: &note, marks }).expect("an entry serializes");
        bytes.push(b'\n');
        let line = len + bytes.len() as u64 - offset;
        sink.buf = bytes;
        // Separator, header and note in one write: if it fails, the stop goes on and whatever
        // part of it reached the file is cut off or ended next time.
        if sink.write_buf().is_err() {
            sink.buf.clear();
            return false;
        }
        sink.stop = None;
        inner.next_seq += 1;
        inner.ended = false;
        let pos = inner.index.len() as u64;
        inner.seqs.place(pos, seq);
        let row = row_of(&note, offset, line, &mut inner.methods);
        inner.index.push(row);
        let recording = &mut inner.recording;
        recording.stopped = None;
        recording.gaps += 1;
        recording.lost += gap.entries;
        recording.last_gap = Some(gap);
        inner.stream(note, pos as usize);
        let _ = self.changes.send(recording_of(inner));
        true
    }

    /// Ends the session: a last try of a stopped file, then the end-of-session entry (unless
    /// the last entry is one already), everything written. Returns what was recorded. Entries
    /// appended afterwards are recorded as ever, and the next close ends the session again.
    /// Called by the front ends when their session ends; dropping the log and the process's
    /// normal exit call it too.
    pub fn close(&self) -> Recording {
        let mut inner = self.inner.locked();
        if inner.sink.is_none() {
            return recording_of(&inner);
        }
        let card_due = self.resume(&mut inner, true);
        if !inner.ended {
            let lost = recording_of(&inner).lost;
            let end = End { entries: inner.next_seq, lost, gaps: inner.recording.gaps };
            let detail = match lost {
                0 => format!("the session ended: {} entries", end.entries),
                lost => format!("the session ended: {} entries, {lost} of them not recorded", end.entries),
            };
            let mut entry = Entry::new(0, Kind::Note, Direction::Meta).with_detail(detail);
            let rows = inner.index.len();
            self.record(&mut inner, &mut entry, Marks { gap: None, session_end: Some(end) });
            inner.stream(entry, rows);
        }
        self.write_out(&mut inner);
        let recording = recording_of(&inner);
        drop(inner);
        if card_due {
            let _ = self.write_card();
        }
        recording
    }

    /// What the session file has taken so far.
    pub fn recording(&self) -> Recording {
        recording_of(&self.inner.locked())
    }

    /// The recording now, then each change: a stop, and the gap note that ends it.
    pub fn follow_recording(self: &std::sync::Arc<Self>) -> crate::feed::Feed<Recording> {
        let changes = self.changes.subscribe();
        let log = std::sync::Arc::downgrade(self);
        crate::feed::Feed::new(
            changes,
            move || log.upgrade().map(|log| vec![log.recording()]).unwrap_or_default(),
            Some,
        )
    }
}

/// The recording, with the entries lost since the stop in force counted now.
pub(super) fn recording_of(inner: &Inner) -> Recording {
    let mut recording = inner.recording.clone();
    if let Some(stop) = inner.sink.as_ref().and_then(|s| s.stop.as_ref()) {
        recording.lost += inner.next_seq - stop.first;
    }
    recording.stopped_words = recording.stopped.as_ref().map(Stopped::words);
    recording.resumed_words = recording.last_gap.as_ref().map(Gap::resumed_words);
    recording
}

/// An entry and its marks (`format`), as one line of the file holds them.
#[derive(serde::Serialize)]
struct Marked<'a> {
    #[serde(flatten)]
    entry: &'a Entry,
    #[serde(flatten)]
    marks: Marks<'a>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wall_clock_writes_what_rfc3339_writes() {
        let mut wall = WallClock::default();
        let start = SystemTime::UNIX_EPOCH + Duration::from_millis(1_796_000_000_000);
        // Within a second, across seconds, and across a day, each millisecond digit.
        for ms in [0, 7, 45, 999, 1_000, 1_001, 59_999, 86_400_000 - 1, 86_400_000, 86_400_123] {
            let at = start + Duration::from_millis(ms);
            assert_eq!(wall.time(at), rfc3339(at));
        }
    }
}
