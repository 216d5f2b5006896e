//! One authorization, from a server's challenge to a credential: refresh when a refresh token
//! is held, else discovery (protected-resource, then authorization-server metadata), PKCE,
//! scopes, the client, the browser step on the loopback listener, and the token request.
//!
//! Owns: the order of the steps and the refusals between them (an issuer that does not match,
//! no `S256`, an `iss` that does not match, a `state` that does not come back). Refuses: the
//! HTTP loop's requests, which wait meanwhile and go again with the token it returns.

use std::time::{SystemTime, UNIX_EPOCH};

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use ring::rand::{SecureRandom, SystemRandom};
use url::Url;

use super::credential::Credential;
use super::discovery::{authorization_server_metadata_urls, resource_metadata_urls, Challenge};
use super::error::AuthError;
use super::issuer::{check_metadata_issuer, check_response_iss};
use super::loopback::{self, Loopback};
use super::metadata::{ResourceMetadata, ServerMetadata};
use super::pkce::{check_s256, Pkce};
use super::record::{Recorder, Step};
use super::register::{self, Client};
use super::token::{self, Tokens};
use super::{scope, Authorizer, Settings};

/// What started the flow.
pub struct Trigger {
    /// The server's challenge, when its `401` or `403` carried one.
    pub challenge: Option<Challenge>,
    /// A `403 insufficient_scope`: authorize again with more scopes (no refresh).
    pub step_up: bool,
    /// The credential the refused request was sent with.
    pub held: Option<Credential>,
}

/// Authorizes Sonde for the MCP server at `server`.
pub async fn run(
    rec: &Recorder,
    authorizer: &Authorizer,
    settings: &Settings,
    server: &Url,
    trigger: Trigger,
) -> Result<Credential, AuthError> {
    if let (false, Some(held)) = (trigger.step_up, &trigger.held) {
        if let Some(refresh_token) = &held.refresh_token {
            rec.step(Step::Refresh);
            match refresh(rec, held, refresh_token).await {
                Ok(fresh) => return Ok(fresh),
                Err(why) => {
                    rec.note(Step::Refresh, format!("{why}; authorizing again"));
                    rec.failed(&why.to_string());
                }
            }
        }
    }
    let challenge = trigger.challenge.as_ref();
    rec.step(Step::Discovery);
    let (resource_meta, resource) = discover_resource(rec, server, challenge).await?;
    let issuer = resource_meta.authorization_servers.first().cloned().unwrap_or_else(|| {
        // Before RFC 9728 (2025-03-26) the MCP server's origin was its authorization server.
        let origin = server.origin().ascii_serialization();
        rec.note(
            Step::Discovery,
            format!("no protected-resource metadata names an authorization server; trying {origin}"),
        );
        origin
    });
    let meta = discover_server(rec, &issuer).await?;
    let authorization_endpoint = endpoint(&meta.authorization_endpoint, "authorization_endpoint")?;
    let token_endpoint = endpoint(&meta.token_endpoint, "token_endpoint")?;
    check_s256(meta.code_challenge_methods_supported.as_deref())?;

    let scope = if trigger.step_up {
        scope::step_up(
            trigger.held.as_ref().and_then(|h| h.scope.as_deref()),
            challenge.and_then(|c| c.scope.as_deref()),
        )
    } else {
        settings.scope.clone().or_else(|| {
            scope::initial(
                challenge.and_then(|c| c.scope.as_deref()),
                resource_meta.scopes_supported.as_deref(),
                meta.scopes_supported.as_deref(),
                true,
            )
        })
    };
    rec.step(Step::Registration);
    let loopback = Loopback::bind().await?;
    let redirect_uri = loopback.redirect_uri().to_owned();
    let known =
        trigger.held.as_ref().filter(|h| h.issuer == issuer && settings.client_id.is_none()).map(|h| {
            Client {
                id: h.client_id.clone(),
                secret: h.client_secret.clone(),
                auth_method: h.auth_method.clone(),
            }
        });
    let client = register::choose(rec, settings, &meta, &redirect_uri, scope.as_deref(), known).await?;

    rec.step(Step::Authorization);
    let pkce = Pkce::new();
    let state = random_token();
    let mut url = authorization_endpoint.clone();
    {
        let mut query = url.query_pairs_mut();
        query
            .append_pair("response_type", "code")
            .append_pair("client_id", &client.id)
            .append_pair("redirect_uri", &redirect_uri)
            .append_pair("code_challenge", &pkce.challenge)
            .append_pair("code_challenge_method", "S256")
            .append_pair("state", &state)
            .append_pair("resource", &resource);
        if let Some(scope) = &scope {
            query.append_pair("scope", scope);
        }
    }
    rec.note(
        Step::Authorization,
        format!(
            "asking the person to authorize at {}; waiting for the redirect to {redirect_uri}",
            crate::transport::shown_url(&url)
        ),
    );
    rec.waiting(&url);
    authorizer.browser.open(&url)?;
    let params = loopback.wait(&state, loopback::LOOPBACK_LIMIT).await?;
    let iss = params.get("iss").map(String::as_str);
    if let Some(error) = params.get("error") {
        let description = params.get("error_description").cloned();
        return Err(AuthError::Refused { error: error.clone(), description });
    }
    check_response_iss(&issuer, iss, meta.authorization_response_iss_parameter_supported)?;
    let code = params.get("code").ok_or(AuthError::NoCode)?;
    rec.note(
        Step::Authorization,
        format!(
            "the redirect came back with a code{}",
            iss.map(|i| format!(" from {i}")).unwrap_or_default()
        ),
    );

    rec.step(Step::Token);
    let tokens =
        token::exchange_code(rec, &token_endpoint, &client, code, &redirect_uri, &pkce.verifier, &resource)
            .await?;
    let credential = credential(issuer, server, token_endpoint.as_str(), &client, tokens, scope, None);
    rec.note(Step::Token, "authorized");
    Ok(credential)
}

/// Refreshes `held`, keeping its refresh token when the response has none.
async fn refresh(rec: &Recorder, held: &Credential, refresh_token: &str) -> Result<Credential, AuthError> {
    let endpoint = Url::parse(&held.token_endpoint).map_err(AuthError::KeptTokenEndpoint)?;
    let client = Client {
        id: held.client_id.clone(),
        secret: held.client_secret.clone(),
        auth_method: held.auth_method.clone(),
    };
    let server = Url::parse(&held.resource).map_err(AuthError::KeptResource)?;
    let tokens = token::refresh(rec, &endpoint, &client, refresh_token, &canonical(&server)).await?;
    rec.note(Step::Refresh, "refreshed the access token");
    Ok(credential(
        held.issuer.clone(),
        &server,
        &held.token_endpoint,
        &client,
        tokens,
        held.scope.clone(),
        held.refresh_token.clone(),
    ))
}

fn credential(
    issuer: String,
    server: &Url,
    token_endpoint: &str,
    client: &Client,
    tokens: Tokens,
    asked: Option<String>,
    old_refresh: Option<String>,
) -> Credential {
    let now = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    Credential {
        issuer,
        resource: server.to_string(),
        token_endpoint: token_endpoint.to_owned(),
        client_id: client.id.clone(),
        client_secret: client.secret.clone(),
        auth_method: client.auth_method.clone(),
        access_token: tokens.access_token,
        refresh_token: tokens.refresh_token.or(old_refresh),
        expires_at: tokens.expires_in.map(|s| now + s),
        scope: tokens.scope.or(asked),
    }
}

/// The protected-resource metadata (or none), and the resource identifier to name in requests.
async fn discover_resource(
    rec: &Recorder,
    server: &Url,
    challenge: Option<&Challenge>,
) -> Result<(ResourceMetadata, String), AuthError> {
    for url in resource_metadata_urls(server, challenge) {
        let response = rec.get(Step::Discovery, &url).await?;
        if !response.ok() {
            continue;
        }
        let meta: ResourceMetadata = serde_json::from_slice(&response.body)
            .map_err(|error| AuthError::ResourceMetadata { url: url.clone(), error })?;
        let resource = match &meta.resource {
            Some(named) => {
                check_resource(server, named)?;
                named.clone()
            }
            None => canonical(server),
        };
        return Ok((meta, resource));
    }
    Ok((ResourceMetadata::default(), canonical(server)))
}

/// RFC 9728 §3.3: the metadata must be for this server (or a resource containing it).
fn check_resource(server: &Url, named: &str) -> Result<(), AuthError> {
    let ours = canonical(server);
    let same_origin = Url::parse(named).is_ok_and(|n| n.origin() == server.origin());
    // A prefix by whole path segments: `/api` contains `/api/mcp`, not `/apix`.
    let base = named.trim_end_matches('/');
    let prefix = ours == named || ours.trim_end_matches('/') == base || ours.starts_with(&format!("{base}/"));
    if same_origin && prefix {
        Ok(())
    } else {
        Err(AuthError::OtherResource { named: named.to_owned(), ours })
    }
}

async fn discover_server(rec: &Recorder, issuer: &str) -> Result<ServerMetadata, AuthError> {
    let issuer_url =
        Url::parse(issuer).map_err(|error| AuthError::IssuerNotUrl { issuer: issuer.to_owned(), error })?;
    let mut tried = Vec::new();
    for url in authorization_server_metadata_urls(&issuer_url) {
        let response = rec.get(Step::Discovery, &url).await?;
        if !response.ok() {
            tried.push(format!("{url} (HTTP {})", response.status));
            continue;
        }
        let meta: ServerMetadata = serde_json::from_slice(&response.body)
            .map_err(|error| AuthError::ServerMetadata { url: url.clone(), error })?;
        check_metadata_issuer(issuer, meta.issuer.as_deref())?;
        return Ok(meta);
    }
    Err(AuthError::NoServerMetadata { issuer: issuer.to_owned(), tried })
}

fn endpoint(value: &Option<String>, name: &'static str) -> Result<Url, AuthError> {
    let text = value.as_deref().ok_or(AuthError::NoEndpoint(name))?;
    Url::parse(text).map_err(|error| AuthError::EndpointNotUrl { name, text: text.to_owned(), error })
}

/// The server's canonical URI (RFC 8707 as MCP uses it): its URL without a fragment.
pub fn canonical(server: &Url) -> String {
    let mut url = server.clone();
    url.set_fragment(None);
    url.to_string()
}

fn random_token() -> String {
    let mut bytes = [0u8; 24];
    SystemRandom::new().fill(&mut bytes).expect("the system random source works");
    URL_SAFE_NO_PAD.encode(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resource_metadata_must_be_for_this_server() {
        let server = Url::parse("https://mcp.example/api/mcp").unwrap();
        assert!(check_resource(&server, "https://mcp.example/api/mcp").is_ok());
        assert!(check_resource(&server, "https://mcp.example/").is_ok());
        let err = check_resource(&server, "https://evil.example/api/mcp").unwrap_err().to_string();
        assert!(
            err.contains("https://evil.example/api/mcp") && err.contains("https://mcp.example/api/mcp"),
            "{err}"
        );
        assert!(check_resource(&server, "https://mcp.example/other").is_err());
        assert!(check_resource(&server, "https://mcp.example/ap").is_err(), "by whole segments");
        let root = Url::parse("http://localhost:3000/mcp").unwrap();
        assert!(check_resource(&root, "http://localhost:3000").is_ok(), "the origin without a slash");
    }
}
