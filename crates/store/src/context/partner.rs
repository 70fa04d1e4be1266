//! The live partner ring: partner projects and the revoked access tokens a
//! bearer check consults.

use async_trait::async_trait;
use lendhub_domain::partner::credentials::Environment;
use lendhub_domain::partner::project::{PartnerStatus, Tier};

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
    /// The secret a roll replaced, still accepted until
    /// `previous_secret_expires_at_ms` (a deployment switches without a gap).
    pub previous_secret_hash: Option<Vec<u8>>,
    pub previous_secret_expires_at_ms: Option<i64>,
    /// Set when this is the partner as one of its additional OAuth clients
    /// acts for it (composed by the hub, never stored): that client's id.
    /// The secrets and scopes are then that client's; the rest is the
    /// partner's.
    pub acting_client_id: Option<String>,
}

impl PartnerClientRecord {
    /// The replaced secret's hash, if it is still accepted at `now_ms`.
    pub fn previous_secret_at(&self, now_ms: i64) -> Option<&[u8]> {
        previous_secret_at(
            self.previous_secret_hash.as_deref(),
            self.previous_secret_expires_at_ms,
            now_ms,
        )
    }

    /// The OAuth client that authenticated: the partner's own, or the
    /// additional client acting for it. Tokens name it as `client_id`.
    pub fn oauth_client_id(&self) -> &str {
        self.acting_client_id.as_deref().unwrap_or(&self.client_id)
    }
}

fn previous_secret_at(hash: Option<&[u8]>, until: Option<i64>, now_ms: i64) -> Option<&[u8]> {
    match (hash, until) {
        (Some(hash), Some(until)) if now_ms < until => Some(hash),
        _ => None,
    }
}

/// One of a partner's additional OAuth clients (`pk_live_…`): it acts as
/// the partner with at most the partner's scopes, and has a secret of its
/// own, rolled and revoked on its own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OAuthClientRecord {
    pub client_id: String,
    /// The partner it acts for.
    pub partner_client_id: String,
    pub name: String,
    /// Space-delimited; capped by the partner's own when it is used.
    pub scopes: String,
    pub secret_hash: Vec<u8>,
    pub previous_secret_hash: Option<Vec<u8>>,
    pub previous_secret_expires_at_ms: Option<i64>,
    pub created_at_ms: i64,
    pub revoked_at_ms: Option<i64>,
}

impl OAuthClientRecord {
    pub fn previous_secret_at(&self, now_ms: i64) -> Option<&[u8]> {
        previous_secret_at(
            self.previous_secret_hash.as_deref(),
            self.previous_secret_expires_at_ms,
            now_ms,
        )
    }
}

#[derive(Clone, Debug)]
pub enum PartnerClientChange {
    Status(PartnerStatus),
    /// A new secret. With `previous_until_ms` the replaced one keeps
    /// working until then; without, it stops at once.
    Secret {
        hash: Vec<u8>,
        previous_until_ms: Option<i64>,
    },
    /// The replaced secret stops working now (the overlap cut short).
    EndPreviousSecret,
    ContactEmail(Option<String>),
    /// The operator's sign-off for white-label journeys in live.
    WhiteLabel(bool),
}

/// A change to who can call the partner ring, made in a unit of work with
/// the dashboard's audit line (and the form's idempotency record).
#[derive(Clone, Debug)]
pub enum AccessWrite {
    InsertApiKey(ApiKeyRecord),
    /// Ends the key at `at_ms`, unless it already ends sooner.
    ExpireApiKey {
        selector: Vec<u8>,
        at_ms: i64,
    },
    /// A new secret for the partner's own OAuth client (`client_id` equal
    /// to `partner_client_id`) or one of its additional clients; the
    /// replaced one kept until `previous_until_ms` (or stopped at once
    /// without it).
    RollClientSecret {
        partner_client_id: String,
        client_id: String,
        hash: Vec<u8>,
        previous_until_ms: Option<i64>,
        at_ms: i64,
    },
    /// The replaced client secret stops working now.
    EndPreviousClientSecret {
        partner_client_id: String,
        client_id: String,
        at_ms: i64,
    },
    InsertOAuthClient(OAuthClientRecord),
    /// The additional client stops working now (its tokens with it).
    RevokeOAuthClient {
        partner_client_id: String,
        client_id: String,
        at_ms: i64,
    },
}

impl From<AccessWrite> for crate::Write {
    fn from(write: AccessWrite) -> Self {
        crate::Write::Access(write)
    }
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
    /// One of a partner's additional OAuth clients, revoked or not.
    async fn oauth_client(&self, client_id: &str) -> Result<Option<OAuthClientRecord>, StoreError>;
    /// A partner's additional OAuth clients, oldest first.
    async fn list_oauth_clients(
        &self,
        partner_client_id: &str,
    ) -> Result<Vec<OAuthClientRecord>, StoreError>;
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
