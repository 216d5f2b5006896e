//! A saved server's Restart on change: the files to watch, those that are no change, and the
//! build to run before each restart; the window's loop is the hub's (`RestartOnChange`).
//!
//! Owns: the record (in `servers.json`, with its server) and reading it for the server's
//! command: relative paths and the build are in the server's working directory, and no path
//! means where its script or program is ([`source_paths`]). Refuses: watching, building and
//! restarting (`watch`, `hub`), and a URL's server, which whoever runs it restarts.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::process::SpawnSpec;
use crate::watch::{source_paths, BuildStep, WatchSpec, DEFAULT_DEBOUNCE};

/// Restart on change, as the person set it; absent when it is off.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OnChange {
    /// Files or folders to watch (folders with what they hold). None: the folder of the script
    /// or program the command names, else the working directory.
    #[serde(default)]
    pub paths: Vec<String>,
    /// Globs of files that are no change, beyond `.gitignore`d files, build and dependency
    /// folders and editors' swap files.
    #[serde(default)]
    pub ignore: Vec<String>,
    /// A command line run through `sh -c` before each restart; after a failed build the server
    /// is not restarted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub build: Option<String>,
}

impl OnChange {
    /// What to watch and build for the server `spawn` starts.
    pub fn plan(&self, spawn: &SpawnSpec) -> (WatchSpec, Option<BuildStep>) {
        let here = |p: &str| match &spawn.cwd {
            Some(cwd) => cwd.join(p),
            None => PathBuf::from(p),
        };
        let given: Vec<PathBuf> =
            self.paths.iter().map(|p| p.trim()).filter(|p| !p.is_empty()).map(here).collect();
        let paths = if given.is_empty() { source_paths(spawn) } else { given };
        let ignore = self.ignore.iter().map(|g| g.trim().to_owned()).filter(|g| !g.is_empty()).collect();
        let build = self.build.as_deref().map(str::trim).filter(|b| !b.is_empty());
        let build = build.map(|command| BuildStep { command: command.to_owned(), cwd: spawn.cwd.clone() });
        (WatchSpec { paths, ignore, debounce: DEFAULT_DEBOUNCE }, build)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_and_the_build_are_in_the_working_directory_and_blanks_are_dropped() {
        let mut spawn = SpawnSpec::new("python3", ["server.py"]);
        spawn.cwd = Some(PathBuf::from("/srv/calc"));
        let on_change = OnChange {
            paths: vec!["src".into(), " ".into(), "/etc/calc.toml".into()],
            ignore: vec!["*.log".into(), "".into()],
            build: Some(" make ".into()),
        };
        let (spec, build) = on_change.plan(&spawn);
        assert_eq!(spec.paths, [PathBuf::from("/srv/calc/src"), PathBuf::from("/etc/calc.toml")]);
        assert_eq!(spec.ignore, ["*.log"]);
        assert_eq!(build, Some(BuildStep { command: "make".into(), cwd: Some(PathBuf::from("/srv/calc")) }));
        let (spec, build) = OnChange { build: Some("  ".into()), ..OnChange::default() }.plan(&spawn);
        assert_eq!(spec.paths, source_paths(&spawn), "no path given: where the script is");
        assert_eq!(build, None);
    }
}
