//! The stable codes a front end gives errors, so a UI can act on a failure without matching
//! on its words.
//!
//! Owns: the one list of codes. Each core error says its own code (`HubError::code`,
//! `ServersError::code`); a front end uses these for its own checks too.
//! Refuses: wording; the message stays with the error.

use serde::Serialize;

/// What kind of failure an error is.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// No such connection, saved server or waiting question.
    NotFound,
    /// An argument cannot be used: a command line, a filter, an import, an answer.
    BadInput,
    /// Reading or writing a file failed.
    Io,
    /// The server process could not be started (or an HTTP connection not opened).
    SpawnFailed,
    /// The opening exchange failed; the server was stopped.
    ConnectFailed,
    /// The server answered a JSON-RPC error.
    RpcError,
    /// No answer in time.
    Timeout,
    /// The request was cancelled.
    Cancelled,
    /// The server exited or closed its stream before answering.
    ServerGone,
    /// An HTTP server answered a status that is not a reply.
    HttpStatus,
    /// An HTTP server could not be reached.
    Unreachable,
    /// A reply larger than Sonde accepts.
    TooLarge,
    /// The server broke the protocol.
    Protocol,
    /// The server needs the person to open a link before the request can succeed (`-32042`,
    /// 2025-11-25); the error lists the links.
    UrlElicitationRequired,
}
