//! The stdio proxy: the client's stdin goes to the server's stdin and the server's stdout to the
//! client's stdout, chunk by chunk as they are read (nothing waits for a line to end), and each
//! line is recorded after it was passed on. The client closing its side is the polite request to
//! exit: the server's stdin closes and the ladder follows. The server ending its side ends the
//! proxy, with the server's exit.

use std::future::Future;
use std::io;
use std::sync::{Arc, Mutex};

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

use super::Recorder;
use crate::log::{Direction, Entry, Kind, WireLog};
use crate::process::{self, ExitInfo, Graces, Process, SpawnSpec, Spawned};
use crate::wire::FrameSplitter;

/// The connection number a proxy's frames are recorded under.
pub const CONN: u64 = 1;
const CHUNK: usize = 64 * 1024;

/// Runs `spec` behind the client's `client_in` and `client_out` until the server has ended and
/// its group is gone. `stop` resolving (a signal to the proxy) starts the shutdown ladder as the
/// client closing stdin would. Returns how the server ended.
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
    let recorder = Arc::new(Mutex::new(Recorder::new(log.clone(), CONN, max_line)));
    let to_server =
        client_to_server(client_in, stdin, &process, graces, recorder.clone(), &log, max_line, stop);
    let to_client = server_to_client(stdout, client_out, recorder, &log, max_line);
    tokio::pin!(to_server, to_client);
    tokio::select! {
        // The server closed its stdout: it is going by itself (or was killed).
        () = &mut to_client => process.note_stdout_closed(),
        // The client went (or the proxy was told to stop): the ladder runs while the server's
        // last words still reach the client.
        () = &mut to_server => {
            let (_, ()) = tokio::join!(process.shutdown(graces), &mut to_client);
        }
    }
    Ok(process.shutdown(graces).await)
}

/// Copies the client's bytes to the server as they come, records their lines, and when the
/// client closes its side (or `stop` resolves) closes the server's stdin: step one of the ladder.
#[allow(clippy::too_many_arguments)]
async fn client_to_server(
    mut client_in: impl AsyncRead + Unpin,
    stdin: tokio::process::ChildStdin,
    process: &Process,
    graces: Graces,
    recorder: Arc<Mutex<Recorder>>,
    log: &WireLog,
    max_line: usize,
    stop: impl Future<Output = ()>,
) {
    let mut stdin = Some(stdin);
    let mut splitter = FrameSplitter::new(max_line);
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
        let pieces = splitter.push(&buf[..n]);
        let mut recorder = recorder.lock().expect("recorder");
        pieces.into_iter().for_each(|p| recorder.from_client(p));
    }
    if let Some(piece) = splitter.finish() {
        recorder.lock().expect("recorder").from_client(piece);
    }
    process.stdin_closing(graces);
    drop(stdin);
}

/// Copies the server's bytes to the client as they come (each chunk flushed), and records their
/// lines. A client that stopped reading gets nothing more; the server's output is still read and
/// recorded to its end, so the server never blocks on a full pipe.
async fn server_to_client(
    mut stdout: tokio::process::ChildStdout,
    mut client_out: impl AsyncWrite + Unpin,
    recorder: Arc<Mutex<Recorder>>,
    log: &WireLog,
    max_line: usize,
) {
    let mut splitter = FrameSplitter::new(max_line);
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
        let pieces = splitter.push(&buf[..n]);
        let mut recorder = recorder.lock().expect("recorder");
        pieces.into_iter().for_each(|p| recorder.from_server(p));
    }
    if let Some(piece) = splitter.finish() {
        recorder.lock().expect("recorder").from_server(piece);
    }
    let _ = client_out.shutdown().await;
}

fn note(log: &WireLog, detail: String) {
    log.append(Entry::new(CONN, Kind::Note, Direction::Meta).with_detail(detail));
}
