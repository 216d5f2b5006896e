//! Load runs a person kept to compare a later one with (the window's Save run, Compare with):
//! a JSON file each in the data directory's `load-runs` folder.
//!
//! Owns: a kept run's shape (its report, the server and the calls it was of, when) and the
//! folder: keeping one, and listing those kept, newest first. Refuses: comparing (a front end
//! shows two runs' percentiles side by side) and pruning (a person deletes what they no longer
//! want; a run is a few kilobytes).

use std::io;
use std::path::PathBuf;
use std::time::SystemTime;

use serde::{Deserialize, Serialize};

use super::LoadReport;
use crate::files::{private_dir, write_json};

/// A run kept to compare with.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SavedRun {
    /// The file's name without `.json`: when it was kept, to the millisecond.
    pub id: String,
    /// The server's name (its serverInfo's) and what was called (`tools/call add`).
    pub server: String,
    pub what: String,
    /// When it was kept (RFC 3339, UTC).
    pub saved_at: String,
    pub report: LoadReport,
}

/// The folder of kept runs.
#[derive(Debug, Clone)]
pub struct LoadRuns {
    dir: PathBuf,
}

impl LoadRuns {
    pub fn at(dir: PathBuf) -> LoadRuns {
        LoadRuns { dir }
    }

    /// `load-runs` in Sonde's data directory.
    pub fn default_location() -> io::Result<LoadRuns> {
        let dirs = directories::ProjectDirs::from("", "", "sonde").ok_or_else(|| {
            io::Error::new(io::ErrorKind::NotFound, "no home directory to keep load runs in")
        })?;
        Ok(LoadRuns::at(dirs.data_dir().join("load-runs")))
    }

    /// Keeps `report`, a run on `server` of `what`.
    pub fn keep(&self, server: &str, what: &str, report: &LoadReport) -> io::Result<SavedRun> {
        private_dir(&self.dir)?;
        let now = SystemTime::now();
        let saved_at = humantime::format_rfc3339_millis(now).to_string();
        let stem = saved_at.replace(':', "-");
        let mut id = stem.clone();
        let mut n = 1;
        while self.dir.join(format!("{id}.json")).exists() {
            n += 1;
            id = format!("{stem}-{n}");
        }
        let run = SavedRun { id, server: server.into(), what: what.into(), saved_at, report: report.clone() };
        write_json(&self.dir.join(format!("{}.json", run.id)), &run)?;
        Ok(run)
    }

    /// Every kept run, newest first; a file that is not one is left out (and left alone).
    pub fn list(&self) -> io::Result<Vec<SavedRun>> {
        let entries = match std::fs::read_dir(&self.dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(e),
        };
        let mut runs: Vec<SavedRun> = entries
            .filter_map(Result::ok)
            .filter(|e| e.path().extension().is_some_and(|x| x == "json"))
            .filter_map(|e| serde_json::from_slice(&std::fs::read(e.path()).ok()?).ok())
            .collect();
        runs.sort_by(|a, b| b.id.cmp(&a.id));
        Ok(runs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(p99: f64) -> LoadReport {
        LoadReport {
            count: 10,
            errors: 0,
            errors_by_kind: Default::default(),
            rate: 10.0,
            latency_ms: super::super::Percentiles { p99, ..Default::default() },
            seconds: Vec::new(),
            histogram: Vec::new(),
            pacing: "open".into(),
            asked: "10/s for 1 s".into(),
            duration_s: 1.0,
            warmup_s: 0.0,
            unfinished: 0,
            interrupted: false,
            server_died_s: None,
            recorded: "every call".into(),
            slo: Vec::new(),
        }
    }

    #[test]
    fn kept_runs_come_back_newest_first_and_strangers_are_left_out() {
        let dir = std::env::temp_dir().join(format!("sonde-load-runs-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let runs = LoadRuns::at(dir.clone());
        assert!(runs.list().unwrap().is_empty());
        let first = runs.keep("fixture", "tools/call echo", &report(1.0)).unwrap();
        let second = runs.keep("fixture", "tools/call echo", &report(2.0)).unwrap();
        std::fs::write(dir.join("notes.json"), "{}").unwrap();
        let listed = runs.list().unwrap();
        assert_eq!(listed.len(), 2);
        assert_eq!(listed[0], second);
        assert_eq!(listed[1], first);
        assert_ne!(first.id, second.id);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
