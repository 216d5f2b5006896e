//! The issuer checks: authorization-server metadata must name the issuer it was fetched for
//! (RFC 8414 §3.3), and the authorization response's `iss` must be that issuer (RFC 9207).
//! Both compare by simple string comparison, with no URL normalisation: an `iss` of
//! `https://AS.example/` does not match `https://as.example` (the conformance suite's
//! `auth/iss-normalized`).
//!
//! Owns: the two comparisons and the words of their refusals, which name both values.
//! Refuses: fetching metadata and reading redirects.

use super::error::AuthError;

/// Whether metadata fetched for `expected` may be used: its `issuer` must be `expected`, exactly.
pub fn check_metadata_issuer(expected: &str, issuer: Option<&str>) -> Result<(), AuthError> {
    match issuer {
        Some(issuer) if issuer == expected => Ok(()),
        Some(issuer) => {
            Err(AuthError::OtherIssuer { expected: expected.to_owned(), named: issuer.to_owned() })
        }
        None => Err(AuthError::NoIssuer { expected: expected.to_owned() }),
    }
}

/// Whether an authorization response may be used, given the `iss` it carries, the issuer the
/// client recorded, and whether the server's metadata advertised
/// `authorization_response_iss_parameter_supported`. An `iss` is compared whenever present,
/// advertised or not; a missing one is refused only when it was advertised.
pub fn check_response_iss(recorded: &str, iss: Option<&str>, advertised: bool) -> Result<(), AuthError> {
    match iss {
        Some(iss) if iss == recorded => Ok(()),
        Some(iss) => Err(AuthError::OtherIss { iss: iss.to_owned(), recorded: recorded.to_owned() }),
        None if advertised => Err(AuthError::NoIss { recorded: recorded.to_owned() }),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metadata_must_name_the_issuer_it_was_fetched_for_exactly() {
        assert!(check_metadata_issuer("https://as.example/t1", Some("https://as.example/t1")).is_ok());
        let err = check_metadata_issuer("https://as.example/t1", Some("https://evil.example/t1"))
            .unwrap_err()
            .to_string();
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
            let err = check_response_iss(recorded, Some(near), true).unwrap_err().to_string();
            assert!(err.contains(near) && err.contains(recorded), "{err}");
        }
    }
}
