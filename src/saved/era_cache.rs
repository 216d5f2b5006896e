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
use crate::server_config::Target;

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

    /// The key `target`'s verdict is kept under: its command line and directory, or its URL
    /// (secrets redacted: the cache is a file of its own).
    pub fn key(target: &Target) -> String {
        match target {
            Target::Stdio(spec) => Self::stdio_key(spec),
            Target::Http(http) => crate::transport::shown_url(&http.url),
        }
    }

    /// The key of a stdio server: the program it resolves to, its arguments, and the directory
    /// it runs in, both resolved, so `./srv.sh` run from two directories is two servers and the
    /// same program named two ways is one.
    pub fn stdio_key(spec: &SpawnSpec) -> String {
        let here = std::env::current_dir().unwrap_or_default();
        let cwd = match &spec.cwd {
            Some(dir) => canonical(&here.join(dir)),
            None => canonical(&here),
        };
        let path_var = spec
            .env
            .iter()
            .rev()
            .find(|(k, _)| k == "PATH")
            .map(|(_, v)| v.clone())
            .or_else(|| std::env::var("PATH").ok())
            .unwrap_or_default();
        let program = resolve_program(&spec.program, &cwd, &path_var);
        let mut resolved = spec.clone();
        resolved.program = program.display().to_string();
        format!("{} (cwd: {})", resolved.command_line(), cwd.display())
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

/// `path` with its symbolic links and `..` resolved, or without its `.` parts when it does not
/// exist.
fn canonical(path: &Path) -> PathBuf {
    std::fs::canonicalize(path)
        .unwrap_or_else(|_| path.components().filter(|c| *c != std::path::Component::CurDir).collect())
}

/// Where `program` is, as a spawn in `cwd` with `path_var` as PATH finds it: a name with a
/// slash is a path from `cwd`; a bare name is the first executable of that name on PATH (a
/// name found nowhere is kept as it is: the spawn will fail, and the key does not matter).
fn resolve_program(program: &str, cwd: &Path, path_var: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    if program.contains('/') {
        return canonical(&cwd.join(program));
    }
    let executable =
        |p: &Path| p.metadata().is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0);
    std::env::split_paths(path_var)
        .map(|dir| cwd.join(dir).join(program))
        .find(|candidate| executable(candidate))
        .map_or_else(|| PathBuf::from(program), |found| canonical(&found))
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

    #[test]
    fn a_relative_command_is_one_server_per_directory_and_a_program_is_keyed_by_where_it_is() {
        let root = std::env::temp_dir().join(format!("sonde-era-key-{}", std::process::id()));
        let (one, two) = (root.join("one"), root.join("two"));
        std::fs::create_dir_all(&one).unwrap();
        std::fs::create_dir_all(&two).unwrap();
        let in_dir =
            |dir: &Path| SpawnSpec { cwd: Some(dir.to_path_buf()), ..SpawnSpec::new("./srv.sh", ["x"]) };
        let (k1, k2) = (EraCache::stdio_key(&in_dir(&one)), EraCache::stdio_key(&in_dir(&two)));
        assert_ne!(k1, k2);
        assert!(k1.starts_with(&format!("{}/srv.sh x (cwd: ", canonical(&one).display())), "{k1}");
        // `sh` by name and by its path are the same program.
        let by_name =
            EraCache::stdio_key(&SpawnSpec { cwd: Some(one.clone()), ..SpawnSpec::new("sh", ["-c", "x"]) });
        let sh = canonical(Path::new("/bin/sh"));
        let by_path = EraCache::stdio_key(&SpawnSpec {
            cwd: Some(one.clone()),
            ..SpawnSpec::new(sh.to_str().unwrap(), ["-c", "x"])
        });
        assert_eq!(by_name, by_path);
    }
}
