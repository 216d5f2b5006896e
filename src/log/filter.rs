//! Filters over the wire log, and the one expression language the CLI and the UI type them in.
//!
//! The grammar: whitespace-separated terms, all of which must hold.
//! - `kind:K[,K…]`: any of these kinds; several `kind:` terms add up.
//! - `hide:K[,K…]`: none of these kinds (the View menu's Show toggles write it); several add up.
//! - `dir:D`: `in`, `out` or `meta` (also `<` `>` `*`, `received`, `sent`).
//! - `conn:N`: one connection.
//! - `method:M`: the JSON-RPC method of a message, or of the request a reply answers.
//! - `id:I`: the id as JSON text: `id:3` is the number 3 or the string "3", `id:"3"` only the string.
//! - `diag:S`: entries with a protocol finding (`diagnose`) at least this severe: `error`,
//!   `warning`, `note`, or `any`; or with a finding of one rule, by the name rows show
//!   (`diag:stdout-not-protocol`, any of [`crate::diagnose::DIAGNOSTIC_RULES`]). A later `diag` term
//!   replaces an earlier one.
//!
//! Keys are case-insensitive, and so are the values of `kind`, `dir`, `method` and `diag`
//! (`DIR:OUT`, `method:Tools/Call`); an id is the server's data and is matched as written. A later `dir`, `conn`, `method` or `id` term replaces an earlier
//! one. A `word:value` whose word is letters only and not one of the keys is an error that lists
//! them (a typo must not quietly become text); text with such a colon goes in double quotes,
//! which also group words (`"Error: not found"`). Every other word is free text: the words
//! joined by single spaces make one phrase, found case-insensitively in an entry's recorded
//! bytes (decoded lossily when they are not UTF-8) or in its detail. The phrase is searched in
//! each of them on its own, never across the two.
//!
//! Owns: `Filter`, its parsing, matching against an index row (cheap) or a whole entry (for free
//! text), and `FilterView`, what the UI shows of an expression (its chips, each with the
//! expression that removes it, or what is wrong), so the UI never parses; `FilterError`, what is
//! wrong with an expression, each a usage error (`bad_input`).
//! Refuses: regular expressions and boolean algebra; a filter is a conjunction of terms.

use serde::Serialize;

use super::entry::{Direction, Entry, Kind};
use crate::diagnose::{Severity, DIAGNOSTIC_RULES};
use crate::error_code::ErrorCode;

/// What is wrong with a filter expression, in the words the person reads.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FilterError {
    /// A quote opened and never closed (only in an expression given whole).
    #[error("the quote of {0} is not closed; end the text with \"")]
    OpenQuote(String),
    /// A `word:value` whose word looks like a key but is none.
    #[error("unknown key {0:?}; keys are {keys} (put text with a colon in double quotes)", keys = key_words())]
    UnknownKey(String),
    #[error("unknown kind {0:?}; kinds are {kinds}", kinds = kind_names())]
    UnknownKind(String),
    #[error("unknown direction {0:?}; use in, out or meta")]
    UnknownDirection(String),
    /// The value of `conn:` is not a number.
    #[error("conn:{0} is not a number")]
    NotANumber(String),
    /// A term (as typed) whose key needs a value and has none.
    #[error("{0} needs a value")]
    NoValue(String),
    #[error("unknown severity or rule {0:?}; use error, warning, note, any or a rule: {rules}", rules = DIAGNOSTIC_RULES.join(", "))]
    UnknownSeverity(String),
}

impl FilterError {
    /// Every filter error is the person's expression: a usage error.
    pub fn code(&self) -> ErrorCode {
        ErrorCode::BadInput
    }
}

/// A conjunction of conditions; an empty filter matches everything.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Filter {
    /// Any of these kinds (empty: any kind).
    pub kinds: Vec<Kind>,
    /// None of these kinds.
    pub hidden: Vec<Kind>,
    pub dir: Option<Direction>,
    pub conn: Option<u64>,
    /// The JSON-RPC method of a message, or of the request a reply answers.
    pub method: Option<String>,
    /// The id as JSON text (`3` or `"3"`); a bare word also matches a string id of that text.
    pub id: Option<String>,
    /// What a request names (its tool, prompt or resource), or its reply's request.
    pub target: Option<String>,
    /// Case-insensitive text searched in the recorded bytes and the detail.
    pub text: Option<String>,
    /// Entries with a finding at least this severe (`diag:warning` finds errors too).
    pub diag: Option<Severity>,
    /// Entries with a finding of this rule (`diag:batch`).
    pub rule: Option<String>,
}

/// What the index keeps of an entry, so most filters never read the file.
#[derive(Debug, Clone)]
pub struct IndexRow {
    pub offset: u64,
    pub len: u64,
    /// When it was recorded, in ms after the session started (the timeline draws from it).
    pub ms: f64,
    pub conn: u64,
    pub kind: Kind,
    pub dir: Direction,
    pub method: Option<std::sync::Arc<str>>,
    pub id: Option<Box<str>>,
    /// What a request or its reply names (a tool, prompt or resource), shared like `method`.
    pub target: Option<std::sync::Arc<str>>,
    /// The seq of the request this entry answers (a reply, a progress update).
    pub answers: Option<u64>,
    /// What kind of JSON-RPC message it is, for a message.
    pub rpc: Option<Rpc>,
    /// The id of the request that began the operation this request continues.
    pub part_of: Option<Box<str>>,
    /// How a note that settles a request says it ended.
    pub ends: Option<super::entry::RequestOutcome>,
    /// A result that says `isError: true`.
    pub is_error: bool,
    /// The most severe of the entry's findings.
    pub diag: Option<Severity>,
    /// Its bytes are kept as base64 (they are not UTF-8): a search of the raw line cannot see
    /// their text, so a free-text scan decodes every such entry.
    pub base64: bool,
}

/// The four kinds of JSON-RPC message, as an entry's summary names them (`type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rpc {
    Request,
    Notification,
    Result,
    Error,
}

impl Rpc {
    pub fn of(summary_type: &str) -> Option<Rpc> {
        match summary_type {
            "request" => Some(Rpc::Request),
            "notification" => Some(Rpc::Notification),
            "result" => Some(Rpc::Result),
            "error" => Some(Rpc::Error),
            _ => None,
        }
    }
}

/// The condition a term sets. Removing a chip removes every term of its key.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FilterKey {
    Kind,
    Hide,
    Dir,
    Conn,
    Method,
    Id,
    Target,
    Diag,
    Text,
}

/// A key as a person types it, what it selects, and an example: the one table parsing, its
/// errors and the guide's reference (`sonde reference`) are made from.
pub struct KeyDoc {
    pub key: FilterKey,
    /// The word before the colon; `None` for free text, which has none.
    pub word: Option<&'static str>,
    pub selects: &'static str,
    pub example: &'static str,
}

/// Every key, in the order the reference lists them.
pub const KEYS: [KeyDoc; 9] = [
    KeyDoc {
        key: FilterKey::Kind,
        word: Some("kind"),
        selects: "entries of any of these kinds (comma-separated); several `kind:` terms add up",
        example: "kind:stderr,lifecycle",
    },
    KeyDoc {
        key: FilterKey::Hide,
        word: Some("hide"),
        selects: "entries of none of these kinds (the View menu's Show toggles write it); several add up",
        example: "hide:http",
    },
    KeyDoc {
        key: FilterKey::Dir,
        word: Some("dir"),
        selects: "one direction: `in`, `out` or `meta` (also `<` `>` `*`, `received`, `sent`)",
        example: "dir:in",
    },
    KeyDoc { key: FilterKey::Conn, word: Some("conn"), selects: "one connection, by its number", example: "conn:2" },
    KeyDoc {
        key: FilterKey::Method,
        word: Some("method"),
        selects: "the JSON-RPC method of a message, or of the request a reply answers",
        example: "method:tools/call",
    },
    KeyDoc {
        key: FilterKey::Id,
        word: Some("id"),
        selects: "the id as JSON text: `id:3` is the number 3 or the string \"3\", `id:\"3\"` only the string",
        example: "id:7",
    },
    KeyDoc {
        key: FilterKey::Target,
        word: Some("target"),
        selects: "what a request names (a tool or prompt by name, a resource by URI), and the replies to it; in double quotes when it has a space",
        example: "target:get_weather",
    },
    KeyDoc {
        key: FilterKey::Diag,
        word: Some("diag"),
        selects: "entries with a protocol finding at least this severe (`error`, `warning`, `note`, `any`), or with a finding of one rule",
        example: "diag:warning",
    },
    KeyDoc {
        key: FilterKey::Text,
        word: None,
        selects: "every other word: the words make one phrase, found case-insensitively in an entry's bytes or in its detail; double quotes group words and keep a colon",
        example: "\"Error: not found\"",
    },
];

impl FilterKey {
    /// The key a term sets and its value; a word with no known key is all text.
    fn of(term: &str) -> (FilterKey, &str) {
        if let Some(quoted) = term.strip_prefix('"') {
            return (FilterKey::Text, quoted.strip_suffix('"').unwrap_or(quoted));
        }
        let Some((word, value)) = term.split_once(':') else {
            return (FilterKey::Text, term);
        };
        match KEYS.iter().find(|k| k.word.is_some_and(|w| w.eq_ignore_ascii_case(word))) {
            Some(k) => (k.key, value),
            None => (FilterKey::Text, term),
        }
    }
}

/// The keys' words, for an error that lists them: "kind, hide, … and diag".
fn key_words() -> String {
    let words: Vec<&str> = KEYS.iter().filter_map(|k| k.word).collect();
    match words.split_last() {
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// What the UI shows of an expression: one chip per condition, or what is wrong with it.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FilterView {
    pub chips: Vec<FilterChip>,
    pub error: Option<String>,
}

/// One condition of a parsed filter, as the core understood it.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FilterChip {
    pub key: FilterKey,
    /// The value as the filter holds it: kinds joined by commas, `in`/`out`/`meta`, the text
    /// lowercased.
    pub value: String,
    /// The expression without this condition's terms, the others kept as they were typed.
    pub without: String,
}

impl FilterView {
    pub fn of(expr: &str) -> FilterView {
        match Filter::parse(expr) {
            Err(error) => FilterView { chips: Vec::new(), error: Some(error.to_string()) },
            Ok(filter) => FilterView {
                chips: filter
                    .conditions()
                    .into_iter()
                    .map(|(key, value)| FilterChip { key, value, without: without(expr, key) })
                    .collect(),
                error: None,
            },
        }
    }
}

/// `expr` with every term of `key` removed.
fn without(expr: &str, key: FilterKey) -> String {
    let kept: Vec<&str> = terms(expr).into_iter().filter(|term| FilterKey::of(term).0 != key).collect();
    kept.join(" ")
}

/// The terms of an expression: split on whitespace, except that a term starting with a double
/// quote runs to the next one (or to the end), quotes included.
fn terms(expr: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = expr.trim_start();
    while !rest.is_empty() {
        // A quoted value after a key (`target:"a b"`) runs to its closing quote too.
        let quoted_from = match rest.find(':') {
            Some(colon)
                if rest[colon + 1..].starts_with('"') && !rest[..colon].contains(char::is_whitespace) =>
            {
                Some(colon + 1)
            }
            _ => None,
        };
        let end = if let Some(inner) = rest.strip_prefix('"') {
            inner.find('"').map_or(rest.len(), |i| i + 2)
        } else if let Some(open) = quoted_from {
            rest[open + 1..].find('"').map_or(rest.len(), |i| open + i + 2)
        } else {
            rest.find(char::is_whitespace).unwrap_or(rest.len())
        };
        out.push(&rest[..end]);
        rest = rest[end..].trim_start();
    }
    out
}

/// The kinds a `kind:` or `hide:` value lists, in any case.
fn kinds(value: &str) -> Result<Vec<Kind>, FilterError> {
    value
        .split(',')
        .map(|k| Kind::parse(&k.to_ascii_lowercase()).ok_or_else(|| FilterError::UnknownKind(k.to_owned())))
        .collect()
}

/// The kinds' names, for an error that lists them.
fn kind_names() -> String {
    Kind::ALL.iter().map(|k| k.name()).collect::<Vec<_>>().join(", ")
}

/// The word of a `word:value` term that looks like a key but is none of them.
fn unknown_key(term: &str) -> Option<&str> {
    let (word, value) = term.split_once(':')?;
    let looks_like_a_key = !word.is_empty() && word.bytes().all(|b| b.is_ascii_alphabetic());
    (looks_like_a_key && !value.is_empty() && !value.starts_with('/')).then_some(word)
}

impl Filter {
    /// [`Filter::parse`] for an expression given whole (the CLI's `--filter`), where a quote
    /// left open is a mistake to say; the window's box takes it while the person types on.
    pub fn parse_whole(expr: &str) -> Result<Filter, FilterError> {
        if let Some(open) =
            terms(expr).into_iter().find(|t| t.starts_with('"') && (t.len() == 1 || !t.ends_with('"')))
        {
            return Err(FilterError::OpenQuote(open.to_owned()));
        }
        Filter::parse(expr)
    }

    /// Parses an expression in the grammar of the module doc, or says what is wrong with it.
    pub fn parse(expr: &str) -> Result<Filter, FilterError> {
        let mut f = Filter::default();
        let mut words = Vec::new();
        for term in terms(expr) {
            let (key, value) = FilterKey::of(term);
            if let (FilterKey::Text, false, Some(word)) = (key, term.starts_with('"'), unknown_key(term)) {
                return Err(FilterError::UnknownKey(word.to_owned()));
            }
            match key {
                FilterKey::Kind => f.kinds.extend(kinds(value)?),
                FilterKey::Hide => f.hidden.extend(kinds(value)?),
                FilterKey::Dir => {
                    f.dir = Some(
                        Direction::parse(&value.to_ascii_lowercase())
                            .ok_or_else(|| FilterError::UnknownDirection(value.to_owned()))?,
                    )
                }
                FilterKey::Conn => {
                    f.conn = Some(value.parse().map_err(|_| FilterError::NotANumber(value.to_owned()))?)
                }
                FilterKey::Method => f.method = Some(non_empty(term, value)?),
                FilterKey::Id => f.id = Some(non_empty(term, value)?),
                FilterKey::Target => {
                    let unquoted = value.strip_prefix('"').map(|v| v.strip_suffix('"').unwrap_or(v));
                    f.target = Some(non_empty(term, unquoted.unwrap_or(value))?)
                }
                FilterKey::Diag => {
                    let v = value.to_ascii_lowercase();
                    (f.diag, f.rule) = match v.as_str() {
                        "any" => (Some(Severity::Note), None),
                        v if DIAGNOSTIC_RULES.contains(&v) => (None, Some(v.to_owned())),
                        v => (
                            Some(
                                Severity::parse(v)
                                    .ok_or_else(|| FilterError::UnknownSeverity(value.to_owned()))?,
                            ),
                            None,
                        ),
                    }
                }
                FilterKey::Text => words.push(value),
            }
        }
        if !words.is_empty() {
            f.text = Some(words.join(" ").to_lowercase());
        }
        Ok(f)
    }

    /// Each condition with its value as text, in the order chips show them.
    fn conditions(&self) -> Vec<(FilterKey, String)> {
        let names = |kinds: &[Kind]| kinds.iter().map(|k| k.name()).collect::<Vec<_>>().join(",");
        let dir = self.dir.map(Direction::name);
        [
            (FilterKey::Kind, (!self.kinds.is_empty()).then(|| names(&self.kinds))),
            (FilterKey::Hide, (!self.hidden.is_empty()).then(|| names(&self.hidden))),
            (FilterKey::Dir, dir.map(str::to_owned)),
            (FilterKey::Conn, self.conn.map(|c| c.to_string())),
            (FilterKey::Method, self.method.clone()),
            (FilterKey::Id, self.id.clone()),
            (FilterKey::Target, self.target.clone()),
            (FilterKey::Diag, self.diag.map(|s| s.name().to_owned()).or_else(|| self.rule.clone())),
            (FilterKey::Text, self.text.clone()),
        ]
        .into_iter()
        .filter_map(|(key, value)| Some((key, value?)))
        .collect()
    }

    /// The filter written back in the grammar, one term per condition (`method:ping dir:in`).
    pub fn expression(&self) -> String {
        let terms: Vec<String> = self
            .conditions()
            .into_iter()
            .map(|(key, value)| match KEYS.iter().find(|k| k.key == key).and_then(|k| k.word) {
                Some(word) if value.contains(char::is_whitespace) => format!("{word}:\"{value}\""),
                Some(word) => format!("{word}:{value}"),
                None => format!("\"{value}\""),
            })
            .collect();
        terms.join(" ")
    }

    pub fn needs_entry(&self) -> bool {
        self.text.is_some() || self.rule.is_some()
    }

    /// Everything but the free text, decided from the index alone.
    pub fn matches_row(&self, row: &IndexRow) -> bool {
        (self.kinds.is_empty() || self.kinds.contains(&row.kind))
            && !self.hidden.contains(&row.kind)
            && self.dir.is_none_or(|d| d == row.dir)
            && self.conn.is_none_or(|c| c == row.conn)
            && self
                .method
                .as_deref()
                .is_none_or(|m| row.method.as_deref().is_some_and(|r| r.eq_ignore_ascii_case(m)))
            && self.id.as_deref().is_none_or(|id| row.id.as_deref().is_some_and(|r| id_matches(id, r)))
            && self
                .target
                .as_deref()
                .is_none_or(|t| row.target.as_deref().is_some_and(|r| r.eq_ignore_ascii_case(t)))
            && self.diag.is_none_or(|least| row.diag.is_some_and(|worst| worst >= least))
            && (self.rule.is_none() || row.diag.is_some())
    }

    /// What only a whole entry can decide: a finding's rule, and the free text. An ASCII
    /// needle is matched ignoring ASCII case only, as [`TextFinder`] finds it in the file; any
    /// other ignoring Unicode case.
    pub fn matches_entry(&self, entry: &Entry) -> bool {
        if let Some(rule) = &self.rule {
            if !entry.findings.iter().any(|f| f.rule == *rule) {
                return false;
            }
        }
        let Some(needle) = &self.text else {
            return true;
        };
        let found = |s: &str| {
            if needle.is_ascii() {
                s.to_ascii_lowercase().contains(needle.as_str())
            } else {
                s.to_lowercase().contains(needle.as_str())
            }
        };
        // Bytes that are not UTF-8 are kept as base64, whose letters mean nothing to a reader.
        let in_bytes = match &entry.text {
            Some(text) => found(text),
            None => entry.bytes().is_some_and(|b| found(&String::from_utf8_lossy(&b))),
        };
        in_bytes || entry.detail.as_deref().is_some_and(found)
    }
}

/// What finds the lines of a session file that may match a free-text filter without decoding
/// them: the needle as it stands in a recorded line made ASCII lower case first (a plain
/// substring search runs at memory speed, where one that ignores case does not). The lines
/// whose bytes only decoding can search are known by their rows ([`IndexRow::base64`]).
///
/// It is sound only for a needle that a line holds as it is: ASCII (no Unicode case folding)
/// without the characters JSON escapes (`"`, `\`, control characters). Every other needle is
/// searched entry by entry.
pub struct TextFinder {
    needle: memchr::memmem::Finder<'static>,
}

impl TextFinder {
    pub fn new(filter: &Filter) -> Option<TextFinder> {
        let needle = filter.text.as_deref()?;
        if !needle.bytes().all(|b| (0x20..0x7f).contains(&b) && b != b'"' && b != b'\\') {
            return None;
        }
        // The needle is lower case already (`parse` made it so).
        Some(TextFinder { needle: memchr::memmem::Finder::new(needle.as_bytes()).into_owned() })
    }

    /// Every place in `haystack` (lines made ASCII lower case) where a line may match, in no
    /// particular order.
    pub fn hits<'h>(&'h self, haystack: &'h [u8]) -> impl Iterator<Item = usize> + 'h {
        self.needle.find_iter(haystack)
    }
}

/// `method:` and `id:` with nothing after them would match nothing at all, silently.
fn non_empty(term: &str, value: &str) -> Result<String, FilterError> {
    if value.is_empty() {
        return Err(FilterError::NoValue(term.to_owned()));
    }
    Ok(value.to_owned())
}

fn id_matches(wanted: &str, recorded: &str) -> bool {
    wanted == recorded || recorded.strip_prefix('"').and_then(|r| r.strip_suffix('"')) == Some(wanted)
}

#[cfg(test)]
#[path = "filter_tests.rs"]
mod tests;
