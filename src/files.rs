//! Sonde's own files: where they live, that only the user can read them, and writing one whole
//! or not at all.
//!
//! Owns: the config directory (`$XDG_CONFIG_HOME/sonde` on Linux); private directories (0700)
//! and files (0600), tightened when found looser, for everything Sonde writes of its own
//! (session logs and their cards, `servers.json`, the era cache, credentials, the trace file,
//! the shell's history, exports); and the atomic JSON write (a private temporary file, then a
//! rename). Refuses: knowing what the files hold; each owner reads and shapes its own.

use std::fs::{DirBuilder, File, OpenOptions, Permissions};
use std::io::{self, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use serde::Serialize;

/// Creates `dir` (and any missing parent) readable by the user only, and tightens it to 0700
/// when it exists with more.
pub fn private_dir(dir: &Path) -> io::Result<()> {
    DirBuilder::new().recursive(true).mode(0o700).create(dir)?;
    tighten(dir, 0o700)
}

/// Options that create a file 0600; an existing file is tightened by [`open_private`].
fn private_options() -> OpenOptions {
    let mut options = OpenOptions::new();
    options.mode(0o600);
    options
}

/// Opens `path` for appending, created 0600 (or tightened to it) in a private directory.
pub fn append_private(path: &Path) -> io::Result<File> {
    if let Some(dir) = path.parent() {
        private_dir(dir)?;
    }
    let file = private_options().create(true).append(true).open(path)?;
    tighten(path, 0o600)?;
    Ok(file)
}

/// Creates `path`, which must not exist yet, 0600 in a private directory.
pub fn create_new_private(path: &Path) -> io::Result<File> {
    if let Some(dir) = path.parent() {
        private_dir(dir)?;
    }
    private_options().create_new(true).append(true).open(path)
}

/// Creates or truncates `path` 0600 (tightened when it was looser). The directory is the
/// person's choice (an export) and is left as it is.
pub fn create_private(path: &Path) -> io::Result<File> {
    let file = private_options().create(true).write(true).truncate(true).open(path)?;
    tighten(path, 0o600)?;
    Ok(file)
}

/// Writes `bytes` to `path` whole: a 0600 temporary file beside it, then a rename.
pub fn write_private(path: &Path, bytes: &[u8]) -> io::Result<()> {
    if let Some(dir) = path.parent() {
        private_dir(dir)?;
    }
    let tmp = path.with_extension(match path.extension() {
        Some(ext) => format!("{}.tmp", ext.to_string_lossy()),
        None => "tmp".to_owned(),
    });
    // A temporary file left by a crash may be looser: it goes, and a new one is made private.
    let _ = std::fs::remove_file(&tmp);
    let mut out = private_options().write(true).create_new(true).open(&tmp)?;
    out.write_all(bytes)?;
    out.sync_all()?;
    std::fs::rename(tmp, path)
}

/// Sets `mode` when the path allows more than it.
fn tighten(path: &Path, mode: u32) -> io::Result<()> {
    let now = std::fs::metadata(path)?.permissions().mode() & 0o777;
    if now & !mode != 0 {
        std::fs::set_permissions(path, Permissions::from_mode(mode))?;
    }
    Ok(())
}

/// Sonde's config directory: `$XDG_CONFIG_HOME/sonde` on Linux.
pub fn config_dir() -> io::Result<PathBuf> {
    let dirs = directories::ProjectDirs::from("", "", "sonde")
        .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "no home directory for the config"))?;
    Ok(dirs.config_dir().to_owned())
}

/// Where the person keeps what they save: their download directory, else their home.
pub fn download_dir() -> Option<PathBuf> {
    let dirs = directories::UserDirs::new()?;
    Some(dirs.download_dir().unwrap_or(dirs.home_dir()).to_owned())
}

/// Writes `value` as pretty JSON to `path`, privately and whole (see [`write_private`]), so a
/// crash never leaves half a file behind.
pub fn write_json(path: &Path, value: &impl Serialize) -> io::Result<()> {
    write_private(path, &serde_json::to_vec_pretty(value).expect("serializes"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mode(path: &Path) -> u32 {
        std::fs::metadata(path).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn every_kind_of_write_is_private_and_looser_files_are_tightened() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("a/sonde");
        // The atomic JSON write (servers.json, the era cache), its temporary file included.
        write_json(&dir.join("servers.json"), &serde_json::json!({"servers": []})).unwrap();
        assert_eq!(mode(&dir), 0o700);
        assert_eq!(mode(&dir.join("servers.json")), 0o600);
        assert!(!dir.join("servers.json.tmp").exists());
        // A looser file and directory from an earlier version are tightened on the next write.
        std::fs::set_permissions(&dir, Permissions::from_mode(0o755)).unwrap();
        std::fs::write(dir.join("servers.json.tmp"), "left by a crash").unwrap();
        std::fs::set_permissions(dir.join("servers.json.tmp"), Permissions::from_mode(0o644)).unwrap();
        write_json(&dir.join("servers.json"), &serde_json::json!({})).unwrap();
        assert_eq!((mode(&dir), mode(&dir.join("servers.json"))), (0o700, 0o600));
        // Appended files (the trace file), created and tightened.
        let trace = dir.join("sonde-desktop.log");
        append_private(&trace).unwrap();
        assert_eq!(mode(&trace), 0o600);
        std::fs::set_permissions(&trace, Permissions::from_mode(0o644)).unwrap();
        append_private(&trace).unwrap();
        assert_eq!(mode(&trace), 0o600);
        // A new file (a session log) and one created or truncated (an export).
        let session = dir.join("sessions/x.jsonl");
        create_new_private(&session).unwrap();
        assert_eq!((mode(session.parent().unwrap()), mode(&session)), (0o700, 0o600));
        let export = root.path().join("export.jsonl");
        std::fs::write(&export, "old").unwrap();
        create_private(&export).unwrap();
        assert_eq!(mode(&export), 0o600);
    }
}
