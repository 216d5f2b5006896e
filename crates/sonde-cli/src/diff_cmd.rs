//! `sonde snapshot` and `sonde diff`: a server's interface kept as a file, and what changed
//! between two (or between a file and the server running now), one line a change grouped by
//! verdict, or `{"changes":[…]}` with `--json`. Exit 5 when something breaks (contracts).
//!
//! Owns: reading a side, the words and the exit code, and the refusal to replace a snapshot
//! file without `--force` (worded as `export`'s). Refuses: taking and comparing snapshots, and
//! judging eras (`sonde_core::interface`).

use std::path::Path;

use serde_json::json;
use sonde_core::{diff, eras_chosen, Baselines, Change, ChangeSeverity, Snapshot, Target};

use crate::exit::{FAILED, FOUND, OK, USAGE};

/// A side of a comparison: a snapshot file, or a session (a file, a name in the sessions
/// folder, or `last`) standing in for one with the interface as it listed it; anything else
/// is a usage error naming what it is.
pub fn read_side(side: &str) -> Result<Snapshot, String> {
    let path = Path::new(side);
    let path = if path.is_file() {
        path.to_owned()
    } else {
        crate::log_cmd::find(side).map_err(|e| format!("{e}; a snapshot file or a session was expected"))?
    };
    Snapshot::from_file(&path).map_err(|why| format!("{side} is {why}"))
}

/// `sonde diff OLD NEW` of two files.
pub fn offline(old: &str, new: &str, json: bool) -> i32 {
    match (read_side(old), read_side(new)) {
        (Ok(old), Ok(new)) => compared(&old, &new, json),
        (Err(e), _) | (_, Err(e)) => {
            errln!("sonde: {e}");
            if json {
                crate::print::json_error(sonde_core::ErrorCode::BadInput, USAGE, &e);
            }
            USAGE
        }
    }
}

/// What changed from `old` to `new`, printed; 5 when something breaks a client.
pub fn compared(old: &Snapshot, new: &Snapshot, json: bool) -> i32 {
    print(&diff(old, new), eras_chosen(old, new), json)
}

/// `sonde diff --baseline`: `now` compared with the server's baseline, printed as any diff (5
/// when something breaks); the first time, or with `accept`, `now` becomes the baseline (and
/// with `accept` the run exits 0: the change is the author's).
pub fn against_baseline(target: &Target, now: &Snapshot, accept: bool, json: bool) -> i32 {
    let checked = Baselines::default_location().and_then(|baselines| baselines.check(target, now, accept));
    let check = match checked {
        Ok(check) => check,
        Err(e) => return cannot(&format!("cannot read or keep the baseline: {e}"), json),
    };
    let code = match &check.kept_at {
        Some(kept_at) => {
            noteln!("sonde diff: against the baseline kept {kept_at}");
            print(&check.changes, None, json)
        }
        None => {
            noteln!("sonde diff: this server had no baseline; its interface now is kept as one");
            OK
        }
    };
    if check.kept_at.is_some() && check.kept_now {
        noteln!("sonde diff: accepted; its interface now is the baseline");
        return OK;
    }
    code
}

/// A baseline that cannot be read or kept: said, and exit 1.
fn cannot(words: &str, json: bool) -> i32 {
    errln!("sonde: {words}");
    if json {
        crate::print::json_error(sonde_core::ErrorCode::Io, FAILED, words);
    }
    FAILED
}

/// Prints the changes, and when the sides were listed in eras the client chose, which; then
/// says the tally. 5 when a change breaks a client.
fn print(changes: &[Change], eras: Option<String>, json: bool) -> i32 {
    if let Some(eras) = &eras {
        noteln!("sonde diff: {eras}");
    }
    if json {
        let mut out = json!({ "changes": changes });
        if let Some(eras) = eras {
            out["erasChosen"] = json!(eras);
        }
        outln!("{out}");
    } else {
        for c in changes {
            outln!("{:<9} {}: {}", c.severity.name(), c.path, c.detail);
        }
    }
    let count = |s: ChangeSeverity| changes.iter().filter(|c| c.severity == s).count();
    let additions = match count(ChangeSeverity::Addition) {
        1 => "1 addition".to_owned(),
        n => format!("{n} additions"),
    };
    let changed = match count(ChangeSeverity::Change) {
        1 => "1 change".to_owned(),
        n => format!("{n} changes"),
    };
    noteln!("sonde diff: {} breaking, {changed}, {additions}", count(ChangeSeverity::Breaking));
    if count(ChangeSeverity::Breaking) > 0 {
        FOUND
    } else {
        OK
    }
}

/// Whether the snapshot may be written to `out`: not over a file that exists (a broken symlink
/// too: writing through it would create a file somewhere else) unless `force`, and never to a
/// directory. Checked before the server is started; the words are `export`'s.
pub fn may_write(out: &Path, force: bool) -> Result<(), String> {
    if out.is_dir() {
        return Err(format!("{} is a directory; give --out the file to write", out.display()));
    }
    if !force && out.symlink_metadata().is_ok() {
        return Err(format!("{} exists; give --force to replace it", out.display()));
    }
    Ok(())
}

/// The snapshot written to `out`, or printed.
pub fn write(snapshot: &Snapshot, out: Option<&Path>) -> std::io::Result<()> {
    let text = snapshot.to_text();
    match out {
        Some(path) => {
            std::fs::write(path, text)?;
            let counted = |one: &str, items: &Option<Vec<serde_json::Value>>| {
                items.as_ref().map(|i| match i.len() {
                    1 => format!("1 {one}"),
                    n => format!("{n} {one}s"),
                })
            };
            let what: Vec<String> = [
                counted("tool", &snapshot.tools),
                counted("prompt", &snapshot.prompts),
                counted("resource", &snapshot.resources),
                counted("resource template", &snapshot.resource_templates),
            ]
            .into_iter()
            .flatten()
            .collect();
            noteln!("sonde: wrote the snapshot ({}) to {}", what.join(", "), path.display());
        }
        None => {
            // The document as it is, on one stream: stdout.
            use std::io::Write;
            let mut stdout = std::io::stdout().lock();
            stdout.write_all(text.as_bytes())?;
        }
    }
    Ok(())
}
