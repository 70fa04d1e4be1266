//! The live partner ring: partner projects, their OAuth clients, API keys
//! and request-signing keys, and revoked access tokens.

use async_trait::async_trait;
use lendhub_domain::partner::credentials::Environment;
use lendhub_domain::partner::project::{PartnerStatus, Tier};

use crate::context::partner::*;
use crate::error::StoreError;
use crate::exec::{Backend, Exec, Row, Statement};
use crate::sql::partner as sql;
use crate::{params, values};

fn unknown(what: &str) -> StoreError {
    StoreError::Internal(format!("unknown stored {what}"))
}

/// Columns: `sql::partner`'s client columns.
fn client(r: &Row) -> Result<PartnerClientRecord, StoreError> {
    let tier: String = r.get(4)?;
    let status: String = r.get(5)?;
    Ok(PartnerClientRecord {
        client_id: r.get(0)?,
        name: r.get(1)?,
        secret_hash: r.get(2)?,
        scopes: r.get(3)?,
        tier: Tier::parse(&tier).ok_or_else(|| unknown("tier"))?,
        status: PartnerStatus::parse(&status).ok_or_else(|| unknown("partner status"))?,
        created_at_ms: r.get(6)?,
        sandbox_client_id: r.get(7)?,
        contact_email: r.get(8)?,
        white_label: r.get(9)?,
        previous_secret_hash: r.get(10)?,
        previous_secret_expires_at_ms: r.get(11)?,
        acting_client_id: None,
    })
}

fn oauth_client(r: &Row) -> Result<OAuthClientRecord, StoreError> {
    Ok(OAuthClientRecord {
        client_id: r.get(0)?,
        partner_client_id: r.get(1)?,
        name: r.get(2)?,
        scopes: r.get(3)?,
        secret_hash: r.get(4)?,
        previous_secret_hash: r.get(5)?,
        previous_secret_expires_at_ms: r.get(6)?,
        created_at_ms: r.get(7)?,
        revoked_at_ms: r.get(8)?,
    })
}

fn api_key(r: &Row) -> Result<ApiKeyRecord, StoreError> {
    let environment: String = r.get(3)?;
    Ok(ApiKeyRecord {
        selector: r.get(0)?,
        verifier_hash: r.get(1)?,
        client_id: r.get(2)?,
        environment: Environment::parse(&environment).ok_or_else(|| unknown("environment"))?,
        scopes: r.get(4)?,
        created_at_ms: r.get(5)?,
        expires_at_ms: r.get(6)?,
    })
}

fn request_key(r: &Row) -> Result<RequestKeyRecord, StoreError> {
    Ok(RequestKeyRecord {
        key_id: r.get(0)?,
        client_id: r.get(1)?,
        public_key: r.get(2)?,
        created_at_ms: r.get(3)?,
        revoked_at_ms: r.get(4)?,
    })
}

/// The one change `change` makes to the partner's own client.
fn update_client(id: &str, change: PartnerClientChange, now_ms: i64) -> Statement {
    let (statement, params) = match change {
        PartnerClientChange::Status(s) => (
            sql::PARTNER_CLIENTS_SET_STATUS_BY_CLIENT_ID,
            values![id, s.as_str(), now_ms],
        ),
        PartnerClientChange::Secret {
            hash,
            previous_until_ms,
        } => (
            sql::PARTNER_CLIENTS_SET_SECRET_HASH_BY_CLIENT_ID,
            values![id, hash, now_ms, previous_until_ms],
        ),
        PartnerClientChange::EndPreviousSecret => (
            sql::PARTNER_CLIENTS_END_PREVIOUS_SECRET_BY_CLIENT_ID,
            values![id, now_ms],
        ),
        PartnerClientChange::ContactEmail(email) => (
            sql::PARTNER_CLIENTS_SET_CONTACT_BY_CLIENT_ID,
            values![id, email, now_ms],
        ),
        PartnerClientChange::WhiteLabel(on) => (
            sql::PARTNER_CLIENTS_SET_WHITE_LABEL_BY_CLIENT_ID,
            values![id, on, now_ms],
        ),
    };
    Statement::change(statement, params)
}

/// Runs `statement` on its own: whether it changed a row.
async fn changed<B: Backend>(backend: &B, statement: Statement) -> Result<bool, StoreError> {
    let done = backend.write(vec![statement]).await?;
    Ok(done.first().is_some_and(|d| d.changed > 0))
}

#[async_trait]
impl<B: Backend> PartnerStore for B {
    async fn insert_partner_client(&self, client: PartnerClientRecord) -> Result<(), StoreError> {
        let plan = vec![Statement::change(
            sql::PARTNER_CLIENTS_INSERT,
            values![
                client.client_id,
                client.name,
                client.secret_hash,
                client.scopes,
                client.tier.as_str(),
                client.status.as_str(),
                client.created_at_ms,
                client.sandbox_client_id,
                client.contact_email
            ],
        )];
        self.write(plan).await.map(drop)
    }

    async fn partner_client(
        &self,
        client_id: &str,
    ) -> Result<Option<PartnerClientRecord>, StoreError> {
        self.one(sql::PARTNER_CLIENT, &params![client_id], client)
            .await
    }

    async fn list_partner_clients(&self) -> Result<Vec<PartnerClientRecord>, StoreError> {
        self.all(sql::PARTNER_CLIENTS, &[], client).await
    }

    async fn update_partner_client(
        &self,
        client_id: &str,
        change: PartnerClientChange,
        now_ms: i64,
    ) -> Result<bool, StoreError> {
        changed(self, update_client(client_id, change, now_ms)).await
    }

    async fn revoke_jwt(&self, token: RevokedToken) -> Result<(), StoreError> {
        let plan = vec![Statement::change(
            sql::REVOKE_JWT,
            values![
                token.jti,
                token.client_id,
                token.expires_at_ms,
                token.revoked_at_ms
            ],
        )];
        self.write(plan).await.map(drop)
    }

    async fn partner_client_and_revocation(
        &self,
        client_id: &str,
        jti: &str,
    ) -> Result<(Option<PartnerClientRecord>, bool), StoreError> {
        let mut c = self.connection().await?;
        let r = c
            .query_one(sql::PARTNER_CLIENT_AND_REVOCATION, &params![client_id, jti])
            .await?;
        let found: Option<String> = r.get(0)?;
        let record = match found {
            Some(_) => Some(client(&r)?),
            None => None,
        };
        Ok((record, r.get(sql::REVOCATION_COLUMN)?))
    }

    async fn partner_epoch(&self) -> Result<i64, StoreError> {
        let mut c = self.connection().await?;
        c.query_one(sql::PARTNER_EPOCH, &[]).await?.get(0)
    }

    async fn insert_api_key(&self, key: ApiKeyRecord) -> Result<(), StoreError> {
        let plan = vec![Statement::change(
            sql::API_KEYS_INSERT,
            values![
                key.selector,
                key.verifier_hash,
                key.client_id,
                key.environment.as_str(),
                key.scopes,
                key.created_at_ms,
                key.expires_at_ms
            ],
        )];
        self.write(plan).await.map(drop)
    }

    async fn api_key(&self, selector: &[u8]) -> Result<Option<ApiKeyRecord>, StoreError> {
        self.one(
            sql::API_KEYS_SELECT_BY_SELECTOR,
            &params![selector],
            api_key,
        )
        .await
    }

    async fn oauth_client(&self, client_id: &str) -> Result<Option<OAuthClientRecord>, StoreError> {
        self.one(
            sql::OAUTH_CLIENTS_SELECT_BY_ID,
            &params![client_id],
            oauth_client,
        )
        .await
    }

    async fn list_oauth_clients(
        &self,
        partner_client_id: &str,
    ) -> Result<Vec<OAuthClientRecord>, StoreError> {
        self.all(
            sql::OAUTH_CLIENTS_SELECT_BY_PARTNER,
            &params![partner_client_id],
            oauth_client,
        )
        .await
    }

    async fn list_api_keys(&self, client_id: &str) -> Result<Vec<ApiKeyRecord>, StoreError> {
        self.all(sql::API_KEYS_SELECT_BY_CLIENT, &params![client_id], api_key)
            .await
    }

    /// Brought forward, or already ending no later: `true` either way while
    /// the key exists.
    async fn expire_api_key(
        &self,
        selector: &[u8],
        expires_at_ms: i64,
    ) -> Result<bool, StoreError> {
        let plan = vec![
            Statement::change(
                sql::API_KEYS_EXPIRE,
                values![selector.to_vec(), expires_at_ms],
            ),
            Statement::read(sql::API_KEYS_EXISTS, values![selector.to_vec()]),
        ];
        let done = self.write(plan).await?;
        Ok(done.iter().any(|d| d.changed > 0 || !d.rows.is_empty()))
    }

    async fn insert_request_key(&self, key: RequestKeyRecord) -> Result<(), StoreError> {
        let plan = vec![Statement::change(
            sql::REQUEST_KEYS_INSERT,
            values![key.key_id, key.client_id, key.public_key, key.created_at_ms],
        )];
        self.write(plan).await.map(drop)
    }

    async fn request_key(&self, key_id: &str) -> Result<Option<RequestKeyRecord>, StoreError> {
        self.one(
            sql::REQUEST_KEYS_SELECT_BY_ID,
            &params![key_id],
            request_key,
        )
        .await
    }

    async fn list_request_keys(
        &self,
        client_id: &str,
    ) -> Result<Vec<RequestKeyRecord>, StoreError> {
        self.all(
            sql::REQUEST_KEYS_SELECT_BY_CLIENT,
            &params![client_id],
            request_key,
        )
        .await
    }

    async fn revoke_request_key(&self, key_id: &str, at_ms: i64) -> Result<bool, StoreError> {
        changed(
            self,
            Statement::change(sql::REQUEST_KEYS_REVOKE, values![key_id, at_ms]),
        )
        .await
    }
}
