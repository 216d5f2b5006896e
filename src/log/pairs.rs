//! What ties entries together beyond their order: the reply to a request, and the name each
//! connection goes by, as the core recorded them.
//!
//! Owns: finding a request's reply through the pairing the connection recorded in `answers`,
//! and with it the request's [`Outcome`], and listing connection labels. Refuses: pairing by matching ids (another connection, or the
//! server's own requests, reuse them) and any presentation (colours, abbreviations).

use std::io;

use serde::Serialize;

use super::{sessions::ConnectionLabel, IndexRow, Kind, RequestOutcome, WireLog, INDEX_CHUNK};
use crate::sync::Lock;

/// A reply: a message with an id (a progress update answers a request too, without one).
fn is_reply(row: &IndexRow) -> bool {
    row.kind == Kind::Message && row.id.is_some()
}

/// A request's outcome and the entry that settled it.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Outcome {
    pub outcome: RequestOutcome,
    /// The reply, or the note that says why there is none.
    pub seq: u64,
    /// In words: the note's for a request never answered (`tools/call 5 was never answered:
    /// server exited with code 1`).
    pub words: String,
}

impl WireLog {
    /// The seq of the reply to the request at `request`: the message after it, on the same
    /// connection, that the core paired with it when it was recorded (by the pending request it
    /// settled, never by matching ids, which other connections and the server's own requests
    /// reuse). A progress update answers a request too but carries no id, so it is not a reply.
    pub fn reply_to(&self, request: u64) -> Option<u64> {
        self.first_answering(request, is_reply).map(|(seq, _)| seq)
    }

    /// How the request at `request` ended, as the log records it: the reply the core paired
    /// with it, or the note the connection wrote when it gave the request up because it could
    /// answer none (its server died, the connection closed); `None` while neither is there.
    pub fn outcome_of(&self, request: u64) -> io::Result<Option<Outcome>> {
        // The entry found is read from the file: what waits in the write buffer goes first.
        self.flushed()?;
        let settles = |row: &IndexRow| is_reply(row) || row.kind == Kind::Note;
        let Some((seq, row)) = self.first_answering(request, settles) else { return Ok(None) };
        let entry = self.read_row(&row)?;
        let (outcome, words) = match (&entry.kind, entry.summary.as_ref().map(|s| &*s.kind)) {
            (Kind::Note, _) => (RequestOutcome::of_note(entry.ends), entry.detail.unwrap_or_default()),
            (_, Some("error")) => (RequestOutcome::Error, "answered with an error".to_owned()),
            _ => (RequestOutcome::Result, "answered".to_owned()),
        };
        Ok(Some(Outcome { outcome, seq, words }))
    }

    /// The first row after `request` that answers it and that `accept` takes, with its seq.
    fn first_answering(&self, request: u64, accept: impl Fn(&IndexRow) -> bool) -> Option<(u64, IndexRow)> {
        let mut from = request.saturating_add(1);
        loop {
            let inner = self.inner.locked();
            let block = inner.block(from, u64::MAX, INDEX_CHUNK)?;
            let found = (block.start..block.end).find(|&pos| {
                let row = &inner.index[pos];
                row.answers == Some(request) && accept(row)
            });
            if let Some(pos) = found {
                return Some((block.seq + (pos - block.start) as u64, inner.index[pos].clone()));
            }
            // The lock is let go between chunks, so a long search never stalls the writer.
            drop(inner);
            from = block.stop();
        }
    }

    /// Every connection the log has a name for, in connection order.
    pub fn connection_labels(&self) -> Vec<ConnectionLabel> {
        let inner = self.inner.locked();
        inner.labels.iter().map(|(&conn, server)| ConnectionLabel { conn, server: server.clone() }).collect()
    }
}

#[cfg(test)]
mod tests {
    use crate::lifecycle::Lifecycle;
    use crate::log::{Direction, Entry, Kind, Summary, WireLog};

    fn temp_dir(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("sonde-pairs-test-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    fn message(conn: u64, dir: Direction, kind: &str, id: Option<&str>, answers: Option<u64>) -> Entry {
        let mut e = Entry::new(conn, Kind::Message, dir).with_bytes(b"{}");
        e.summary =
            Some(Summary { kind: kind.to_owned().into(), id: id.map(Into::into), ..Default::default() });
        e.answers = answers;
        e
    }

    #[test]
    fn a_reply_is_found_by_what_it_answers_never_by_its_id() {
        let log = WireLog::create_in(&temp_dir("reply")).unwrap();
        // Two connections each send a request with id 7; the second's reply comes first, then
        // a progress update for the first (it answers it but is no reply), then its reply.
        let first = log.append(message(1, Direction::Out, "request", Some("7"), None));
        let second = log.append(message(2, Direction::Out, "request", Some("7"), None));
        // The server's own request with id 7 on the first connection.
        log.append(message(1, Direction::In, "request", Some("7"), None));
        let second_reply = log.append(message(2, Direction::In, "result", Some("7"), Some(second)));
        log.append(message(1, Direction::In, "notification", None, Some(first)));
        assert_eq!(log.reply_to(first), None, "no reply yet");
        let first_reply = log.append(message(1, Direction::In, "result", Some("7"), Some(first)));
        assert_eq!(log.reply_to(first), Some(first_reply));
        assert_eq!(log.reply_to(second), Some(second_reply));
        assert_eq!(log.reply_to(first_reply), None, "a reply has no reply");

        // The same answers when the session is read back from its file.
        log.flush().unwrap();
        let read = WireLog::open(log.path()).unwrap();
        assert_eq!(read.reply_to(first), Some(first_reply));
        assert_eq!(read.reply_to(second), Some(second_reply));
    }

    #[test]
    fn an_outcome_is_read_at_once_even_while_its_entry_waits_in_the_write_buffer() {
        use crate::log::RequestOutcome;
        let log = WireLog::create_in(&temp_dir("outcome")).unwrap();
        let request = log.append(message(1, Direction::Out, "request", Some("1"), None));
        assert_eq!(log.outcome_of(request).unwrap(), None, "no answer yet");
        let reply = log.append(message(1, Direction::In, "error", Some("1"), Some(request)));
        // Not flushed: the outcome is read all the same.
        let outcome = log.outcome_of(request).unwrap().expect("the reply");
        assert_eq!((outcome.outcome, outcome.seq), (RequestOutcome::Error, reply));
        let other = log.append(message(1, Direction::Out, "request", Some("2"), None));
        let mut note =
            Entry::new(1, Kind::Note, Direction::Meta).with_detail("ping 2 was never answered: gone");
        note.answers = Some(other);
        let at = log.append(note);
        let outcome = log.outcome_of(other).unwrap().expect("the note");
        assert_eq!(
            (outcome.outcome, outcome.seq, outcome.words.as_str()),
            (RequestOutcome::NeverAnswered, at, "ping 2 was never answered: gone")
        );
    }

    #[test]
    fn a_connection_goes_by_its_saved_server_else_by_what_it_talks_to() {
        let log = WireLog::create_in(&temp_dir("labels")).unwrap();
        let lifecycle = |conn, event: Lifecycle| {
            let mut e = Entry::new(conn, Kind::Lifecycle, Direction::Meta);
            e.lifecycle = Some(event);
            e
        };
        log.append(lifecycle(1, Lifecycle::Server { name: "Everything".into() }));
        log.append(lifecycle(1, Lifecycle::Spawned { pid: 10, command: "npx everything".into() }));
        log.append(lifecycle(2, Lifecycle::Spawned { pid: 11, command: "python server.py".into() }));
        log.append(lifecycle(2, Lifecycle::Spawned { pid: 12, command: "python again.py".into() }));
        let labels = |log: &WireLog| {
            log.connection_labels().into_iter().map(|l| (l.conn, l.server)).collect::<Vec<_>>()
        };
        let want = vec![(1, "Everything".to_owned()), (2, "server.py".to_owned())];
        assert_eq!(labels(&log), want);
        log.flush().unwrap();
        assert_eq!(labels(&WireLog::open(log.path()).unwrap()), want);
    }
}
