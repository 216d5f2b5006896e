//! A pseudo-terminal for a server's stderr, so servers keep their colours and line buffering;
//! or, under the proxy, the same kind of stream the client gave (a pipe for a pipe).
//!
//! Owns: opening the pty (portable-pty) or the pipe, handing its writing end to the child as
//! stderr only, and a reader thread that records every chunk in the wire log (and passes it on
//! to the proxy's client). stdin and stdout stay plain pipes:
//! portable-pty's own spawn would tie all three streams to the terminal.
//! Refuses: interpreting what the server writes there; stderr is not an error channel.

use std::fs::{File, OpenOptions};
use std::io::{self, Read};
use std::os::unix::fs::OpenOptionsExt;
use std::process::Stdio;
use std::sync::Arc;

use portable_pty::{MasterPty, PtySize};
use tokio::sync::oneshot;

use crate::log::{Direction, Entry, Kind, WireLog};

/// Where a server's stderr is read from: a terminal of Sonde's, or a plain pipe (under the
/// proxy, where the client gave its own stderr as a pipe).
pub enum Capture {
    Pty(StderrPty),
    Pipe { reader: Option<File>, writer: Option<File> },
}

impl Capture {
    /// A plain pipe, both ends closed on exec but the one handed to the child.
    pub fn pipe() -> io::Result<Capture> {
        let mut fds = [0; 2];
        // SAFETY: pipe2 fills both descriptors, which are then owned by the Files below.
        if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
            return Err(io::Error::last_os_error());
        }
        use std::os::fd::FromRawFd;
        // SAFETY: both descriptors were just opened and are owned by nothing else.
        let (reader, writer) = unsafe { (File::from_raw_fd(fds[0]), File::from_raw_fd(fds[1])) };
        Ok(Capture::Pipe { reader: Some(reader), writer: Some(writer) })
    }

    /// The end the child writes to, as its stderr. Call once, before spawning.
    pub fn child_stderr(&mut self) -> io::Result<Stdio> {
        match self {
            Capture::Pty(pty) => pty.child_stderr(),
            Capture::Pipe { writer, .. } => {
                let writer =
                    writer.take().ok_or_else(|| io::Error::other("the pipe was already handed out"))?;
                Ok(Stdio::from(writer))
            }
        }
    }

    /// Starts the thread that records each chunk the server writes, and writes it to `tee` as
    /// it came when there is one (the proxy's client's stderr), until every writer has closed
    /// its end. The receiver completes once the last chunk is recorded.
    pub fn record_into(
        &mut self,
        log: Arc<WireLog>,
        conn: u64,
        tee: Option<File>,
    ) -> io::Result<oneshot::Receiver<()>> {
        let reader: Box<dyn Read + Send> = match self {
            Capture::Pty(pty) => {
                pty.master.try_clone_reader().map_err(|e| io::Error::other(e.to_string()))?
            }
            Capture::Pipe { reader, .. } => {
                Box::new(reader.take().ok_or_else(|| io::Error::other("the pipe is already read"))?)
            }
        };
        record(reader, log, conn, tee)
    }
}

/// The master side of a server's stderr terminal, kept for resizing.
pub struct StderrPty {
    master: Box<dyn MasterPty + Send>,
    slave: Option<File>,
}

impl StderrPty {
    pub fn open() -> io::Result<StderrPty> {
        let pair = portable_pty::native_pty_system()
            .openpty(PtySize { rows: 24, cols: 120, pixel_width: 0, pixel_height: 0 })
            .map_err(|e| io::Error::other(e.to_string()))?;
        let name = pair.master.tty_name().ok_or_else(|| io::Error::other("the pty has no name"))?;
        // O_NOCTTY: the terminal is only where stderr goes, never the server's controlling tty,
        // so closing it cannot send SIGHUP to the group.
        let slave = OpenOptions::new().read(true).write(true).custom_flags(libc::O_NOCTTY).open(name)?;
        drop(pair.slave);
        Ok(StderrPty { master: pair.master, slave: Some(slave) })
    }

    /// The slave end as the child's stderr. Call once, before spawning.
    pub fn child_stderr(&mut self) -> io::Result<Stdio> {
        let slave =
            self.slave.take().ok_or_else(|| io::Error::other("the pty slave was already handed out"))?;
        Ok(Stdio::from(slave))
    }
}

/// Reads `reader` on a thread of its own until its writers have all closed it, recording each
/// chunk and passing it on to `tee` unchanged.
fn record(
    mut reader: Box<dyn Read + Send>,
    log: Arc<WireLog>,
    conn: u64,
    mut tee: Option<File>,
) -> io::Result<oneshot::Receiver<()>> {
    use std::io::Write;
    let (drained, done) = oneshot::channel();
    std::thread::Builder::new().name(format!("stderr-{conn}")).spawn(move || {
        // Dropped (or sent) when the loop ends, whichever way it ends.
        let _drained = drained;
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            match reader.read(&mut buf) {
                Ok(0) => return,
                Ok(n) => {
                    // Passed on first, as the client would have had it without Sonde; a client
                    // that closed its stderr stops getting it, and the log still does.
                    if tee.as_mut().is_some_and(|t| t.write_all(&buf[..n]).is_err()) {
                        tee = None;
                    }
                    log.append(Entry::new(conn, Kind::Stderr, Direction::In).with_bytes(&buf[..n]));
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                // EIO is how a pty says the last slave holder closed it.
                Err(_) => return,
            }
        }
    })?;
    Ok(done)
}
