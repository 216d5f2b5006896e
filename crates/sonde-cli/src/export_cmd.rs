//! `sonde export`: a recorded session, whole or filtered, written to a file as JSONL, HAR, an
//! HTML report or OTLP spans, with every saved server's secrets redacted, saying on stderr what was written.
//!
//! Owns: the refusal to replace a file without `--force`, where the secrets come from, and
//! which exit code each failure earns. Refuses: the formats and the redaction themselves (the
//! core's `log` writes them, so the window's exports are the same files); its options are
//! declared in `args` with every command's.

use std::io;

use sonde_core::{export_har, export_jsonl, ExportError, ExportFormat, Filter, Incomplete, WireLog};

use crate::args::ExportArgs;
use crate::exit::{FAILED, OK, USAGE};

pub fn run(args: &ExportArgs) -> i32 {
    let filter = match args.filter.as_deref().map(Filter::parse_whole).transpose() {
        Ok(f) => f.unwrap_or_default(),
        Err(e) => {
            errln!("sonde: bad --filter: {e}");
            return USAGE;
        }
    };
    let out = &args.out;
    if out.is_dir() {
        errln!("sonde: {} is a directory; give --out the file to write", out.display());
        return USAGE;
    }
    // A broken symlink exists too: writing through it would create a file somewhere else.
    if !args.force && out.symlink_metadata().is_ok() {
        errln!("sonde: {} exists; give --force to replace it", out.display());
        return USAGE;
    }
    let path = match crate::log_cmd::find(args.which.as_deref().unwrap_or(&args.session)) {
        Ok(path) => path,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            errln!("sonde: {e}");
            return USAGE;
        }
        Err(e) => {
            errln!("sonde: {e}");
            return FAILED;
        }
    };
    let log = match WireLog::open(&path) {
        Ok(log) => log,
        Err(e) => {
            errln!("sonde: cannot read {}: {e}", path.display());
            return FAILED;
        }
    };
    if !log.is_a_session() {
        errln!("sonde: {} is not a Sonde session: none of its lines is a session entry", path.display());
        return USAGE;
    }
    // Without the secrets nothing could be redacted: no export rather than one that leaks.
    let secrets = match saved_secrets() {
        Ok(secrets) => secrets,
        Err(e) => {
            errln!("sonde: cannot read the saved servers, whose secrets an export hides: {e}");
            return FAILED;
        }
    };
    let incomplete = log.incomplete();
    if !incomplete.is_empty() {
        errln!("sonde: this session is incomplete: {}", Incomplete::words(&incomplete));
    }
    let written = match args.format {
        ExportFormat::Jsonl => export_jsonl(&log, &filter, &secrets, out)
            .map(|n| (n, "entry", "entries"))
            .map_err(ExportError::from),
        ExportFormat::Har => export_har(&log, &filter, &secrets, out).map(|n| (n, "exchange", "exchanges")),
        ExportFormat::Html => sonde_core::export_html(&log, &filter, &secrets, out)
            .map(|n| (n, "entry", "entries"))
            .map_err(ExportError::from),
        ExportFormat::Otlp => {
            sonde_core::export_otlp(&log, &filter, &secrets, out).map(|t| (t.spans, "span", "spans"))
        }
    };
    match written {
        Ok((n, one, many)) => {
            noteln!("sonde: wrote {n} {} to {}", if n == 1 { one } else { many }, out.display());
            OK
        }
        Err(ExportError::Io(e)) => {
            errln!("sonde: cannot write {}: {e}", out.display());
            FAILED
        }
        // What the format cannot hold: refused before a file was made.
        Err(refused) => {
            errln!("sonde: {refused}");
            USAGE
        }
    }
}

/// The values every saved server keeps secret (environment values, secret headers, client
/// secrets). Without a servers file there are none; reading it never creates one.
pub fn saved_secrets() -> io::Result<Vec<String>> {
    let store = sonde_core::ServerStore::default_location()?;
    if !store.path().exists() {
        return Ok(Vec::new());
    }
    Ok(sonde_core::Servers::load(store, "")?.secrets())
}
