//! Standard output that a closed pipe ends quietly.
//!
//! Owns: writing the CLI's stdout. When the reader has gone (`sonde log | head -1`), later
//! writes are dropped instead of panicking, so the command finishes its work, the server's
//! shutdown ladder included and recorded, and exits as it would have.
//! Refuses: stderr (Sonde's own messages), which a closed stdout does not affect.

use std::fmt;
use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};

static CLOSED: AtomicBool = AtomicBool::new(false);

/// Writes one line on stdout, unless stdout has been closed by its reader.
pub fn line(args: fmt::Arguments) {
    if closed() {
        return;
    }
    let mut out = io::stdout().lock();
    let written = out.write_fmt(args).and_then(|()| out.write_all(b"\n")).and_then(|()| out.flush());
    match written {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => CLOSED.store(true, Ordering::Relaxed),
        // Any other failure (a full disk behind a redirect) is said once, and output stops.
        Err(e) => {
            eprintln!("sonde: cannot write to stdout: {e}");
            CLOSED.store(true, Ordering::Relaxed);
        }
    }
}

/// True once the reader of stdout has gone: a command printing many lines may stop early.
pub fn closed() -> bool {
    CLOSED.load(Ordering::Relaxed)
}

/// `println!` for the CLI's stdout, through [`line`].
macro_rules! outln {
    ($($arg:tt)*) => { $crate::out::line(format_args!($($arg)*)) };
}
