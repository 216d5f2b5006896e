//! The server's stdin, written from the connection loop itself.
//!
//! A frame goes out at once when the pipe has room, with no hand-off to another task (one
//! wake-up less per request); when the pipe is full the rest waits in a backlog that the loop
//! writes as the pipe drains. Closing waits for the backlog, so queued frames are not lost.

use std::collections::VecDeque;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

use tokio::io::{AsyncWrite, AsyncWriteExt};
use tokio::process::ChildStdin;

pub struct Stdin {
    pipe: Option<ChildStdin>,
    backlog: VecDeque<Vec<u8>>,
    /// Bytes of the backlog's first frame already written.
    written: usize,
    close_when_drained: bool,
}

impl Stdin {
    pub fn new(pipe: ChildStdin) -> Stdin {
        Stdin { pipe: Some(pipe), backlog: VecDeque::new(), written: 0, close_when_drained: false }
    }

    /// False once the pipe is closed or closing: nothing more may be sent.
    pub fn is_open(&self) -> bool {
        self.pipe.is_some() && !self.close_when_drained
    }

    pub fn has_backlog(&self) -> bool {
        self.pipe.is_some() && !self.backlog.is_empty()
    }

    /// Writes what the pipe takes now and keeps the rest for [`Stdin::drain`].
    pub fn send(&mut self, frame: Vec<u8>) -> io::Result<()> {
        if !self.backlog.is_empty() {
            self.backlog.push_back(frame);
            return Ok(());
        }
        let Some(pipe) = self.pipe.as_mut() else { return Ok(()) };
        let mut cx = Context::from_waker(Waker::noop());
        let mut done = 0;
        while done < frame.len() {
            // A pending write registers the no-op waker only; the loop's drain branch polls again
            // with its own waker before waiting.
            match Pin::new(&mut *pipe).poll_write(&mut cx, &frame[done..]) {
                Poll::Ready(Ok(0)) => return Err(io::ErrorKind::WriteZero.into()),
                Poll::Ready(Ok(n)) => done += n,
                Poll::Ready(Err(e)) => return Err(e),
                Poll::Pending => break,
            }
        }
        if done < frame.len() {
            self.written = done;
            self.backlog.push_back(frame);
        }
        Ok(())
    }

    /// Writes some of the backlog. Cancellation-safe: one `write` call either writes bytes,
    /// which are accounted for before it returns, or writes none.
    pub async fn drain(&mut self) -> io::Result<()> {
        let (Some(pipe), Some(front)) = (self.pipe.as_mut(), self.backlog.front()) else { return Ok(()) };
        let n = pipe.write(&front[self.written..]).await?;
        if n == 0 {
            return Err(io::ErrorKind::WriteZero.into());
        }
        self.written += n;
        if self.written == front.len() {
            self.backlog.pop_front();
            self.written = 0;
        }
        if self.backlog.is_empty() && self.close_when_drained {
            self.pipe = None;
        }
        Ok(())
    }

    /// Closes the pipe (the server reads EOF), after the backlog has been written.
    pub fn close(&mut self) {
        if self.backlog.is_empty() {
            self.pipe = None;
        } else {
            self.close_when_drained = true;
        }
    }

    /// Gives up on the pipe after a write error.
    pub fn abandon(&mut self) {
        self.pipe = None;
        self.backlog.clear();
    }
}
