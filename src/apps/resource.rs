//! An app's resource as read (`resources/read` of its `ui://` URI), checked against the
//! extension, and the Content Security Policy its frame gets: built only from the domains the
//! resource declares, so an app reaches no origin it did not name.

use serde::Serialize;
use serde_json::{Map, Value};

use super::MIME;
use crate::diagnose::{Finding, Severity};

const SPEC: &str = "MCP Apps (io.modelcontextprotocol/ui), UI resource";

/// The domains an app declares in `_meta.ui.csp`.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Csp {
    /// Origins it may fetch from or open sockets to (`connect-src`).
    pub connect_domains: Vec<String>,
    /// Origins of its scripts, styles, images, fonts and media.
    pub resource_domains: Vec<String>,
    /// Origins it may frame (`frame-src`).
    pub frame_domains: Vec<String>,
    /// Origins its `<base>` may name (`base-uri`).
    pub base_uri_domains: Vec<String>,
}

const CSP_KEYS: [&str; 4] = ["connectDomains", "resourceDomains", "frameDomains", "baseUriDomains"];

/// What the app asks of the browser (`_meta.ui.permissions`), each granted only as the frame's
/// `allow` attribute.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Permissions(pub Vec<String>);

/// The permissions the extension knows, with the feature each is in an `allow` attribute.
const PERMISSIONS: [(&str, &str); 4] = [
    ("camera", "camera"),
    ("microphone", "microphone"),
    ("geolocation", "geolocation"),
    ("clipboardWrite", "clipboard-write"),
];

impl Permissions {
    /// The frame's `allow` attribute.
    pub fn allow(&self) -> String {
        let features =
            self.0.iter().filter_map(|p| PERMISSIONS.iter().find(|(k, _)| k == p).map(|(_, f)| *f));
        features.collect::<Vec<_>>().join("; ")
    }
}

/// An app's resource, read and checked.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AppResource {
    pub uri: String,
    /// The `mimeType` of the content, as the server gave it.
    pub mime_type: Option<String>,
    #[serde(skip)]
    pub html: String,
    pub csp: Csp,
    pub permissions: Permissions,
    /// The app would rather be drawn with a border (`prefersBorder`).
    pub prefers_border: Option<bool>,
    /// What is wrong with it, as diagnostics.
    pub findings: Vec<Finding>,
}

impl AppResource {
    /// Reads a `resources/read` result for `uri`: the content item for the URI (else the first),
    /// its `_meta.ui` (else the listing entry's, `listed`), and every check.
    pub fn read(uri: &str, result: &Value, listed: Option<&Value>) -> AppResource {
        let mut findings = Vec::new();
        let items = result.get("contents").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
        let item = items.iter().find(|i| i.get("uri").and_then(Value::as_str) == Some(uri)).or(items.first());
        let Some(item) = item else {
            findings.push(finding(
                "app-resource",
                Severity::Error,
                format!("reading {uri} gave no contents"),
            ));
            return AppResource::empty(uri, findings);
        };
        let mime_type = item.get("mimeType").and_then(Value::as_str).map(str::to_owned);
        check_mime(mime_type.as_deref(), &mut findings);
        let html = match (item.get("text").and_then(Value::as_str), item.get("blob").and_then(Value::as_str))
        {
            (Some(text), _) => text.to_owned(),
            (None, Some(blob)) => {
                use base64::Engine as _;
                match base64::engine::general_purpose::STANDARD.decode(blob) {
                    Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
                    Err(_) => {
                        findings.push(finding(
                            "app-resource",
                            Severity::Error,
                            "its blob is not base64".into(),
                        ));
                        String::new()
                    }
                }
            }
            (None, None) => {
                findings.push(finding(
                    "app-resource",
                    Severity::Error,
                    format!("{uri} has neither text nor blob"),
                ));
                String::new()
            }
        };
        if !html.is_empty() || findings.is_empty() {
            findings.extend(super::html::check(&html));
        }
        let ui = item
            .pointer("/_meta/ui")
            .or_else(|| listed.and_then(|l| l.pointer("/_meta/ui")))
            .and_then(Value::as_object);
        let empty = Map::new();
        let ui = ui.unwrap_or(&empty);
        let csp = read_csp(ui.get("csp"), &mut findings);
        let permissions = read_permissions(ui.get("permissions"), &mut findings);
        let prefers_border = ui.get("prefersBorder").and_then(Value::as_bool);
        AppResource { uri: uri.to_owned(), mime_type, html, csp, permissions, prefers_border, findings }
    }

    /// The resource when the read failed: nothing to draw, and why.
    pub fn unreadable(uri: &str, why: String) -> AppResource {
        let detail = format!("the tool names {uri}, which does not resolve: {why}");
        AppResource::empty(uri, vec![finding("app-resource", Severity::Error, detail)])
    }

    fn empty(uri: &str, findings: Vec<Finding>) -> AppResource {
        let (csp, permissions) = (Csp::default(), Permissions::default());
        AppResource {
            uri: uri.to_owned(),
            mime_type: None,
            html: String::new(),
            csp,
            permissions,
            prefers_border: None,
            findings,
        }
    }

    /// Whether there is an app to draw (a finding may still say what is wrong with it).
    pub fn drawable(&self) -> bool {
        !self.html.trim().is_empty()
    }

    /// The frame's Content Security Policy: inline script and style (an app is one HTML file),
    /// and otherwise only the declared domains; no network at all when none are declared.
    pub fn policy(&self) -> String {
        let list = |extra: &str, domains: &[String]| {
            let mut parts: Vec<&str> = extra.split_whitespace().collect();
            parts.extend(domains.iter().map(String::as_str));
            if parts.is_empty() {
                "'none'".to_owned()
            } else {
                parts.join(" ")
            }
        };
        let res = &self.csp.resource_domains;
        [
            "default-src 'none'".to_owned(),
            format!("script-src {}", list("'unsafe-inline'", res)),
            format!("style-src {}", list("'unsafe-inline'", res)),
            format!("img-src {}", list("data: blob:", res)),
            format!("font-src {}", list("data:", res)),
            format!("media-src {}", list("data: blob:", res)),
            format!("connect-src {}", list("", &self.csp.connect_domains)),
            format!("frame-src {}", list("", &self.csp.frame_domains)),
            format!("base-uri {}", list("", &self.csp.base_uri_domains)),
            "form-action 'none'".to_owned(),
            "object-src 'none'".to_owned(),
        ]
        .join("; ")
    }
}

fn finding(rule: &str, severity: Severity, detail: String) -> Finding {
    Finding::new(rule, severity, detail, SPEC)
}

/// Whether a MIME type is an app's (`text/html;profile=mcp-app`, spaces and case aside).
pub fn is_app_mime(mime: &str) -> bool {
    compact(mime) == MIME
}

fn compact(mime: &str) -> String {
    mime.chars().filter(|c| !c.is_whitespace()).collect::<String>().to_ascii_lowercase()
}

fn check_mime(mime: Option<&str>, findings: &mut Vec<Finding>) {
    let Some(mime) = mime else {
        findings.push(finding(
            "app-mime",
            Severity::Error,
            format!("the resource has no mimeType; an app's is {MIME}"),
        ));
        return;
    };
    if is_app_mime(mime) {
        return;
    }
    let detail = if compact(mime).starts_with("text/html") {
        format!("the mimeType {mime:?} lacks the profile: an app's is {MIME}")
    } else {
        format!("the mimeType {mime:?} is not an app's ({MIME})")
    };
    findings.push(finding("app-mime", Severity::Error, detail));
}

/// A source a CSP may name for an app: a scheme and a host (a `*.` wildcard allowed), and a
/// port; nothing that would widen or end the policy (`*`, a keyword, a `;`).
fn source_ok(source: &str) -> bool {
    let Some((scheme, rest)) = source.split_once("://") else { return false };
    let authority = rest.split('/').next().unwrap_or_default();
    let (host, port) = authority.split_once(':').unwrap_or((authority, ""));
    let wildcard = host.starts_with("*.");
    let host = host.strip_prefix("*.").unwrap_or(host).to_ascii_lowercase();
    // Nothing local (the window's own origins live under localhost), and no wildcard over a
    // whole top-level domain (`*.com`).
    let local = host == "localhost" || host.ends_with(".localhost");
    matches!(scheme, "https" | "http" | "wss" | "ws")
        && !host.is_empty()
        && !local
        && (host.contains('.') || !wildcard)
        && host.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.')
        && (port.is_empty() || port.chars().all(|c| c.is_ascii_digit()))
        && rest.chars().all(|c| c.is_ascii_graphic() && !matches!(c, ';' | ',' | '\'' | '"'))
}

fn read_csp(csp: Option<&Value>, findings: &mut Vec<Finding>) -> Csp {
    let mut out = Csp::default();
    let Some(csp) = csp else { return out };
    let Some(csp) = csp.as_object() else {
        findings.push(finding("app-csp", Severity::Error, "`_meta.ui.csp` is not an object".into()));
        return out;
    };
    for (key, value) in csp {
        let slot = match key.as_str() {
            "connectDomains" => &mut out.connect_domains,
            "resourceDomains" => &mut out.resource_domains,
            "frameDomains" => &mut out.frame_domains,
            "baseUriDomains" => &mut out.base_uri_domains,
            _ => {
                let known = CSP_KEYS.join(", ");
                findings.push(finding(
                    "app-csp",
                    Severity::Warning,
                    format!(
                        "the CSP key {key:?} is not one the extension knows ({known}); it grants nothing"
                    ),
                ));
                continue;
            }
        };
        let Some(list) = value.as_array() else {
            findings.push(finding(
                "app-csp",
                Severity::Error,
                format!("csp.{key} is not an array of origins"),
            ));
            continue;
        };
        for source in list {
            match source.as_str() {
                Some(s) if source_ok(s) => slot.push(s.to_owned()),
                _ => findings.push(finding("app-csp", Severity::Error, format!("csp.{key} lists {source}, which is not an origin (scheme://host[:port]); it was left out"))),
            }
        }
    }
    out
}

fn read_permissions(permissions: Option<&Value>, findings: &mut Vec<Finding>) -> Permissions {
    let mut out = Permissions::default();
    let Some(permissions) = permissions else { return out };
    let Some(permissions) = permissions.as_object() else {
        findings.push(finding(
            "app-permission",
            Severity::Error,
            "`_meta.ui.permissions` is not an object".into(),
        ));
        return out;
    };
    for key in permissions.keys() {
        if PERMISSIONS.iter().any(|(k, _)| k == key) {
            out.0.push(key.clone());
        } else {
            let known: Vec<&str> = PERMISSIONS.iter().map(|(k, _)| *k).collect();
            findings.push(finding(
                "app-permission",
                Severity::Warning,
                format!(
                    "the permission {key:?} is not one the extension knows ({}); it is not granted",
                    known.join(", ")
                ),
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const PAGE: &str =
        "<!DOCTYPE html><html><head><title>t</title></head><body><script>1</script></body></html>";

    fn read(item: Value) -> AppResource {
        AppResource::read("ui://a/app.html", &json!({ "contents": [item] }), None)
    }

    fn rules(r: &AppResource) -> Vec<&str> {
        r.findings.iter().map(|f| f.rule.as_str()).collect()
    }

    #[test]
    fn a_good_app_has_no_findings_and_no_network() {
        let r =
            read(json!({"uri": "ui://a/app.html", "mimeType": "text/html;profile=mcp-app", "text": PAGE}));
        assert!(r.findings.is_empty(), "{:?}", r.findings);
        assert!(r.drawable());
        let policy = r.policy();
        assert!(policy.contains("connect-src 'none'"), "{policy}");
        assert!(policy.contains("default-src 'none'"), "{policy}");
    }

    #[test]
    fn declared_domains_and_permissions_are_all_it_gets() {
        let r = read(json!({
            "uri": "ui://a/app.html", "mimeType": "text/html; profile=mcp-app", "text": PAGE,
            "_meta": {"ui": {
                "csp": {"connectDomains": ["https://api.example.com", "*", "https://x.org; script-src *", "https://*.com", "http://ipc.localhost", "https://a.example:x"],
                        "resourceDomains": ["https://*.cdn.example"], "scriptDomains": ["https://z"]},
                "permissions": {"camera": {}, "clipboardWrite": {}, "telepathy": {}},
                "prefersBorder": true
            }}
        }));
        assert_eq!(r.csp.connect_domains, ["https://api.example.com"]);
        assert_eq!(r.csp.resource_domains, ["https://*.cdn.example"]);
        let policy = r.policy();
        assert!(policy.contains("connect-src https://api.example.com;"), "{policy}");
        assert!(policy.contains("script-src 'unsafe-inline' https://*.cdn.example;"), "{policy}");
        assert!(!policy.contains("x.org"), "{policy}");
        assert_eq!(r.permissions.allow(), "camera; clipboard-write");
        assert_eq!(r.prefers_border, Some(true));
        assert_eq!(
            rules(&r),
            ["app-csp", "app-csp", "app-csp", "app-csp", "app-csp", "app-csp", "app-permission"]
        );
        assert!(r.findings.iter().any(|f| f.detail.contains("scriptDomains")));
        assert!(r.findings.iter().any(|f| f.detail.contains("telepathy")));
    }

    #[test]
    fn a_wrong_mime_type_or_missing_profile_is_named() {
        let plain = read(json!({"uri": "ui://a/app.html", "mimeType": "text/html", "text": PAGE}));
        assert_eq!(rules(&plain), ["app-mime"]);
        assert!(plain.findings[0].detail.contains("lacks the profile"));
        let json_mime = read(json!({"uri": "ui://a/app.html", "mimeType": "application/json", "text": PAGE}));
        assert!(json_mime.findings[0].detail.contains("is not an app's"));
        let none = read(json!({"uri": "ui://a/app.html", "text": PAGE}));
        assert_eq!(rules(&none), ["app-mime"]);
    }

    #[test]
    fn an_unresolved_uri_or_empty_read_is_an_error() {
        let gone = AppResource::unreadable(
            "ui://a/gone.html",
            "resources/read failed: not found (code -32002)".into(),
        );
        assert_eq!(rules(&gone), ["app-resource"]);
        assert!(!gone.drawable());
        let empty = AppResource::read("ui://a/app.html", &json!({"contents": []}), None);
        assert_eq!(rules(&empty), ["app-resource"]);
    }

    #[test]
    fn the_listing_entry_meta_is_used_when_the_content_has_none() {
        let listed = json!({"uri": "ui://a/app.html", "_meta": {"ui": {"csp": {"connectDomains": ["wss://live.example"]}}}});
        let r = AppResource::read(
            "ui://a/app.html",
            &json!({"contents": [{"uri": "ui://a/app.html", "mimeType": MIME, "text": PAGE}]}),
            Some(&listed),
        );
        assert_eq!(r.csp.connect_domains, ["wss://live.example"]);
    }
}
