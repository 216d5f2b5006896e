//! Sonde's own small files: where they live, and writing one whole or not at all.
//!
//! Owns: the config directory (`$XDG_CONFIG_HOME/sonde` on Linux) and the atomic JSON write
//! (a temporary file, then a rename) that the saved servers and the era cache both use.
//! Refuses: knowing what the files hold; each owner reads and shapes its own.

use std::io;
use std::path::{Path, PathBuf};

use serde::Serialize;

/// Sonde's config directory: `$XDG_CONFIG_HOME/sonde` on Linux.
pub fn config_dir() -> io::Result<PathBuf> {
    let dirs = directories::ProjectDirs::from("", "", "sonde")
        .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "no home directory for the config"))?;
    Ok(dirs.config_dir().to_owned())
}

/// Writes `value` as pretty JSON to `path` through a temporary file and a rename, so a crash
/// never leaves half a file behind.
pub fn write_json(path: &Path, value: &impl Serialize) -> io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let tmp = path.with_extension("json.tmp");
    std::fs::write(&tmp, serde_json::to_vec_pretty(value).expect("serializes"))?;
    std::fs::rename(tmp, path)
}
