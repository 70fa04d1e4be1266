//! Request signing (docs/guide/src/request-signing.md): the public keys partners
//! register from the CLI, and the check a money-moving request must pass.

use axum::http::HeaderMap;
use lendhub_domain::partner::request_signature::{self, Header, SignatureError, Signed};
use lendhub_store::{PartnerStore, RequestKeyRecord, StoreError};

use super::error::PartnerError;
use crate::partner::state::PartnerState;

#[derive(Debug, thiserror::Error)]
pub enum RegisterError {
    #[error("no partner client {0}")]
    NoClient(String),
    #[error("not an Ed25519 public key (32 bytes in base64, or PEM)")]
    NotAKey,
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Registers the public half of a partner's signing key; its id (`rsk_…`)
/// goes in every signature header.
pub async fn register(
    store: &dyn PartnerStore,
    client_id: &str,
    public_key: &str,
    now_ms: i64,
) -> Result<RequestKeyRecord, RegisterError> {
    if store.partner_client(client_id).await?.is_none() {
        return Err(RegisterError::NoClient(client_id.to_owned()));
    }
    let key = request_signature::parse_public_key(public_key).ok_or(RegisterError::NotAKey)?;
    let record = RequestKeyRecord {
        key_id: format!("rsk_{}", lendhub_system::random_token(12)),
        client_id: client_id.to_owned(),
        public_key: key.to_vec(),
        created_at_ms: now_ms,
        revoked_at_ms: None,
    };
    store.insert_request_key(record.clone()).await?;
    Ok(record)
}

/// What a signed request is checked over.
pub struct SignedRequest<'a> {
    pub headers: &'a HeaderMap,
    pub method: &'a str,
    pub path_and_query: &'a str,
    pub idempotency_key: &'a str,
    pub body: &'a [u8],
}

/// The id of the caller's registered key that signed `request`, or 400
/// `signature_invalid` saying why not.
pub async fn check(
    state: &PartnerState,
    client_id: &str,
    request: &SignedRequest<'_>,
) -> Result<String, PartnerError> {
    let invalid = |e: SignatureError| PartnerError::SignatureInvalid(e.to_string());
    let raw = request
        .headers
        .get(request_signature::HEADER)
        .ok_or_else(|| invalid(SignatureError::Missing))?
        .to_str()
        .map_err(|_| invalid(SignatureError::Malformed("not text")))?;
    let header: Header = request_signature::parse(raw).map_err(invalid)?;
    let key = state
        .partners
        .request_key(&header.key_id)
        .await?
        .filter(|k| k.client_id == client_id && k.revoked_at_ms.is_none())
        .ok_or_else(|| invalid(SignatureError::UnknownKey(header.key_id.clone())))?;
    let signed = Signed {
        method: request.method,
        path_and_query: request.path_and_query,
        idempotency_key: request.idempotency_key,
        body: request.body,
    };
    // The timestamp is real time: the signer reads its own clock.
    let now = time::OffsetDateTime::now_utc().unix_timestamp();
    request_signature::verify(&key.public_key, &header, &signed, now).map_err(invalid)?;
    Ok(key.key_id)
}
