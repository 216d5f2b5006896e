//! The window's own files survive a writer killed mid-write: `servers.json`, `launches.json` and
//! the credentials file (where the keyring is not used) are written beside and renamed into place
//! (`files::write_private`), so a kill at any moment leaves the file as it was or as it became,
//! whole, and the next write goes on from there.
//!
//! The writer is this test binary run again as a child (the test's own name, with
//! `SONDE_KILLED_WRITER` set), writing one file through the store that owns it, over and over,
//! with a megabyte or so in it. The test kills it with SIGKILL the moment its temporary file
//! exists, mid-write, twenty times per file, and reads the file back through the same store
//! after each kill.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use sonde_core::{Credential, CredentialStore, Launches, SavedServer, ServerStore};

/// Set in the child: the file it writes.
const CHILD: &str = "SONDE_KILLED_WRITER";
const KILLS: usize = 20;
/// Records in the file: enough that one write takes long enough to be caught in the middle. The
/// launches and credentials are made one write at a time (their stores have no bulk write), so
/// they have fewer, each larger.
const RECORDS: usize = 3_000;
const FEWER: usize = 300;

#[derive(Clone, Copy)]
enum Kind {
    Servers,
    Launches,
    Credentials,
}

fn server(i: usize) -> SavedServer {
    SavedServer {
        id: format!("s{i}"),
        command: format!("npx -y @example/mcp-server-{i} --with a long argument to make the file large {i}"),
        ..SavedServer::blank(&format!("Server {i}"))
    }
}

fn credential(i: usize, round: usize) -> Credential {
    Credential {
        issuer: "https://auth.example".into(),
        resource: format!("https://mcp{i}.example/mcp"),
        token_endpoint: "https://auth.example/token".into(),
        client_id: format!("client-{i}"),
        client_secret: None,
        auth_method: "none".into(),
        access_token: format!("token-{i}-round-{round}-{}", "x".repeat(2000)),
        refresh_token: None,
        expires_at: None,
        scope: None,
    }
}

/// One write of `kind`'s file in round `round`: what the child does over and over.
fn write(kind: Kind, path: &Path, round: usize) {
    match kind {
        // Every other round one server fewer: the file changes each time.
        Kind::Servers => {
            let servers: Vec<_> = (0..RECORDS - round % 2).map(server).collect();
            ServerStore::at(path).save(&servers).unwrap();
        }
        // Each approval rewrites the whole record of launches.
        Kind::Launches => Launches::at(path).approve(&server(round % FEWER)).unwrap(),
        Kind::Credentials => CredentialStore::at(path).save(credential(round % FEWER, round)).unwrap(),
    }
}

/// The file read back through its store: whole, with every record it held.
fn read_back(kind: Kind, path: &Path) {
    match kind {
        Kind::Servers => {
            let servers = ServerStore::at(path).load("unused").expect("the servers file reads back");
            assert!(servers.len() == RECORDS || servers.len() == RECORDS - 1, "{} servers", servers.len());
        }
        // Launches reads an unreadable file as empty (it then asks again): parse it here.
        Kind::Launches => {
            let bytes = std::fs::read(path).unwrap();
            let approved: serde_json::Map<String, serde_json::Value> =
                serde_json::from_slice(&bytes).expect("the launches file is whole JSON");
            assert_eq!(approved.len(), FEWER);
        }
        Kind::Credentials => {
            let all = CredentialStore::at(path).list().expect("the credentials file reads back");
            assert_eq!(all.len(), FEWER);
        }
    }
}

/// The file as it starts: every record there, written whole.
fn prepare(kind: Kind, path: &Path) {
    match kind {
        Kind::Servers => write(kind, path, 0),
        Kind::Launches => {
            let launches = Launches::at(path);
            (0..FEWER).for_each(|i| launches.approve(&server(i)).unwrap());
        }
        Kind::Credentials => {
            let store = CredentialStore::at(path);
            (0..FEWER).for_each(|i| store.save(credential(i, 0)).unwrap());
        }
    }
}

fn temporary(path: &Path) -> PathBuf {
    path.with_extension("json.tmp")
}

/// The test named `test`, for `kind`'s file: in the child, writes until killed; in the parent,
/// kills the child mid-write `KILLS` times and reads the file back after each.
fn survives(test: &str, kind: Kind, name: &str) {
    if let Ok(path) = std::env::var(CHILD) {
        for round in 1.. {
            write(kind, Path::new(&path), round);
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    prepare(kind, &path);
    let mut caught_mid_write = 0;
    for kill in 0..KILLS {
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args([test, "--exact", "--nocapture", "--test-threads=1"])
            .env(CHILD, &path)
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(20);
        while !temporary(&path).exists() {
            assert!(Instant::now() < deadline, "kill {kill}: the writer never began a write");
            std::thread::yield_now();
        }
        child.kill().unwrap();
        child.wait().unwrap();
        caught_mid_write += usize::from(temporary(&path).exists());
        read_back(kind, &path);
    }
    // Most kills land between the temporary file's creation and its rename; if none did, this
    // test proved nothing.
    assert!(caught_mid_write > 0, "no kill landed mid-write");
    // And the next writer goes on from a temporary file a kill left behind.
    write(kind, &path, 2);
    read_back(kind, &path);
    assert!(!temporary(&path).exists());
}

#[test]
fn servers_json_survives_a_writer_killed_mid_write() {
    survives("servers_json_survives_a_writer_killed_mid_write", Kind::Servers, "servers.json");
}

#[test]
fn launches_json_survives_a_writer_killed_mid_write() {
    survives("launches_json_survives_a_writer_killed_mid_write", Kind::Launches, "launches.json");
}

#[test]
fn the_credentials_file_survives_a_writer_killed_mid_write() {
    survives(
        "the_credentials_file_survives_a_writer_killed_mid_write",
        Kind::Credentials,
        "credentials.json",
    );
}
