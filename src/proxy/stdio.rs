//! The stdio proxy: the client's stdin goes to the server's stdin and the server's stdout to the
//! client's stdout, chunk by chunk as they are read (nothing waits for a line to end, nothing
//! waits for the log), and a recording thread of its own splits and records each line as it is
//! passed on (handed over before it is written, so the log keeps the order of both directions). The client closing its side is the polite request to exit: the server's stdin
//! closes and the ladder follows. The server ending its side ends the proxy, with its exit.
//!
//! Each direction is copied by a thread of its own blocked in `read` on its pipe, not by the
//! async runtime: a pipe's writer wakes a reader blocked on it directly, as a synchronous
//! hand-over the scheduler can keep on one core, where a wake-up through epoll is an
//! asynchronous one that sends the runtime to the other core. Measured on two cores, that hop
//! cost each request through the proxy about 90 µs.

use std::future::Future;
use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd};
use std::sync::Arc;

use tokio::sync::{mpsc, oneshot};

use super::Recorder;
use crate::log::{Direction, Entry, Kind, WireLog};
use crate::process::{self, ExitInfo, Graces, SpawnSpec, Spawned};
use crate::wire::FrameSplitter;

use super::PROXY_CONN;
const CHUNK: usize = 64 * 1024;
/// How many chunks the recorder may fall behind before the pass-through waits for it: a bound on
/// the proxy's memory (at most 64 KiB each), far past any burst a server sends.
const BACKLOG: usize = 4096;

/// How long the recorder lets chunks gather once one has woken it while they stream.
const COALESCE: std::time::Duration = std::time::Duration::from_millis(5);

/// What the recorder is handed, in the order it happened.
enum Passed {
    /// A chunk passed on: which way it went, and its bytes.
    Chunk(Direction, Vec<u8>),
    /// Answered once everything handed over before it is recorded: a lifecycle event recorded
    /// after that comes after the bytes that preceded it on the wire.
    Barrier(oneshot::Sender<()>),
}

/// Runs `spec` behind the `client`'s streams (the proxy's own stdin, stdout and stderr: the
/// server's stderr reaches the client as it wrote it) until the server has ended and its group
/// is gone, and everything passed on is recorded. `stop` resolving (a signal to the proxy) starts the shutdown ladder as the client
/// closing stdin would. Returns how the server ended.
pub async fn proxy_stdio(
    spec: &SpawnSpec,
    log: Arc<WireLog>,
    graces: Graces,
    max_line: usize,
    client: ClientStreams,
    stop: impl Future<Output = ()>,
) -> io::Result<Option<ExitInfo>> {
    let ClientStreams { stdin: client_in, stdout: client_out, stderr: client_err } = client;
    let Spawned { process, stdin, stdout } =
        process::spawn_passing_stderr(spec, log.clone(), PROXY_CONN, client_err)?;
    let (server_in, server_out) = (stdin.into_owned_fd()?, stdout.into_owned_fd()?);
    let (passed, chunks) = mpsc::channel::<Passed>(BACKLOG);
    // On a thread of its own, off the path every byte takes, and below it in priority: decoding
    // and writing the log never delays a chunk on its way, even when the cores are busy; it
    // catches up when they are not (BACKLOG bounds how far behind it may fall).
    let recorder = Recorder::new(log.clone(), PROXY_CONN, max_line);
    let (recorded, recording) = oneshot::channel::<()>();
    std::thread::Builder::new().name("sonde-proxy-recorder".into()).spawn(move || {
        // SAFETY: setpriority on this thread's own id changes nothing but its niceness.
        unsafe { libc::setpriority(libc::PRIO_PROCESS, libc::gettid() as libc::id_t, 19) };
        record(chunks, recorder, max_line);
        let _ = recorded.send(());
    })?;
    // What wakes the client's direction when the proxy is told to stop, or the server has gone.
    let (stop_read, stop_write) = pipe()?;
    let (client_gone, client_went) = oneshot::channel::<OwnedFd>();
    let recorded_so_far = {
        let passed = passed.clone();
        move || {
            let passed = passed.clone();
            async move {
                let (done, recorded) = oneshot::channel();
                if passed.send(Passed::Barrier(done)).await.is_ok() {
                    let _ = recorded.await;
                }
            }
        }
    };
    let copier = Copier { passed: passed.clone(), log: log.clone() };
    std::thread::Builder::new().name("sonde-proxy-in".into()).spawn(move || {
        let server_in = copier.copy(client_in, server_in, Some(stop_read), Direction::Out);
        let _ = client_gone.send(server_in);
    })?;
    let (server_gone, server_went) = oneshot::channel::<()>();
    let copier = Copier { passed, log: log.clone() };
    std::thread::Builder::new().name("sonde-proxy-out".into()).spawn(move || {
        drop(copier.copy(server_out, client_out, None, Direction::In));
        let _ = server_gone.send(());
    })?;
    let exit = {
        let to_server = async {
            // The client went (or the copy failed): step one of the ladder is closing the
            // server's stdin, which the client's direction hands back for it.
            if let Ok(server_in) = client_went.await {
                recorded_so_far().await;
                process.stdin_closing(graces);
                drop(server_in);
            }
        };
        let to_client = async {
            let _ = server_went.await;
        };
        // Recorded after what the server wrote last, on either path.
        let stdout_closed = || async {
            recorded_so_far().await;
            process.note_stdout_closed();
        };
        tokio::pin!(to_server, to_client, stop);
        let mut stopped = false;
        loop {
            tokio::select! {
                // The server closed its stdout: it is going by itself (or was killed).
                () = &mut to_client => {
                    stdout_closed().await;
                    // The server is going: its stdin is closed now, step one of the ladder
                    // taken as it is recorded, the client's direction told to let go of it.
                    wake(&stop_write);
                    (&mut to_server).await;
                    break;
                }
                // The client went (or the proxy was told to stop): the ladder runs while the
                // server's last words still reach the client.
                () = &mut to_server => {
                    // The shutdown waits for stdout's end to be recorded before the group's.
                    let closed = async {
                        (&mut to_client).await;
                        stdout_closed().await;
                    };
                    tokio::join!(process.shutdown(graces), closed);
                    break;
                }
                () = &mut stop, if !stopped => {
                    stopped = true;
                    wake(&stop_write);
                }
            }
        }
        let exit = process.shutdown(graces).await;
        // The client's direction ends too, if it has not, and with both directions the
        // senders: the recorder ends after the last chunk.
        wake(&stop_write);
        exit
    };
    drop(recorded_so_far);
    let _ = recording.await;
    Ok(exit)
}

/// Splits what was passed on into lines, each direction on its own, and records them in the
/// order the chunks were passed on.
fn record(mut chunks: mpsc::Receiver<Passed>, mut recorder: Recorder, max_line: usize) {
    let (mut from_client, mut from_server) = (FrameSplitter::new(max_line), FrameSplitter::new(max_line));
    let mut streaming = false;
    while let Some(first) = chunks.blocking_recv() {
        // While chunks come faster than they are recorded (a stream, a flood), the recorder
        // lets them gather before it records them all: its thread then wakes once per
        // COALESCE, not once per chunk, and the copy threads stop paying a futex wake for each
        // chunk they pass on (on two cores that was a fifth of the proxy's throughput). A
        // chunk after a pause (a request, its reply) is recorded at once.
        if streaming {
            std::thread::sleep(COALESCE);
        }
        let (mut next, mut handled) = (Some(first), 0);
        while let Some(passed) = next {
            match passed {
                Passed::Chunk(dir, bytes) => {
                    let splitter = if dir == Direction::Out { &mut from_client } else { &mut from_server };
                    for piece in splitter.push(&bytes) {
                        recorder.piece(piece, dir);
                    }
                    handled += 1;
                }
                Passed::Barrier(done) => {
                    let _ = done.send(());
                }
            }
            next = chunks.try_recv().ok();
        }
        streaming = handled > 1;
    }
    for (splitter, dir) in [(&mut from_client, Direction::Out), (&mut from_server, Direction::In)] {
        if let Some(piece) = splitter.finish() {
            recorder.piece(piece, dir);
        }
    }
}

/// One direction's copy: what it hands the recorder, and the log its troubles are noted in.
struct Copier {
    passed: mpsc::Sender<Passed>,
    log: Arc<WireLog>,
}

impl Copier {
    /// Copies `from` to `to` as the bytes come, handing each chunk to the recorder, until
    /// `from` ends (or fails) or `stop` becomes readable. Returns `to`, for its owner to close.
    /// A reader that went gets nothing more; `from` is still read and recorded to its end, so
    /// the writer never blocks on a full pipe.
    fn copy(self, from: OwnedFd, to: OwnedFd, stop: Option<OwnedFd>, dir: Direction) -> OwnedFd {
        let mut buf = vec![0u8; CHUNK];
        let mut open = true;
        match &stop {
            // Nothing but the data to wait for: a plain blocking read, one system call a chunk.
            None => set_blocking(from.as_fd(), true),
            // A write to a server that reads nothing must still hear the stop: it waits in
            // poll, beside the stop, never blocked in the kernel.
            Some(_) => set_blocking(to.as_fd(), false),
        }
        loop {
            if let Some(stop) = &stop {
                if !readable(from.as_fd(), stop.as_fd()) {
                    break;
                }
            }
            // SAFETY: reads into a buffer this function owns, at most its length.
            let n = unsafe { libc::read(from.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
            let n = match n {
                0 => break,
                n if n > 0 => n as usize,
                _ => match io::Error::last_os_error().kind() {
                    io::ErrorKind::Interrupted | io::ErrorKind::WouldBlock => continue,
                    _ => break,
                },
            };
            // Handed to the recorder before it is written: a reply the other direction reads
            // once this chunk has reached the server is handed over after it, so the log never
            // has a reply before its request. The recorder is woken, not waited for.
            let _ = self.passed.blocking_send(Passed::Chunk(dir, buf[..n].to_vec()));
            if open {
                match write_all(to.as_fd(), &buf[..n], stop.as_ref().map(|s| s.as_fd())) {
                    Ok(true) => {}
                    // Told to stop while the server would not take more.
                    Ok(false) => break,
                    Err(e) => {
                        let (whose, side) = match dir {
                            Direction::Out => ("the server's stdin", "client"),
                            _ => ("the client", "server"),
                        };
                        note(&self.log, format!("could not write to {whose}: {e}; the {side}'s later bytes are recorded, not delivered"));
                        open = false;
                    }
                }
            }
        }
        to
    }
}

/// Clears `O_NONBLOCK` (a read or write then waits in the kernel) or sets it.
fn set_blocking(fd: BorrowedFd, blocking: bool) {
    // SAFETY: reads and sets the status flags of a descriptor the caller lends; no memory.
    unsafe {
        let flags = libc::fcntl(fd.as_raw_fd(), libc::F_GETFL);
        if flags >= 0 {
            let flags = if blocking { flags & !libc::O_NONBLOCK } else { flags | libc::O_NONBLOCK };
            libc::fcntl(fd.as_raw_fd(), libc::F_SETFL, flags);
        }
    }
}

/// Waits until `fd` can be read (or has ended); false when `stop` became readable first.
fn readable(fd: BorrowedFd, stop: BorrowedFd) -> bool {
    let mut fds = [
        libc::pollfd { fd: fd.as_raw_fd(), events: libc::POLLIN, revents: 0 },
        libc::pollfd { fd: stop.as_raw_fd(), events: libc::POLLIN, revents: 0 },
    ];
    loop {
        // SAFETY: polls two pollfd structures this function owns.
        let ready = unsafe { libc::poll(fds.as_mut_ptr(), 2, -1) };
        if ready < 0 {
            if io::Error::last_os_error().kind() == io::ErrorKind::Interrupted {
                continue;
            }
            // The read that follows says what is wrong.
            return true;
        }
        if fds[1].revents != 0 {
            return false;
        }
        if fds[0].revents != 0 {
            return true;
        }
    }
}

/// Writes all of `bytes`, waiting for room when the descriptor is non-blocking and full, or
/// until `stop` becomes readable: false then.
fn write_all(fd: BorrowedFd, mut bytes: &[u8], stop: Option<BorrowedFd>) -> io::Result<bool> {
    while !bytes.is_empty() {
        // SAFETY: writes from a slice the caller lends, at most its length.
        let n = unsafe { libc::write(fd.as_raw_fd(), bytes.as_ptr().cast(), bytes.len()) };
        if n >= 0 {
            bytes = &bytes[n as usize..];
            continue;
        }
        let e = io::Error::last_os_error();
        match e.kind() {
            io::ErrorKind::Interrupted => {}
            io::ErrorKind::WouldBlock => {
                let mut fds = [
                    libc::pollfd { fd: fd.as_raw_fd(), events: libc::POLLOUT, revents: 0 },
                    // A negative descriptor is one poll passes over.
                    libc::pollfd { fd: stop.map_or(-1, |s| s.as_raw_fd()), events: libc::POLLIN, revents: 0 },
                ];
                // SAFETY: polls two pollfd structures this function owns.
                unsafe { libc::poll(fds.as_mut_ptr(), 2, -1) };
                if fds[1].revents != 0 {
                    return Ok(false);
                }
            }
            _ => return Err(e),
        }
    }
    Ok(true)
}

/// A pipe: its read end, then its write end.
fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0; 2];
    // SAFETY: pipe2 fills the two descriptors of this array, which are then owned here alone.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(io::Error::last_os_error());
    }
    use std::os::fd::FromRawFd;
    // SAFETY: both were just opened, and nothing else owns them.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// Makes the read end of a pipe readable: what `readable` waits on as its stop.
fn wake(stop: &OwnedFd) {
    // A full pipe is readable already; a write that fails changes nothing.
    let _ = write_all(stop.as_fd(), b"x", None);
}

fn note(log: &WireLog, detail: String) {
    log.append(Entry::new(PROXY_CONN, Kind::Note, Direction::Meta).with_detail(detail));
}

/// The proxy's own stdin, stdout and stderr, as the client gave them (pipes, a terminal or a
/// file).
pub struct ClientStreams {
    pub stdin: OwnedFd,
    pub stdout: OwnedFd,
    pub stderr: std::fs::File,
}

impl ClientStreams {
    pub fn of_this_process() -> io::Result<ClientStreams> {
        Ok(ClientStreams {
            stdin: io::stdin().as_fd().try_clone_to_owned()?,
            stdout: io::stdout().as_fd().try_clone_to_owned()?,
            stderr: io::stderr().as_fd().try_clone_to_owned()?.into(),
        })
    }
}
