//! Sonde's engine: owns MCP server processes, records every byte on the wire, speaks JSON-RPC.
//!
//! The desktop shell and the `sonde` CLI drive running servers through [`Hub`], and name what
//! they need through the front door below: the types a front end uses, grouped by what it does
//! with them. The modules stay public for what only one front end needs (the CLI's proxy, its
//! wrapping of clients' configs, doctor's report); `ARCHITECTURE.md` maps them. Nothing in this
//! crate knows that a user interface exists.

pub mod apps;
pub mod auth;
pub mod connection;
pub mod diagnose;
pub mod doctor;
pub mod era;
pub mod error_code;
pub mod features;
pub mod feed;
pub mod files;
pub mod hub;
pub mod interface;
pub mod last_words;
pub mod lifecycle;
pub mod log;
pub mod log_level;
pub mod mcp;
pub mod negotiate;
pub mod process;
pub mod proxy;
pub mod replay;
pub mod report;
pub mod resend;
pub mod saved;
pub mod schema;
pub mod server_config;
pub mod shape;
pub mod suite;
pub mod sync;
pub mod terminal_text;
pub mod timeline;
pub mod transport;
pub mod url_elicitation;
pub mod wire;
pub mod wrap;

// Running servers: the facade, what a connection is made from, and what its calls give.
pub use connection::{ElicitAnswer, RequestError};
pub use era::{Era, EraPolicy, ProtocolVersion};
pub use features::completion::{Completion, CompletionRef};
pub use features::listen::{ListenEvent, ListenSpec};
pub use features::listing::{ListKind, ListPage, Listing};
pub use features::notices::{Notice, Noticed, Notices};
pub use features::ping::Ping;
pub use features::prompts::PromptView;
pub use features::resources::ReadView;
pub use features::tasks::TaskView;
pub use hub::{
    ConnState, Hub, HubError, QuestionEvent, Questions, RootsChange, ServerConfig, ServerQuestion, Stage,
    StateEvent, SubscriptionEvent, Target,
};
pub use last_words::LastWords;
pub use lifecycle::{ExitInfo, Lifecycle};
pub use log_level::{LogLevel, NotALogLevel};
pub use mcp::{CallOutcome, ServerDescription, Session};
pub use process::{Graces, SpawnSpec};
pub use shape::content::ContentView;
pub use shape::TaskStatus;
pub use shape::{read_tools, ToolView};
pub use transport::{Header, HttpTarget, HttpTimeouts, TargetError};
pub use url_elicitation::LinksRequired;
pub use wire::ErrorObject;

// Checking a server: doctor's plan and report, and the findings the log holds.
pub use diagnose::{RuleGroup, Severity};
pub use doctor::{Check, Plan, Report};
pub use interface::SnapshotError;
pub use replay::{RecordingError, RulesError};
pub use suite::SuiteError;

// Following what the core keeps, and the one list of error codes a front end shows.
pub use error_code::ErrorCode;
pub use feed::Feed;

// The record: the wire log, its entries, filters and past sessions.
pub use log::{
    sessions_dir, Catalog, CatalogError, ConnectionLabel, Direction, Entry, Filter, FilterError, FilterView,
    Followed, Kind, LogBatch, MatchCount, OpenedSession, Outcome, Page, Recording, SessionInfo, WireLog,
    COUNT_BUDGET,
};

// The saved configuration: servers, their approved launches, remembered eras; and other
// clients' configs, routed through `sonde proxy`.
pub use saved::era_cache::EraCache;
pub use saved::launches::Launches;
pub use saved::servers::{Imported, SavedServer, ServerStore, Servers, ServersError};
pub use wrap::WrapError;

// Authorization with HTTP servers.
pub use auth::progress::Flow;
pub use auth::{AuthError, Authorizer, Browser, CredentialStore, CredentialView, StoreError};
