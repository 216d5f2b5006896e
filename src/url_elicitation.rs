//! URL-mode elicitation, both eras: a server asks the person to open a link (`elicitation/create`
//! with `mode: "url"`; in 2025-11-25 also the `-32042` URLElicitationRequired error listing such
//! links in `data.elicitations`), and in 2025-11-25 says when the interaction ended with
//! `notifications/elicitation/complete {elicitationId}`.
//!
//! Owns: reading an elicitation for showing (the full URL as it would be opened, split around
//! its host so a front end can emphasise the host, and what is suspicious about it in words),
//! the rule of what may be opened (http and https only), reading `-32042`'s list, and which
//! elicitations still wait for their completion notification (unknown or already completed ids
//! are ignored, as the spec says).
//! Refuses: opening anything (a front end does, only when the person asks), fetching the URL or
//! anything about it (the spec forbids pre-fetching), and sending replies (the connection does).

use std::collections::HashSet;
use std::sync::Mutex;

use serde::Serialize;
use serde_json::Value;
use url::{Host, Position, Url};

use crate::error_code::ErrorCode;
use crate::sync::Lock;
use crate::wire::ErrorObject;

/// The error code of URLElicitationRequired (2025-11-25).
pub const URL_ELICITATION_REQUIRED: i64 = -32042;

/// A link a server asks the person to open.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UrlElicitation {
    /// Why the server asks, in its words.
    pub message: String,
    /// The URL exactly as the server sent it.
    pub url: String,
    /// Names the elicitation in `notifications/elicitation/complete` (2025-11-25; 2026-07-28 has
    /// none).
    pub elicitation_id: Option<String>,
    pub link: Link,
}

/// A URL read for showing: the whole of it in three parts, and whether it may be opened.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Link {
    /// Everything before the host (scheme, and any user name and password); the whole text when
    /// the URL has no host or does not parse.
    pub before: String,
    /// The host, as the browser will read it (lowercase; a non-ASCII name in punycode).
    pub host: String,
    /// Everything after the host: port, path, query, fragment.
    pub after: String,
    /// What opening it would open (`before + host + after`), or `None` when Sonde will not open
    /// it: it does not parse, or it is not http or https.
    pub opens: Option<String>,
    /// What is suspicious about it, each in a sentence; empty when nothing is.
    pub warnings: Vec<String>,
}

impl Link {
    /// Reads `text` as a URL to show and perhaps open.
    pub fn read(text: &str) -> Link {
        let url = match Url::parse(text) {
            Ok(url) => url,
            Err(e) => {
                return Link {
                    before: text.to_owned(),
                    host: String::new(),
                    after: String::new(),
                    opens: None,
                    warnings: vec![format!("This is not a valid URL ({e}); Sonde will not open it.")],
                }
            }
        };
        let mut warnings = Vec::new();
        let web = matches!(url.scheme(), "http" | "https");
        if !web {
            warnings.push(format!(
                "Sonde opens only http and https links; this one is {}:, which could start another \
                 program, so it is not opened.",
                url.scheme()
            ));
        }
        if !url.username().is_empty() || url.password().is_some() {
            warnings.push(
                "The link carries a user name or password before the host: a server must not send \
                 credentials in an elicitation URL, and the text before @ can pass for another host. \
                 The host is the emphasised part."
                    .into(),
            );
        }
        let host = url.host_str().unwrap_or_default().to_owned();
        if host.split('.').any(|label| label.starts_with("xn--")) {
            warnings.push(format!(
                "The host is an international name, shown in punycode ({host}): it may imitate \
                 another name with look-alike letters."
            ));
        }
        if url.scheme() == "http" && !is_loopback(&url) {
            warnings.push("The link is plain http: what is typed there travels unencrypted.".into());
        }
        let (before, after) = if url.host().is_some() {
            (url[..Position::BeforeHost].to_owned(), url[Position::AfterHost..].to_owned())
        } else {
            (url.as_str().to_owned(), String::new())
        };
        Link { before, host, after, opens: web.then(|| url.as_str().to_owned()), warnings }
    }
}

fn is_loopback(url: &Url) -> bool {
    match url.host() {
        Some(Host::Domain(name)) => name == "localhost" || name.ends_with(".localhost"),
        Some(Host::Ipv4(ip)) => ip.is_loopback(),
        Some(Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    }
}

/// What may be opened of `text`: the URL as it will be opened, or why not. The one rule every
/// front end follows before it hands a link to the system browser.
pub fn openable_link(text: &str) -> Result<String, NotOpened> {
    let link = Link::read(text);
    link.opens.ok_or(NotOpened { warnings: link.warnings })
}

/// A link Sonde does not open (not http or https, or not a URL); the words are every warning
/// about it.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{}", .warnings.join(" "))]
pub struct NotOpened {
    pub warnings: Vec<String>,
}

impl NotOpened {
    /// The stable code a front end shows with the message: the link cannot be used.
    pub fn code(&self) -> ErrorCode {
        ErrorCode::BadInput
    }
}

impl UrlElicitation {
    /// Reads the params of an `elicitation/create` (or one entry of `-32042`'s list). `None`
    /// when it is not URL mode (a form); `Err` in words when it is but cannot be shown.
    // Err is words on the server's request, shown with it: data, not a failure of Sonde's.
    pub fn from_params(params: Option<&Value>) -> Option<Result<UrlElicitation, String>> {
        let params = params?;
        if params.get("mode").and_then(Value::as_str) != Some("url") {
            return None;
        }
        let text = |key: &str| params.get(key).and_then(Value::as_str).map(str::to_owned);
        let Some(url) = text("url") else {
            return Some(Err("a URL-mode elicitation without a `url` string".into()));
        };
        Some(Ok(UrlElicitation {
            message: text("message").unwrap_or_default(),
            link: Link::read(&url),
            url,
            elicitation_id: text("elicitationId"),
        }))
    }
}

/// The links a `-32042` URLElicitationRequired error asks the person to open before the request
/// is sent again, and what is wrong with its list in words.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LinksRequired {
    pub elicitations: Vec<UrlElicitation>,
    pub problems: Vec<String>,
}

/// Reads `error` as URLElicitationRequired; `None` for any other error.
pub fn links_required(error: &ErrorObject) -> Option<LinksRequired> {
    if error.code != URL_ELICITATION_REQUIRED {
        return None;
    }
    let mut found = LinksRequired { elicitations: Vec::new(), problems: Vec::new() };
    let Some(list) = error.data.as_ref().and_then(|d| d.get("elicitations")).and_then(Value::as_array) else {
        found.problems.push("the error has no data.elicitations list, so there is nothing to open".into());
        return Some(found);
    };
    for (at, entry) in list.iter().enumerate() {
        let n = at + 1;
        match UrlElicitation::from_params(Some(entry)) {
            None => found.problems.push(format!("elicitation {n} is not URL mode; -32042 lists only links")),
            Some(Err(why)) => found.problems.push(format!("elicitation {n}: {why}")),
            Some(Ok(elicitation)) => {
                if elicitation.elicitation_id.is_none() {
                    found.problems.push(format!(
                        "elicitation {n} has no elicitationId, so its completion cannot be told"
                    ));
                }
                found.elicitations.push(elicitation);
            }
        }
    }
    Some(found)
}

/// The `elicitationId` a `notifications/elicitation/complete` names, if that is what it is.
pub fn completed_id<'a>(method: &str, params: Option<&'a Value>) -> Option<&'a str> {
    if method != "notifications/elicitation/complete" {
        return None;
    }
    params?.get("elicitationId")?.as_str()
}

/// The URL elicitations of each connection that wait for the server to say they are complete.
#[derive(Debug, Default)]
pub struct Awaiting {
    waiting: Mutex<HashSet<(u64, String)>>,
}

impl Awaiting {
    /// Connection `conn`'s elicitation `id` was shown to the person; its completion is awaited.
    pub fn expect(&self, conn: u64, id: &str) {
        self.waiting.locked().insert((conn, id.to_owned()));
    }

    /// The server said elicitation `id` is complete: true when it was awaited (it is not from
    /// now on), false for an id unknown or completed already, which the spec says to ignore.
    pub fn complete(&self, conn: u64, id: &str) -> bool {
        self.waiting.locked().remove(&(conn, id.to_owned()))
    }

    /// Connection `conn` ended: nothing of it is awaited any more.
    pub fn forget_connection(&self, conn: u64) {
        self.waiting.locked().retain(|(c, _)| *c != conn);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parts(link: &Link) -> (&str, &str, &str) {
        (&link.before, &link.host, &link.after)
    }

    #[test]
    fn a_plain_https_link_is_split_around_its_host_and_opens_as_sent() {
        let link = Link::read("https://mcp.example.com/ui/set_api_key?x=1#top");
        assert_eq!(parts(&link), ("https://", "mcp.example.com", "/ui/set_api_key?x=1#top"));
        assert_eq!(link.opens.as_deref(), Some("https://mcp.example.com/ui/set_api_key?x=1#top"));
        assert!(link.warnings.is_empty(), "{:?}", link.warnings);
        let ported = Link::read("http://localhost:8080/cb");
        assert_eq!(parts(&ported), ("http://", "localhost", ":8080/cb"));
        assert!(
            ported.warnings.is_empty(),
            "loopback http is development, not a risk: {:?}",
            ported.warnings
        );
    }

    #[test]
    fn credentials_before_the_host_are_warned_about_and_the_real_host_is_the_emphasised_one() {
        let link = Link::read("https://accounts.google.com:pw@evil.example/login");
        assert_eq!(parts(&link), ("https://accounts.google.com:pw@", "evil.example", "/login"));
        assert_eq!(link.warnings.len(), 1, "{:?}", link.warnings);
        assert!(link.warnings[0].contains("user name or password"), "{}", link.warnings[0]);
        assert!(link.opens.is_some(), "a warning, not a refusal: the person decides");
    }

    #[test]
    fn links_that_are_not_http_or_https_or_do_not_parse_are_never_opened() {
        for text in ["file:///etc/passwd", "javascript:alert(1)", "ssh://host/x"] {
            let link = Link::read(text);
            assert_eq!(link.opens, None, "{text}");
            assert!(link.warnings[0].starts_with("Sonde opens only http and https links"), "{text}");
            let refused = openable_link(text).unwrap_err();
            assert_eq!(refused.to_string(), link.warnings.join(" "), "{text}");
            assert!(refused.to_string().contains("not opened"), "{text}");
        }
        let script = Link::read("javascript:alert(1)");
        assert_eq!(parts(&script), ("javascript:alert(1)", "", ""), "no host: all of it before");
        let broken = Link::read("not a url");
        assert_eq!((broken.before.as_str(), broken.opens.as_ref()), ("not a url", None));
        assert!(broken.warnings[0].starts_with("This is not a valid URL"), "{:?}", broken.warnings);
        assert_eq!(openable_link("HTTPS://Example.COM/a").unwrap(), "https://example.com/a");
    }

    #[test]
    fn international_hosts_are_shown_in_punycode_with_a_warning_and_plain_http_is_flagged() {
        // "exаmple.com" with a Cyrillic а.
        let link = Link::read("https://ex\u{0430}mple.com/");
        assert_eq!(link.host, "xn--exmple-4nf.com");
        assert!(link.warnings.iter().any(|w| w.contains("punycode")), "{:?}", link.warnings);
        let plain = Link::read("http://example.com/pay");
        assert_eq!(plain.warnings, vec!["The link is plain http: what is typed there travels unencrypted."]);
    }

    #[test]
    fn url_mode_params_are_read_and_forms_are_left_alone() {
        let params = json!({"mode": "url", "message": "Sign in", "url": "https://a.example/x",
            "elicitationId": "e-1"});
        let read = UrlElicitation::from_params(Some(&params)).unwrap().unwrap();
        assert_eq!((read.message.as_str(), read.elicitation_id.as_deref()), ("Sign in", Some("e-1")));
        assert_eq!(read.link.host, "a.example");
        let modern = json!({"mode": "url", "message": "m", "url": "https://a.example/"});
        assert_eq!(UrlElicitation::from_params(Some(&modern)).unwrap().unwrap().elicitation_id, None);
        assert!(UrlElicitation::from_params(Some(&json!({"message": "m", "requestedSchema": {}}))).is_none());
        assert!(UrlElicitation::from_params(None).is_none());
        let no_url = UrlElicitation::from_params(Some(&json!({"mode": "url", "message": "m"}))).unwrap();
        assert_eq!(no_url.unwrap_err(), "a URL-mode elicitation without a `url` string");
    }

    #[test]
    fn a_32042_error_lists_its_links_and_says_what_is_wrong_with_the_list() {
        let error = |data: Value| ErrorObject {
            code: -32042,
            message: "This request requires more information.".into(),
            data: Some(data),
        };
        let good = links_required(&error(json!({"elicitations": [{"mode": "url", "elicitationId": "550e",
            "url": "https://mcp.example.com/connect?elicitationId=550e", "message": "Authorize"}]})))
        .unwrap();
        assert!(good.problems.is_empty(), "{:?}", good.problems);
        assert_eq!(good.elicitations[0].elicitation_id.as_deref(), Some("550e"));
        assert_eq!(good.elicitations[0].link.host, "mcp.example.com");
        let mixed = links_required(&error(json!({"elicitations": [
            {"mode": "form", "message": "m"},
            {"mode": "url", "message": "m"},
            {"mode": "url", "message": "m", "url": "https://b.example/"}]})))
        .unwrap();
        assert_eq!(
            mixed.problems,
            vec![
                "elicitation 1 is not URL mode; -32042 lists only links",
                "elicitation 2: a URL-mode elicitation without a `url` string",
                "elicitation 3 has no elicitationId, so its completion cannot be told",
            ]
        );
        assert_eq!(mixed.elicitations.len(), 1);
        let empty = links_required(&ErrorObject { code: -32042, message: "m".into(), data: None }).unwrap();
        assert_eq!(empty.problems.len(), 1);
        assert_eq!(links_required(&ErrorObject { code: -32602, message: "m".into(), data: None }), None);
    }

    #[test]
    fn only_an_awaited_completion_counts_and_only_once() {
        let params = json!({"elicitationId": "e-1"});
        assert_eq!(completed_id("notifications/elicitation/complete", Some(&params)), Some("e-1"));
        assert_eq!(completed_id("notifications/progress", Some(&params)), None);
        let awaiting = Awaiting::default();
        awaiting.expect(1, "e-1");
        awaiting.expect(2, "e-1");
        assert!(!awaiting.complete(1, "unknown"));
        assert!(awaiting.complete(1, "e-1"));
        assert!(!awaiting.complete(1, "e-1"), "completed already: ignored");
        awaiting.forget_connection(2);
        assert!(!awaiting.complete(2, "e-1"), "its connection ended");
    }
}
