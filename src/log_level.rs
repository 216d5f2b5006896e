//! Server log levels (RFC 5424, as MCP names them) and the `_meta` key that carries one: words
//! both `mcp` (the session keeps the level) and `features` use, so it depends on neither; and
//! `NotALogLevel`, the one way reading a level's name fails (`bad_input`).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::error_code::ErrorCode;

/// The `_meta` key that carries the log level of a 2026-07-28 request.
pub const LOG_LEVEL_META: &str = "io.modelcontextprotocol/logLevel";

/// A level of server log messages, least severe first.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LogLevel {
    Debug,
    Info,
    Notice,
    Warning,
    Error,
    Critical,
    Alert,
    Emergency,
}

impl LogLevel {
    pub const ALL: [LogLevel; 8] = [
        LogLevel::Debug,
        LogLevel::Info,
        LogLevel::Notice,
        LogLevel::Warning,
        LogLevel::Error,
        LogLevel::Critical,
        LogLevel::Alert,
        LogLevel::Emergency,
    ];

    pub fn name(self) -> &'static str {
        match self {
            LogLevel::Debug => "debug",
            LogLevel::Info => "info",
            LogLevel::Notice => "notice",
            LogLevel::Warning => "warning",
            LogLevel::Error => "error",
            LogLevel::Critical => "critical",
            LogLevel::Alert => "alert",
            LogLevel::Emergency => "emergency",
        }
    }
}

impl fmt::Display for LogLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A word that names no log level (as given), said with the levels there are.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not a log level; the levels are {levels}", levels = level_names())]
pub struct NotALogLevel(pub String);

impl NotALogLevel {
    /// A level is the person's choice: `bad_input`.
    pub fn code(&self) -> ErrorCode {
        ErrorCode::BadInput
    }
}

fn level_names() -> String {
    LogLevel::ALL.iter().map(|l| l.name()).collect::<Vec<_>>().join(", ")
}

impl FromStr for LogLevel {
    type Err = NotALogLevel;

    fn from_str(s: &str) -> Result<LogLevel, NotALogLevel> {
        let wanted = s.trim().to_ascii_lowercase();
        LogLevel::ALL.into_iter().find(|l| l.name() == wanted).ok_or_else(|| NotALogLevel(s.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_parse_by_name_and_order_by_severity() {
        assert_eq!("Warning".parse::<LogLevel>(), Ok(LogLevel::Warning));
        assert!(LogLevel::Debug < LogLevel::Emergency);
        let err = "loud".parse::<LogLevel>().unwrap_err();
        assert_eq!(err.code(), ErrorCode::BadInput);
        assert_eq!(
            err.to_string(),
            "\"loud\" is not a log level; the levels are debug, info, notice, warning, error, critical, alert, emergency"
        );
        assert_eq!(serde_json::to_value(LogLevel::Critical).unwrap(), "critical");
    }
}
