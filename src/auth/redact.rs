//! What an authorization flow's exchanges may not show: tokens, client secrets, authorization
//! codes and PKCE verifiers, in JSON bodies, form bodies and query strings alike.
//!
//! Owns: the list of secret parameter names and replacing their values with `[redacted]`.
//! Refuses: headers (`transport::is_secret_name` already covers `Authorization`).

use serde_json::Value;

/// The parameters of OAuth requests and responses whose values are credentials.
const SECRET: &[&str] = &[
    "access_token",
    "refresh_token",
    "id_token",
    "client_secret",
    "code",
    "code_verifier",
    "registration_access_token",
    "assertion",
    "client_assertion",
];

pub const REDACTED: &str = "[redacted]";

pub fn is_secret(name: &str) -> bool {
    SECRET.contains(&name)
}

/// A body as it may be recorded: a JSON object's secret members, or a form's secret fields,
/// replaced; anything else unchanged.
pub fn body(bytes: &[u8]) -> Vec<u8> {
    if let Ok(mut value) = serde_json::from_slice::<Value>(bytes) {
        if json(&mut value) {
            return serde_json::to_vec(&value).expect("serializes");
        }
        return bytes.to_vec();
    }
    match std::str::from_utf8(bytes) {
        Ok(text) if text.contains('=') && !text.contains(['{', ' ', '\n']) => form(text).into_bytes(),
        _ => bytes.to_vec(),
    }
}

/// Replaces secret members at any depth; says whether any was.
fn json(value: &mut Value) -> bool {
    let mut changed = false;
    match value {
        Value::Object(map) => {
            for (name, member) in map.iter_mut() {
                if is_secret(name) && !member.is_null() {
                    *member = Value::String(REDACTED.into());
                    changed = true;
                } else {
                    changed |= json(member);
                }
            }
        }
        Value::Array(items) => {
            for item in items {
                changed |= json(item);
            }
        }
        _ => {}
    }
    changed
}

/// An `application/x-www-form-urlencoded` text with secret fields replaced.
pub fn form(text: &str) -> String {
    crate::transport::shown_query(text)
}

/// A URL as it may be recorded (`transport::shown_url`).
pub fn url(url: &url::Url) -> String {
    crate::transport::shown_url(url)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_bodies_lose_their_secrets_and_keep_the_rest() {
        let shown =
            body(br#"{"access_token":"at-1","token_type":"Bearer","refresh_token":"rt-1","expires_in":60}"#);
        let text = String::from_utf8(shown).unwrap();
        assert!(!text.contains("at-1") && !text.contains("rt-1"), "{text}");
        assert!(text.contains("\"expires_in\":60") && text.contains("Bearer"), "{text}");
        let untouched = br#"{"issuer":"https://as.example"}"#;
        assert_eq!(body(untouched), untouched.to_vec(), "nothing secret: the bytes as they came");
    }

    #[test]
    fn forms_and_queries_lose_their_secrets() {
        let text = String::from_utf8(body(b"grant_type=authorization_code&code=abc&code_verifier=v1&redirect_uri=http%3A%2F%2F127.0.0.1%3A5000%2Fcallback")).unwrap();
        assert_eq!(text, "grant_type=authorization_code&code=[redacted]&code_verifier=[redacted]&redirect_uri=http%3A%2F%2F127.0.0.1%3A5000%2Fcallback");
        let u = url::Url::parse("http://127.0.0.1:5000/callback?code=abc&state=s1").unwrap();
        assert_eq!(url(&u), "http://127.0.0.1:5000/callback?code=[redacted]&state=s1");
    }
}
