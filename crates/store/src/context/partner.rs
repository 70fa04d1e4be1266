//! The live partner ring: partner projects and the revoked access tokens a
//! bearer check consults.

use async_trait::async_trait;
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
}

#[derive(Clone, Debug)]
pub enum PartnerClientChange {
    Status(PartnerStatus),
    SecretHash(Vec<u8>),
}

#[derive(Clone, Debug)]
pub struct RevokedToken {
    pub jti: String,
    pub client_id: String,
    pub expires_at_ms: i64,
    pub revoked_at_ms: i64,
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
}
