//! `sonde export`: a recorded session, whole or filtered, written to a file as JSONL, HAR or an
//! HTML report, with every saved server's secrets redacted, saying on stderr what was written.
//!
//! Owns: the command's options, the refusal to replace a file without `--force`, and which
//! exit code each failure earns. Refuses: the formats and the redaction themselves (the core's
//! `log` writes them, so the window's exports are the same files).

use std::io;
use std::path::PathBuf;

use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::Args;
use sonde_core::log::{export_har, export_jsonl, ExportError, ExportFormat, Filter, Incomplete, WireLog};

use crate::exit::{FAILED, OK, USAGE};

#[derive(Args, Debug)]
pub struct ExportArgs {
    /// The session, as `--session` takes it (`sonde export last --out s.jsonl`).
    #[arg(value_name = "SESSION", conflicts_with = "session")]
    pub which: Option<String>,
    /// `last` (the most recent), a session's name as `sonde sessions` lists it (`.jsonl` may
    /// be left off), or a path to a session file.
    #[arg(long, value_name = "NAME|PATH|last", default_value = "last")]
    pub session: String,
    /// jsonl: every entry, one JSON object a line. har: the HTTP exchanges as HAR 1.2, which
    /// browser developer tools and HAR viewers open (an event stream's events are the
    /// response's content). html: one self-contained report, readable offline in any browser.
    #[arg(
        long,
        value_name = "jsonl|har|html",
        default_value = "jsonl",
        value_parser = PossibleValuesParser::new(ExportFormat::ALL.map(ExportFormat::name))
            .map(|s| ExportFormat::parse(&s).expect("one of the names"))
    )]
    pub format: ExportFormat,
    /// Only the entries matching these terms, as `sonde log --filter` takes them; for har, the
    /// HTTP exchanges with an entry matching, each whole.
    #[arg(long, value_name = "EXPR")]
    pub filter: Option<String>,
    /// The file to write (created readable by you only).
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// Replace FILE if it exists; without it an existing file is left as it is.
    #[arg(long)]
    pub force: bool,
}

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
        ExportFormat::Jsonl => export_jsonl(&log, &filter, &secrets, out).map(|n| (n, "entry", "entries")),
        ExportFormat::Har => match export_har(&log, &filter, &secrets, out) {
            Ok(n) => Ok((n, "exchange", "exchanges")),
            Err(refused @ ExportError::NoHttp { .. }) => {
                errln!("sonde: {refused}");
                return USAGE;
            }
            Err(ExportError::Io(e)) => Err(e),
        },
        // HTML REPORT: to be filled in with
        //   sonde_core::report::export_html(&log, &filter, &secrets, out).map(|n| (n, "entry", "entries"))
        // Until then, the format is refused as not built yet; nothing is written.
        ExportFormat::Html => {
            errln!("sonde: --format html is not built yet; use jsonl or har");
            return USAGE;
        }
    };
    match written {
        Ok((n, one, many)) => {
            noteln!("sonde: wrote {n} {} to {}", if n == 1 { one } else { many }, out.display());
            OK
        }
        Err(e) => {
            errln!("sonde: cannot write {}: {e}", out.display());
            FAILED
        }
    }
}

/// The values every saved server keeps secret (environment values, secret headers, client
/// secrets). Without a servers file there are none; reading it never creates one.
fn saved_secrets() -> io::Result<Vec<String>> {
    let store = sonde_core::ServerStore::default_location()?;
    if !store.path().exists() {
        return Ok(Vec::new());
    }
    Ok(sonde_core::Servers::load(store, "")?.secrets())
}
