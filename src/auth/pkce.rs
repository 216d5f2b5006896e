//! PKCE (RFC 7636) with `S256` only, as MCP authorization requires: a fresh verifier per
//! authorization request and its challenge, and the refusal to go on when the authorization
//! server does not say it supports `S256`.
//!
//! Owns: the verifier, the challenge and that check. Refuses: `plain`, which MCP forbids.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use ring::rand::{SecureRandom, SystemRandom};

use super::error::AuthError;

/// A verifier and the challenge sent in its place.
#[derive(Clone, PartialEq, Eq)]
pub struct Pkce {
    /// 43 characters of the unreserved alphabet: 32 random bytes, base64url without padding.
    pub verifier: String,
    /// BASE64URL(SHA256(verifier)).
    pub challenge: String,
}

impl std::fmt::Debug for Pkce {
    /// The verifier is a secret until the token request: never printed.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pkce").field("verifier", &"[redacted]").field("challenge", &self.challenge).finish()
    }
}

impl Pkce {
    /// A new verifier from the system's random source.
    pub fn new() -> Pkce {
        let mut bytes = [0u8; 32];
        SystemRandom::new().fill(&mut bytes).expect("the system random source works");
        Pkce::from_verifier(URL_SAFE_NO_PAD.encode(bytes))
    }

    pub fn from_verifier(verifier: String) -> Pkce {
        let challenge =
            URL_SAFE_NO_PAD.encode(ring::digest::digest(&ring::digest::SHA256, verifier.as_bytes()));
        Pkce { verifier, challenge }
    }
}

impl Default for Pkce {
    fn default() -> Self {
        Pkce::new()
    }
}

/// Whether the authorization server's `code_challenge_methods_supported` allows going on: it
/// must be there and list `S256`.
pub fn check_s256(methods: Option<&[String]>) -> Result<(), AuthError> {
    match methods {
        Some(methods) if methods.iter().any(|m| m == "S256") => Ok(()),
        Some(methods) => Err(AuthError::NoS256(methods.to_vec())),
        None => Err(AuthError::NoPkce),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_challenge_is_the_s256_of_the_verifier() {
        // RFC 7636 appendix B.
        let pkce = Pkce::from_verifier("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk".into());
        assert_eq!(pkce.challenge, "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM");
        assert!(!format!("{pkce:?}").contains("dBjftJ"), "the verifier is never printed");
    }

    #[test]
    fn verifiers_are_fresh_and_of_the_unreserved_alphabet() {
        let (a, b) = (Pkce::new(), Pkce::new());
        assert_ne!(a.verifier, b.verifier);
        assert_eq!(a.verifier.len(), 43);
        assert!(a.verifier.chars().all(|c| c.is_ascii_alphanumeric() || "-._~".contains(c)));
    }

    #[test]
    fn s256_must_be_advertised() {
        assert!(check_s256(Some(&["plain".into(), "S256".into()])).is_ok());
        assert!(check_s256(Some(&["plain".into()])).unwrap_err().to_string().contains("plain only"));
        assert!(check_s256(None).is_err());
    }
}
