//! Watching a server's source for changes, for `sonde watch` (and the window's Restart on
//! change): a save, or a `git checkout` of thousands of files, is one [`SourceChange`] once the files
//! have been quiet for the debounce.
//!
//! Owns: which paths a command's source is under when none are given ([`source_paths`]), what
//! is not a change ([`ignored`]: `.gitignore`d files, build and dependency folders, editors' swap
//! files, the globs given), the quiet period, and the fall back to polling when the system's
//! watches run out, saying which limit; and the build step run before a restart
//! ([`BuildStep`]). Refuses: restarting (the hub's `RestartOnChange`), and reading what changed.

mod build;
mod ignored;

use std::collections::{BTreeSet, HashSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

use notify::Watcher;
use tokio::sync::mpsc;

use crate::error_code::ErrorCode;
use crate::process::SpawnSpec;

pub use build::{BuildFailed, BuildStep};
pub use ignored::Ignored;

/// How long the files must be quiet before a change counts, unless told otherwise.
pub const DEFAULT_DEBOUNCE: Duration = Duration::from_millis(300);

/// How often the files are looked at when the system cannot watch them.
const POLL_EVERY: Duration = Duration::from_millis(500);

/// The files a [`SourceChange`] names, at most; the rest are counted.
const NAMED_MAX: usize = 1000;

/// The files a burst tells apart, at most; events beyond them each count as a file.
const COUNTED_MAX: usize = 100_000;

/// What to watch: the paths (files or folders, folders recursively), globs of files that are
/// not a change, and the quiet period.
#[derive(Debug, Clone)]
pub struct WatchSpec {
    pub paths: Vec<PathBuf>,
    pub ignore: Vec<String>,
    pub debounce: Duration,
}

/// Why watching could not start.
#[derive(Debug, thiserror::Error)]
pub enum WatchError {
    #[error("{} does not exist; give a file or folder to watch with --path", .0.display())]
    NoSuchPath(PathBuf),
    #[error("--ignore {glob}: {why}")]
    BadGlob { glob: String, why: String },
    #[error("cannot watch {}: {why}", path.display())]
    Unwatchable { path: PathBuf, why: String },
}

impl WatchError {
    pub fn code(&self) -> ErrorCode {
        match self {
            WatchError::NoSuchPath(_) | WatchError::BadGlob { .. } => ErrorCode::BadInput,
            WatchError::Unwatchable { .. } => ErrorCode::Io,
        }
    }
}

/// A burst of changes: the files that changed (at most [`NAMED_MAX`], sorted) and how many.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceChange {
    pub files: Vec<PathBuf>,
    pub count: usize,
}

impl SourceChange {
    /// The change in words, by file name: "a change to server.py", "changes to server.py and
    /// 2 other files".
    pub fn cause(&self) -> String {
        let name = |p: &PathBuf| {
            p.file_name().map_or_else(|| p.display().to_string(), |n| n.to_string_lossy().into())
        };
        match (self.files.first(), self.count) {
            (None, _) => "a change".into(),
            (Some(first), 1) => format!("a change to {}", name(first)),
            (Some(first), 2) => format!("changes to {} and 1 other file", name(first)),
            (Some(first), n) => format!("changes to {} and {} other files", name(first), n - 1),
        }
    }
}

/// A watch in progress; dropping it stops it.
pub struct SourceWatch {
    events: mpsc::UnboundedReceiver<PathBuf>,
    debounce: Duration,
    _watcher: Box<dyn Watcher + Send>,
    /// Why the files are polled rather than watched, when they are: the limit met, and how to
    /// raise it.
    pub polling: Option<String>,
}

impl SourceWatch {
    /// Starts watching `spec`'s paths; every path must exist.
    pub fn start(spec: &WatchSpec) -> Result<SourceWatch, WatchError> {
        let paths: Vec<PathBuf> =
            spec.paths.iter().map(|p| std::path::absolute(p).unwrap_or(p.clone())).collect();
        if let Some(missing) = paths.iter().find(|p| !p.exists()) {
            return Err(WatchError::NoSuchPath(missing.clone()));
        }
        let ignored = Ignored::new(&paths, &spec.ignore)?;
        let (sender, events) = mpsc::unbounded_channel();
        let handler = move |event: notify::Result<notify::Event>| {
            let Ok(event) = event else { return };
            if !counts(&event.kind) {
                return;
            }
            for path in event.paths {
                if !ignored.is_ignored(&path) {
                    let _ = sender.send(path);
                }
            }
        };
        let (watcher, polling) = match watch_all(notify::recommended_watcher(handler.clone()), &paths) {
            Ok(watcher) => (watcher, None),
            Err((_, e)) if limit_met(&e) => {
                let config = notify::Config::default().with_poll_interval(POLL_EVERY);
                let polled = notify::PollWatcher::new(handler, config);
                let watcher = watch_all(polled, &paths).map_err(|(path, e)| watch_error(path, e))?;
                (watcher, Some(limit_words(&e)))
            }
            Err((path, e)) => return Err(watch_error(path, e)),
        };
        Ok(SourceWatch { events, debounce: spec.debounce, _watcher: watcher, polling })
    }

    /// The next burst of changes: the first file that counts, then every one until the files
    /// have been quiet for the debounce. `None` once the watcher is gone.
    pub async fn next(&mut self) -> Option<SourceChange> {
        let mut seen = HashSet::from([self.events.recv().await?]);
        let mut beyond = 0;
        while let Ok(Some(path)) = tokio::time::timeout(self.debounce, self.events.recv()).await {
            if seen.len() < COUNTED_MAX {
                seen.insert(path);
            } else if !seen.contains(&path) {
                beyond += 1;
            }
        }
        let count = seen.len() + beyond;
        // The files still there first: an editor's (or sed's) temporary file, renamed over the
        // one saved, is gone by now, and must not be the change's name.
        let mut files: Vec<PathBuf> = seen.into_iter().collect::<BTreeSet<_>>().into_iter().collect();
        files.sort_by_key(|path| !path.exists());
        files.truncate(NAMED_MAX);
        Some(SourceChange { files, count })
    }
}

/// Whether an event is a change to a file's contents or its place: reads and metadata (a
/// `touch` of the time, a permission) are not.
fn counts(kind: &notify::EventKind) -> bool {
    use notify::event::{EventKind, ModifyKind};
    match kind {
        EventKind::Create(_) | EventKind::Remove(_) => true,
        EventKind::Modify(ModifyKind::Metadata(_)) => false,
        EventKind::Modify(_) => true,
        EventKind::Access(_) | EventKind::Any | EventKind::Other => false,
    }
}

type Started = Result<Box<dyn Watcher + Send>, (PathBuf, notify::Error)>;

fn watch_all<W: Watcher + Send + 'static>(watcher: notify::Result<W>, paths: &[PathBuf]) -> Started {
    let first = paths.first().cloned().unwrap_or_default();
    let mut watcher = watcher.map_err(|e| (first, e))?;
    for path in paths {
        let mode = if path.is_dir() {
            notify::RecursiveMode::Recursive
        } else {
            notify::RecursiveMode::NonRecursive
        };
        watcher.watch(path, mode).map_err(|e| (path.clone(), e))?;
    }
    Ok(Box::new(watcher))
}

fn limit_met(e: &notify::Error) -> bool {
    matches!(e.kind, notify::ErrorKind::MaxFilesWatch)
        || matches!(&e.kind, notify::ErrorKind::Io(io) if io.raw_os_error() == Some(libc::EMFILE))
}

fn limit_words(e: &notify::Error) -> String {
    let (limit, raise) = match &e.kind {
        notify::ErrorKind::Io(_) => ("fs.inotify.max_user_instances", "fs.inotify.max_user_instances=1024"),
        _ => ("fs.inotify.max_user_watches", "fs.inotify.max_user_watches=524288"),
    };
    format!(
        "the system's limit on file watches ({limit}) is reached; raise it with `sudo sysctl {raise}`; \
         meanwhile the files are polled every {} ms",
        POLL_EVERY.as_millis()
    )
}

fn watch_error(path: PathBuf, e: notify::Error) -> WatchError {
    WatchError::Unwatchable { path, why: e.to_string() }
}

/// Where a command's source is, when no path is given: the folder of the first script it names
/// (`python server.py`, `node dist/index.js`), else of the program when it is given by a path
/// outside the system's folders (`./target/debug/server`), else its working directory, else
/// Sonde's.
pub fn source_paths(spawn: &SpawnSpec) -> Vec<PathBuf> {
    const SYSTEM: [&str; 4] = ["/usr/", "/bin/", "/sbin/", "/opt/"];
    let cwd = spawn.cwd.clone().or_else(|| std::env::current_dir().ok()).unwrap_or_default();
    let file = |word: &String| Some(cwd.join(word)).filter(|path| path.is_file());
    let program =
        Some(&spawn.program).filter(|p| p.contains('/') && !SYSTEM.iter().any(|s| p.starts_with(s)));
    let named = spawn.args.iter().find_map(file).or_else(|| program.and_then(file));
    vec![named.and_then(|path| path.parent().map(Path::to_path_buf)).unwrap_or(cwd)]
}

#[cfg(test)]
mod tests;
