//! Which scopes an authorization request asks for (MCP authorization, "Scope Selection
//! Strategy"), and the bound on step-up when a server keeps answering `403 insufficient_scope`.
//!
//! - First authorization: the challenge's `scope`, else every scope of the protected-resource
//!   metadata's `scopes_supported`, else no `scope` parameter at all.
//! - 2026-07-28 (SEP-2207): a client that wants a refresh token adds `offline_access` when the
//!   authorization server lists it in its `scopes_supported`, and never otherwise.
//! - Step-up: the scopes asked for before, together with the ones the `403` challenges for
//!   (SEP-2350), at most [`MAX_AUTHORIZATIONS`] authorization attempts per request.
//!
//! Owns: those choices. Refuses: deciding what a scope means.

use super::error::AuthError;

/// How many times one request may send the person to authorize before Sonde gives up (the
/// conformance suite's `auth/scope-retry-limit` allows three).
pub const MAX_AUTHORIZATIONS: u32 = 3;

/// The scopes of a first authorization request, space-separated, or `None` to leave `scope`
/// out. `offline_access` is added when wanted and the authorization server offers it.
pub fn initial(
    challenged: Option<&str>,
    resource_supported: Option<&[String]>,
    server_supported: Option<&[String]>,
    want_refresh: bool,
) -> Option<String> {
    let mut scopes: Vec<String> = match challenged.map(str::trim).filter(|s| !s.is_empty()) {
        Some(scope) => words(scope),
        None => resource_supported.map(<[String]>::to_vec).unwrap_or_default(),
    };
    let offered = server_supported.is_some_and(|s| s.iter().any(|x| x == "offline_access"));
    if want_refresh && offered && !scopes.iter().any(|s| s == "offline_access") {
        scopes.push("offline_access".to_owned());
    }
    join(scopes)
}

/// The scopes of a step-up authorization: those asked for before, then the challenged ones not
/// among them.
pub fn step_up(before: Option<&str>, challenged: Option<&str>) -> Option<String> {
    let mut scopes = before.map(words).unwrap_or_default();
    for scope in challenged.map(words).unwrap_or_default() {
        if !scopes.contains(&scope) {
            scopes.push(scope);
        }
    }
    join(scopes)
}

/// Whether the scopes `granted` include every one of `challenged` (an empty challenge is
/// covered by nothing: it names no scope to have).
pub fn covers(granted: &str, challenged: &str) -> bool {
    let granted = words(granted);
    let challenged = words(challenged);
    !challenged.is_empty() && challenged.iter().all(|c| granted.contains(c))
}

/// Counts the authorizations one request caused; says when there may be no more.
#[derive(Debug, Default)]
pub struct Attempts(u32);

impl Attempts {
    /// Takes one more attempt, or says why there is none left.
    pub fn take(&mut self) -> Result<u32, AuthError> {
        if self.0 >= MAX_AUTHORIZATIONS {
            return Err(AuthError::TooManyAuthorizations(MAX_AUTHORIZATIONS));
        }
        self.0 += 1;
        Ok(self.0)
    }
}

fn words(s: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for w in s.split_whitespace() {
        if !out.iter().any(|x| x == w) {
            out.push(w.to_owned());
        }
    }
    out
}

fn join(scopes: Vec<String>) -> Option<String> {
    (!scopes.is_empty()).then(|| scopes.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(s: &[&str]) -> Vec<String> {
        s.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn the_challenge_wins_then_scopes_supported_then_none() {
        let supported = list(&["mcp:basic", "mcp:read", "mcp:write"]);
        assert_eq!(initial(Some("mcp:basic"), Some(&supported), None, false).as_deref(), Some("mcp:basic"));
        assert_eq!(
            initial(None, Some(&supported), None, false).as_deref(),
            Some("mcp:basic mcp:read mcp:write")
        );
        assert_eq!(initial(Some("  "), None, None, false), None);
        assert_eq!(initial(None, None, None, false), None);
    }

    #[test]
    fn offline_access_only_when_wanted_and_offered() {
        let offered = list(&["mcp", "offline_access"]);
        assert_eq!(initial(Some("mcp"), None, Some(&offered), true).as_deref(), Some("mcp offline_access"));
        assert_eq!(initial(Some("mcp"), None, Some(&list(&["mcp"])), true).as_deref(), Some("mcp"));
        assert_eq!(initial(Some("mcp"), None, Some(&offered), false).as_deref(), Some("mcp"));
        assert_eq!(initial(None, None, Some(&offered), true).as_deref(), Some("offline_access"));
    }

    #[test]
    fn step_up_keeps_what_was_asked_and_adds_the_challenged() {
        assert_eq!(step_up(Some("mcp:basic"), Some("mcp:write")).as_deref(), Some("mcp:basic mcp:write"));
        assert_eq!(step_up(Some("a b"), Some("b c")).as_deref(), Some("a b c"));
        assert_eq!(step_up(None, Some("mcp:write")).as_deref(), Some("mcp:write"));
        assert_eq!(step_up(None, None), None);
    }

    #[test]
    fn a_challenge_for_scopes_already_granted_is_covered() {
        assert!(covers("mcp:admin", "mcp:admin"));
        assert!(covers("a b c", "c a"));
        assert!(!covers("mcp:basic", "mcp:basic mcp:write"));
        assert!(!covers("mcp:basic", ""));
    }

    #[test]
    fn step_up_stops_after_the_bound() {
        let mut attempts = Attempts::default();
        for n in 1..=MAX_AUTHORIZATIONS {
            assert_eq!(attempts.take().ok(), Some(n));
        }
        let refused = attempts.take().unwrap_err();
        assert!(matches!(refused, AuthError::TooManyAuthorizations(MAX_AUTHORIZATIONS)), "{refused}");
        assert!(refused.to_string().contains("giving up"));
    }
}
