//! The demo's resources: a README (Markdown), a configuration (JSON), a logo (PNG, a blob), a
//! clock whose text counts its updates, and the template `demo://greeting/{name}`.
//!
//! Owns: the lists, their contents (the logo's PNG included, which the `image` tool shows too),
//! reading a URI (the template's variable percent-decoded) and the "not found" error of each
//! era. Refuses: the clock's ticking and subscriptions (`listen`).

use base64::Engine;
use serde_json::{json, Value};

use crate::{Fault, TTL_MS};

pub const README: &str = "demo://readme";
pub const README_TEXT: &str =
    "# Sonde demo\n\nThis server is bundled with Sonde. Read `demo://config.json`, \
     expand the greeting template, or subscribe to `demo://clock`.\n";
const CONFIG: &str = "demo://config.json";
const CONFIG_TEXT: &str = r#"{"greeting":"hello","retries":3}"#;
const LOGO: &str = "demo://logo.png";
/// A 32×32 PNG of a blue disc: the logo, which the `image` tool also returns.
pub const IMAGE_PNG_BASE64: &str = "iVBORw0KGgoAAAANSUhEUgAAACAAAAAgCAYAAABzenr0AAACzUlEQVR42u3XMavVSACGYX/YNjanSZMmTZo0abLFFAZkEMZiCgMShFikMCBBiEUKD8jFwsLCQg7+qbMPtxDEe73HXd1lweLpAvM2Q765dz6f7/2X7v0O+N8GhD9P555IIvPLA5pwOrd0BHoiiczAyBQuj7noo+rB6VzT0NIR6IkkMgMjEzPLg7tD7jy8fHg6V9Q0tHQEeiKJzMDIxMzC+vD7Ed89vHh0OpdU1DS0dAR6IonMwMjEzMLK9uj2iFsPPzw+nQtKKmoaWjoCPZFEZmBkYmZhZWN/fHPE7QFZACUVNQ0tHYGeSCIzMDIxs7CysecfCLj/5HQ+UFBSUdPQ0hHoiSQyAyMTMwsrGzvHJ99G3BzwVAAFJRU1DS0dgZ5IIjMwMjGzsLKxc3x6acAzARSUVNQ0tHQEeiKJzMDIxMzCysbO8dkFAX88P53vc6CgpKKmoaUj0BNJZAZGJmYWVjZ2jlw9/zri24BZAAcKSipqGlo6Aj2RRGZgZGJmYWVj58jVfFfACwEcKCipqGlo6Qj0RBKZgZGJmYWVjZ0jVy/uCngpgAMFJRU1DS0dgZ5IIjMwMjGzsLKxc+Tq5V0BrwRwoKCkoqahpSPQE0lkBkYmZhZWNnaOXL26I+D6FrwWQEFJRU1DS0egJ5LIDIxMzCysbOwcX196DXcBFJRU1DS0dAR6IonMwMjEzMLKxs5xvzTgjQAKSipqGlo6Aj2RRGZgZGJmYWVj5/jmwoDrf8FbAZRU1DS0dAR6IonMwMjEzMLKxv72R39G7wRQUlHT0NIR6IkkMgMjEzMLKxv7ux8MuN4D7wVQUdPQ0hHoiSQyAyMTMwsr2/u/sQe+LKIPAqhpaOkI9EQSmYGRiZmF9cM/WERfNuFHATS0dAR6IonMwMjEzPLxJ2zCr1bxJwF0BHoiiczAyPTpJ6/iG98FnwUQSeTP/8K74PfT7Ff4C/wLsQK6rXixAAAAAElFTkSuQmCC";
pub const CLOCK: &str = "demo://clock";
pub const GREETING_TEMPLATE: &str = "demo://greeting/{name}";
const GREETING_PREFIX: &str = "demo://greeting/";

/// Why a URI cannot be read.
#[derive(Debug, PartialEq)]
pub enum Missing {
    /// No such resource.
    NotFound(String),
    /// The URI is malformed (bad percent-encoding, none given).
    Invalid(String),
}

impl Missing {
    /// 2025-11-25 says "not found" with `-32002`; 2026-07-28 forbids that code and uses
    /// `-32602`. Both name the URI in `data`.
    pub fn fault(self, modern: bool) -> Fault {
        match self {
            Missing::NotFound(uri) => {
                let code = if modern { -32602 } else { -32002 };
                Fault::new(code, "Resource not found").with_data(json!({ "uri": uri }))
            }
            Missing::Invalid(message) => Fault::invalid(message),
        }
    }
}

fn logo_size() -> usize {
    base64::engine::general_purpose::STANDARD.decode(IMAGE_PNG_BASE64).expect("the logo is base64").len()
}

pub fn list() -> Value {
    json!({"resources": [
        {"uri": README, "name": "readme", "title": "README", "description": "What this demo server offers.",
         "mimeType": "text/markdown", "size": README_TEXT.len(),
         "annotations": {"audience": ["user"], "priority": 0.8}},
        {"uri": CONFIG, "name": "config", "title": "Configuration", "description": "A small JSON document.",
         "mimeType": "application/json", "size": CONFIG_TEXT.len()},
        {"uri": LOGO, "name": "logo", "title": "Logo", "description": "A 32×32 PNG, read as a blob.",
         "mimeType": "image/png", "size": logo_size()},
        {"uri": CLOCK, "name": "clock", "title": "Clock",
         "description": "Ticks every 2 s while subscribed; its text counts the updates so far.",
         "mimeType": "text/plain"}
    ]})
}

pub fn templates() -> Value {
    json!({"resourceTemplates": [
        {"uriTemplate": GREETING_TEMPLATE, "name": "greeting", "title": "Greeting",
         "description": "A greeting for anyone: complete `name` to see the server's suggestions.",
         "mimeType": "text/plain"}
    ]})
}

/// The name in a `demo://greeting/{name}` URI, percent-decoded; `None` when the URI is not an
/// expansion of the template. A raw `/`, `?` or `#` cannot come from expanding `{name}` (it
/// would be percent-encoded), so such a URI is no greeting.
pub fn greeting_name(uri: &str) -> Option<Result<String, Missing>> {
    let raw = uri.strip_prefix(GREETING_PREFIX)?;
    if raw.is_empty() || raw.contains(['/', '?', '#']) {
        return None;
    }
    Some(
        percent_encoding::percent_decode_str(raw)
            .decode_utf8()
            .map(|name| name.into_owned())
            .map_err(|_| Missing::Invalid(format!("{uri}: the name is not percent-encoded UTF-8"))),
    )
}

/// Whether a URI names something readable.
pub fn exists(uri: &str) -> bool {
    [README, CONFIG, LOGO, CLOCK].contains(&uri) || matches!(greeting_name(uri), Some(Ok(_)))
}

/// How long a 2026-07-28 client may keep what it read: the clock changes, the rest does not.
pub fn ttl_ms(uri: &str) -> u64 {
    if uri == CLOCK {
        0
    } else {
        TTL_MS
    }
}

/// `resources/read`: the contents of `uri`; the clock reads `tick N` after `ticks` updates.
pub fn read(uri: &str, ticks: u64) -> Result<Value, Missing> {
    let text = |mime: &str, text: &str| json!({"uri": uri, "mimeType": mime, "text": text});
    let content = match uri {
        "" => return Err(Missing::Invalid("resources/read needs params.uri".into())),
        README => text("text/markdown", README_TEXT),
        CONFIG => text("application/json", CONFIG_TEXT),
        LOGO => json!({"uri": uri, "mimeType": "image/png", "blob": IMAGE_PNG_BASE64}),
        CLOCK => text("text/plain", &format!("tick {ticks}")),
        _ => match greeting_name(uri) {
            Some(name) => text("text/plain", &format!("Hello, {}!", name?)),
            None => return Err(Missing::NotFound(uri.to_owned())),
        },
    };
    Ok(json!({ "contents": [content] }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_greeting_uri_gives_its_name_percent_decoded() {
        assert_eq!(greeting_name("demo://greeting/Ada"), Some(Ok("Ada".into())));
        assert_eq!(greeting_name("demo://greeting/Ada%20Lovelace"), Some(Ok("Ada Lovelace".into())));
        assert_eq!(greeting_name("demo://greeting/Gr%C3%A2ce%2F2"), Some(Ok("Grâce/2".into())));
        assert!(matches!(greeting_name("demo://greeting/%FF"), Some(Err(Missing::Invalid(_)))));
    }

    #[test]
    fn uris_that_no_expansion_of_the_template_makes_are_not_greetings() {
        for uri in [
            "demo://greeting/",
            "demo://greeting/a/b",
            "demo://greeting/a?x",
            "demo://greet/Ada",
            "demo://readme",
        ] {
            assert_eq!(greeting_name(uri), None, "{uri}");
        }
    }

    #[test]
    fn reads_give_text_json_a_blob_the_clock_and_greetings() {
        assert_eq!(read(README, 0).unwrap()["contents"][0]["text"], README_TEXT);
        assert_eq!(read(CONFIG, 0).unwrap()["contents"][0]["mimeType"], "application/json");
        assert_eq!(read(LOGO, 0).unwrap()["contents"][0]["blob"], IMAGE_PNG_BASE64);
        assert_eq!(read(CLOCK, 7).unwrap()["contents"][0]["text"], "tick 7");
        assert_eq!(read("demo://greeting/Grace%20H", 0).unwrap()["contents"][0]["text"], "Hello, Grace H!");
        assert_eq!(read("demo://nope", 0), Err(Missing::NotFound("demo://nope".into())));
    }

    #[test]
    fn not_found_is_32002_in_2025_and_32602_in_2026_naming_the_uri() {
        let legacy = Missing::NotFound("demo://x".into()).fault(false);
        assert_eq!((legacy.code, legacy.data), (-32002, Some(json!({"uri": "demo://x"}))));
        assert_eq!(Missing::NotFound("demo://x".into()).fault(true).code, -32602);
    }

    #[test]
    fn sizes_are_the_bytes_a_read_gives() {
        let resources = list();
        let size = |i: usize| resources["resources"][i]["size"].as_u64().unwrap() as usize;
        assert_eq!(size(0), README_TEXT.len());
        assert_eq!(size(1), CONFIG_TEXT.len());
        assert!(size(2) > 100 && size(2) < IMAGE_PNG_BASE64.len(), "decoded, not base64: {}", size(2));
        assert!(resources["resources"][3].get("size").is_none(), "the clock's size changes");
    }
}
