//! Where a client looks for a server's authorization metadata: the `WWW-Authenticate` challenge
//! of a `401` or `403`, the RFC 9728 protected-resource metadata URLs, and the RFC 8414 / OpenID
//! Connect authorization-server metadata URLs, each list in the order the specification gives.
//!
//! Owns: parsing a Bearer challenge and building the candidate URLs. Refuses: fetching them.

use url::Url;

/// What a Bearer challenge says (RFC 6750 §3, RFC 9728 §5.1).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Challenge {
    /// Where the protected-resource metadata is (RFC 9728).
    pub resource_metadata: Option<String>,
    /// The scopes the request needs, space-separated.
    pub scope: Option<String>,
    /// `invalid_token`, `insufficient_scope`, …
    pub error: Option<String>,
    pub error_description: Option<String>,
}

/// The Bearer challenge in a `WWW-Authenticate` value, which may hold several challenges
/// (`Basic realm="x", Bearer scope="a b"`); `None` without one.
pub fn parse_challenge(header: &str) -> Option<Challenge> {
    let mut rest = header;
    // Challenges start with a scheme token that is not followed by `=`; parameters are
    // `name=value` or `name="quoted"`, separated by commas.
    let mut in_bearer = false;
    let mut found: Option<Challenge> = None;
    loop {
        rest = rest.trim_start_matches([' ', '\t', ',']);
        if rest.is_empty() {
            break;
        }
        let token_end = rest.find(|c: char| c == '=' || c == ',' || c.is_whitespace()).unwrap_or(rest.len());
        let token = &rest[..token_end];
        let after = rest[token_end..].trim_start_matches([' ', '\t']);
        if let Some(value_part) = after.strip_prefix('=').filter(|_| !token.is_empty()) {
            // A parameter of the current challenge.
            let (value, remaining) = read_value(value_part.trim_start_matches([' ', '\t']));
            if in_bearer {
                let challenge = found.get_or_insert_with(Challenge::default);
                let slot = match token.to_ascii_lowercase().as_str() {
                    "resource_metadata" => Some(&mut challenge.resource_metadata),
                    "scope" => Some(&mut challenge.scope),
                    "error" => Some(&mut challenge.error),
                    "error_description" => Some(&mut challenge.error_description),
                    _ => None,
                };
                if let Some(slot) = slot {
                    slot.get_or_insert(value);
                }
            }
            rest = remaining;
        } else {
            // A new challenge's scheme (a token68 after it is read as a parameterless value).
            if in_bearer && found.is_some() {
                break;
            }
            in_bearer = token.eq_ignore_ascii_case("bearer");
            if in_bearer {
                found.get_or_insert_with(Challenge::default);
            }
            rest = &rest[token_end..];
        }
    }
    found
}

/// A parameter value: a quoted string (with `\` escapes) or a token; and what follows it.
fn read_value(s: &str) -> (String, &str) {
    if let Some(quoted) = s.strip_prefix('"') {
        let mut value = String::new();
        let mut chars = quoted.char_indices();
        while let Some((i, c)) = chars.next() {
            match c {
                '\\' => {
                    if let Some((_, escaped)) = chars.next() {
                        value.push(escaped);
                    }
                }
                '"' => return (value, &quoted[i + 1..]),
                _ => value.push(c),
            }
        }
        (value, "")
    } else {
        let end = s.find([',', ' ', '\t']).unwrap_or(s.len());
        (s[..end].to_owned(), &s[end..])
    }
}

/// The protected-resource metadata URLs to try for the MCP server at `server`, in order: the
/// challenge's `resource_metadata`, then the well-known URL with the server's path inserted,
/// then the well-known URL at the root (RFC 9728 §3.1). Duplicates are left out.
pub fn resource_metadata_urls(server: &Url, challenge: Option<&Challenge>) -> Vec<Url> {
    let mut urls = Vec::new();
    if let Some(url) =
        challenge.and_then(|c| c.resource_metadata.as_deref()).and_then(|u| server.join(u).ok())
    {
        urls.push(url);
    }
    let path = server.path().trim_end_matches('/');
    if !path.is_empty() {
        urls.push(well_known(server, "oauth-protected-resource", path));
    }
    urls.push(well_known(server, "oauth-protected-resource", ""));
    dedup(urls)
}

/// The authorization-server metadata URLs to try for `issuer`, in order (MCP authorization,
/// "Authorization Server Metadata Discovery"): RFC 8414 with the issuer's path inserted, OpenID
/// Connect discovery with the path inserted, then OpenID Connect with the path appended. An
/// issuer without a path gives the RFC 8414 and the OpenID Connect URL at the root.
pub fn authorization_server_metadata_urls(issuer: &Url) -> Vec<Url> {
    let path = issuer.path().trim_end_matches('/');
    if path.is_empty() {
        return vec![
            well_known(issuer, "oauth-authorization-server", ""),
            well_known(issuer, "openid-configuration", ""),
        ];
    }
    let mut appended = origin(issuer);
    appended.set_path(&format!("{path}/.well-known/openid-configuration"));
    dedup(vec![
        well_known(issuer, "oauth-authorization-server", path),
        well_known(issuer, "openid-configuration", path),
        appended,
    ])
}

/// `scheme://host:port/.well-known/<name><path>`, without query or fragment.
fn well_known(base: &Url, name: &str, path: &str) -> Url {
    let mut url = origin(base);
    url.set_path(&format!("/.well-known/{name}{path}"));
    url
}

fn origin(url: &Url) -> Url {
    let mut origin = url.clone();
    origin.set_path("/");
    origin.set_query(None);
    origin.set_fragment(None);
    let _ = origin.set_username("");
    let _ = origin.set_password(None);
    origin
}

fn dedup(urls: Vec<Url>) -> Vec<Url> {
    let mut seen = Vec::new();
    for url in urls {
        if !seen.contains(&url) {
            seen.push(url);
        }
    }
    seen
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    fn strings(urls: Vec<Url>) -> Vec<String> {
        urls.into_iter().map(String::from).collect()
    }

    #[test]
    fn a_bearer_challenge_is_read_among_others_with_quoted_and_bare_values() {
        let c = parse_challenge(
            r#"Basic realm="x", Bearer resource_metadata="https://a.example/.well-known/oauth-protected-resource/mcp", scope="mcp:read mcp:write", error=insufficient_scope, error_description="needs \"write\"""#,
        )
        .unwrap();
        assert_eq!(
            c.resource_metadata.as_deref(),
            Some("https://a.example/.well-known/oauth-protected-resource/mcp")
        );
        assert_eq!(c.scope.as_deref(), Some("mcp:read mcp:write"));
        assert_eq!(c.error.as_deref(), Some("insufficient_scope"));
        assert_eq!(c.error_description.as_deref(), Some(r#"needs "write""#));
        // Parameters of another scheme are not the Bearer challenge's.
        let c = parse_challenge(r#"Bearer realm="mcp", DPoP scope="other""#).unwrap();
        assert_eq!(c.scope, None);
        assert_eq!(parse_challenge(r#"Bearer"#), Some(Challenge::default()));
        assert_eq!(parse_challenge(r#"Basic realm="x""#), None);
        assert_eq!(parse_challenge(""), None);
    }

    #[test]
    fn protected_resource_metadata_is_looked_for_in_the_specified_order() {
        let server = url("https://mcp.example.com/public/mcp?x=1");
        assert_eq!(
            strings(resource_metadata_urls(&server, None)),
            [
                "https://mcp.example.com/.well-known/oauth-protected-resource/public/mcp",
                "https://mcp.example.com/.well-known/oauth-protected-resource",
            ]
        );
        let challenge = Challenge { resource_metadata: Some("/prm".into()), ..Challenge::default() };
        assert_eq!(
            strings(resource_metadata_urls(&url("http://localhost:3000/"), Some(&challenge))),
            ["http://localhost:3000/prm", "http://localhost:3000/.well-known/oauth-protected-resource"]
        );
    }

    #[test]
    fn authorization_server_metadata_is_looked_for_in_the_specified_order() {
        assert_eq!(
            strings(authorization_server_metadata_urls(&url("https://auth.example.com/tenant1"))),
            [
                "https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
                "https://auth.example.com/.well-known/openid-configuration/tenant1",
                "https://auth.example.com/tenant1/.well-known/openid-configuration",
            ]
        );
        assert_eq!(
            strings(authorization_server_metadata_urls(&url("https://auth.example.com"))),
            [
                "https://auth.example.com/.well-known/oauth-authorization-server",
                "https://auth.example.com/.well-known/openid-configuration",
            ]
        );
    }
}
