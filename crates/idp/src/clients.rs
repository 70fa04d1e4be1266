//! Relying-party clients: registration (the CLI) and authentication at the
//! token endpoint. Confidential clients hold a random secret stored only as a
//! keyed hash; public clients have none and rely on PKCE alone.

use std::sync::Arc;

use axum::http::HeaderMap;
use lendhub_domain::crypto::{DerivedKey, MasterKey};
use lendhub_domain::partner::credentials::{hash_secret, secret_matches};
use lendhub_http::oauth_form;
use lendhub_store::{IdentityDirectory, SsoClientRecord, StoreError};
use lendhub_system::random_token;

use crate::error::TokenError;

pub const CLIENT_ID_PREFIX: &str = "rp_";
pub const SECRET_PREFIX: &str = "rpsk_";

pub fn pepper(master_key: &MasterKey) -> DerivedKey {
    master_key.derive("sso-client-secret")
}

/// A redirect URI a client may register: an absolute URL without a fragment
/// (RFC 6749 §3.1.2), on HTTPS, or on plain HTTP only to the loopback
/// interface (RFC 8252 §7.3, for development and native apps).
pub fn check_redirect_uri(raw: &str) -> Result<(), RedirectUriRefused> {
    let refused = |why| RedirectUriRefused {
        uri: raw.to_owned(),
        why,
    };
    let url = url::Url::parse(raw).map_err(|e| refused(format!("is not an absolute URL: {e}")))?;
    if url.fragment().is_some() {
        return Err(refused("has a fragment".to_owned()));
    }
    let loopback = matches!(url.host(), Some(url::Host::Domain("localhost")))
        || matches!(url.host(), Some(url::Host::Ipv4(ip)) if ip.is_loopback())
        || matches!(url.host(), Some(url::Host::Ipv6(ip)) if ip.is_loopback());
    match url.scheme() {
        "https" => Ok(()),
        "http" if loopback => Ok(()),
        _ => Err(refused(
            "must use https (http is allowed only for localhost and loopback addresses)".to_owned(),
        )),
    }
}

/// A redirect URI a client may not register, and why.
#[derive(Debug, thiserror::Error)]
#[error("{uri} {why}")]
pub struct RedirectUriRefused {
    uri: String,
    why: String,
}

pub struct NewClient<'a> {
    pub name: &'a str,
    pub redirect_uris: &'a [String],
    pub post_logout_redirect_uris: &'a [String],
    pub public: bool,
}

pub struct Created {
    pub client_id: String,
    /// The only copy in clear; `None` for a public client.
    pub client_secret: Option<lendhub_domain::secret::Secret<String>>,
}

#[derive(Debug)]
pub enum CreateError {
    Invalid(String),
    Store(StoreError),
}

impl std::fmt::Display for CreateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CreateError::Invalid(m) => f.write_str(m),
            CreateError::Store(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for CreateError {}

pub async fn create(
    store: &dyn IdentityDirectory,
    master_key: &MasterKey,
    new: NewClient<'_>,
    now_ms: i64,
) -> Result<Created, CreateError> {
    if new.name.trim().is_empty() {
        return Err(CreateError::Invalid("the name must not be empty".into()));
    }
    if new.redirect_uris.is_empty() {
        return Err(CreateError::Invalid(
            "at least one --redirect-uri is required".into(),
        ));
    }
    for uri in new
        .redirect_uris
        .iter()
        .chain(new.post_logout_redirect_uris)
    {
        check_redirect_uri(uri).map_err(|e| CreateError::Invalid(e.to_string()))?;
    }
    let client_id = format!("{CLIENT_ID_PREFIX}{}", random_token(18));
    let secret = (!new.public).then(|| format!("{SECRET_PREFIX}{}", random_token(32)));
    store
        .put_sso_client(SsoClientRecord {
            client_id: client_id.clone(),
            name: new.name.trim().to_owned(),
            secret_hash: secret
                .as_ref()
                .map(|s| hash_secret(pepper(master_key).expose(), s).to_vec()),
            redirect_uris: new.redirect_uris.to_vec(),
            post_logout_redirect_uris: new.post_logout_redirect_uris.to_vec(),
            created_at_ms: now_ms,
        })
        .await
        .map_err(CreateError::Store)?;
    Ok(Created {
        client_id,
        client_secret: secret.map(Into::into),
    })
}

/// Registers a confidential client lendhub runs itself (the hosted
/// application journey) under a fixed id, replacing its previous
/// registration: its redirect URI follows the hub's address, and its secret
/// is derived from the master key by the client, so nothing is printed.
pub async fn register_own(
    store: &dyn IdentityDirectory,
    master_key: &MasterKey,
    client: OwnClient<'_>,
    now_ms: i64,
) -> Result<(), CreateError> {
    check_redirect_uri(client.redirect_uri).map_err(|e| CreateError::Invalid(e.to_string()))?;
    store
        .put_sso_client(SsoClientRecord {
            client_id: client.client_id.to_owned(),
            name: client.name.to_owned(),
            secret_hash: Some(hash_secret(pepper(master_key).expose(), client.secret).to_vec()),
            redirect_uris: vec![client.redirect_uri.to_owned()],
            post_logout_redirect_uris: client.post_logout_redirect_uris.to_vec(),
            created_at_ms: now_ms,
        })
        .await
        .map_err(CreateError::Store)
}

pub struct OwnClient<'a> {
    pub client_id: &'a str,
    pub name: &'a str,
    pub redirect_uri: &'a str,
    /// Where it may ask to be sent back after signing out.
    pub post_logout_redirect_uris: &'a [String],
    pub secret: &'a str,
}

/// The client a token request comes from, authenticated (RFC 6749 §2.3.1):
/// by HTTP Basic (`client_secret_basic`), by `client_id` and `client_secret`
/// in the form (`client_secret_post`), or, for a public client, by
/// `client_id` alone (`none`). With Basic, a `client_id` in the form must
/// name the same client; a secret in both places is refused.
pub async fn authenticate(
    store: &dyn IdentityDirectory,
    known: &crate::grants::Grants,
    pepper: &[u8; 32],
    headers: &HeaderMap,
    form: &mut std::collections::HashMap<&'static str, String>,
) -> Result<Arc<SsoClientRecord>, TokenError> {
    let basic = oauth_form::basic(headers).map_err(|_| TokenError::InvalidClient {
        basic: true,
        why: "malformed HTTP Basic credentials",
    })?;
    let form_id = form.remove("client_id");
    let form_secret = form.remove("client_secret");
    let used_basic = basic.is_some();
    let (client_id, secret) = match basic {
        Some((id, secret)) => {
            if form_secret.is_some() {
                return Err(TokenError::InvalidRequest(
                    "send client credentials by HTTP Basic or in the form, not both".into(),
                ));
            }
            if form_id.as_deref().is_some_and(|f| f != id) {
                return Err(TokenError::InvalidRequest(
                    "client_id in the form differs from the HTTP Basic client".into(),
                ));
            }
            (id, Some(secret))
        }
        None => match form_id {
            Some(id) => (id, form_secret),
            None => {
                return Err(TokenError::InvalidClient {
                    basic: false,
                    why: "client authentication is required: HTTP Basic, or client_id (and client_secret) in the form",
                });
            }
        },
    };
    let refused = |why| TokenError::InvalidClient {
        basic: used_basic,
        why,
    };
    let client = known
        .client(store, &client_id)
        .await?
        .ok_or_else(|| refused("unknown client or wrong secret"))?;
    // An empty secret is what some libraries send for a public client.
    let secret = secret.filter(|s| !s.is_empty());
    match (&client.secret_hash, secret) {
        (Some(hash), Some(presented)) if secret_matches(pepper, &presented, hash) => Ok(client),
        (Some(_), _) => Err(refused("unknown client or wrong secret")),
        (None, None) => Ok(client),
        (None, Some(_)) => Err(refused(
            "this is a public client: it has no secret and authenticates with PKCE alone",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redirect_uris_must_be_https_or_loopback_http_without_fragment() {
        for ok in [
            "https://rp.example/cb",
            "https://rp.example/cb?x=1",
            "http://127.0.0.1:8000/cb",
            "http://localhost/cb",
            "http://[::1]:9/cb",
        ] {
            assert!(check_redirect_uri(ok).is_ok(), "{ok}");
        }
        for bad in [
            "http://rp.example/cb",
            "https://rp.example/cb#f",
            "/cb",
            "rp.example/cb",
            "javascript:alert(1)",
            "ftp://rp.example/cb",
        ] {
            assert!(check_redirect_uri(bad).is_err(), "{bad}");
        }
    }
}
