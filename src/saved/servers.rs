//! Saved servers: what the desktop app lists in its sidebar, persisted in the config directory.
//!
//! Owns: the saved-server record (a command line entered as one string, env, cwd, era policy,
//! timeouts, graces), its file (`servers.json`), the embedded "Demo server" on first use, turning
//! a record into a [`ServerConfig`], importing `mcpServers` JSON from Claude Desktop and
//! Cursor (`mcpServers`) or VS Code (`servers`), and [`Servers`]: the list a front end holds,
//! where adding, replacing, deleting and importing are each checked and persisted at once.
//! A record with a `url` is an HTTP server (Streamable HTTP, or 2024-11-05 HTTP+SSE found by
//! negotiation), with its extra headers; secret ones are never written to the wire log.
//! Refuses: anything it cannot start; an import says what it skipped and why.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::on_change::OnChange;
use crate::era::EraPolicy;
use crate::error_code::ErrorCode;
use crate::process::SpawnSpec;
use crate::server_config::{RestartPolicy, ServerConfig, Target};
use crate::sync::Lock;
use crate::transport::{Header, HttpTarget, TargetError};

/// One saved server.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SavedServer {
    pub id: String,
    pub name: String,
    /// The command line as typed; split with shell-words rules when it is started.
    #[serde(default)]
    pub command: String,
    /// The URL of an HTTP server; when set, `command`, `env` and `cwd` are not used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub headers: Vec<Header>,
    /// Directories offered to the server as roots (`roots/list`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub roots: Vec<String>,
    #[serde(default)]
    pub env: Vec<EnvVar>,
    #[serde(default)]
    pub cwd: Option<String>,
    #[serde(default)]
    pub era: EraPolicy,
    #[serde(default)]
    pub timeout_ms: Option<u64>,
    #[serde(default)]
    pub grace_stdin_ms: Option<u64>,
    #[serde(default)]
    pub grace_term_ms: Option<u64>,
    /// Give the server Sonde's whole environment instead of the minimal one.
    #[serde(default)]
    pub inherit_env: bool,
    /// Start it again when it ends by itself, backing off, until a crash loop.
    #[serde(default)]
    pub restart_on_exit: bool,
    /// Start it again when its source changes (a command's server only); absent when off.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_change: Option<OnChange>,
    /// Who Sonde is to an HTTP server's authorization server (OAuth), when the person set it;
    /// without it Sonde registers itself where the server allows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub oauth: Option<OAuthClient>,
    /// Connect as this host does (a host profile's name; "Connect as" in the window, `--host`
    /// in the CLI); absent: as Sonde.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    /// Start a trace for each request Sonde sends it (`--trace` in the CLI): a W3C
    /// `traceparent` in the request's `_meta`, so a server that traces joins it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub trace: bool,
}

/// A client the person registered with an authorization server, the scopes to ask for, or the
/// URL of Sonde's Client ID Metadata Document. The secret is never written to the wire log.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OAuthClient {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<String>,
    /// Space-separated; replaces the scopes the server asks for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_metadata_url: Option<String>,
}

impl OAuthClient {
    /// The core's settings: blank fields are left out.
    fn settings(&self) -> crate::auth::Settings {
        let given =
            |v: &Option<String>| v.as_deref().map(str::trim).filter(|s| !s.is_empty()).map(str::to_owned);
        crate::auth::Settings {
            client_id: given(&self.client_id),
            client_secret: given(&self.client_secret),
            scope: given(&self.scope),
            client_metadata_url: given(&self.client_metadata_url),
        }
    }
}

#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EnvVar {
    pub key: String,
    pub value: String,
}

impl SavedServer {
    /// A record with a fresh id and nothing else set.
    pub fn blank(name: &str) -> SavedServer {
        SavedServer {
            id: new_id(),
            name: name.to_owned(),
            command: String::new(),
            url: None,
            headers: Vec::new(),
            roots: Vec::new(),
            env: Vec::new(),
            cwd: None,
            era: EraPolicy::Auto,
            timeout_ms: None,
            grace_stdin_ms: None,
            grace_term_ms: None,
            inherit_env: false,
            restart_on_exit: false,
            on_change: None,
            oauth: None,
            host: None,
            trace: false,
        }
    }

    /// The config to start it with, or why its command line (or URL) cannot be used.
    pub fn to_config(&self) -> Result<ServerConfig, ServersError> {
        let mut config = match self.url.as_deref().map(str::trim).filter(|u| !u.is_empty()) {
            Some(url) => {
                let mut target = HttpTarget::new(url)?;
                target.headers = self.headers.clone();
                target.auth = self.oauth.as_ref().map(OAuthClient::settings).unwrap_or_default();
                ServerConfig::http(target)
            }
            None => {
                let words = shell_words::split(&self.command)
                    .map_err(|e| ServersError::Invalid(format!("the command line cannot be split: {e}")))?;
                let (program, args) = words
                    .split_first()
                    .ok_or_else(|| ServersError::Invalid("the command line is empty".into()))?;
                let mut spec = SpawnSpec::new(program.clone(), args.iter().cloned());
                spec.env = self.env.iter().map(|v| (v.key.clone(), v.value.clone())).collect();
                spec.cwd = self.cwd.as_ref().filter(|c| !c.trim().is_empty()).map(PathBuf::from);
                spec.inherit_env = self.inherit_env;
                ServerConfig::stdio(spec)
            }
        };
        if self.on_change.is_some() && matches!(config.target, Target::Http(_)) {
            return Err(ServersError::Invalid(
                "Restart on change starts a server from its command; a URL's server is restarted by whoever runs it"
                    .into(),
            ));
        }
        config.name = Some(self.name.clone());
        config.era = self.era;
        config.options.trace = self.trace;
        config.restart = self.restart_on_exit.then(RestartPolicy::default);
        config.answers.roots =
            self.roots.iter().filter(|r| !r.trim().is_empty()).map(PathBuf::from).collect();
        if let Some(ms) = self.timeout_ms {
            config.options.request_timeout = Duration::from_millis(ms);
            config.connect_timeout = Duration::from_millis(ms);
            // Over HTTP the response headers are part of the reply the timeout waits for.
            if let Target::Http(target) = &mut config.target {
                target.timeouts.headers = Duration::from_millis(ms);
            }
        }
        if let Some(ms) = self.grace_stdin_ms {
            config.options.graces.stdin = Duration::from_millis(ms);
        }
        if let Some(ms) = self.grace_term_ms {
            config.options.graces.term = Duration::from_millis(ms);
        }
        if let Some(name) = self.host.as_deref().filter(|h| !h.is_empty()) {
            config = config
                .as_host(crate::hosts::profile(name).map_err(|e| ServersError::Invalid(e.to_string()))?);
        }
        Ok(config)
    }
}

/// The saved servers' file.
#[derive(Debug, Clone)]
pub struct ServerStore {
    path: PathBuf,
}

#[derive(Default, Serialize, Deserialize)]
struct File {
    servers: Vec<SavedServer>,
}

impl ServerStore {
    pub fn at(path: impl Into<PathBuf>) -> ServerStore {
        ServerStore { path: path.into() }
    }

    pub fn default_location() -> io::Result<ServerStore> {
        Ok(ServerStore::at(crate::files::config_dir()?.join("servers.json")))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Every saved server. On first use (no file yet) the list holds the demo server, whose
    /// command `demo_command` runs Sonde's own binary.
    pub fn load(&self, demo_command: &str) -> io::Result<Vec<SavedServer>> {
        match std::fs::read(&self.path) {
            Ok(bytes) => {
                let file: File = serde_json::from_slice(&bytes).map_err(|e| {
                    io::Error::new(
                        io::ErrorKind::InvalidData,
                        format!("{} is not a servers file: {e}", self.path.display()),
                    )
                })?;
                Ok(file.servers)
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                let demo = SavedServer {
                    id: "demo".into(),
                    command: demo_command.to_owned(),
                    ..SavedServer::blank("Demo server")
                };
                self.save(std::slice::from_ref(&demo))?;
                Ok(vec![demo])
            }
            Err(e) => Err(e),
        }
    }

    pub fn save(&self, servers: &[SavedServer]) -> io::Result<()> {
        crate::files::write_json(&self.path, &File { servers: servers.to_vec() })
    }
}

/// Why a change to the saved servers was refused, or not persisted.
#[derive(Debug, thiserror::Error)]
pub enum ServersError {
    /// The record or the import cannot be used; the words say why.
    #[error("{0}")]
    Invalid(String),
    /// The URL or a header of a server reached over HTTP cannot be used.
    #[error(transparent)]
    Target(#[from] TargetError),
    #[error("no saved server {0}")]
    NotFound(String),
    #[error(transparent)]
    Io(#[from] io::Error),
}

impl ServersError {
    /// The stable code a front end shows with the message.
    pub fn code(&self) -> ErrorCode {
        match self {
            ServersError::Invalid(_) => ErrorCode::BadInput,
            ServersError::Target(e) => e.code(),
            ServersError::NotFound(_) => ErrorCode::NotFound,
            ServersError::Io(_) => ErrorCode::Io,
        }
    }
}

/// The saved servers while a front end runs: one list, written to its file after every change.
/// A change that cannot be written is not kept, so the list and the file never disagree.
pub struct Servers {
    store: ServerStore,
    list: Mutex<Vec<SavedServer>>,
}

impl Servers {
    /// The servers in `store` (on first use, the demo server running `demo_command`).
    pub fn load(store: ServerStore, demo_command: &str) -> io::Result<Servers> {
        let list = store.load(demo_command)?;
        Ok(Servers { store, list: Mutex::new(list) })
    }

    pub fn list(&self) -> Vec<SavedServer> {
        self.list.locked().clone()
    }

    pub fn get(&self, id: &str) -> Result<SavedServer, ServersError> {
        let list = self.list.locked();
        list.iter().find(|s| s.id == id).cloned().ok_or_else(|| ServersError::NotFound(id.to_owned()))
    }

    /// Adds `server` (an empty or unknown id gets a new one) or replaces the one with its id,
    /// once it has a name and can be started; returns the new list.
    pub fn save(&self, mut server: SavedServer) -> Result<Vec<SavedServer>, ServersError> {
        let config = server.to_config()?;
        if let (Some(on_change), Target::Stdio(spawn)) = (&server.on_change, &config.target) {
            let (spec, _) = on_change.plan(spawn);
            if let Some(missing) = spec.paths.iter().find(|p| !p.exists()) {
                let missing = missing.display();
                return Err(ServersError::Invalid(format!("Restart on change: {missing} does not exist")));
            }
        }
        if server.name.trim().is_empty() {
            return Err(ServersError::Invalid("a server needs a name".into()));
        }
        self.change(|list| match list.iter_mut().find(|s| s.id == server.id && !server.id.is_empty()) {
            Some(slot) => *slot = server,
            None => {
                server.id = new_id();
                list.push(server);
            }
        })
    }

    /// Removes the server with `id` (nothing if there is none); returns the new list.
    pub fn delete(&self, id: &str) -> Result<Vec<SavedServer>, ServersError> {
        self.change(|list| list.retain(|s| s.id != id))
    }

    /// Imports `mcpServers` JSON (see [`import_mcp_servers`]) and saves what it can.
    pub fn import(&self, text: &str) -> Result<Imported, ServersError> {
        let imported = import_mcp_servers(text)?;
        self.add_all(&imported.servers)?;
        Ok(imported)
    }

    /// Saves `servers` after the ones there are (an import the person confirmed).
    pub fn add_all(&self, servers: &[SavedServer]) -> Result<Vec<SavedServer>, ServersError> {
        self.change(|list| list.extend(servers.iter().cloned()))
    }

    /// Adds `name` to the environment of the saved server `id` (replacing it if set) with the
    /// value it has in Sonde's own environment, read here so a front end never holds or shows
    /// it; returns the new list. The fix the last-words hint offers for a withheld variable.
    pub fn add_env_from_host(&self, id: &str, name: &str) -> Result<Vec<SavedServer>, ServersError> {
        let value = std::env::var(name)
            .map_err(|_| ServersError::Invalid(format!("{name} is not set in Sonde's environment")))?;
        self.get(id)?;
        self.change(|list| {
            if let Some(server) = list.iter_mut().find(|s| s.id == id) {
                server.env.retain(|v| v.key != name);
                server.env.push(EnvVar { key: name.to_owned(), value });
            }
        })
    }

    /// The values of every saved environment variable, secret header and client secret long enough to be worth hiding, for
    /// redacting an export. Short values (`1`, `on`) would blank out unrelated text.
    pub fn secrets(&self) -> Vec<String> {
        let list = self.list.locked();
        let secrets = |s: &SavedServer| {
            let client = s.oauth.as_ref().and_then(|o| o.client_secret.clone());
            let headers = s.headers.iter().filter(|h| h.secret).map(|h| h.value.clone());
            s.env.iter().map(|v| v.value.clone()).chain(client).chain(headers).collect::<Vec<_>>()
        };
        list.iter().flat_map(secrets).filter(|v| v.len() >= 4).collect()
    }

    fn change(&self, edit: impl FnOnce(&mut Vec<SavedServer>)) -> Result<Vec<SavedServer>, ServersError> {
        let mut list = self.list.locked();
        let mut next = list.clone();
        edit(&mut next);
        self.store.save(&next)?;
        *list = next.clone();
        Ok(next)
    }
}

/// What an import found: the servers it can save, and what it skipped and why.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Default, PartialEq, Serialize)]
pub struct Imported {
    pub servers: Vec<SavedServer>,
    pub skipped: Vec<String>,
}

/// Reads `{"mcpServers": {…}}` (Claude Desktop, Cursor) or `{"servers": {…}}` (VS Code).
pub fn import_mcp_servers(text: &str) -> Result<Imported, ServersError> {
    let doc: Value =
        serde_json::from_str(text).map_err(|e| ServersError::Invalid(format!("not JSON: {e}")))?;
    let none = "no \"mcpServers\" (Claude Desktop, Cursor) or \"servers\" (VS Code) object";
    let table = doc
        .get("mcpServers")
        .or_else(|| doc.get("servers"))
        .and_then(Value::as_object)
        .ok_or_else(|| ServersError::Invalid(none.into()))?;
    let mut out = Imported::default();
    for (name, entry) in table {
        if let Some(url) = entry.get("url").or_else(|| entry.get("serverUrl")).and_then(Value::as_str) {
            if let Err(why) = HttpTarget::new(url) {
                out.skipped.push(format!("{name}: {why}"));
                continue;
            }
            let headers = string_pairs(entry, "headers")
                .map(|(name, value)| Header { secret: crate::transport::is_secret_name(&name), name, value })
                .collect();
            out.servers.push(SavedServer { url: Some(url.to_owned()), headers, ..SavedServer::blank(name) });
            continue;
        }
        let Some(command) = entry.get("command").and_then(Value::as_str) else {
            out.skipped.push(format!("{name}: no command and no url"));
            continue;
        };
        let args: Vec<String> = entry
            .get("args")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|a| a.as_str().map(str::to_owned))
            .collect();
        let line = std::iter::once(command.to_owned())
            .chain(args)
            .map(|w| shell_words::quote(&w).into_owned())
            .collect::<Vec<_>>();
        let env = string_pairs(entry, "env").map(|(key, value)| EnvVar { key, value }).collect();
        out.servers.push(SavedServer {
            command: line.join(" "),
            env,
            cwd: entry.get("cwd").and_then(Value::as_str).map(str::to_owned),
            ..SavedServer::blank(name)
        });
    }
    Ok(out)
}

/// The members of an object in a config entry (`env`, `headers`), values as text.
fn string_pairs<'a>(entry: &'a Value, key: &str) -> impl Iterator<Item = (String, String)> + 'a {
    let members = entry.get(key).and_then(Value::as_object).into_iter().flatten();
    members.map(|(k, v)| (k.clone(), v.as_str().map_or_else(|| v.to_string(), str::to_owned)))
}

/// A fresh id for a saved server: time and a counter, unique within this machine's use.
pub fn new_id() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    format!("s{nanos:x}{:x}", COUNTER.fetch_add(1, Ordering::Relaxed))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_saved_oauth_client_reaches_the_http_target_and_its_secret_is_redacted_in_exports() {
        let path = std::env::temp_dir().join(format!("sonde-servers-oauth-{}.json", std::process::id()));
        let _ = std::fs::remove_file(&path);
        let servers = Servers::load(ServerStore::at(&path), "demo").unwrap();
        let oauth = OAuthClient {
            client_id: Some(" sonde-app ".into()),
            client_secret: Some("hunter22".into()),
            scope: Some("  ".into()),
            client_metadata_url: None,
        };
        let saved = SavedServer {
            url: Some("http://127.0.0.1:1/mcp".into()),
            oauth: Some(oauth),
            ..SavedServer::blank("Protected")
        };
        servers.save(saved.clone()).unwrap();
        let Target::Http(target) = saved.to_config().unwrap().target else { panic!("an HTTP server") };
        assert_eq!(target.auth.client_id.as_deref(), Some("sonde-app"));
        assert_eq!(target.auth.client_secret.as_deref(), Some("hunter22"));
        assert_eq!(target.auth.scope, None, "a blank scope is no scope");
        assert!(servers.secrets().contains(&"hunter22".to_owned()));
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn a_server_saved_to_trace_connects_with_traces_and_says_so_only_then() {
        let plain = SavedServer { command: "srv".into(), ..SavedServer::blank("Plain") };
        let traced = SavedServer { trace: true, ..plain.clone() };
        assert!(!plain.to_config().unwrap().options.trace);
        assert!(traced.to_config().unwrap().options.trace);
        assert!(!serde_json::to_string(&plain).unwrap().contains("trace"), "left out when off");
        let read: SavedServer = serde_json::from_str(&serde_json::to_string(&traced).unwrap()).unwrap();
        assert!(read.trace);
    }

    #[test]
    fn the_first_load_holds_the_demo_server_and_saves_round_trip() {
        let path = std::env::temp_dir().join(format!("sonde-servers-{}.json", std::process::id()));
        let _ = std::fs::remove_file(&path);
        let store = ServerStore::at(&path);
        let servers = store.load("/opt/sonde demo-server").unwrap();
        assert_eq!(servers[0].name, "Demo server");
        let Target::Stdio(spawn) = servers[0].to_config().unwrap().target else { panic!("a command") };
        assert_eq!(
            (spawn.program.as_str(), spawn.args.as_slice()),
            ("/opt/sonde", &["demo-server".to_owned()][..])
        );
        let mut more = servers.clone();
        more.push(SavedServer {
            name: "x".into(),
            id: new_id(),
            command: "a 'b c'".into(),
            ..servers[0].clone()
        });
        store.save(&more).unwrap();
        assert_eq!(store.load("unused").unwrap(), more);
        let Target::Stdio(spawn) = more[1].to_config().unwrap().target else { panic!("a command") };
        assert_eq!(spawn.args, ["b c"]);
    }

    #[test]
    fn saving_adds_or_replaces_by_id_and_every_change_is_persisted() {
        let path = std::env::temp_dir().join(format!("sonde-servers-list-{}.json", std::process::id()));
        let _ = std::fs::remove_file(&path);
        let servers = Servers::load(ServerStore::at(&path), "demo").unwrap();
        let time = SavedServer {
            id: String::new(),
            command: "uvx mcp-server-time".into(),
            env: vec![EnvVar { key: "TOKEN".into(), value: "s3cret".into() }],
            ..SavedServer::blank("Time")
        };
        let all = servers.save(time).unwrap();
        assert_eq!(all.len(), 2);
        assert!(!all[1].id.is_empty());
        let renamed = SavedServer { name: "Time (UTC)".into(), ..all[1].clone() };
        let all = servers.save(renamed).unwrap();
        assert_eq!((all.len(), all[1].name.as_str()), (2, "Time (UTC)"));
        assert_eq!(ServerStore::at(&path).load("unused").unwrap(), all);
        assert_eq!(servers.secrets(), ["s3cret"]);
        assert_eq!(servers.get(&all[1].id).unwrap().name, "Time (UTC)");

        let nameless = SavedServer { name: " ".into(), ..all[1].clone() };
        assert_eq!(servers.save(nameless).unwrap_err().code(), ErrorCode::BadInput);
        let unsplittable = SavedServer { command: "'unclosed".into(), ..all[1].clone() };
        let err = servers.save(unsplittable).unwrap_err();
        assert!(err.to_string().contains("cannot be split"), "{err}");
        assert_eq!(servers.list(), all, "a refused change leaves the list as it was");

        let imported = servers.import(r#"{"mcpServers": {"fs": {"command": "npx"}}}"#).unwrap();
        assert_eq!(imported.servers.len(), 1);
        assert_eq!(servers.list().len(), 3);
        assert_eq!(servers.import("[]").unwrap_err().code(), ErrorCode::BadInput);
        let left = servers.delete(&all[1].id).unwrap();
        assert_eq!(left.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(), ["Demo server", "fs"]);
        assert_eq!(servers.get(&all[1].id).unwrap_err().code(), ErrorCode::NotFound);
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn a_variable_is_added_from_sondes_environment_by_name() {
        let path = std::env::temp_dir().join(format!("sonde-servers-env-{}.json", std::process::id()));
        let _ = std::fs::remove_file(&path);
        let servers = Servers::load(ServerStore::at(&path), "demo").unwrap();
        let id = servers.list()[0].id.clone();
        // PATH is set in every test run; added twice, it is there once.
        servers.add_env_from_host(&id, "PATH").unwrap();
        let all = servers.add_env_from_host(&id, "PATH").unwrap();
        assert_eq!(all[0].env, [EnvVar { key: "PATH".into(), value: std::env::var("PATH").unwrap() }]);
        assert_eq!(ServerStore::at(&path).load("unused").unwrap(), all);

        let unset = servers.add_env_from_host(&id, "SONDE_TEST_SURELY_UNSET_XYZ").unwrap_err();
        assert_eq!(unset.code(), ErrorCode::BadInput);
        assert_eq!(servers.add_env_from_host("nope", "PATH").unwrap_err().code(), ErrorCode::NotFound);
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn claude_desktop_and_vs_code_configs_import_with_http_servers_and_their_headers() {
        let claude = r#"{"mcpServers": {"fs": {"command": "npx", "args": ["-y", "@x/fs", "/a b"], "env": {"K": "v"}},
                                        "remote": {"url": "https://example.invalid/mcp", "headers": {"Authorization": "Bearer t", "X-Team": "a"}},
                                        "odd": {"url": "ftp://x"}, "empty": {}}}"#;
        let got = import_mcp_servers(claude).unwrap();
        assert_eq!(got.servers.len(), 2);
        assert_eq!(got.servers[0].command, "npx -y @x/fs '/a b'");
        assert_eq!(got.servers[0].env, vec![EnvVar { key: "K".into(), value: "v".into() }]);
        assert_eq!(got.servers[1].url.as_deref(), Some("https://example.invalid/mcp"));
        let secrets: Vec<bool> = got.servers[1].headers.iter().map(|h| h.secret).collect();
        assert_eq!(secrets, [true, false]);
        assert!(matches!(got.servers[1].to_config().unwrap().target, Target::Http(_)));
        assert_eq!(
            got.skipped,
            ["odd: ftp://x is not an http:// or https:// URL", "empty: no command and no url"]
        );
        let vscode =
            r#"{"servers": {"time": {"type": "stdio", "command": "uvx", "args": ["mcp-server-time"]}}}"#;
        assert_eq!(import_mcp_servers(vscode).unwrap().servers[0].command, "uvx mcp-server-time");
        let nothing = import_mcp_servers("{}").unwrap_err();
        assert!(matches!(nothing, ServersError::Invalid(_)) && nothing.to_string().contains("mcpServers"));
    }
}
