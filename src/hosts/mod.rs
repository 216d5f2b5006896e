//! Host profiles: how the applications that run MCP servers (Claude Desktop, Claude Code,
//! ChatGPT, VS Code, Cursor) connect to a server, what they show of it, and what they refuse.
//! Each profile is a data file (`profiles/NAME.json`) citing its sources with the date read;
//! a limit that could not be confirmed says so, and its check warns rather than fails.
//!
//! Owns: reading the profiles ([`profiles`], [`profile`]), each tool judged against a host's
//! limits ([`verdicts`]), a check-up's host checks ([`checks`]), and connecting as a host does
//! (`responder`: its `clientInfo`, capabilities, protocol version and HTTP headers), and a
//! tool's result held to the size the host takes ([`result_size`], on every `tools/call` reply
//! of a connection made as the host). Refuses: rules every host shares (the diagnostics' and
//! the check-up's own) and guessing a limit no source gives.

mod responder;

pub use responder::AsHost;

use std::collections::BTreeMap;
use std::sync::OnceLock;

use regex::Regex;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::diagnose::{Finding, Severity};
use crate::transport::Header;

/// Bytes of JSON a token holds, on average, in the tokenizers of the models hosts use: an
/// estimate, said as one wherever it is shown.
pub const BYTES_PER_TOKEN: u64 = 4;

/// The tokens `value`'s compact JSON is estimated at, with its bytes.
pub fn estimated_tokens(value: &Value) -> (u64, u64) {
    let bytes = serde_json::to_string(value).map_or(0, |s| s.len()) as u64;
    (bytes, bytes.div_ceil(BYTES_PER_TOKEN))
}

/// Every profile file, by name: adding a host is adding its file here (a test reads the folder
/// and fails on a file not listed).
const FILES: &[(&str, &str)] = &[
    ("chatgpt", include_str!("profiles/chatgpt.json")),
    ("claude-code", include_str!("profiles/claude-code.json")),
    ("claude-desktop", include_str!("profiles/claude-desktop.json")),
    ("cursor", include_str!("profiles/cursor.json")),
    ("vscode", include_str!("profiles/vscode.json")),
];

/// One host, as its profile file describes it.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HostProfile {
    /// The name `--host` takes (`chatgpt`).
    pub name: String,
    /// The name people know it by (`ChatGPT`).
    pub title: String,
    /// What it sends when it connects.
    pub connects: Connects,
    /// What of a server it shows its user or its model.
    pub shows: Shows,
    /// What it refuses.
    pub limits: Limits,
    /// Where each fact comes from, with the date read; a fact names its source by index.
    pub sources: Vec<Source>,
}

#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Connects {
    #[serde(rename = "clientInfo")]
    pub client_info: Value,
    #[serde(rename = "protocolVersion")]
    pub protocol_version: String,
    /// The client capabilities it declares (Sonde declares only those it can answer too).
    pub capabilities: Value,
    /// The HTTP headers it sends with each request (`User-Agent`), where a source gives them.
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    /// The sources of the above.
    pub source: Vec<usize>,
    pub confirmed: bool,
}

#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Shows {
    pub tools: bool,
    pub resources: bool,
    pub prompts: bool,
    /// MCP Apps (`ui://` resources drawn in the conversation).
    pub apps: bool,
    pub source: Vec<usize>,
    pub confirmed: bool,
}

#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Limits {
    /// The pattern a tool's name must match, as the host (or its model API) reads it.
    #[serde(rename = "toolName", default)]
    pub tool_name: Option<Limit<String>>,
    /// The name the host gives a tool, its server's name in it, and the longest it takes.
    #[serde(rename = "qualifiedName", default)]
    pub qualified_name: Option<Limit<QualifiedName>>,
    /// The most tools it offers its model from all servers together.
    #[serde(rename = "toolCount", default)]
    pub tool_count: Option<Limit<usize>>,
    /// JSON Schema keywords its model API refuses in a tool's input schema.
    #[serde(rename = "schemaKeywords", default)]
    pub schema_keywords: Option<Limit<Vec<String>>>,
    /// How much of a tool's result it takes.
    #[serde(rename = "resultSize", default)]
    pub result_size: Option<Limit<ResultSize>>,
}

/// How much of a tool's result a host takes, in tokens as it counts them, and what it does
/// past that (`past`: refuses it, saves it to a file…).
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ResultSize {
    pub tokens: u64,
    /// Past this many it warns its user.
    pub warn_tokens: Option<u64>,
    /// What it does with a larger result, and how a server or a person raises the limit.
    pub past: String,
}

/// The name a host gives a tool: `form` with `{server}` and `{tool}` in it
/// (`mcp__{server}__{tool}`), at most `max` characters.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QualifiedName {
    pub form: String,
    pub max: usize,
}

/// One limit, where it comes from, and whether that source was seen to say it.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Limit<T> {
    pub value: T,
    pub source: Vec<usize>,
    /// `false`: reported, not confirmed in a source; its check warns rather than fails.
    pub confirmed: bool,
}

#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Source {
    pub what: String,
    #[serde(rename = "where")]
    pub at: String,
    /// The day it was read (`2026-12-07`).
    pub read: String,
}

/// Every host profile, by name.
pub fn profiles() -> &'static [HostProfile] {
    static READ: OnceLock<Vec<HostProfile>> = OnceLock::new();
    READ.get_or_init(|| {
        FILES
            .iter()
            .map(|(name, text)| {
                let profile: HostProfile =
                    serde_json::from_str(text).unwrap_or_else(|e| panic!("profiles/{name}.json: {e}"));
                assert_eq!(&profile.name, name, "profiles/{name}.json names another host");
                profile
            })
            .collect()
    })
}

/// A host name no profile has: the words list the names there are.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("no host profile {name:?}; the hosts are {}", known.join(", "))]
pub struct UnknownHost {
    pub name: String,
    pub known: Vec<String>,
}

impl UnknownHost {
    /// A name given by the person: `bad_input`.
    pub fn code(&self) -> crate::error_code::ErrorCode {
        crate::error_code::ErrorCode::BadInput
    }
}

impl HostProfile {
    /// `headers` with the host's own added, where the person gave no header of that name.
    pub fn headers_onto(&self, headers: &mut Vec<Header>) {
        for (name, value) in &self.connects.headers {
            if !headers.iter().any(|h| h.name.eq_ignore_ascii_case(name)) {
                headers.push(Header { name: name.clone(), value: value.clone(), secret: false });
            }
        }
    }
}

/// The profile `--host NAME` names.
pub fn profile(name: &str) -> Result<&'static HostProfile, UnknownHost> {
    profiles().iter().find(|p| p.name == name).ok_or_else(|| UnknownHost {
        name: name.to_owned(),
        known: profiles().iter().map(|p| p.name.clone()).collect(),
    })
}

/// How a host takes one tool: `Ok`, or each reason it refuses or may refuse it, with whether
/// that reason is confirmed.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolVerdict {
    pub tool: String,
    /// Empty: the host takes it.
    pub refused: Vec<Refusal>,
}

#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Refusal {
    /// Which limit: `name`, `qualified name`, `tool count` or `schema keywords`.
    pub limit: String,
    pub why: String,
    pub confirmed: bool,
}

/// Each listed tool against `host`'s limits, in the order listed, the server known to the host
/// as `server`; a tool past the host's tool count is refused for it (the host drops it, or
/// refuses the server).
pub fn verdicts(host: &HostProfile, tools: &[Value], server: &str) -> Vec<ToolVerdict> {
    let pattern = host.limits.tool_name.as_ref().and_then(|l| Regex::new(&l.value).ok().map(|r| (r, l)));
    tools
        .iter()
        .enumerate()
        .map(|(i, tool)| {
            let name = tool.get("name").and_then(Value::as_str).unwrap_or("?");
            let mut refused = Vec::new();
            if let Some((regex, limit)) = &pattern {
                if !regex.is_match(name) {
                    refused.push(Refusal {
                        limit: "name".into(),
                        why: format!("{} accepts tool names matching {}", host.title, limit.value),
                        confirmed: limit.confirmed,
                    });
                }
            }
            if let Some(limit) = &host.limits.qualified_name {
                let named = limit.value.form.replace("{server}", server).replace("{tool}", name);
                if named.chars().count() > limit.value.max {
                    refused.push(Refusal {
                        limit: "qualified name".into(),
                        why: format!(
                            "{} names it {named} ({} characters), past the {} it takes",
                            host.title,
                            named.chars().count(),
                            limit.value.max
                        ),
                        confirmed: limit.confirmed,
                    });
                }
            }
            if let Some(limit) = &host.limits.tool_count {
                if i >= limit.value {
                    refused.push(Refusal {
                        limit: "tool count".into(),
                        why: format!(
                            "{} offers its model at most {} tools; this is tool {}",
                            host.title,
                            limit.value,
                            i + 1
                        ),
                        confirmed: limit.confirmed,
                    });
                }
            }
            if let Some(limit) = &host.limits.schema_keywords {
                let used = keywords_used(tool.get("inputSchema").unwrap_or(&Value::Null), &limit.value);
                if !used.is_empty() {
                    refused.push(Refusal {
                        limit: "schema keywords".into(),
                        why: format!(
                            "{} refuses the schema keyword{} {}",
                            host.title,
                            if used.len() == 1 { "" } else { "s" },
                            used.join(", ")
                        ),
                        confirmed: limit.confirmed,
                    });
                }
            }
            ToolVerdict { tool: name.to_owned(), refused }
        })
        .collect()
}

/// What `capabilities` (a server's) declare that `host` does not show: `resources`, `prompts`.
pub fn hidden(host: &HostProfile, capabilities: &Value) -> Vec<String> {
    [("resources", host.shows.resources), ("prompts", host.shows.prompts)]
        .into_iter()
        .filter(|(capability, shown)| !shown && capabilities.get(*capability).is_some())
        .map(|(capability, _)| capability.to_owned())
        .collect()
}

/// One host beside a server: each listed tool's verdict, what the host does not show, and the
/// tools of other servers it would give one of this server's tools' name.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HostView {
    pub name: String,
    pub title: String,
    pub tools: Vec<ToolVerdict>,
    pub hidden: Vec<String>,
    /// Whether what it shows is confirmed by a source.
    pub shows_confirmed: bool,
    pub shadowed: Vec<String>,
}

/// A server as hosts meet it: the name a host knows it by, and its listed tools.
pub struct Served<'a> {
    pub server: &'a str,
    pub tools: &'a [Value],
}

/// Every host beside `this` server (its `capabilities`), with `others` connected beside it.
pub fn table(this: &Served<'_>, capabilities: &Value, others: &[Served<'_>]) -> Vec<HostView> {
    profiles()
        .iter()
        .map(|host| HostView {
            name: host.name.clone(),
            title: host.title.clone(),
            tools: verdicts(host, this.tools, this.server),
            hidden: hidden(host, capabilities),
            shows_confirmed: host.shows.confirmed,
            shadowed: shadowed(host, this, others),
        })
        .collect()
}

/// Tools of `others` that `host` names as it names one of `this` server's, once the names it
/// gives them are folded (lowercase, every other character `_`, as hosts sanitise names): one
/// shadows the other. Only a host whose naming a source gives (its qualified name) is judged.
pub fn shadowed(host: &HostProfile, this: &Served<'_>, others: &[Served<'_>]) -> Vec<String> {
    let Some(limit) = &host.limits.qualified_name else { return Vec::new() };
    let named = |server: &str, tool: &Value| {
        let tool = tool.get("name").and_then(Value::as_str).unwrap_or("?");
        let given = limit.value.form.replace("{server}", server).replace("{tool}", tool);
        let folded: String = given
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '_' })
            .collect();
        (tool.to_owned(), given, folded)
    };
    let mut said = Vec::new();
    for tool in this.tools {
        let (name, given, folded) = named(this.server, tool);
        for other in others {
            for theirs in other.tools {
                let (their_name, their_given, their_folded) = named(other.server, theirs);
                if folded == their_folded {
                    let unconfirmed = if limit.confirmed { "" } else { " (unconfirmed)" };
                    said.push(format!(
                        "{name} here ({given}) and {their_name} of {} ({their_given}) are one name to {}{unconfirmed}",
                        other.server, host.title
                    ));
                }
            }
        }
    }
    said
}

/// A `tools/call` result held to the size `host` takes: a warning past its limit, a note past
/// the size it warns at. The tokens are estimated from the result's `content` as JSON.
pub fn result_size(host: &HostProfile, result: &Value) -> Vec<Finding> {
    let Some(limit) = &host.limits.result_size else { return Vec::new() };
    let (_, tokens) = estimated_tokens(result.get("content").unwrap_or(&Value::Null));
    let size = &limit.value;
    let unconfirmed = if limit.confirmed { "" } else { " (unconfirmed)" };
    let estimate = format!("~{tokens} tokens (estimated at {BYTES_PER_TOKEN} bytes a token)");
    let (severity, said) = if tokens > size.tokens {
        let past = &size.past;
        (
            Severity::Warning,
            format!(
                "this result is {estimate}, past the {} {} takes{unconfirmed}: {past}",
                size.tokens, host.title
            ),
        )
    } else if size.warn_tokens.is_some_and(|warn| tokens > warn) {
        let warn = size.warn_tokens.unwrap_or_default();
        (
            Severity::Note,
            format!("this result is {estimate}: {} warns its user past {warn}{unconfirmed}", host.title),
        )
    } else {
        return Vec::new();
    };
    vec![Finding::new(
        "host-result-size",
        severity,
        format!("{said}; page or trim what the tool returns"),
        &format!("{}'s limits (sonde doctor --host {})", host.title, host.name),
    )]
}

/// The keywords of `refused` that `schema` uses, at any depth, each once, as found.
fn keywords_used(schema: &Value, refused: &[String]) -> Vec<String> {
    let mut used = Vec::new();
    fn walk(node: &Value, refused: &[String], used: &mut Vec<String>) {
        match node {
            Value::Object(map) => {
                for (key, value) in map {
                    if refused.contains(key) && !used.contains(key) {
                        used.push(key.clone());
                    }
                    // A property's name is not a keyword.
                    if key == "properties" {
                        value.as_object().into_iter().flatten().for_each(|(_, v)| walk(v, refused, used));
                    } else {
                        walk(value, refused, used);
                    }
                }
            }
            Value::Array(items) => items.iter().for_each(|v| walk(v, refused, used)),
            _ => {}
        }
    }
    walk(schema, refused, &mut used);
    used
}

#[cfg(test)]
mod tests;
