//! `sonde log`: print a recorded session, whole or filtered.

use std::path::PathBuf;

use sonde_core::log::{last_session, sessions_dir, Filter, WireLog};

use crate::args::LogArgs;
use crate::exit::{FAILED, OK, USAGE};
use crate::print;

pub fn run(args: &LogArgs) -> i32 {
    let filter = match args.filter.as_deref().map(Filter::parse).transpose() {
        Ok(f) => f.unwrap_or_default(),
        Err(e) => {
            eprintln!("sonde: bad --filter: {e}");
            return USAGE;
        }
    };
    let path = if args.session == "last" {
        match sessions_dir().and_then(|d| last_session(&d)) {
            Ok(p) => p,
            Err(e) => {
                eprintln!("sonde: {e}");
                return FAILED;
            }
        }
    } else {
        PathBuf::from(&args.session)
    };
    let log = match WireLog::open(&path) {
        Ok(log) => log,
        Err(e) => {
            eprintln!("sonde: cannot read {}: {e}", path.display());
            return FAILED;
        }
    };
    eprintln!("sonde: session log {}", path.display());
    // Page by page, so a huge session is never held whole.
    let mut from = 0;
    loop {
        let page = match log.page(from, u64::MAX, &filter, 1000) {
            Ok(p) => p,
            Err(e) => {
                eprintln!("sonde: reading {}: {e}", path.display());
                return FAILED;
            }
        };
        for e in &page.entries {
            if args.json {
                outln!("{}", serde_json::to_string(e).expect("serializes"));
            } else {
                outln!("{}", print::entry(e));
            }
        }
        match page.next {
            // The reader has gone (`| head`): nothing more to print.
            Some(_) if crate::out::closed() => return OK,
            Some(next) => from = next,
            None => return OK,
        }
    }
}
