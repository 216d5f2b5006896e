//! What the CLI prints: standard output that a closed pipe ends quietly, and both streams made
//! safe for a terminal.
//!
//! Owns: writing the CLI's stdout and stderr. Everything printed passes through
//! `sonde_core::terminal_safe`, since nearly all of it carries what a server sent (tool
//! and resource text, descriptions, instructions, progress messages, errors, its stderr): a
//! control character or a bidi override is printed as its `\uXXXX` escape. When the reader of
//! stdout has gone (`sonde log | head -1`), later writes are dropped instead of panicking, so
//! the command finishes its work, the server's shutdown ladder included and recorded, and exits
//! as it would have. Refuses: colour of its own (nothing here needs ESC).

use std::fmt;
use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};

static CLOSED: AtomicBool = AtomicBool::new(false);
/// `--quiet`: Sonde's own notes are not said (see [`note`]).
static QUIET: AtomicBool = AtomicBool::new(false);

/// Keeps Sonde's notes to itself from now on (`--quiet`, for scripts).
pub fn set_quiet() {
    QUIET.store(true, Ordering::Relaxed);
}

/// A note on stderr about how the run goes (the session log's path, progress, counts, waits, a
/// clean exit, a verdict that found nothing wrong), said unless `--quiet`. Errors, warnings and
/// the server's own words are said with [`err_line`] whatever the flag.
pub fn note(args: fmt::Arguments) {
    if !QUIET.load(Ordering::Relaxed) {
        err_line(args);
    }
}
/// True while a status line ([`status`]) is open on a terminal: the next line starts below it.
static STATUS_OPEN: AtomicBool = AtomicBool::new(false);

/// Ends an open status line, so what follows starts on a line of its own.
fn close_status() {
    if STATUS_OPEN.swap(false, Ordering::Relaxed) {
        let _ = io::stderr().lock().write_all(b"\n");
    }
}

/// A line of progress on stderr that the next one replaces: at a terminal it is rewritten in
/// place (`\r`), elsewhere (a log file, CI) each is a line of its own, as a log wants them.
pub fn status(args: fmt::Arguments) {
    use std::io::IsTerminal;
    if QUIET.load(Ordering::Relaxed) {
        return;
    }
    if !io::stderr().is_terminal() {
        return err_line(args);
    }
    let text = args.to_string();
    let mut err = io::stderr().lock();
    let _ = err
        .write_all(format!("\r{}", sonde_core::terminal_safe(&text)).as_bytes())
        .and_then(|()| err.flush());
    STATUS_OPEN.store(true, Ordering::Relaxed);
}

/// Writes one line on stdout, unless stdout has been closed by its reader.
pub fn line(args: fmt::Arguments) {
    if closed() {
        return;
    }
    close_status();
    let text = args.to_string();
    let mut out = io::stdout().lock();
    let written = out
        .write_all(sonde_core::terminal_safe(&text).as_bytes())
        .and_then(|()| out.write_all(b"\n"))
        .and_then(|()| out.flush());
    match written {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => CLOSED.store(true, Ordering::Relaxed),
        // Any other failure (a full disk behind a redirect) is said once, and output stops.
        Err(e) => {
            err_line(format_args!("sonde: cannot write to stdout: {e}"));
            CLOSED.store(true, Ordering::Relaxed);
        }
    }
}

/// Writes one line on stderr, made safe for a terminal.
pub fn err_line(args: fmt::Arguments) {
    close_status();
    let text = args.to_string();
    let mut err = io::stderr().lock();
    let _ = err.write_all(sonde_core::terminal_safe(&text).as_bytes()).and_then(|()| err.write_all(b"\n"));
}

/// True once the reader of stdout has gone: a command printing many lines may stop early.
pub fn closed() -> bool {
    CLOSED.load(Ordering::Relaxed)
}

/// `println!` for the CLI's stdout, through [`line`].
macro_rules! outln {
    ($($arg:tt)*) => { $crate::out::line(format_args!($($arg)*)) };
}

/// A note for stderr, through [`note`]: silent with `--quiet`.
macro_rules! noteln {
    ($($arg:tt)*) => { $crate::out::note(format_args!($($arg)*)) };
}

/// `eprintln!` for the CLI's stderr, through [`err_line`].
macro_rules! errln {
    ($($arg:tt)*) => { $crate::out::err_line(format_args!($($arg)*)) };
}
