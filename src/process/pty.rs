//! A pseudo-terminal for a server's stderr, so servers keep their colours and line buffering.
//!
//! Owns: opening the pty (portable-pty), handing its slave to the child as stderr only, and a
//! reader thread that records every chunk in the wire log. stdin and stdout stay plain pipes:
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

    /// Starts a thread that records each chunk read from the terminal until every holder of the
    /// slave (the server and its children) has closed it. The receiver completes when the
    /// thread has recorded the last chunk, so a shutdown can wait for the server's last words.
    pub fn record_into(&self, log: Arc<WireLog>, conn: u64) -> io::Result<oneshot::Receiver<()>> {
        let mut reader = self.master.try_clone_reader().map_err(|e| io::Error::other(e.to_string()))?;
        let (drained, done) = oneshot::channel();
        std::thread::Builder::new().name(format!("stderr-{conn}")).spawn(move || {
            // Dropped (or sent) when the loop ends, whichever way it ends.
            let _drained = drained;
            let mut buf = vec![0u8; 64 * 1024];
            loop {
                match reader.read(&mut buf) {
                    Ok(0) => return,
                    Ok(n) => {
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

    /// Tells the server its terminal changed size.
    pub fn resize(&self, rows: u16, cols: u16) -> io::Result<()> {
        self.master
            .resize(PtySize { rows, cols, pixel_width: 0, pixel_height: 0 })
            .map_err(|e| io::Error::other(e.to_string()))
    }
}
