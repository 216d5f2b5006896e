//! Sonde's engine: owns MCP server processes, records every byte on the wire, speaks JSON-RPC.
//!
//! One front door: the modules are the core's own, and what a front end (the desktop shell, the
//! `sonde` CLI, the bench) uses is named here, at the crate root, grouped by what it does with
//! it; `internals` is the one other public namespace, the parts below the hub that only the
//! core's own integration tests and fuzz targets reach. `ARCHITECTURE.md` maps the modules;
//! `make test` fails on a `sonde_core::module::` path outside the core. Nothing in this crate
//! knows that a user interface exists.

mod apps;
mod auth;
mod connection;
mod diagnose;
mod doctor;
mod era;
mod error_code;
mod feed;
mod files;
mod hosts;
mod hub;
mod interface;
mod last_words;
mod lifecycle;
mod load;
mod log;
mod log_level;
mod negotiate;
mod otel;
mod output_check;
mod process;
mod proxy;
mod replay;
mod report;
mod resend;
mod saved;
mod server_config;
mod session;
mod shape;
mod skills;
mod suite;
mod sync;
mod terminal_text;
mod timeline;
mod trace_context;
mod transport;
mod url_elicitation;
mod watch;
mod wire;
mod wrap;

// Running servers: the facade, what a connection is made from, and what its calls give.
pub use connection::{ElicitAnswer, RequestError, Responder};
pub use era::{Era, EraPolicy, ProtocolVersion, LEGACY_REVISION, MODERN_REVISION};
pub use hub::{
    AppOpened, AppTurn, ConnState, Hub, HubError, OneJob, QuestionEvent, Questions, Rebuild, RebuildOutcome,
    Rebuilds, RestartOnChange, RootsChange, ServerConfig, ServerQuestion, Stage, StateEvent,
    SubscriptionEvent, Target, MAX_OPEN_QUESTIONS,
};
pub use last_words::{clean_last_words, LastWords};
pub use lifecycle::{duration_words, ExitInfo, Lifecycle, Signal};
pub use log_level::{LogLevel, NotALogLevel};
pub use output_check::OutputCheck;
pub use process::{live_members, Graces, SpawnSpec, PASSED_THROUGH};
pub use resend::resend_risk;
pub use server_config::RestartPolicy;
// The Skills extension: a skill's entry, its files and the checks a host makes of them.
pub use session::completion::{Completion, CompletionRef};
pub use session::listen::{ListenEvent, ListenSpec, Listening};
pub use session::listing::{ListKind, ListPage, Listing};
pub use session::notices::{Notice, NoticeKind, Noticed, Notices};
pub use session::ping::Ping;
pub use session::prompts::PromptView;
pub use session::resources::{save_blob, save_bytes, ContentKind, ReadView, SaveError};
pub use session::skills::SkillsListing;
pub use session::tasks::{TaskView, FOLLOW_LIMIT};
pub use session::template::{expand_template, template_variables, TemplateError};
pub use session::{CallOutcome, ServerDescription, Session};
pub use shape::content::{content_view, ContentView};
pub use shape::{read_tools, structured_in_text, Task, TaskStatus, ToolView, SCHEMA_MAX_DEPTH};
pub use skills::{
    check_file, digest_of, frontmatter_differences, frontmatter_of, FileCheck, SkillEntry, SkillFile,
    SkillFileRead, SkillsDeclared, MAX_FILES as SKILL_MAX_FILES, MAX_SKILL_BYTES,
};
pub use terminal_text::terminal_safe;
pub use transport::{
    shown_url, shown_url_text, Header, HttpTarget, HttpTimeouts, OAuthSettings, TargetError,
};
pub use url_elicitation::{links_required, openable_link, LinksRequired, NotOpened, UrlElicitation};
pub use watch::{
    source_paths, BuildFailed, BuildStep, SourceChange, SourceWatch, WatchError, WatchSpec, DEFAULT_DEBOUNCE,
};
pub use wire::{ErrorObject, RequestId, DEFAULT_MAX_LINE};

// MCP Apps: the host's side of a tool's app.
pub use apps::tool::app_link;
pub use apps::HostContext;

// Checking a server: doctor's check-up, the diagnostics' findings, a snapshot's interface and
// its diff, suites of tests, replays, and the reports CI reads.
pub use diagnose::{group_findings, RuleGroup, Severity, DIAGNOSTIC_RULES};
pub use doctor::tools::TOKEN_BUDGET;
pub use doctor::{check_up, saved_beside, Beside, Check, CheckStatus, Checkup, CheckupPlan};
pub use hosts::{
    profile as host_profile, profiles as host_profiles, HostProfile, HostView, Refusal, ToolVerdict,
    UnknownHost,
};
pub use interface::values::pattern_covers;
pub use interface::{
    diff, eras_chosen, in_brief, place_changes, Baseline, BaselineCheck, Baselines, Change, ChangeSeverity,
    Placed, Snapshot, SnapshotError,
};
pub use load::{
    kinds_words, ms_words, parse_duration, parse_mix, parse_rate, parse_steps, run_load, LatencyBucket,
    LoadControl, LoadError, LoadOp, LoadPlan, LoadReport, LoadRuns, LoadSecond, LoadSettings, LoadWordsError,
    Pacing, Percentiles, SavedRun, Slo, SloVerdict, Step as LoadStep, Weighted,
};
pub use otel::{export_otlp, LiveReport, LiveSpans, OtlpTarget, OtlpTargetError, Traces};
pub use replay::rules::REPLAY_RULES_FILE;
pub use replay::{
    recorded_requests, replay, RecordedRequests, RecordingError, Replay, ReplayVerdict, Replayed, Rules,
    RulesError, IGNORED_BY_DEFAULT,
};
pub use report::{export_html, load_cases, Case, CaseError, Failure, Report, Subject, Totals};
pub use suite::{
    append_test, run_suite, suite_report, unstarted_report, Suite, SuiteError, Test, TestVerdict,
};
pub use trace_context::TraceParent;

// Following what the core keeps, the one list of error codes a front end shows, and the one
// policy for poisoned locks.
pub use error_code::ErrorCode;
pub use feed::Feed;
pub use sync::Lock;

// The record: the wire log, its entries, filters, exports and past sessions; the timeline.
pub use log::{
    check_har, count_entries, export_har, export_jsonl, last_session, list_sessions, pin_session,
    session_named, sessions_dir, size_words, stopped_words, Budget, Catalog, CatalogError, ConnectionLabel,
    Direction, Entry, ExportError, ExportFormat, Filter, FilterError, FilterView, Followed, Incomplete, Kind,
    LogBatch, MatchCount, OpenedSession, Outcome, Page, Pruned, Recording, RequestOutcome, SessionInfo,
    Summary, WireLog, COUNT_BUDGET, FILTER_KEYS, PREVIEW_BYTES, SESSION_FORMAT,
};
pub use timeline::{
    Latency, MarkKind, OperationKind, RecordedCall, Shown, SpanDetail, Timeline, TimelineView, ViewQuery,
    HISTORY_LIMIT,
};

// Sonde's own files and the saved configuration: servers, their approved launches, remembered
// eras, settings.
pub use files::{append_private, download_dir};
pub use saved::era_cache::EraCache;
pub use saved::launches::Launches;
pub use saved::on_change::OnChange;
pub use saved::servers::{import_mcp_servers, Imported, SavedServer, ServerStore, Servers, ServersError};
pub use saved::settings::{
    free_space, sessions_budget, Layout, SessionsSettings, SettingsError, SettingsFile, Theme,
};

// Authorization with HTTP servers.
pub use auth::follow::FollowRedirects;
pub use auth::loopback::LOOPBACK_LIMIT;
pub use auth::progress::Flow;
pub use auth::{AuthError, Authorizer, Browser, Credential, CredentialStore, CredentialView, StoreError};

// The recording proxy and a client's config routed through it.
pub use proxy::{bind_proxy, proxy_http, proxy_stdio, ClientStreams, PROXY_CONN};
pub use wrap::{unwrap_config, wrap_config, wrap_snippet, Edited, KnownClient, WrapError};

/// The parts below the hub, for the core's own integration tests and fuzz targets only: a bare
/// connection and its responder, the frame splitter and classifier, SSE and header parsing,
/// limits and formats a test checks against. A front end never imports from here
/// (`make test` fails if one does): what it needs is at the crate root.
pub mod internals {
    pub use crate::apps::{EXTENSION, MIME};
    pub use crate::connection::{
        classify, file_uri, not_handled, Answer, BasicResponder, Connection, LiveRoots, Options, Request,
    };
    pub use crate::diagnose::result_shape;
    pub use crate::session::listing::{MAX_BYTES, MAX_ITEMS};
    pub use crate::session::tool_call;
    pub use crate::transport::headers::{decode_text, encode_text, header_params};
    pub use crate::transport::sse::parse_chunks;
    pub use crate::url_elicitation::completed_id;
    pub use crate::wire::{FrameSplitter, Piece};
}
