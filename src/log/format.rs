//! The session file's format: its version, the header line that says it, the marks a few
//! entries' lines carry about the file itself, and what a reader concludes from them about a
//! session's completeness.
//!
//! The versions, each read by every reader (`WireLog::open`, the listing, `sonde log`):
//!
//! - **1**, every session written before the version existed: one entry per line, nothing else.
//!   A write that failed left a partial last line and nothing after it.
//! - **2**: the first line is a header, `{"format":2,"program":"sonde"}`, which is no entry (it
//!   has no seq, and readers of version 1 pass over it as they pass over any line that is not
//!   an entry). Where the file could not take entries, a note whose line also carries
//!   `"gap":{…}` says which and why; a line a failed write left partial and that could not be
//!   cut off ends with `!` and a newline, so no reader takes it for an entry, and the next
//!   entry starts on a line of its own. A log closed properly ends with a note whose line also
//!   carries `"session_end":{…}`.
//! - **3**: as 2, and two entry fields: `part_of` on a request that continues an operation (the
//!   id of the request that began it), and `ends` on a note that settles a request without a
//!   reply (`timed_out`, `cancelled`, `never_answered`, or `result` for a subscription that
//!   ended). In a file of 2 or 1, a note that answers a request means never answered, and no
//!   request says what it continues.
//! - **4**: as 3, and a frame that is exactly one JSON object (one that decoded as JSON, or
//!   one Sonde serialized) is the line's last field, `frame`, verbatim, in place of `text`
//!   holding it escaped: the bytes are the same, and recording them costs a copy instead of
//!   an escape. Every other payload is `text` or `base64` as before; a reader takes `frame`
//!   as the entry's text, so what front ends and exports are sent does not change.
//!
//! The marks ride beside the entry's fields on its line and are no part of the `Entry`: what the
//! window and exports are sent of an entry does not change, and a reader that does not know a
//! mark reads the note as a note.
//!
//! Owns: [`SESSION_FORMAT`], the header, the marks ([`Gap`], the end), [`Incomplete`] and its words,
//! the reader's tally of a file's lines, and the look a listing takes at a file (its first and
//! last lines, never the entries between). Refuses: the entry's own shape (`entry`) and writing
//! (`sink`).

use std::fs::File;
use std::io::{self, Read};
use std::os::unix::fs::FileExt;
use std::path::Path;

use serde::{Deserialize, Serialize};

/// The version new session files are written in.
pub const SESSION_FORMAT: u32 = 4;

/// The first line of a session file from version 2 on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(super) struct Header {
    pub format: u32,
    /// The program that wrote it, as the card names it.
    pub program: String,
}

impl Header {
    pub(super) fn line(program: &str) -> Vec<u8> {
        let mut line = serde_json::to_vec(&Header { format: SESSION_FORMAT, program: program.to_owned() })
            .expect("serializes");
        line.push(b'\n');
        line
    }

    /// The header `line` is, if it is one: a line with a format and no seq.
    pub(super) fn of(line: &[u8]) -> Option<Header> {
        #[derive(Deserialize)]
        struct Seen {
            format: u32,
            #[serde(default)]
            program: String,
            #[serde(default)]
            seq: Option<serde::de::IgnoredAny>,
        }
        let seen: Seen = serde_json::from_slice(line).ok()?;
        seen.seq.is_none().then_some(Header { format: seen.format, program: seen.program })
    }
}

/// Entries the session file could not take, as the note written when it took entries again
/// records them (its line's `"gap"`), and as [`super::Recording`] tells a front end.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Gap {
    /// The first seq not recorded.
    pub first: u64,
    /// How many were not recorded: seqs `first` to `first + entries - 1`. Zero when the file
    /// could not be written while nothing was appended.
    pub entries: u64,
    /// When the file stopped taking entries, and when it took them again (RFC 3339).
    pub from: String,
    pub to: String,
    /// Why: the error the write met.
    pub error: String,
}

impl Gap {
    /// What a front end tells the person when the file takes entries again after this gap.
    pub fn resumed_words(&self) -> String {
        match self.entries {
            0 => "the session log resumed; no entry was lost".to_owned(),
            1 => format!("the session log resumed after a gap of 1 entry ({}), recorded by a note in the log", self.first),
            n => format!(
                "the session log resumed after a gap of {n} entries ({} to {}), recorded by a note in the log",
                self.first,
                self.first + n - 1
            ),
        }
    }

    /// The note's words.
    pub(super) fn describe(&self, over: std::time::Duration) -> String {
        let over = crate::lifecycle::duration_words(over);
        match self.entries {
            0 => format!("the session file could not be written for {over} ({}); no entry was lost", self.error),
            1 => format!("entry {} was not recorded: the session file could not be written for {over} ({})", self.first, self.error),
            n => format!(
                "{n} entries were not recorded (seq {} to {}): the session file could not be written for {over} ({})",
                self.first,
                self.first + n - 1,
                self.error
            ),
        }
    }
}

/// What the last entry of a session closed properly says (its line's `"session_end"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct End {
    /// Entries before this one, recorded or not.
    pub entries: u64,
    /// Of those, how many were not recorded.
    pub lost: u64,
    /// In how many gaps.
    pub gaps: u64,
}

/// The marks an entry's line may carry beside its fields.
#[derive(Debug, Default, Serialize)]
pub(super) struct Marks<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gap: Option<&'a Gap>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_end: Option<End>,
}

/// Why a recorded session may lack entries, as a reader tells from its file.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "reason", rename_all = "snake_case")]
pub enum Incomplete {
    /// The file ends in part of a line: its writer was killed, or its disk filled, mid-write.
    PartialLastLine,
    /// Lines that are not whole entries, passed over: writes that failed and resumed after.
    BrokenLines { count: u64 },
    /// A file of version 2 or later with no end-of-session entry, which no process writes any
    /// more: its writer ended without closing it (killed, crashed, or its disk full to the end).
    NoEnd,
    /// Entries the writer could not write, in gaps its notes record.
    Gaps { gaps: u64, entries: u64 },
}

impl Incomplete {
    pub fn describe(&self) -> String {
        match self {
            Incomplete::PartialLastLine => {
                "its last line is partial (its writer was killed, or its disk filled, mid-write)".into()
            }
            Incomplete::BrokenLines { count: 1 } => {
                "one line is not a whole entry and was passed over".into()
            }
            Incomplete::BrokenLines { count } => {
                format!("{count} lines are not whole entries and were passed over")
            }
            Incomplete::NoEnd => "it has no end-of-session entry (its writer was killed or crashed, \
                                  or could not write to the end)"
                .into(),
            Incomplete::Gaps { gaps, entries } => {
                let entries =
                    if *entries == 1 { "1 entry was".to_owned() } else { format!("{entries} entries were") };
                match gaps {
                    1 => format!("{entries} not recorded (in one gap, which a note in the log records)"),
                    n => format!("{entries} not recorded (in {n} gaps, each recorded by a note in the log)"),
                }
            }
        }
    }

    /// The reasons in words, one sentence.
    pub fn words(reasons: &[Incomplete]) -> String {
        reasons.iter().map(Incomplete::describe).collect::<Vec<_>>().join("; ")
    }
}

/// What reading a file's lines found about the file itself.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Tally {
    /// The header's version, or 1 without one.
    pub format: u32,
    /// The last entry read ends the session.
    pub ended: bool,
    /// Complete lines that are neither the header nor an entry.
    pub broken: u64,
    /// Gap notes read, and the entries they say were lost.
    pub gaps: u64,
    pub lost: u64,
}

impl Tally {
    pub(super) fn new() -> Tally {
        Tally { format: 1, ..Tally::default() }
    }

    /// The reasons to call the session incomplete. `partial`: the file goes on past its last
    /// complete line; `writing`: a process still writes it, so neither that nor a missing end
    /// says anything yet.
    pub(super) fn verdict(&self, partial: bool, writing: bool) -> Vec<Incomplete> {
        let mut reasons = Vec::new();
        if partial && !writing {
            reasons.push(Incomplete::PartialLastLine);
        }
        if self.broken > 0 {
            reasons.push(Incomplete::BrokenLines { count: self.broken });
        }
        if self.format >= 2 && !self.ended && !writing {
            reasons.push(Incomplete::NoEnd);
        }
        // A gap in which nothing was appended lost nothing.
        if self.lost > 0 {
            reasons.push(Incomplete::Gaps { gaps: self.gaps, entries: self.lost });
        }
        reasons
    }
}

/// What the listing reads of an entry's line: its marks.
#[derive(Deserialize)]
struct Tail {
    #[serde(default)]
    session_end: Option<End>,
}

/// How many bytes of each end of a file the listing reads: a header and an end entry are far
/// smaller.
const LOOK_BYTES: u64 = 4096;

/// A listing's look at a session file: its first line and its last, never the entries
/// between. `gaps` are the gaps its card records, for a session without an end entry.
/// Lines broken in the middle are not seen here; a writer that went on after one wrote a gap
/// note, which the end entry or the card counts.
pub(super) fn look(
    file: &File,
    len: u64,
    writing: bool,
    card_gaps: (u64, u64),
) -> io::Result<Vec<Incomplete>> {
    let mut tally = Tally::new();
    let head = read_at(file, 0, LOOK_BYTES)?;
    if let Some(end) = head.iter().position(|&b| b == b'\n') {
        tally.format = Header::of(&head[..end]).map_or(1, |h| h.format);
    }
    let at = len.saturating_sub(LOOK_BYTES);
    let tail = read_at(file, at, LOOK_BYTES)?;
    let partial = tail.last().is_some_and(|&b| b != b'\n');
    let mut end = None;
    if let Some(body) = tail.strip_suffix(b"\n") {
        // The last line, if it starts within what was read.
        let start = body.iter().rposition(|&b| b == b'\n').map(|i| i + 1);
        let start = start.or((at == 0).then_some(0));
        if let Some(start) = start {
            end = serde_json::from_slice::<Tail>(&body[start..]).ok().and_then(|t| t.session_end);
        }
    }
    tally.ended = end.is_some();
    (tally.gaps, tally.lost) = match end {
        Some(end) => (end.gaps, end.lost),
        None => card_gaps,
    };
    Ok(tally.verdict(partial, writing))
}

/// Up to `max` bytes of `file` from `offset`, fewer where it ends: its writer may have cut a
/// partial line off since its length was read.
fn read_at(file: &File, offset: u64, max: u64) -> io::Result<Vec<u8>> {
    let mut buf = vec![0; max as usize];
    let mut read = 0;
    while read < buf.len() {
        match file.read_at(&mut buf[read..], offset + read as u64) {
            Ok(0) => break,
            Ok(n) => read += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    buf.truncate(read);
    Ok(buf)
}

/// How many entries a session file holds: its complete lines but the header, counted without
/// parsing them (a line a failed write left broken counts too).
pub fn count_entries(path: &Path) -> io::Result<u64> {
    let mut file = File::open(path)?;
    let mut buf = vec![0u8; 64 * 1024];
    let mut lines = 0u64;
    let mut first: Option<Vec<u8>> = None;
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            break;
        }
        if first.is_none() {
            first = Some(buf[..n].to_vec());
        }
        lines += buf[..n].iter().filter(|&&b| b == b'\n').count() as u64;
    }
    let header =
        first.as_deref().and_then(|f| f.iter().position(|&b| b == b'\n').and_then(|e| Header::of(&f[..e])));
    Ok(lines - u64::from(header.is_some() && lines > 0))
}
