//! What each saved server's command last ran as, so a front end asks before running new code.
//!
//! A saved server is a command line, an environment and a working directory that Sonde runs
//! with the user's rights. The servers file can change under Sonde (an import, another program,
//! a synced config), and an environment variable such as `LD_PRELOAD` or `NODE_OPTIONS` runs
//! code of its own. So the first run of a launch that is new or changed is shown to the person
//! first, with what changed.
//!
//! Owns: the record of each saved server's last approved launch (command line, working
//! directory, whether it inherits Sonde's environment, and a SHA-256 of each environment value,
//! never the value itself) in a private file, and reading a server into a [`LaunchReview`]:
//! every environment key, loader variables called out with their values, and what changed.
//! Refuses: asking (a front end asks, natively, outside any webview) and running anything.

use std::collections::BTreeMap;
use std::io;
use std::path::PathBuf;
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use crate::saved::servers::SavedServer;
use crate::sync::Lock;

/// Variables that change which code a program loads or runs before its own: the dynamic
/// loader's, the interpreters' start-up hooks, and `PATH` (which program a bare name runs).
const LOADERS: &[&str] = &[
    "LD_PRELOAD",
    "LD_LIBRARY_PATH",
    "LD_AUDIT",
    "NODE_OPTIONS",
    "NODE_PATH",
    "PYTHONSTARTUP",
    "PYTHONPATH",
    "PYTHONHOME",
    "PERL5OPT",
    "PERL5LIB",
    "RUBYOPT",
    "RUBYLIB",
    "JAVA_TOOL_OPTIONS",
    "_JAVA_OPTIONS",
    "JDK_JAVA_OPTIONS",
    "BASH_ENV",
    "ENV",
    "GCONV_PATH",
    "PATH",
];

/// Whether `key` is a loader variable (see [`LOADERS`]; every `DYLD_*` too).
pub fn is_loader(key: &str) -> bool {
    LOADERS.contains(&key) || key.starts_with("DYLD_")
}

/// A launch as recorded: what decides which code runs, with environment values hashed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Launch {
    command: String,
    cwd: Option<String>,
    inherit_env: bool,
    /// Each environment key with the SHA-256 of its value, in hex.
    env: BTreeMap<String, String>,
}

impl Launch {
    /// The launch of a stdio server; `None` for an HTTP server, which runs nothing.
    fn of(server: &SavedServer) -> Option<Launch> {
        if server.url.as_deref().is_some_and(|u| !u.trim().is_empty()) {
            return None;
        }
        Some(Launch {
            command: server.command.clone(),
            cwd: server.cwd.clone().filter(|c| !c.trim().is_empty()),
            inherit_env: server.inherit_env,
            env: server.env.iter().map(|v| (v.key.clone(), sha256_hex(&v.value))).collect(),
        })
    }
}

fn sha256_hex(value: &str) -> String {
    ring::digest::digest(&ring::digest::SHA256, value.as_bytes())
        .as_ref()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// What a person is shown before a saved server's new or changed launch runs.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LaunchReview {
    pub name: String,
    pub command: String,
    pub cwd: Option<String>,
    pub inherit_env: bool,
    /// Every environment key set, in the saved order (values are not shown: they may be secret).
    pub env_keys: Vec<String>,
    /// Loader variables set, with their values: these say which code runs.
    pub loaders: Vec<(String, String)>,
    /// What changed since the launch last approved, in words; empty on a first run.
    pub changes: Vec<String>,
    /// True when this server never ran (or never from this record).
    pub first: bool,
}

impl LaunchReview {
    fn of(server: &SavedServer, before: Option<&Launch>, now: &Launch) -> LaunchReview {
        LaunchReview {
            name: server.name.clone(),
            command: now.command.clone(),
            cwd: now.cwd.clone(),
            inherit_env: now.inherit_env,
            env_keys: server.env.iter().map(|v| v.key.clone()).collect(),
            loaders: server
                .env
                .iter()
                .filter(|v| is_loader(&v.key))
                .map(|v| (v.key.clone(), v.value.clone()))
                .collect(),
            changes: before.map(|b| changes(b, now)).unwrap_or_default(),
            first: before.is_none(),
        }
    }

    /// The review in words, for a native dialog: plain text, one fact per line.
    pub fn text(&self) -> String {
        let mut out = vec![
            format!("Command: {}", self.command),
            format!("Working directory: {}", self.cwd.as_deref().unwrap_or("Sonde's own")),
        ];
        let env = if self.env_keys.is_empty() { "none set".to_owned() } else { self.env_keys.join(", ") };
        out.push(format!("Environment variables: {env} (values not shown)"));
        if self.inherit_env {
            out.push("It also inherits Sonde's whole environment.".to_owned());
        }
        if !self.loaders.is_empty() {
            out.push("Loader variables, which change what code runs:".to_owned());
            out.extend(self.loaders.iter().map(|(k, v)| format!("    {k}={v}")));
        }
        if !self.changes.is_empty() {
            out.push("Changed since it last ran:".to_owned());
            out.extend(self.changes.iter().map(|c| format!("    {c}")));
        }
        out.join("\n")
    }
}

impl LaunchReview {
    /// The review in a line or two, for a list of several (an import's confirmation, which must
    /// fit a screen with a dozen entries): `"name": command`, then what departs from the
    /// defaults (a working directory, environment keys, the whole environment) on one line, and
    /// every loader variable with its value on a line of its own, never left out.
    pub fn brief(&self) -> String {
        let mut out = vec![format!("\"{}\": {}", self.name, self.command)];
        let mut facts = Vec::new();
        if let Some(cwd) = &self.cwd {
            facts.push(format!("in {cwd}"));
        }
        if !self.env_keys.is_empty() {
            facts.push(format!("sets {} (values not shown)", self.env_keys.join(", ")));
        }
        if self.inherit_env {
            facts.push("inherits Sonde's whole environment".to_owned());
        }
        if !facts.is_empty() {
            out.push(format!("    {}", facts.join("; ")));
        }
        out.extend(self.loaders.iter().map(|(k, v)| format!("    loader: {k}={v}")));
        out.join("\n")
    }
}

/// What differs between two launches, in words.
fn changes(before: &Launch, now: &Launch) -> Vec<String> {
    let mut out = Vec::new();
    if before.command != now.command {
        out.push(format!("the command line (it was: {})", before.command));
    }
    if before.cwd != now.cwd {
        out.push(format!(
            "the working directory (it was: {})",
            before.cwd.as_deref().unwrap_or("Sonde's own")
        ));
    }
    if before.inherit_env != now.inherit_env {
        let was = if before.inherit_env { "inherited" } else { "did not inherit" };
        out.push(format!("inheriting Sonde's environment (it {was})"));
    }
    for (key, value) in &now.env {
        match before.env.get(key) {
            None => out.push(format!("{key} is new")),
            Some(old) if old != value => out.push(format!("{key} has a new value")),
            Some(_) => {}
        }
    }
    out.extend(before.env.keys().filter(|k| !now.env.contains_key(*k)).map(|k| format!("{k} was removed")));
    out
}

/// The last approved launch of every saved server, by id, kept in a private file.
pub struct Launches {
    path: PathBuf,
    approved: Mutex<BTreeMap<String, Launch>>,
}

impl Launches {
    /// The record at `path`. A missing or unreadable file approves nothing: every launch is
    /// asked about again, which is the safe way to be wrong.
    pub fn at(path: impl Into<PathBuf>) -> Launches {
        let path = path.into();
        let approved =
            std::fs::read(&path).ok().and_then(|b| serde_json::from_slice(&b).ok()).unwrap_or_default();
        Launches { path, approved: Mutex::new(approved) }
    }

    /// What to show before `server` runs, or `None` when its launch is the one last approved
    /// (or it is an HTTP server, which runs nothing here).
    pub fn review(&self, server: &SavedServer) -> Option<LaunchReview> {
        let now = Launch::of(server)?;
        let approved = self.approved.locked();
        let before = approved.get(&server.id);
        (before != Some(&now)).then(|| LaunchReview::of(server, before, &now))
    }

    /// Records `server`'s launch as approved: it runs without asking until it changes.
    pub fn approve(&self, server: &SavedServer) -> io::Result<()> {
        let Some(now) = Launch::of(server) else { return Ok(()) };
        let mut approved = self.approved.locked();
        let mut next = approved.clone();
        next.insert(server.id.clone(), now);
        crate::files::write_json(&self.path, &next)?;
        *approved = next;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::saved::servers::EnvVar;

    fn server(command: &str, env: &[(&str, &str)]) -> SavedServer {
        SavedServer {
            id: "s1".into(),
            command: command.into(),
            env: env.iter().map(|(k, v)| EnvVar { key: (*k).into(), value: (*v).into() }).collect(),
            ..SavedServer::blank("Weather")
        }
    }

    fn launches(name: &str) -> (PathBuf, Launches) {
        let dir = std::env::temp_dir().join(format!("sonde-launches-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let path = dir.join("launches.json");
        (path.clone(), Launches::at(path))
    }

    #[test]
    fn a_first_launch_is_reviewed_with_loaders_called_out_and_then_runs_without_asking() {
        let (path, launches) = launches("first");
        let s = server(
            "node weather.js",
            &[("API_KEY", "sk-secret-value"), ("NODE_OPTIONS", "--require /tmp/x.js")],
        );
        let review = launches.review(&s).expect("never ran: asked");
        assert!(review.first);
        assert_eq!(review.env_keys, ["API_KEY", "NODE_OPTIONS"]);
        assert_eq!(review.loaders, [("NODE_OPTIONS".to_owned(), "--require /tmp/x.js".to_owned())]);
        let text = review.text();
        assert!(
            text.contains("Command: node weather.js") && text.contains("NODE_OPTIONS=--require /tmp/x.js")
        );
        assert!(!text.contains("sk-secret-value"), "values other than loaders' are not shown: {text}");
        assert_eq!(
            review.brief(),
            "\"Weather\": node weather.js\n    sets API_KEY, NODE_OPTIONS (values not shown)\n    loader: NODE_OPTIONS=--require /tmp/x.js"
        );

        launches.approve(&s).unwrap();
        assert_eq!(launches.review(&s), None);
        let stored = std::fs::read_to_string(&path).unwrap();
        assert!(!stored.contains("sk-secret-value"), "no value is stored, only its hash: {stored}");
        assert_eq!(Launches::at(&path).review(&s), None, "the approval outlives the process");
    }

    #[test]
    fn a_changed_launch_says_what_changed() {
        let (_, launches) = launches("changed");
        let before = server("node weather.js", &[("API_KEY", "a"), ("OLD", "1")]);
        launches.approve(&before).unwrap();
        let mut now = server("node weather.js --debug", &[("API_KEY", "b"), ("LD_PRELOAD", "/tmp/evil.so")]);
        now.cwd = Some("/srv".into());
        let review = launches.review(&now).expect("changed: asked");
        assert!(!review.first);
        assert_eq!(
            review.changes,
            [
                "the command line (it was: node weather.js)",
                "the working directory (it was: Sonde's own)",
                "API_KEY has a new value",
                "LD_PRELOAD is new",
                "OLD was removed",
            ]
        );
        assert_eq!(review.loaders, [("LD_PRELOAD".to_owned(), "/tmp/evil.so".to_owned())]);
    }

    #[test]
    fn an_http_server_runs_nothing_and_is_never_reviewed() {
        let (_, launches) = launches("http");
        let mut s = server("", &[]);
        s.url = Some("http://127.0.0.1:1/mcp".into());
        assert_eq!(launches.review(&s), None);
    }

    #[test]
    fn loader_variables_are_known_by_name_and_prefix() {
        assert!(is_loader("LD_PRELOAD") && is_loader("DYLD_INSERT_LIBRARIES") && is_loader("PYTHONSTARTUP"));
        assert!(!is_loader("API_KEY") && !is_loader("LD_PRELOADX"));
    }
}
