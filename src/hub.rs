//! The facade both front ends use: live connections by id, and the commands on them.
//!
//! Owns: connecting (spawn, then a handshake bounded by the connect deadline; the deadline
//! never bounds the process), the table of live connections, and disconnecting.
//! Refuses: presentation. It returns values and errors; the CLI prints and the UI renders.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;

use crate::connection::{BasicResponder, Connection, Options, RequestError};
use crate::log::WireLog;
use crate::mcp::{self, ServerDescription};
use crate::process::{duration_words, ExitInfo, SpawnSpec};

/// Everything needed to start and talk to one server.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerConfig {
    pub spawn: SpawnSpec,
    /// Bounds the handshake only, never the server's life (default 30 s).
    pub connect_timeout: Duration,
    pub options: Options,
    /// Directories offered to the server as roots.
    pub roots: Vec<std::path::PathBuf>,
}

impl ServerConfig {
    pub fn stdio(spawn: SpawnSpec) -> ServerConfig {
        ServerConfig {
            spawn,
            connect_timeout: Duration::from_secs(30),
            options: Options::default(),
            roots: Vec::new(),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum HubError {
    #[error("no connection {0}")]
    NoSuchConnection(u64),
    #[error("could not start {command}: {source}")]
    Spawn { command: String, source: std::io::Error },
    #[error("could not connect to {command}: {reason}")]
    Handshake { command: String, reason: String },
    #[error(transparent)]
    Request(#[from] RequestError),
}

struct Live {
    conn: Connection,
    server: ServerDescription,
}

/// Live connections sharing one session log.
pub struct Hub {
    log: Arc<WireLog>,
    next_id: AtomicU64,
    live: Mutex<HashMap<u64, Live>>,
}

impl Hub {
    pub fn new(log: Arc<WireLog>) -> Hub {
        Hub { log, next_id: AtomicU64::new(1), live: Mutex::new(HashMap::new()) }
    }

    pub fn log(&self) -> &Arc<WireLog> {
        &self.log
    }

    /// Starts a server and runs the handshake. On failure the server is shut down with the
    /// full ladder and the error says what happened.
    pub async fn connect(&self, config: &ServerConfig) -> Result<u64, HubError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let command = config.spawn.command_line();
        let responder = Arc::new(BasicResponder { roots: config.roots.clone() });
        let conn = Connection::spawn_stdio(id, &config.spawn, self.log.clone(), config.options, responder)
            .map_err(|source| HubError::Spawn { command: command.clone(), source })?;
        // The timeout cancels only this wait; the process belongs to the connection task.
        let reason = match tokio::time::timeout(config.connect_timeout, mcp::initialize(&conn)).await {
            Ok(Ok(server)) => {
                self.live.lock().unwrap().insert(id, Live { conn, server });
                return Ok(id);
            }
            Ok(Err(e)) => e.to_string(),
            Err(_) => format!("no reply to initialize within {}", duration_words(config.connect_timeout)),
        };
        let exit = conn.shutdown().await;
        let reason = match exit {
            Some(exit) if !reason.contains("server ") => {
                format!("{reason}; the server {}", exit.describe())
            }
            _ => reason,
        };
        Err(HubError::Handshake { command, reason })
    }

    pub fn connection(&self, id: u64) -> Result<Connection, HubError> {
        self.live.lock().unwrap().get(&id).map(|l| l.conn.clone()).ok_or(HubError::NoSuchConnection(id))
    }

    pub fn server(&self, id: u64) -> Result<ServerDescription, HubError> {
        self.live.lock().unwrap().get(&id).map(|l| l.server.clone()).ok_or(HubError::NoSuchConnection(id))
    }

    pub async fn list_tools(&self, id: u64) -> Result<Vec<Value>, HubError> {
        Ok(mcp::list_all(&self.connection(id)?, "tools/list", "tools").await?)
    }

    pub async fn call_tool(&self, id: u64, name: &str, arguments: Option<Value>) -> Result<Value, HubError> {
        Ok(mcp::call_tool(&self.connection(id)?, name, arguments).await?)
    }

    /// Shuts the server down with the full ladder and forgets the connection.
    pub async fn disconnect(&self, id: u64) -> Result<Option<ExitInfo>, HubError> {
        let conn = self.connection(id)?;
        let exit = conn.shutdown().await;
        self.live.lock().unwrap().remove(&id);
        Ok(exit)
    }

    /// Shuts every live connection down, concurrently.
    pub async fn disconnect_all(&self) {
        let conns: Vec<Connection> = self.live.lock().unwrap().drain().map(|(_, l)| l.conn).collect();
        let mut tasks = tokio::task::JoinSet::new();
        for conn in conns {
            tasks.spawn(async move { conn.shutdown().await });
        }
        while tasks.join_next().await.is_some() {}
    }
}
