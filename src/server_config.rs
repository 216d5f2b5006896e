//! Everything needed to start and talk to one server, whoever describes it.
//!
//! Owns: `Target` (a command to start, or a URL) and `ServerConfig` (the target with its era
//! policy, timeouts, graces and fixed answers to server requests), with their defaults.
//! Refuses: starting anything (`hub` does) and where a config comes from (a saved record in
//! `servers`, or the CLI's flags).

use std::time::Duration;

use crate::connection::{BasicResponder, Options};
use crate::era::EraPolicy;
use crate::process::SpawnSpec;
use crate::transport::HttpTarget;

/// Where a server is: a command to start, or a URL.
#[derive(Debug, Clone, PartialEq)]
pub enum Target {
    Stdio(SpawnSpec),
    Http(HttpTarget),
}

impl Target {
    /// The command line or the URL (its secrets redacted), for messages.
    pub fn describe(&self) -> String {
        match self {
            Target::Stdio(spec) => spec.command_line(),
            Target::Http(http) => crate::transport::shown_url(&http.url),
        }
    }
}

/// Everything needed to start and talk to one server.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerConfig {
    /// The saved server's name, when the config comes from one: the log names its connections
    /// by it.
    pub name: Option<String>,
    pub target: Target,
    pub era: EraPolicy,
    /// Bounds the opening exchange only, never the server's life (default 30 s).
    pub connect_timeout: Duration,
    /// How long the `server/discover` probe waits before falling back (default 3 s).
    pub probe_timeout: Duration,
    pub options: Options,
    /// How server requests (roots, elicitation, sampling) are answered.
    pub answers: BasicResponder,
    /// Asks the server for log messages at this level (`_meta` logLevel in 2026-07-28,
    /// `logging/setLevel` in 2025-11-25).
    pub log_level: Option<crate::log_level::LogLevel>,
    /// Start the server again when it ends by itself (`None`: never).
    pub restart: Option<RestartPolicy>,
    /// Decide the era afresh: the cached verdict is neither read nor updated (a check-up
    /// probes as a new client would).
    pub fresh_era: bool,
    /// Started for one job (a comparison, a replay, a check-up) and stopped after it: its
    /// states say so, so a front end shows it while it runs and not once it has ended.
    pub job: bool,
    /// Connect as this host does (`--host`): its `clientInfo`, protocol version and the
    /// capabilities it declares; its era is 2025-11-25's.
    pub host: Option<&'static crate::hosts::HostProfile>,
}

/// How a supervised server is started again: waits that double from `first` up to `cap`,
/// back to `first` once it stayed up for `healthy`; and no more tries once it ended
/// `max_exits` times within `window`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RestartPolicy {
    pub first: Duration,
    pub cap: Duration,
    pub healthy: Duration,
    pub max_exits: u32,
    pub window: Duration,
}

impl Default for RestartPolicy {
    fn default() -> Self {
        RestartPolicy {
            first: Duration::from_secs(1),
            cap: Duration::from_secs(60),
            healthy: Duration::from_secs(60),
            max_exits: 5,
            window: Duration::from_secs(120),
        }
    }
}

impl ServerConfig {
    /// Connects as `host` does: its `clientInfo`, capabilities and protocol version, in the
    /// era that version belongs to.
    pub fn as_host(mut self, host: &'static crate::hosts::HostProfile) -> ServerConfig {
        let version = crate::era::ProtocolVersion(host.connects.protocol_version.clone());
        self.era = match version.era() {
            Some(crate::era::Era::Modern) => EraPolicy::Modern,
            _ => EraPolicy::Legacy,
        };
        self.host = Some(host);
        self
    }

    /// The name a host knows the server by: the saved server's, else its program's file name
    /// (or the URL's host), as a person would name it in the host's settings.
    pub fn host_name(&self) -> String {
        if let Some(name) = &self.name {
            return name.clone();
        }
        match &self.target {
            Target::Stdio(spec) => std::path::Path::new(&spec.program)
                .file_stem()
                .map_or_else(|| spec.program.clone(), |s| s.to_string_lossy().into_owned()),
            Target::Http(http) => http.url.host_str().unwrap_or("server").to_owned(),
        }
    }

    pub fn stdio(spawn: SpawnSpec) -> ServerConfig {
        ServerConfig::new(Target::Stdio(spawn))
    }

    pub fn http(target: HttpTarget) -> ServerConfig {
        ServerConfig::new(Target::Http(target))
    }

    fn new(target: Target) -> ServerConfig {
        ServerConfig {
            name: None,
            target,
            era: EraPolicy::Auto,
            connect_timeout: Duration::from_secs(30),
            probe_timeout: Duration::from_secs(3),
            options: Options::default(),
            answers: BasicResponder::default(),
            log_level: None,
            restart: None,
            fresh_era: false,
            job: false,
            host: None,
        }
    }
}
