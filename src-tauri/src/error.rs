//! How an error crosses to the UI: `{code, message}` with the core's stable code, and for the
//! errors that have them, the server's last words and the links a `-32042` lists, so the UI
//! never matches on error strings.
//!
//! Owns: the one error type every command returns, built from the core's errors.
//! Refuses: deciding codes (each core error says its own).

use serde::Serialize;
use sonde_core::{
    CatalogError, ErrorCode, FilterError, HubError, LastWords, LinksRequired, NotOpened, RecordingError,
    RequestError, RulesError, SaveError, ServersError, SnapshotError, StoreError, SuiteError, TemplateError,
    WatchError,
};

/// An error as the UI sees it.
#[derive(Debug, Serialize, specta::Type)]
pub struct ErrorDto {
    /// What kind of failure, from the core's one list of codes: a core error says its own,
    /// and the checks made here use `bad_input`, `not_found` and `io`.
    pub code: ErrorCode,
    pub message: String,
    /// For a server that failed to open: what it last said on stderr and the environment hint;
    /// `null` for every other error.
    #[serde(rename = "lastWords")]
    pub last_words: Option<LastWords>,
    /// For `url_elicitation_required` (`-32042`): the links the server asks the person to open
    /// before the request is sent again, as the core read them; `null` for every other error.
    /// (Boxed: it is rare, and every other error would carry its size.)
    #[serde(rename = "urlElicitations")]
    pub url_elicitations: Option<Box<LinksRequired>>,
}

pub type Result<T> = std::result::Result<T, ErrorDto>;

pub fn err(code: ErrorCode, message: impl ToString) -> ErrorDto {
    ErrorDto { code, message: message.to_string(), last_words: None, url_elicitations: None }
}

impl From<HubError> for ErrorDto {
    fn from(e: HubError) -> Self {
        let mut dto = err(e.code(), &e);
        match e {
            HubError::Handshake { words, .. } => dto.last_words = Some(words),
            HubError::Request(RequestError::Rpc { error, .. }) => {
                dto.url_elicitations = sonde_core::links_required(&error).map(Box::new);
            }
            _ => {}
        }
        dto
    }
}

impl From<RequestError> for ErrorDto {
    fn from(e: RequestError) -> Self {
        HubError::Request(e).into()
    }
}

/// `From` for each core error that says its own code and has nothing more for the UI than its
/// message: the one conversion commands use (`?`), so no command picks a code for a core error.
macro_rules! coded {
    ($($error:ty),* $(,)?) => {$(
        impl From<$error> for ErrorDto {
            fn from(e: $error) -> Self {
                err(e.code(), e)
            }
        }
    )*};
}

coded!(
    ServersError,
    WatchError,
    CatalogError,
    SaveError,
    TemplateError,
    NotOpened,
    StoreError,
    FilterError,
    SnapshotError,
    SuiteError,
    RecordingError,
    RulesError,
);

impl ErrorDto {
    /// The same error, its message led by what it is about ("the session x is not JSON …"),
    /// its code kept.
    pub fn about(mut self, what: impl std::fmt::Display) -> Self {
        self.message = format!("{what} is {}", self.message);
        self
    }
}

pub fn io_error(e: std::io::Error) -> ErrorDto {
    err(ErrorCode::Io, e)
}
