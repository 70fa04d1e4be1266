//! The live partner ring: partner projects and the revoked access tokens a
//! bearer check consults.

use async_trait::async_trait;
use lendhub_domain::credentials::Environment;
use lendhub_domain::partner::{PartnerStatus, Tier};

use crate::error::StoreError;

/// A project on the live partner ring.
#[derive(Clone, Debug)]
pub struct PartnerClientRecord {
    pub client_id: String,
    pub name: String,
    pub secret_hash: Vec<u8>,
    /// Space-delimited scopes the client may request.
    pub scopes: String,
    pub tier: Tier,
    pub status: PartnerStatus,
    /// The same project's sandbox client, if linked: its applications are
    /// the partner's decisions today.
    pub sandbox_client_id: Option<String>,
    pub created_at_ms: i64,
    /// Where notices go (an endpoint disabled after 72 h of failures).
    pub contact_email: Option<String>,
    /// White-label journeys allowed in the live environment (the
    /// operator's switch, after the data-protection review).
    pub white_label: bool,
}

#[derive(Clone, Debug)]
pub enum PartnerClientChange {
    Status(PartnerStatus),
    SecretHash(Vec<u8>),
    ContactEmail(Option<String>),
    /// The operator's sign-off for white-label journeys in live.
    WhiteLabel(bool),
}

#[derive(Clone, Debug)]
pub struct RevokedToken {
    pub jti: String,
    pub client_id: String,
    pub expires_at_ms: i64,
    pub revoked_at_ms: i64,
}

/// A secret API key of a partner, for one environment of the REST tier.
#[derive(Clone, Debug)]
pub struct ApiKeyRecord {
    pub selector: Vec<u8>,
    pub verifier_hash: Vec<u8>,
    pub client_id: String,
    pub environment: Environment,
    /// Space-delimited; never more than the client holds.
    pub scopes: String,
    pub created_at_ms: i64,
    /// When it stops working (revoked, or rolled with an overlap); `None`: never.
    pub expires_at_ms: Option<i64>,
}

impl ApiKeyRecord {
    pub fn active_at(&self, now_ms: i64) -> bool {
        self.expires_at_ms.is_none_or(|at| now_ms < at)
    }
}

/// The public half of a partner's request-signing key (Ed25519).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RequestKeyRecord {
    /// `rsk_…`
    pub key_id: String,
    pub client_id: String,
    pub public_key: Vec<u8>,
    pub created_at_ms: i64,
    pub revoked_at_ms: Option<i64>,
}

#[async_trait]
pub trait PartnerStore: Send + Sync {
    async fn insert_partner_client(&self, client: PartnerClientRecord) -> Result<(), StoreError>;
    async fn partner_client(
        &self,
        client_id: &str,
    ) -> Result<Option<PartnerClientRecord>, StoreError>;
    async fn list_partner_clients(&self) -> Result<Vec<PartnerClientRecord>, StoreError>;
    /// `false` if no such client.
    async fn update_partner_client(
        &self,
        client_id: &str,
        change: PartnerClientChange,
        now_ms: i64,
    ) -> Result<bool, StoreError>;

    // Revoked access tokens (JWTs cannot be recalled; their ids are listed).
    async fn revoke_jwt(&self, token: RevokedToken) -> Result<(), StoreError>;
    /// The partner client and whether the token `jti` is revoked, in one
    /// read: what every bearer check needs.
    async fn partner_client_and_revocation(
        &self,
        client_id: &str,
        jti: &str,
    ) -> Result<(Option<PartnerClientRecord>, bool), StoreError>;

    /// A counter that moves whenever any partner client or token revocation
    /// changes, by whichever process: instances poll it to know when what
    /// they remember of partners is out of date.
    async fn partner_epoch(&self) -> Result<i64, StoreError>;

    // Secret API keys (moving the partner epoch like clients do).
    async fn insert_api_key(&self, key: ApiKeyRecord) -> Result<(), StoreError>;
    async fn api_key(&self, selector: &[u8]) -> Result<Option<ApiKeyRecord>, StoreError>;
    /// A client's keys, oldest first.
    async fn list_api_keys(&self, client_id: &str) -> Result<Vec<ApiKeyRecord>, StoreError>;
    /// Brings the key's end forward to `expires_at_ms` (never later than it
    /// was); `false` if there is no such key.
    async fn expire_api_key(&self, selector: &[u8], expires_at_ms: i64)
    -> Result<bool, StoreError>;

    // Request-signing keys.
    async fn insert_request_key(&self, key: RequestKeyRecord) -> Result<(), StoreError>;
    async fn request_key(&self, key_id: &str) -> Result<Option<RequestKeyRecord>, StoreError>;
    /// A client's keys, oldest first.
    async fn list_request_keys(&self, client_id: &str)
    -> Result<Vec<RequestKeyRecord>, StoreError>;
    /// `false` if no such key (or it was revoked before).
    async fn revoke_request_key(&self, key_id: &str, at_ms: i64) -> Result<bool, StoreError>;
}
