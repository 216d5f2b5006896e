//! Which client Sonde is to an authorization server, in the order of preference MCP
//! authorization gives: credentials the person registered beforehand (`--client-id`,
//! `--client-secret`), a Client ID Metadata Document (`--client-metadata-url`, when the server
//! supports them), then Dynamic Client Registration (RFC 7591). When none is possible the
//! refusal asks for a client id.
//!
//! Owns: that choice, the registration request and how the client authenticates at the token
//! endpoint. Refuses: hosting a metadata document (the URL names one the person hosts).

use serde::Deserialize;
use serde_json::json;

use super::error::AuthError;
use super::metadata::ServerMetadata;
use super::record::{Recorder, Step};
use super::Settings;

/// A client as the token endpoint knows it.
#[derive(Clone, PartialEq)]
pub struct Client {
    pub id: String,
    pub secret: Option<String>,
    /// `client_secret_basic`, `client_secret_post` or `none`.
    pub auth_method: String,
}

/// How the client authenticates, from whether it has a secret and what the server supports
/// (RFC 8414: `client_secret_basic` when the server lists nothing).
pub fn auth_method(has_secret: bool, metadata: &ServerMetadata) -> String {
    if !has_secret {
        return "none".into();
    }
    let supported = metadata.token_endpoint_auth_methods_supported.as_deref();
    let offers = |m: &str| supported.is_none_or(|s| s.iter().any(|x| x == m));
    if offers("client_secret_basic") {
        "client_secret_basic".into()
    } else if supported.is_some_and(|s| s.iter().any(|x| x == "client_secret_post")) {
        "client_secret_post".into()
    } else {
        "client_secret_basic".into()
    }
}

/// The client to use: pre-registered, else a metadata document, else a registration.
pub async fn choose(
    rec: &Recorder,
    settings: &Settings,
    metadata: &ServerMetadata,
    redirect_uri: &str,
    scope: Option<&str>,
    known: Option<Client>,
) -> Result<Client, AuthError> {
    if let Some(id) = &settings.client_id {
        rec.note(Step::Registration, format!("using the pre-registered client {id}"));
        let secret = settings.client_secret.clone();
        return Ok(Client { auth_method: auth_method(secret.is_some(), metadata), id: id.clone(), secret });
    }
    if let Some(client) = known {
        rec.note(Step::Registration, format!("using client {} registered earlier", client.id));
        return Ok(client);
    }
    if let Some(url) = &settings.client_metadata_url {
        if metadata.client_id_metadata_document_supported {
            rec.note(
                Step::Registration,
                format!("using the client metadata document {url} as the client id"),
            );
            return Ok(Client { id: url.clone(), secret: None, auth_method: "none".into() });
        }
        rec.note(
            Step::Registration,
            "the authorization server does not support client metadata documents; trying registration",
        );
    }
    let Some(endpoint) = &metadata.registration_endpoint else {
        return Err(AuthError::NoClient {
            issuer: metadata.issuer.clone(),
            metadata_url: settings.client_metadata_url.is_some(),
        });
    };
    let endpoint = url::Url::parse(endpoint)
        .map_err(|error| AuthError::RegistrationEndpoint { endpoint: endpoint.clone(), error })?;
    register(rec, &endpoint, metadata, redirect_uri, scope).await
}

/// Dynamic Client Registration (RFC 7591) as a native public client.
async fn register(
    rec: &Recorder,
    endpoint: &url::Url,
    metadata: &ServerMetadata,
    redirect_uri: &str,
    scope: Option<&str>,
) -> Result<Client, AuthError> {
    // A public client when the server takes one; else the secret method it supports.
    let supported = metadata.token_endpoint_auth_methods_supported.as_deref();
    let asked = match supported {
        Some(s) if !s.iter().any(|m| m == "none") => auth_method(true, metadata),
        _ => "none".to_owned(),
    };
    let mut request = json!({
        "client_name": "Sonde",
        "redirect_uris": [redirect_uri],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": asked,
        "application_type": "native",
    });
    if let Some(scope) = scope {
        request["scope"] = json!(scope);
    }
    let body = serde_json::to_vec(&request).expect("serializes");
    let response = rec.post(Step::Registration, endpoint, "application/json", Vec::new(), body).await?;
    if !response.ok() {
        return Err(AuthError::RegistrationRefused { status: response.status, excerpt: response.excerpt() });
    }
    #[derive(Deserialize)]
    struct Registered {
        client_id: String,
        #[serde(default)]
        client_secret: Option<String>,
        #[serde(default)]
        token_endpoint_auth_method: Option<String>,
    }
    let registered: Registered = serde_json::from_slice(&response.body)
        .map_err(|error| AuthError::NoClientId { error, excerpt: response.excerpt() })?;
    let auth_method = registered
        .token_endpoint_auth_method
        .unwrap_or_else(|| auth_method(registered.client_secret.is_some(), metadata));
    Ok(Client { id: registered.client_id, secret: registered.client_secret, auth_method })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn metadata(methods: Option<&[&str]>) -> ServerMetadata {
        ServerMetadata {
            token_endpoint_auth_methods_supported: methods.map(|m| m.iter().map(|s| s.to_string()).collect()),
            ..ServerMetadata::default()
        }
    }

    #[test]
    fn the_client_authenticates_as_the_server_supports() {
        assert_eq!(auth_method(false, &metadata(Some(&["client_secret_basic"]))), "none");
        assert_eq!(auth_method(true, &metadata(None)), "client_secret_basic");
        assert_eq!(auth_method(true, &metadata(Some(&["client_secret_post", "none"]))), "client_secret_post");
        assert_eq!(
            auth_method(true, &metadata(Some(&["client_secret_post", "client_secret_basic"]))),
            "client_secret_basic"
        );
    }
}
