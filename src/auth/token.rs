//! The token endpoint: exchanging an authorization code, refreshing, and authenticating the
//! client as its registration says (`client_secret_basic`, `client_secret_post` or `none`).
//!
//! Owns: the form of each grant, with `resource` (RFC 8707) in both, and reading the token
//! response or its error. Refuses: choosing the client (`register`) and keeping tokens (`store`).

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use serde::Deserialize;

use super::error::AuthError;
use super::record::{Recorder, Response, Step};
use super::register::Client;

/// A token response (RFC 6749 §5.1).
#[derive(Deserialize)]
pub struct Tokens {
    pub access_token: String,
    #[serde(default)]
    pub token_type: Option<String>,
    #[serde(default)]
    pub expires_in: Option<u64>,
    #[serde(default)]
    pub refresh_token: Option<String>,
    #[serde(default)]
    pub scope: Option<String>,
}

/// Exchanges an authorization code.
pub async fn exchange_code(
    rec: &Recorder,
    endpoint: &url::Url,
    client: &Client,
    code: &str,
    redirect_uri: &str,
    verifier: &str,
    resource: &str,
) -> Result<Tokens, AuthError> {
    let form = vec![
        ("grant_type", "authorization_code"),
        ("code", code),
        ("redirect_uri", redirect_uri),
        ("code_verifier", verifier),
        ("resource", resource),
    ];
    request(rec, Step::Token, endpoint, client, form).await
}

/// Refreshes with a refresh token; the response may leave the refresh token out (keep the old).
pub async fn refresh(
    rec: &Recorder,
    endpoint: &url::Url,
    client: &Client,
    refresh_token: &str,
    resource: &str,
) -> Result<Tokens, AuthError> {
    let form =
        vec![("grant_type", "refresh_token"), ("refresh_token", refresh_token), ("resource", resource)];
    request(rec, Step::Refresh, endpoint, client, form).await
}

async fn request(
    rec: &Recorder,
    step: Step,
    endpoint: &url::Url,
    client: &Client,
    mut form: Vec<(&str, &str)>,
) -> Result<Tokens, AuthError> {
    let mut headers = Vec::new();
    match (client.auth_method.as_str(), &client.secret) {
        ("client_secret_basic", Some(secret)) => {
            // RFC 6749 §2.3.1: each part form-encoded before the Basic encoding.
            let pair = format!("{}:{}", form_encode(&client.id), form_encode(secret));
            headers.push(("Authorization".to_owned(), format!("Basic {}", STANDARD.encode(pair))));
        }
        ("client_secret_post", Some(secret)) => {
            form.push(("client_id", &client.id));
            form.push(("client_secret", secret));
        }
        _ => form.push(("client_id", &client.id)),
    }
    let body = url::form_urlencoded::Serializer::new(String::new()).extend_pairs(form).finish();
    let response =
        rec.post(step, endpoint, "application/x-www-form-urlencoded", headers, body.into_bytes()).await?;
    read(&response)
}

fn read(response: &Response) -> Result<Tokens, AuthError> {
    if !response.ok() {
        #[derive(Deserialize)]
        struct Refusal {
            error: String,
            #[serde(default)]
            error_description: Option<String>,
        }
        return Err(match serde_json::from_slice::<Refusal>(&response.body) {
            Ok(r) => AuthError::TokenRefused {
                status: response.status,
                error: r.error,
                description: r.error_description,
            },
            Err(_) => AuthError::TokenStatus { status: response.status, excerpt: response.excerpt() },
        });
    }
    let tokens: Tokens = serde_json::from_slice(&response.body)
        .map_err(|error| AuthError::NotAToken { error, excerpt: response.excerpt() })?;
    if let Some(kind) = tokens.token_type.as_deref().filter(|t| !t.eq_ignore_ascii_case("bearer")) {
        return Err(AuthError::NotBearer(kind.to_owned()));
    }
    Ok(tokens)
}

fn form_encode(s: &str) -> String {
    url::form_urlencoded::byte_serialize(s.as_bytes()).collect()
}
