//! The issuer checks: authorization-server metadata must name the issuer it was fetched for
//! (RFC 8414 §3.3), and the authorization response's `iss` must be that issuer (RFC 9207).
//! Both compare by simple string comparison, with no URL normalisation: an `iss` of
//! `https://AS.example/` does not match `https://as.example` (the conformance suite's
//! `auth/iss-normalized`).
//!
//! Owns: the two comparisons and the words of their refusals, which name both values.
//! Refuses: fetching metadata and reading redirects.

/// Whether metadata fetched for `expected` may be used: its `issuer` must be `expected`, exactly.
pub fn check_metadata_issuer(expected: &str, issuer: Option<&str>) -> Result<(), String> {
    match issuer {
        Some(issuer) if issuer == expected => Ok(()),
        Some(issuer) => Err(format!(
            "the authorization server's metadata names issuer \"{issuer}\", but it was fetched for \
             \"{expected}\"; refusing it (RFC 8414 §3.3)"
        )),
        None => Err(format!(
            "the authorization server's metadata fetched for \"{expected}\" names no issuer; refusing it"
        )),
    }
}

/// Whether an authorization response may be used, given the `iss` it carries, the issuer the
/// client recorded, and whether the server's metadata advertised
/// `authorization_response_iss_parameter_supported`. An `iss` is compared whenever present,
/// advertised or not; a missing one is refused only when it was advertised.
pub fn check_response_iss(recorded: &str, iss: Option<&str>, advertised: bool) -> Result<(), String> {
    match iss {
        Some(iss) if iss == recorded => Ok(()),
        Some(iss) => Err(format!(
            "the authorization response came from issuer \"{iss}\", not \"{recorded}\", which the \
             request went to; refusing it (RFC 9207)"
        )),
        None if advertised => Err(format!(
            "\"{recorded}\" says it sends `iss` in authorization responses, and this one has none; \
             refusing it (RFC 9207)"
        )),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metadata_must_name_the_issuer_it_was_fetched_for_exactly() {
        assert!(check_metadata_issuer("https://as.example/t1", Some("https://as.example/t1")).is_ok());
        let err =
            check_metadata_issuer("https://as.example/t1", Some("https://evil.example/t1")).unwrap_err();
        assert!(err.contains("https://evil.example/t1") && err.contains("https://as.example/t1"), "{err}");
        // A trailing slash is a different string.
        assert!(check_metadata_issuer("https://as.example", Some("https://as.example/")).is_err());
        assert!(check_metadata_issuer("https://as.example", None).is_err());
    }

    #[test]
    fn iss_is_compared_as_a_string_whenever_present_and_required_when_advertised() {
        let recorded = "https://as.example";
        assert!(check_response_iss(recorded, Some(recorded), true).is_ok());
        assert!(check_response_iss(recorded, None, false).is_ok(), "neither advertised nor sent");
        assert!(check_response_iss(recorded, None, true).is_err(), "advertised, then left out");
        // Present though not advertised: still compared.
        assert!(check_response_iss(recorded, Some("https://other.example"), false).is_err());
        // No normalisation: case, a trailing slash or a default port make another issuer.
        for near in ["https://AS.example", "https://as.example/", "https://as.example:443"] {
            let err = check_response_iss(recorded, Some(near), true).unwrap_err();
            assert!(err.contains(near) && err.contains(recorded), "{err}");
        }
    }
}
