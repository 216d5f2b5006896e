//! Is the server there, and how long does a round trip take.
//!
//! 2025-11-25 has `ping`. 2026-07-28 removed it and has no liveness request, so Sonde measures
//! a `server/discover` instead, the lightest request every modern server must answer, and says
//! which request it measured.

use std::time::Instant;

use serde::Serialize;

use crate::connection::RequestError;
use crate::era::Era;
use crate::session::Session;

/// A round trip, measured.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Ping {
    /// The request sent: `ping`, or `server/discover` in 2026-07-28.
    pub method: String,
    /// Milliseconds from sending the request to its reply.
    pub ms: f64,
}

impl Session {
    pub async fn ping(&self) -> Result<Ping, RequestError> {
        let method = match self.era() {
            Era::Legacy => "ping",
            Era::Modern => "server/discover",
        };
        let started = Instant::now();
        self.request(method, None).await?;
        let ms = (started.elapsed().as_secs_f64() * 1e6).round() / 1e3;
        Ok(Ping { method: method.to_owned(), ms })
    }
}
