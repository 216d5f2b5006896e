//! What is not a change to a server's source: Sonde's own files (its session logs and its
//! configuration, which it writes while it watches), files `.gitignore` leaves out (the watched
//! folder's, and its repository's), build and dependency folders, editors' swap files, and the
//! globs the user gives, read as `.gitignore` lines are. One matcher for all of them, the
//! `ignore` crate's (ripgrep's and watchexec's).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use ignore::gitignore::{Gitignore, GitignoreBuilder};

use super::WatchError;

/// Never a change: what tools write while they build and install, and what editors write
/// beside the file being edited.
const ALWAYS: [&str; 14] = [
    ".git/",
    "target/",
    "node_modules/",
    "__pycache__/",
    ".venv/",
    ".mypy_cache/",
    ".pytest_cache/",
    "*.pyc",
    "*.swp",
    "*.swx",
    "*~",
    ".#*",
    "#*#",
    "4913",
];

/// The ignore rules of the watched paths, each rooted where it was read.
#[derive(Clone)]
pub struct Ignored {
    rules: Arc<Vec<Gitignore>>,
    /// Sonde's own folders: what it writes there while watching must not restart the server.
    own: Arc<Vec<PathBuf>>,
}

impl Ignored {
    /// The rules for `paths` (each a folder, or a file whose folder holds the rules), with the
    /// globs `given`.
    pub fn new(paths: &[PathBuf], given: &[String]) -> Result<Ignored, WatchError> {
        let mut rules = Vec::new();
        for path in paths {
            let root = if path.is_dir() {
                path.clone()
            } else {
                path.parent().map(Path::to_path_buf).unwrap_or_default()
            };
            let mut builder = GitignoreBuilder::new(&root);
            let _ = builder.add(root.join(".gitignore"));
            for line in ALWAYS {
                builder.add_line(None, line).expect("the built-in globs parse");
            }
            for glob in given {
                builder
                    .add_line(None, glob)
                    .map_err(|e| WatchError::BadGlob { glob: glob.clone(), why: e.to_string() })?;
            }
            rules.push(
                builder
                    .build()
                    .map_err(|e| WatchError::BadGlob { glob: given.join(" "), why: e.to_string() })?,
            );
            // The repository's own .gitignore, when the folder is inside one.
            if let Some(top) = root.ancestors().skip(1).find(|a| a.join(".git").exists()) {
                let mut builder = GitignoreBuilder::new(top);
                if builder.add(top.join(".gitignore")).is_none() {
                    if let Ok(repository) = builder.build() {
                        rules.push(repository);
                    }
                }
            }
        }
        let own = [crate::log::sessions_dir(), crate::files::config_dir()].into_iter().flatten().collect();
        Ok(Ignored { rules: Arc::new(rules), own: Arc::new(own) })
    }

    /// Whether a change to `path` is no change.
    pub fn is_ignored(&self, path: &Path) -> bool {
        if self.own.iter().any(|own| path.starts_with(own)) {
            return true;
        }
        let is_dir = path.is_dir();
        self.rules
            .iter()
            .filter(|rules| path.starts_with(rules.path()))
            .any(|rules| rules.matched_path_or_any_parents(path, is_dir).is_ignore())
    }
}
