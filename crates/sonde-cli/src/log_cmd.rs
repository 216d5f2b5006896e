//! `sonde log`: print a recorded session, whole or filtered, saying once on stderr when it is
//! incomplete and why. `sonde sessions`: list them, each incomplete one marked with why.

use std::path::PathBuf;

use sonde_core::{
    count_entries, last_session, list_sessions, pin_session, session_named, sessions_dir, Filter, Incomplete,
    WireLog,
};

use crate::args::LogArgs;
use crate::exit::{FAILED, OK, USAGE};
use crate::print;

pub fn run(args: &LogArgs) -> i32 {
    let filter = match args.filter.as_deref().map(Filter::parse_whole).transpose() {
        Ok(f) => f.unwrap_or_default(),
        Err(e) => {
            errln!("sonde: bad --filter: {e}");
            return USAGE;
        }
    };
    let path = match find(args.which.as_deref().unwrap_or(&args.session)) {
        Ok(path) => path,
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
    // Another kind of file (a typo'd path, `sonde log /etc/passwd`) is said as such, not
    // printed as an empty session.
    if !log.is_a_session() {
        errln!("sonde: {} is not a Sonde session: none of its lines is a session entry", path.display());
        return USAGE;
    }
    let incomplete = log.incomplete();
    noteln!("sonde: session log {}", path.display());
    if !incomplete.is_empty() {
        errln!("sonde: this session is incomplete: {}", Incomplete::words(&incomplete));
    }
    // Page by page, so a huge session is never held whole.
    let mut from = 0;
    let mut printed = 0usize;
    loop {
        let page = match log.page(from, u64::MAX, &filter, 1000) {
            Ok(p) => p,
            Err(e) => {
                errln!("sonde: reading {}: {e}", path.display());
                return FAILED;
            }
        };
        printed += page.entries.len();
        for e in &page.entries {
            if args.json {
                outln!("{}", serde_json::to_string(e).expect("serializes"));
            } else {
                outln!("{}", print::entry(e, args.full));
            }
        }
        match page.next {
            // The reader has gone (`| head`): nothing more to print.
            Some(_) if crate::out::closed() => return OK,
            Some(next) => from = next,
            None => {
                if printed == 0 && args.filter.is_some() {
                    errln!("sonde: no entry of {} entries matches the filter", log.len());
                }
                return OK;
            }
        }
    }
}

/// The session file `session` names: `last`, a file name in the sessions directory (with or
/// without `.jsonl`), the name given with `sonde proxy --name` (the newest session of that
/// name), or a path.
pub fn find(session: &str) -> std::io::Result<PathBuf> {
    let dir = sessions_dir()?;
    if session == "last" {
        return last_session(&dir);
    }
    let named = [dir.join(session), dir.join(format!("{session}.jsonl"))];
    if let Some(found) = named.into_iter().find(|p| p.is_file()) {
        return Ok(found);
    }
    if let Some(found) = session_named(&dir, session)? {
        return Ok(found);
    }
    let path = PathBuf::from(session);
    if path.is_file() {
        return Ok(path);
    }
    Err(std::io::Error::new(
        std::io::ErrorKind::NotFound,
        format!(
            "no session {session:?}: not a file name in {}, nor a name given with `sonde proxy --name` (see \
             sonde sessions), nor a file",
            dir.display()
        ),
    ))
}

/// `sonde sessions --pin NAME` (or `--unpin`): a pinned session is never pruned.
pub fn pin(session: &str, pinned: bool) -> i32 {
    let found = find(session).and_then(|path| {
        let dir = path.parent().map(std::path::Path::to_path_buf).unwrap_or_default();
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        pin_session(&dir, &name, pinned).map(|()| name)
    });
    match found {
        Ok(name) if pinned => {
            errln!("sonde: pinned {name}: it is kept whatever the sessions budget");
            OK
        }
        Ok(name) => {
            errln!("sonde: unpinned {name}: it goes when it is among the oldest beyond the sessions budget");
            OK
        }
        Err(e) => {
            errln!("sonde: {e}");
            USAGE
        }
    }
}

/// `sonde sessions`: every recorded session, newest first.
pub fn list(json: bool) -> i32 {
    let listed = sessions_dir().and_then(|dir| Ok((list_sessions(&dir)?, dir)));
    let (sessions, dir) = match listed {
        Ok(found) => found,
        Err(e) => {
            errln!("sonde: {e}");
            return FAILED;
        }
    };
    for s in &sessions {
        if json {
            print::json_line(&serde_json::to_value(s).expect("serializes"));
        } else {
            let writing = if s.writing { "  (being written)" } else { "" };
            let pinned = if s.pinned { "  (pinned)" } else { "" };
            let incomplete =
                s.why_incomplete.as_ref().map_or(String::new(), |why| format!("  (incomplete: {why})"));
            let program = match (&s.client, s.program.as_deref()) {
                (Some(client), _) => format!("proxy for {client}"),
                (None, program) => program.unwrap_or("?").to_owned(),
            };
            // The name the person gave comes first: it is what they look for, and what
            // `--session` takes.
            let program = match &s.given_name {
                Some(name) => format!("{name:?} {program}"),
                None => program,
            };
            let entries =
                count_entries(&dir.join(&s.name)).map_or_else(|_| "?".to_owned(), |n| n.to_string());
            outln!(
                "{}  {:>9}  {entries:>7} entries  {program:<13} {}{writing}{pinned}{incomplete}",
                s.name,
                sonde_core::size_words(s.size),
                crate::print::servers(s)
            );
        }
    }
    if sessions.is_empty() {
        errln!("sonde: no sessions recorded yet; they go in {}", dir.display());
    } else {
        let noun = if sessions.len() == 1 { "session" } else { "sessions" };
        errln!("sonde: {} {noun} in {}", sessions.len(), dir.display());
    }
    OK
}
