//! `sonde wrap` and `sonde unwrap`: a client's config with its servers routed through `sonde
//! proxy`, printed, or written after a backup.
//!
//! Owns: finding the file, the backup, the write (atomic, the file's own permissions kept) and
//! the words. Refuses: the edit itself (`sonde_core::wrap`).

use std::path::{Path, PathBuf};

use sonde_core::{unwrap_config, wrap_config, KnownClient};

use crate::args::WrapArgs;
use crate::exit::{FAILED, OK, USAGE};

pub fn run(args: &WrapArgs, wrapping: bool) -> i32 {
    let client = KnownClient::parse(&args.client).expect("clap checked the client");
    let Some(path) = args.config.clone().or_else(|| client.default_path()) else {
        errln!("sonde: cannot tell where {} keeps its config (no HOME); give --config PATH", client.name());
        return USAGE;
    };
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) => {
            errln!("sonde: cannot read {}: {e}", path.display());
            return FAILED;
        }
    };
    let edited = if wrapping {
        let sonde =
            std::env::current_exe().map(|p| p.display().to_string()).unwrap_or_else(|_| "sonde".into());
        wrap_config(&text, client, args.server.as_deref(), &sonde)
    } else {
        unwrap_config(&text, client, args.server.as_deref())
    };
    let edited = match edited {
        Ok(edited) => edited,
        Err(e) => {
            errln!("sonde: {}: {e}", path.display());
            return FAILED;
        }
    };
    let verb = if wrapping { "through sonde proxy" } else { "on their own command lines again" };
    for (name, why) in &edited.left {
        errln!("sonde: {name}: left as it is: {why}");
    }
    if !args.write {
        print!("{}", edited.text);
        let servers = match edited.changed.len() {
            1 => "1 server".to_owned(),
            n => format!("{n} servers"),
        };
        errln!("sonde: {servers} {verb} in the text above; --write writes {}", path.display());
        return OK;
    }
    if edited.changed.is_empty() {
        errln!("sonde: nothing to change in {}", path.display());
        return OK;
    }
    match write_with_backup(&path, &edited.text) {
        Ok(backup) => {
            errln!(
                "sonde: {} ({}) {verb}; the file was copied to {} first",
                edited.changed.join(", "),
                path.display(),
                backup.display()
            );
            if wrapping {
                errln!("sonde: restart {} to use it; each session is then in `sonde sessions` and the window's File → Open Session", client.name());
            }
            OK
        }
        Err(e) => {
            errln!("sonde: could not write {}: {e}", path.display());
            FAILED
        }
    }
}

/// Copies `path` to `PATH.sonde-backup-TIME` (`-2`, `-3` after it when taken), then replaces it with `text` through a file beside
/// it, so no reader ever sees half a config; the file keeps its permissions.
fn write_with_backup(path: &Path, text: &str) -> std::io::Result<PathBuf> {
    let stamp = humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string().replace(':', "");
    // Two runs within a second (wrap, then unwrap) each keep their backup: a later one is
    // numbered rather than written over the first.
    let named = |n: u32| match n {
        1 => PathBuf::from(format!("{}.sonde-backup-{stamp}", path.display())),
        n => PathBuf::from(format!("{}.sonde-backup-{stamp}-{n}", path.display())),
    };
    let backup = (1..).map(named).find(|b| !b.exists()).expect("a free name");
    std::fs::copy(path, &backup)?;
    let permissions = std::fs::metadata(path)?.permissions();
    let temporary = PathBuf::from(format!("{}.sonde-new", path.display()));
    std::fs::write(&temporary, text)?;
    std::fs::set_permissions(&temporary, permissions)?;
    std::fs::rename(&temporary, path)?;
    Ok(backup)
}
