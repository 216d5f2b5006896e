//! The interface each server was last accepted with, kept as its drift baseline: the next look
//! (`sonde diff --baseline`, a connect in the window) says what changed since, and accepting
//! makes the new interface the baseline.
//!
//! Owns: the baselines folder (`baselines/` in the data directory, `$XDG_DATA_HOME/sonde` on
//! Linux: one file per server, named by a hash of its key, holding the key, when it was kept and
//! the snapshot), reading and replacing one. Refuses: keying a server (`EraCache::key`, so a
//! server is the same server to both) and comparing (`interface::diff`).

use std::io;
use std::path::PathBuf;
use std::time::SystemTime;

use serde::{Deserialize, Serialize};

use super::{diff, in_brief, Change, Snapshot};
use crate::files::write_json;
use crate::saved::era_cache::EraCache;
use crate::server_config::Target;

/// A server's baseline: what it is kept for, when, and the interface.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Baseline {
    /// The server, as the era cache keys it: its command line and directory, or its URL.
    pub key: String,
    /// When it became the baseline, RFC 3339.
    pub kept_at: String,
    pub snapshot: Snapshot,
}

/// What a look at a server's baseline found: when the baseline was kept (none the first time),
/// what changed since (breaking first), and whether the interface now became the baseline (the
/// first time, or accepted).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct BaselineCheck {
    pub kept_at: Option<String>,
    pub changes: Vec<Change>,
    /// The changes in brief ([`in_brief`]).
    pub brief: String,
    pub kept_now: bool,
}

/// The baselines of every server seen, a file each.
#[derive(Debug, Clone)]
pub struct Baselines {
    dir: PathBuf,
}

impl Baselines {
    pub fn at(dir: impl Into<PathBuf>) -> Baselines {
        Baselines { dir: dir.into() }
    }

    /// The baselines in Sonde's data directory.
    pub fn default_location() -> io::Result<Baselines> {
        let dirs = directories::ProjectDirs::from("", "", "sonde").ok_or_else(|| {
            io::Error::new(io::ErrorKind::NotFound, "no home directory to keep baselines in")
        })?;
        Ok(Baselines::at(dirs.data_dir().join("baselines")))
    }

    /// The baseline of `target`, if one was kept; a file that cannot be read as one is an error
    /// that names it.
    pub fn get(&self, target: &Target) -> io::Result<Option<Baseline>> {
        let key = EraCache::key(target);
        let path = self.file(&key);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e),
        };
        let baseline: Baseline = serde_json::from_str(&text).map_err(|e| {
            io::Error::new(io::ErrorKind::InvalidData, format!("{} is not a baseline: {e}", path.display()))
        })?;
        // Two keys with one hash would be a collision; the other server's baseline is not this one's.
        Ok(Some(baseline).filter(|b| b.key == key))
    }

    /// Makes `snapshot` the baseline of `target`, now.
    fn put(&self, target: &Target, snapshot: &Snapshot) -> io::Result<Baseline> {
        let key = EraCache::key(target);
        let kept_at = humantime::format_rfc3339_seconds(SystemTime::now()).to_string();
        let baseline = Baseline { key: key.clone(), kept_at, snapshot: snapshot.clone() };
        std::fs::create_dir_all(&self.dir)?;
        write_json(&self.file(&key), &baseline)?;
        Ok(baseline)
    }

    /// `now` compared with `target`'s baseline; the first time, or with `accept`, `now` becomes
    /// the baseline.
    pub fn check(&self, target: &Target, now: &Snapshot, accept: bool) -> io::Result<BaselineCheck> {
        let kept = self.get(target)?;
        let mut changes = kept.as_ref().map(|kept| diff(&kept.snapshot, now)).unwrap_or_default();
        changes.sort_by_key(|c| c.severity);
        let kept_now = kept.is_none() || accept;
        if kept_now {
            self.put(target, now)?;
        }
        let brief = in_brief(&changes);
        Ok(BaselineCheck { kept_at: kept.map(|k| k.kept_at), changes, brief, kept_now })
    }

    /// The file of the server keyed `key`: the first 16 bytes of its SHA-256, in hex.
    fn file(&self, key: &str) -> PathBuf {
        let digest = ring::digest::digest(&ring::digest::SHA256, key.as_bytes());
        let name: String = digest.as_ref()[..16].iter().map(|b| format!("{b:02x}")).collect();
        self.dir.join(format!("{name}.json"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::process::SpawnSpec;

    fn snapshot(version: &str) -> Snapshot {
        let text = format!(
            r#"{{"sondeSnapshot": 1, "serverInfo": {{"name": "calc", "version": "{version}"}},
                "protocolVersion": "2025-11-25", "era": "legacy", "eraChoice": "negotiated",
                "capabilities": {{}}, "tools": []}}"#
        );
        Snapshot::parse(&text).unwrap()
    }

    #[test]
    fn a_baseline_is_kept_per_server_and_replaced_when_accepted() {
        let dir = tempfile::tempdir().unwrap();
        let baselines = Baselines::at(dir.path().join("baselines"));
        let a = Target::Stdio(SpawnSpec::new("python3", ["a.py"]));
        let b = Target::Stdio(SpawnSpec::new("python3", ["b.py"]));
        assert_eq!(baselines.get(&a).unwrap(), None);
        baselines.put(&a, &snapshot("1")).unwrap();
        assert_eq!(baselines.get(&a).unwrap().unwrap().snapshot, snapshot("1"));
        assert_eq!(baselines.get(&b).unwrap(), None, "another server's baseline");
        baselines.put(&a, &snapshot("2")).unwrap();
        let kept = baselines.get(&a).unwrap().unwrap();
        assert_eq!(kept.snapshot, snapshot("2"));
        assert_eq!(kept.key, EraCache::key(&a));
    }

    #[test]
    fn a_file_that_is_not_a_baseline_is_an_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let baselines = Baselines::at(dir.path());
        let a = Target::Stdio(SpawnSpec::new("python3", ["a.py"]));
        baselines.put(&a, &snapshot("1")).unwrap();
        let file = std::fs::read_dir(dir.path()).unwrap().next().unwrap().unwrap().path();
        std::fs::write(&file, "{}").unwrap();
        let e = baselines.get(&a).unwrap_err();
        assert!(e.to_string().starts_with(&format!("{} is not a baseline: ", file.display())), "{e}");
    }
}
