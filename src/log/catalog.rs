//! The sessions a window can show: its own live one, and past ones opened read-only, by id.
//!
//! Owns: [`Catalog`] (the sessions directory, the current log, the opened logs by id), opening a
//! session by its file name in that directory, closing it, and [`CatalogError`].
//! Refuses: paths. A front end names a session by the name a listing gave it; a name with a path
//! in it, or one that is not a session file's, is refused, so a window cannot be made to read
//! an arbitrary file.

use std::collections::HashMap;
use std::io;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use serde::Serialize;

use super::sessions::{self, SessionInfo};
use super::WireLog;
use crate::error_code::ErrorCode;
use crate::sync::Lock;

/// The current session and the past ones opened, by id.
pub struct Catalog {
    dir: PathBuf,
    current: Arc<WireLog>,
    opened: Mutex<HashMap<u64, Arc<WireLog>>>,
    next_id: AtomicU64,
}

/// A past session, opened: the id that names it to the log commands, and what a listing says.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OpenedSession {
    pub id: u64,
    pub session: SessionInfo,
}

#[derive(Debug, thiserror::Error)]
pub enum CatalogError {
    #[error("{0:?} is not the name of a session file (a *.jsonl file in the sessions directory)")]
    BadName(String),
    #[error("there is no session {name:?} in {dir}")]
    NoSuchSession { name: String, dir: String },
    #[error("session {0} is not open (it was closed, or never opened)")]
    NotOpen(u64),
    #[error("cannot read the session {name:?}: {error}")]
    Io { name: String, error: io::Error },
}

impl CatalogError {
    pub fn code(&self) -> ErrorCode {
        match self {
            CatalogError::BadName(_) => ErrorCode::BadInput,
            CatalogError::NoSuchSession { .. } | CatalogError::NotOpen(_) => ErrorCode::NotFound,
            CatalogError::Io { .. } => ErrorCode::Io,
        }
    }
}

impl Catalog {
    /// A catalog of the directory `current` is written in.
    pub fn new(current: Arc<WireLog>) -> Catalog {
        let dir = current.path().parent().map(PathBuf::from).unwrap_or_default();
        Catalog { dir, current, opened: Mutex::default(), next_id: AtomicU64::new(1) }
    }

    /// Every session in the directory, newest first, the current one marked.
    pub fn list(&self) -> io::Result<Vec<SessionInfo>> {
        let current = self.current.path().file_name().map(|n| n.to_string_lossy().into_owned());
        let mut all = sessions::list_sessions(&self.dir)?;
        for session in &mut all {
            session.current = current.as_deref() == Some(session.name.as_str());
            if session.current {
                // Its own recording knows better than its card.
                session.mark_incomplete(self.current.incomplete());
            }
        }
        Ok(all)
    }

    /// The path of the session file `name`: a plain `*.jsonl` name in the directory, nothing
    /// that reaches outside it.
    pub fn path_of(&self, name: &str) -> Result<PathBuf, CatalogError> {
        let plain = !name.is_empty() && !name.contains(['/', '\\', '\0']) && !name.starts_with('.');
        if !plain || !name.ends_with(".jsonl") {
            return Err(CatalogError::BadName(name.to_owned()));
        }
        Ok(self.dir.join(name))
    }

    /// Opens the session file `name` read-only (following it while another process writes it).
    pub fn open(&self, name: &str) -> Result<OpenedSession, CatalogError> {
        let path = self.path_of(name)?;
        let io = |error: io::Error| match error.kind() {
            io::ErrorKind::NotFound => {
                CatalogError::NoSuchSession { name: name.to_owned(), dir: self.dir.display().to_string() }
            }
            _ => CatalogError::Io { name: name.to_owned(), error },
        };
        let log = WireLog::open(&path).map_err(io)?;
        let mut session = sessions::info_of(&path).map_err(io)?;
        session.current = self.current.path() == path;
        // Read from every line now, not only the first and last.
        session.mark_incomplete(log.incomplete());
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        self.opened.locked().insert(id, log);
        Ok(OpenedSession { id, session })
    }

    /// The log of an opened session, or the current one for `None`.
    pub fn log(&self, session: Option<u64>) -> Result<Arc<WireLog>, CatalogError> {
        match session {
            None => Ok(self.current.clone()),
            Some(id) => self.opened.locked().get(&id).cloned().ok_or(CatalogError::NotOpen(id)),
        }
    }

    /// Closes an opened session: its followers hear that it ended once nothing else holds it.
    pub fn close(&self, id: u64) -> Result<(), CatalogError> {
        self.opened.locked().remove(&id).map(drop).ok_or(CatalogError::NotOpen(id))
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Direction, Entry, Filter, Kind};
    use super::*;

    #[test]
    fn a_past_session_is_opened_by_name_read_and_closed() {
        let dir = std::env::temp_dir().join(format!("sonde-catalog-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let past = WireLog::create_in(&dir).unwrap();
        past.append(Entry::new(1, Kind::Note, Direction::Meta).with_detail("from the past"));
        let past_name = past.path().file_name().unwrap().to_str().unwrap().to_owned();
        drop(past);
        let current = WireLog::create_in(&dir).unwrap();
        let catalog = Catalog::new(current.clone());

        let list = catalog.list().unwrap();
        assert_eq!(list.iter().filter(|s| s.current).count(), 1);
        assert!(list.iter().find(|s| s.current).unwrap().writing);
        let opened = catalog.open(&past_name).unwrap();
        assert!(!opened.session.current && !opened.session.writing);
        let log = catalog.log(Some(opened.id)).unwrap();
        assert_eq!(log.entries(&Filter::default()).unwrap()[0].detail.as_deref(), Some("from the past"));
        assert!(Arc::ptr_eq(&catalog.log(None).unwrap(), &current));

        for bad in ["../x.jsonl", "/etc/passwd", "notes.txt", "", ".jsonl"] {
            let e = catalog.open(bad).unwrap_err();
            assert_eq!(e.code(), ErrorCode::BadInput, "{bad}: {e}");
        }
        assert_eq!(catalog.open("gone.jsonl").unwrap_err().code(), ErrorCode::NotFound);
        catalog.close(opened.id).unwrap();
        assert_eq!(catalog.log(Some(opened.id)).err().map(|e| e.code()), Some(ErrorCode::NotFound));
        assert_eq!(catalog.close(opened.id).unwrap_err().code(), ErrorCode::NotFound);
    }
}
