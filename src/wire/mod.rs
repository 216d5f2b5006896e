//! The wire: frames in, JSON-RPC messages out, and the way back.
//!
//! Synchronous and pure; it never touches a process or a socket.

mod frame;
mod message;

pub use frame::{encode_line, FrameSplitter, Piece, DEFAULT_MAX_LINE};
pub use message::{DecodeError, ErrorObject, Message, RequestId};
