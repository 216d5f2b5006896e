//! The stdio proxy: the client's stdin goes to the server's stdin and the server's stdout to the
//! client's stdout, chunk by chunk as they are read (nothing waits for a line to end, nothing
//! waits for the log), and a recording task of its own splits and records each line after it was
//! passed on. The client closing its side is the polite request to exit: the server's stdin
//! closes and the ladder follows. The server ending its side ends the proxy, with its exit.

use std::future::Future;
use std::io;
use std::sync::Arc;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;

use super::Recorder;
use crate::log::{Direction, Entry, Kind, WireLog};
use crate::process::{self, ExitInfo, Graces, Process, SpawnSpec, Spawned};
use crate::wire::FrameSplitter;

/// The connection number a proxy's frames are recorded under.
pub const CONN: u64 = 1;
const CHUNK: usize = 64 * 1024;
/// How many chunks the recorder may fall behind before the pass-through waits for it: a bound on
/// the proxy's memory (at most 64 KiB each), far past any burst a server sends.
const BACKLOG: usize = 4096;

/// A chunk passed on, for the recorder: which way it went, and its bytes.
type Passed = (Direction, Vec<u8>);

/// Runs `spec` behind the client's `client_in` and `client_out` until the server has ended and
/// its group is gone, and everything passed on is recorded. `stop` resolving (a signal to the
/// proxy) starts the shutdown ladder as the client closing stdin would. Returns how the server
/// ended.
pub async fn run(
    spec: &SpawnSpec,
    log: Arc<WireLog>,
    graces: Graces,
    max_line: usize,
    client_in: impl AsyncRead + Unpin,
    client_out: impl AsyncWrite + Unpin,
    stop: impl Future<Output = ()>,
) -> io::Result<Option<ExitInfo>> {
    let Spawned { process, stdin, stdout } = process::spawn(spec, log.clone(), CONN, None)?;
    let (passed, chunks) = mpsc::channel::<Passed>(BACKLOG);
    // On a thread of its own, off the path every byte takes, and below it in priority: decoding
    // and writing the log never delays a chunk on its way, even when the cores are busy; it
    // catches up when they are not (BACKLOG bounds how far behind it may fall).
    let recorder = Recorder::new(log.clone(), CONN, max_line);
    let (recorded, recording) = tokio::sync::oneshot::channel::<()>();
    std::thread::Builder::new().name("sonde-proxy-recorder".into()).spawn(move || {
        // SAFETY: setpriority on this thread's own id changes nothing but its niceness.
        unsafe { libc::setpriority(libc::PRIO_PROCESS, libc::gettid() as libc::id_t, 19) };
        record(chunks, recorder, max_line);
        let _ = recorded.send(());
    })?;
    let exit = {
        let to_server = client_to_server(client_in, stdin, &process, graces, passed.clone(), &log, stop);
        let to_client = server_to_client(stdout, client_out, passed, &log);
        tokio::pin!(to_server, to_client);
        tokio::select! {
            // The server closed its stdout: it is going by itself (or was killed).
            () = &mut to_client => process.note_stdout_closed(),
            // The client went (or the proxy was told to stop): the ladder runs while the
            // server's last words still reach the client.
            () = &mut to_server => {
                let (_, ()) = tokio::join!(process.shutdown(graces), &mut to_client);
            }
        }
        process.shutdown(graces).await
        // Both directions end here, and with them the senders: the recorder ends after the
        // last chunk.
    };
    let _ = recording.await;
    Ok(exit)
}

/// Splits what was passed on into lines, each direction on its own, and records them in the
/// order the chunks were passed on.
fn record(mut chunks: mpsc::Receiver<Passed>, mut recorder: Recorder, max_line: usize) {
    let (mut from_client, mut from_server) = (FrameSplitter::new(max_line), FrameSplitter::new(max_line));
    while let Some((dir, bytes)) = chunks.blocking_recv() {
        let splitter = if dir == Direction::Out { &mut from_client } else { &mut from_server };
        for piece in splitter.push(&bytes) {
            recorder.piece(piece, dir);
        }
    }
    for (splitter, dir) in [(&mut from_client, Direction::Out), (&mut from_server, Direction::In)] {
        if let Some(piece) = splitter.finish() {
            recorder.piece(piece, dir);
        }
    }
}

/// Copies the client's bytes to the server as they come, hands them to the recorder, and when
/// the client closes its side (or `stop` resolves) closes the server's stdin: step one of the
/// ladder.
async fn client_to_server(
    mut client_in: impl AsyncRead + Unpin,
    stdin: tokio::process::ChildStdin,
    process: &Process,
    graces: Graces,
    passed: mpsc::Sender<Passed>,
    log: &WireLog,
    stop: impl Future<Output = ()>,
) {
    let mut stdin = Some(stdin);
    let mut buf = vec![0u8; CHUNK];
    tokio::pin!(stop);
    loop {
        let n = tokio::select! {
            read = client_in.read(&mut buf) => match read {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            },
            () = &mut stop => break,
        };
        if let Some(pipe) = stdin.as_mut() {
            if let Err(e) = pipe.write_all(&buf[..n]).await {
                note(log, format!("could not write to the server's stdin: {e}; the client's later bytes are recorded, not delivered"));
                stdin = None;
            }
        }
        let _ = passed.send((Direction::Out, buf[..n].to_vec())).await;
    }
    process.stdin_closing(graces);
    drop(stdin);
}

/// Copies the server's bytes to the client as they come, and hands them to the recorder. A
/// client that stopped reading gets nothing more; the server's output is still read and
/// recorded to its end, so the server never blocks on a full pipe.
async fn server_to_client(
    mut stdout: tokio::process::ChildStdout,
    mut client_out: impl AsyncWrite + Unpin,
    passed: mpsc::Sender<Passed>,
    log: &WireLog,
) {
    let mut buf = vec![0u8; CHUNK];
    let mut open = true;
    loop {
        let n = match stdout.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        if open {
            if let Err(e) = client_out.write_all(&buf[..n]).await.and(client_out.flush().await) {
                note(log, format!("could not write to the client: {e}; the server's later bytes are recorded, not delivered"));
                open = false;
            }
        }
        let _ = passed.send((Direction::In, buf[..n].to_vec())).await;
    }
    let _ = client_out.shutdown().await;
}

fn note(log: &WireLog, detail: String) {
    log.append(Entry::new(CONN, Kind::Note, Direction::Meta).with_detail(detail));
}

/// The proxy's own stdin and stdout as the client gave them: pipes are read and written as
/// non-blocking file descriptors by the runtime itself (tokio's `stdin()` and `stdout()` hand
/// every read and write to a blocking thread, which cost a request through the proxy a few
/// hundred microseconds); anything else (a file, a terminal) goes through those.
pub fn client_streams() -> (Box<dyn AsyncRead + Unpin + Send>, Box<dyn AsyncWrite + Unpin + Send>) {
    use std::os::fd::AsFd;
    use tokio::net::unix::pipe;
    let input: Box<dyn AsyncRead + Unpin + Send> =
        match std::io::stdin().as_fd().try_clone_to_owned().and_then(pipe::Receiver::from_owned_fd) {
            Ok(pipe) => Box::new(pipe),
            Err(_) => Box::new(tokio::io::stdin()),
        };
    let output: Box<dyn AsyncWrite + Unpin + Send> =
        match std::io::stdout().as_fd().try_clone_to_owned().and_then(pipe::Sender::from_owned_fd) {
            Ok(pipe) => Box::new(pipe),
            Err(_) => Box::new(tokio::io::stdout()),
        };
    (input, output)
}
