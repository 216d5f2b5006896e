//! The era verdict remembered per server, so the next connect can skip the probe.
//!
//! Owns: the era cache file (`era-cache.json` in the config directory, `$XDG_CONFIG_HOME/sonde`
//! on Linux), keyed by command line and working directory, or by URL.
//! Refuses: deciding anything; the hub reads and writes verdicts.

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::era::Era;
use crate::files::{config_dir, write_json};
use crate::process::SpawnSpec;

/// A verdict worth remembering.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CachedEra {
    pub era: Era,
    pub version: String,
    /// The evidence when the verdict was reached.
    pub decided_by: String,
    pub at: String,
}

/// The era verdicts of servers seen before, in one small JSON file.
#[derive(Debug, Clone)]
pub struct EraCache {
    path: PathBuf,
}

impl EraCache {
    pub fn at(path: impl Into<PathBuf>) -> EraCache {
        EraCache { path: path.into() }
    }

    /// The cache in Sonde's config directory.
    pub fn default_location() -> io::Result<EraCache> {
        Ok(EraCache::at(config_dir()?.join("era-cache.json")))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The key of a stdio server: its command line and working directory.
    pub fn stdio_key(spec: &SpawnSpec) -> String {
        let cwd = spec.cwd.as_ref().map_or_else(String::new, |d| d.display().to_string());
        format!("{} (cwd: {cwd})", spec.command_line())
    }

    fn load(&self) -> BTreeMap<String, CachedEra> {
        // A missing or unreadable cache is an empty one: it only ever saves a probe.
        std::fs::read(&self.path).ok().and_then(|b| serde_json::from_slice(&b).ok()).unwrap_or_default()
    }

    fn store(&self, all: &BTreeMap<String, CachedEra>) -> io::Result<()> {
        write_json(&self.path, all)
    }

    pub fn get(&self, key: &str) -> Option<CachedEra> {
        self.load().remove(key)
    }

    pub fn put(&self, key: &str, verdict: CachedEra) -> io::Result<()> {
        let mut all = self.load();
        all.insert(key.to_owned(), verdict);
        self.store(&all)
    }

    pub fn forget(&self, key: &str) -> io::Result<()> {
        let mut all = self.load();
        if all.remove(key).is_some() {
            self.store(&all)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdicts_are_kept_per_command_and_directory_and_can_be_forgotten() {
        let path = std::env::temp_dir().join(format!("sonde-era-cache-{}.json", std::process::id()));
        let _ = std::fs::remove_file(&path);
        let cache = EraCache::at(&path);
        let a = SpawnSpec::new("server", ["--a"]);
        let mut b = a.clone();
        b.cwd = Some("/tmp".into());
        let verdict = CachedEra {
            era: Era::Modern,
            version: "2026-07-28".into(),
            decided_by: "server/discover".into(),
            at: "t".into(),
        };
        let (a, b) = (EraCache::stdio_key(&a), EraCache::stdio_key(&b));
        cache.put(&a, verdict.clone()).unwrap();
        assert_eq!(cache.get(&a), Some(verdict));
        assert_eq!(cache.get(&b), None);
        cache.forget(&a).unwrap();
        assert_eq!(cache.get(&a), None);
    }
}
