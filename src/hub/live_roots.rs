//! Roots changed while a connection is open: the person edits the list, the server hears of it
//! as its era allows.
//!
//! Owns: reading the edited list (absolute paths, each once), handing it to the connection's
//! responder, and deciding what the server is told: in 2025-11-25, when Sonde declared
//! `roots.listChanged`, `notifications/roots/list_changed` (the server then asks `roots/list`
//! again); in 2026-07-28 nothing, as that era has no such notification: the new list is what the
//! server's next `inputRequests` `roots/list` gets. Each change is a note in the wire log.
//! Refuses: answering `roots/list` (the responder does) and saving the list with the saved
//! server (the server settings do; a live edit lasts as long as its connection).

use std::path::PathBuf;

use serde::Serialize;
use serde_json::Value;

use super::{Hub, HubError};
use crate::era::Era;
use crate::log::{Direction, Entry, Kind};

/// What the server was told of a change of roots.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RootsChange {
    /// 2025-11-25: `notifications/roots/list_changed` was sent.
    Notified,
    /// 2025-11-25 without `roots.listChanged` declared: the server was not told, and gets the new
    /// list when it next asks.
    Unannounced,
    /// 2026-07-28: no notification exists; the server gets the new list the next time a request
    /// of it asks for roots (`input_required`).
    NextAsk,
}

/// Reads an edited list of roots: blank entries are left out; every other one must be an
/// absolute path, listed once.
// Err is words `Hub::set_roots` wraps at once as `HubError::Roots` (bad_input).
pub fn read_roots(entries: &[String]) -> Result<Vec<PathBuf>, String> {
    let mut roots: Vec<PathBuf> = Vec::new();
    for entry in entries.iter().map(|e| e.trim()).filter(|e| !e.is_empty()) {
        if entry.contains("://") {
            return Err(format!(
                "{entry:?} is a URI; give the directory's path (Sonde makes the file:// URI)"
            ));
        }
        let path = PathBuf::from(entry);
        if !path.is_absolute() {
            return Err(format!("{entry:?} is not an absolute path; a root starts with /"));
        }
        if roots.contains(&path) {
            return Err(format!("{entry:?} is listed twice"));
        }
        roots.push(path);
    }
    Ok(roots)
}

impl Hub {
    /// The roots connection `id` lists now.
    pub fn roots(&self, id: u64) -> Result<Vec<PathBuf>, HubError> {
        let session = self.session(id)?;
        let live = session.conn.responder().live_roots().ok_or(HubError::Roots(fixed(id)))?;
        Ok(live.get())
    }

    /// Replaces connection `id`'s roots with `entries` (see [`read_roots`]) and tells the server
    /// as its era allows.
    pub fn set_roots(&self, id: u64, entries: &[String]) -> Result<RootsChange, HubError> {
        let roots = read_roots(entries).map_err(HubError::Roots)?;
        let session = self.session(id)?;
        let live = session.conn.responder().live_roots().ok_or(HubError::Roots(fixed(id)))?;
        live.set(roots.clone());
        let declared =
            session.conn.client_capabilities().pointer("/roots/listChanged") == Some(&Value::Bool(true));
        let change = match session.era() {
            Era::Modern => RootsChange::NextAsk,
            Era::Legacy if declared => {
                session.conn.notify("notifications/roots/list_changed", None)?;
                RootsChange::Notified
            }
            Era::Legacy => RootsChange::Unannounced,
        };
        let listed = if roots.is_empty() {
            "none".to_owned()
        } else {
            roots.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ")
        };
        let told = match change {
            RootsChange::Notified => "sent notifications/roots/list_changed",
            RootsChange::Unannounced => {
                "the server is not told (Sonde did not declare roots.listChanged); it gets them when it next asks"
            }
            RootsChange::NextAsk => {
                "2026-07-28 has no roots notification; the server gets them the next time it asks"
            }
        };
        let detail = format!("roots changed to {listed}; {told}");
        self.log().append(Entry::new(id, Kind::Note, Direction::Meta).with_detail(detail));
        Ok(change)
    }
}

fn fixed(id: u64) -> String {
    format!("connection {id} answers roots/list from fixed roots; they cannot change while it is open")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn an_edited_list_keeps_absolute_paths_once_and_says_what_is_wrong() {
        assert_eq!(
            read_roots(&strings(&[" /srv/a ", "", "/srv/b"])).unwrap(),
            vec![PathBuf::from("/srv/a"), PathBuf::from("/srv/b")]
        );
        assert_eq!(read_roots(&[]).unwrap(), Vec::<PathBuf>::new());
        assert_eq!(
            read_roots(&strings(&["srv/a"])).unwrap_err(),
            "\"srv/a\" is not an absolute path; a root starts with /"
        );
        assert!(read_roots(&strings(&["file:///srv"])).unwrap_err().contains("is a URI"));
        assert_eq!(read_roots(&strings(&["/a", "/a"])).unwrap_err(), "\"/a\" is listed twice");
    }
}
