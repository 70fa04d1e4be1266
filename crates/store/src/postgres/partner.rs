//! Partner projects, signing keys and revoked tokens on PostgreSQL.

use deadpool_postgres::ClientWrapper as Client;
use tokio_postgres::Row;

use super::errors::{db, internal};
use super::reads::get;
use crate::error::StoreError;
use crate::*;
use lendhub_domain::partner::credentials::Environment;
use lendhub_domain::partner::project::{PartnerStatus, Tier};

const CLIENT_COLUMNS: &str = "client_id, name, secret_hash, scopes, tier, status, created_at_ms, sandbox_client_id, contact_email, white_label, previous_secret_hash, previous_secret_expires_at_ms";

fn client_row(r: &Row) -> Result<PartnerClientRecord, StoreError> {
    Ok(PartnerClientRecord {
        client_id: get(r, 0)?,
        name: get(r, 1)?,
        secret_hash: get(r, 2)?,
        scopes: get(r, 3)?,
        tier: Tier::parse(get(r, 4)?).ok_or_else(|| internal("unknown stored tier"))?,
        status: PartnerStatus::parse(get(r, 5)?)
            .ok_or_else(|| internal("unknown stored partner status"))?,
        created_at_ms: get(r, 6)?,
        sandbox_client_id: get(r, 7)?,
        contact_email: get(r, 8)?,
        white_label: get(r, 9)?,
        previous_secret_hash: get(r, 10)?,
        previous_secret_expires_at_ms: get(r, 11)?,
        acting_client_id: None,
    })
}

fn oauth_client_row(r: &Row) -> Result<OAuthClientRecord, StoreError> {
    Ok(OAuthClientRecord {
        client_id: get(r, 0)?,
        partner_client_id: get(r, 1)?,
        name: get(r, 2)?,
        scopes: get(r, 3)?,
        secret_hash: get(r, 4)?,
        previous_secret_hash: get(r, 5)?,
        previous_secret_expires_at_ms: get(r, 6)?,
        created_at_ms: get(r, 7)?,
        revoked_at_ms: get(r, 8)?,
    })
}

pub async fn oauth_client(c: &Client, id: &str) -> Result<Option<OAuthClientRecord>, StoreError> {
    let statement = c
        .prepare_cached(crate::sql::partner::OAUTH_CLIENTS_SELECT_BY_ID)
        .await
        .map_err(db)?;
    c.query_opt(&statement, &[&id])
        .await
        .map_err(db)?
        .as_ref()
        .map(oauth_client_row)
        .transpose()
}

pub async fn oauth_clients(
    c: &Client,
    partner: &str,
) -> Result<Vec<OAuthClientRecord>, StoreError> {
    c.query(
        crate::sql::partner::OAUTH_CLIENTS_SELECT_BY_PARTNER,
        &[&partner],
    )
    .await
    .map_err(db)?
    .iter()
    .map(oauth_client_row)
    .collect()
}

pub async fn insert_client(c: &Client, r: &PartnerClientRecord) -> Result<(), StoreError> {
    c.execute(
        crate::sql::partner::PARTNER_CLIENTS_INSERT,
        &[
            &r.client_id,
            &r.name,
            &r.secret_hash,
            &r.scopes,
            &r.tier.as_str(),
            &r.status.as_str(),
            &r.created_at_ms,
            &r.sandbox_client_id,
            &r.contact_email,
        ],
    )
    .await
    .map_err(db)?;
    Ok(())
}

pub async fn client(c: &Client, id: &str) -> Result<Option<PartnerClientRecord>, StoreError> {
    let sql = format!("SELECT {CLIENT_COLUMNS} FROM partner_clients WHERE client_id = $1");
    let statement = c.prepare_cached(&sql).await.map_err(db)?;
    c.query_opt(&statement, &[&id])
        .await
        .map_err(db)?
        .as_ref()
        .map(client_row)
        .transpose()
}

pub async fn clients(c: &Client) -> Result<Vec<PartnerClientRecord>, StoreError> {
    let sql =
        format!("SELECT {CLIENT_COLUMNS} FROM partner_clients ORDER BY created_at_ms, client_id");
    c.query(&sql, &[])
        .await
        .map_err(db)?
        .iter()
        .map(client_row)
        .collect()
}

pub async fn update_client(
    c: &Client,
    id: &str,
    change: &PartnerClientChange,
    now_ms: i64,
) -> Result<bool, StoreError> {
    let changed = match change {
        PartnerClientChange::Status(s) => {
            c.execute(
                crate::sql::partner::PARTNER_CLIENTS_SET_STATUS_BY_CLIENT_ID,
                &[&id, &s.as_str(), &now_ms],
            )
            .await
        }
        PartnerClientChange::Secret {
            hash,
            previous_until_ms,
        } => {
            c.execute(
                crate::sql::partner::PARTNER_CLIENTS_SET_SECRET_HASH_BY_CLIENT_ID,
                &[&id, hash, &now_ms, previous_until_ms],
            )
            .await
        }
        PartnerClientChange::EndPreviousSecret => {
            c.execute(
                crate::sql::partner::PARTNER_CLIENTS_END_PREVIOUS_SECRET_BY_CLIENT_ID,
                &[&id, &now_ms],
            )
            .await
        }
        PartnerClientChange::ContactEmail(email) => {
            c.execute(
                crate::sql::partner::PARTNER_CLIENTS_SET_CONTACT_BY_CLIENT_ID,
                &[&id, email, &now_ms],
            )
            .await
        }
        PartnerClientChange::WhiteLabel(on) => {
            c.execute(
                crate::sql::partner::PARTNER_CLIENTS_SET_WHITE_LABEL_BY_CLIENT_ID,
                &[&id, on, &now_ms],
            )
            .await
        }
    }
    .map_err(db)?;
    Ok(changed > 0)
}

pub async fn signing_keys(c: &Client, purpose: &str) -> Result<Vec<SigningKeyRecord>, StoreError> {
    let statement = c
        .prepare_cached(crate::sql::partner::SIGNING_KEYS_SELECT_BY_PURPOSE)
        .await
        .map_err(db)?;
    c.query(&statement, &[&purpose])
        .await
        .map_err(db)?
        .iter()
        .map(|r| {
            Ok(SigningKeyRecord {
                kid: get(r, 0)?,
                purpose: get(r, 1)?,
                state: KeyState::parse(get(r, 2)?).ok_or_else(|| internal("unknown key state"))?,
                sealed_private: get(r, 3)?,
                public_key: get(r, 4)?,
                created_at_ms: get(r, 5)?,
            })
        })
        .collect()
}

const INSERT_CURRENT_KEY: &str =
    "INSERT INTO signing_keys (kid, purpose, state, sealed_private, public_key, created_at_ms)
     VALUES ($1, $2, 'current', $3, $4, $5)";

pub async fn ensure_key(c: &Client, k: &SigningKeyRecord) -> Result<(), StoreError> {
    // The partial unique index allows one current key per purpose.
    c.execute(
        &format!("{INSERT_CURRENT_KEY} ON CONFLICT DO NOTHING"),
        &[
            &k.kid,
            &k.purpose,
            &k.sealed_private,
            &k.public_key,
            &k.created_at_ms,
        ],
    )
    .await
    .map_err(db)?;
    Ok(())
}

pub async fn rotate_key(c: &mut Client, k: &SigningKeyRecord) -> Result<(), StoreError> {
    let tx = c.transaction().await.map_err(db)?;
    tx.execute(crate::sql::partner::DROP_PREVIOUS_KEY, &[&k.purpose])
        .await
        .map_err(db)?;
    tx.execute(crate::sql::partner::DEMOTE_CURRENT_KEY, &[&k.purpose])
        .await
        .map_err(db)?;
    tx.execute(
        INSERT_CURRENT_KEY,
        &[
            &k.kid,
            &k.purpose,
            &k.sealed_private,
            &k.public_key,
            &k.created_at_ms,
        ],
    )
    .await
    .map_err(db)?;
    tx.commit().await.map_err(db)
}

pub async fn revoke_jwt(c: &Client, t: &RevokedToken) -> Result<(), StoreError> {
    c.execute(
        "INSERT INTO revoked_tokens (jti, client_id, expires_at_ms, revoked_at_ms)
         VALUES ($1, $2, $3, $4) ON CONFLICT (jti) DO NOTHING",
        &[&t.jti, &t.client_id, &t.expires_at_ms, &t.revoked_at_ms],
    )
    .await
    .map_err(db)?;
    Ok(())
}

pub async fn client_and_revocation(
    c: &Client,
    id: &str,
    jti: &str,
) -> Result<(Option<PartnerClientRecord>, bool), StoreError> {
    let sql = format!(
        "SELECT {CLIENT_COLUMNS}, EXISTS (SELECT 1 FROM revoked_tokens WHERE jti = $2)
         FROM (SELECT 1) AS one LEFT JOIN partner_clients ON client_id = $1"
    );
    let statement = c.prepare_cached(&sql).await.map_err(db)?;
    let row = c.query_one(&statement, &[&id, &jti]).await.map_err(db)?;
    let client: Option<&str> = get(&row, 0)?;
    let record = match client {
        Some(_) => Some(client_row(&row)?),
        None => None,
    };
    // The flag follows the client's columns.
    Ok((record, get(&row, CLIENT_COLUMNS.split(',').count())?))
}

/// One of the change counters (`partner_epoch`, `sso_epoch`,
/// `sandbox_epoch`): `sql` reads its single row.
pub async fn epoch(c: &Client, sql: &str) -> Result<i64, StoreError> {
    let statement = c.prepare_cached(sql).await.map_err(db)?;
    let row = c.query_one(&statement, &[]).await.map_err(db)?;
    row.try_get(0).map_err(db)
}

fn api_key_row(r: &Row) -> Result<ApiKeyRecord, StoreError> {
    Ok(ApiKeyRecord {
        selector: get(r, 0)?,
        verifier_hash: get(r, 1)?,
        client_id: get(r, 2)?,
        environment: Environment::parse(get(r, 3)?)
            .ok_or_else(|| internal("unknown stored environment"))?,
        scopes: get(r, 4)?,
        created_at_ms: get(r, 5)?,
        expires_at_ms: get(r, 6)?,
    })
}

pub async fn insert_api_key(c: &Client, k: &ApiKeyRecord) -> Result<(), StoreError> {
    c.execute(
        crate::sql::partner::API_KEYS_INSERT,
        &[
            &k.selector,
            &k.verifier_hash,
            &k.client_id,
            &k.environment.as_str(),
            &k.scopes,
            &k.created_at_ms,
            &k.expires_at_ms,
        ],
    )
    .await
    .map_err(db)?;
    Ok(())
}

pub async fn api_key(c: &Client, selector: &[u8]) -> Result<Option<ApiKeyRecord>, StoreError> {
    let statement = c
        .prepare_cached(crate::sql::partner::API_KEYS_SELECT_BY_SELECTOR)
        .await
        .map_err(db)?;
    c.query_opt(&statement, &[&selector])
        .await
        .map_err(db)?
        .as_ref()
        .map(api_key_row)
        .transpose()
}

pub async fn api_keys(c: &Client, client_id: &str) -> Result<Vec<ApiKeyRecord>, StoreError> {
    c.query(
        crate::sql::partner::API_KEYS_SELECT_BY_CLIENT,
        &[&client_id],
    )
    .await
    .map_err(db)?
    .iter()
    .map(api_key_row)
    .collect()
}

pub async fn expire_api_key(c: &Client, selector: &[u8], at_ms: i64) -> Result<bool, StoreError> {
    let changed = c
        .execute(crate::sql::partner::API_KEYS_EXPIRE, &[&selector, &at_ms])
        .await
        .map_err(db)?;
    if changed > 0 {
        return Ok(true);
    }
    Ok(
        c.query_opt(crate::sql::partner::API_KEYS_EXISTS, &[&selector])
            .await
            .map_err(db)?
            .is_some(),
    )
}

fn request_key_row(r: &Row) -> Result<RequestKeyRecord, StoreError> {
    Ok(RequestKeyRecord {
        key_id: get(r, 0)?,
        client_id: get(r, 1)?,
        public_key: get(r, 2)?,
        created_at_ms: get(r, 3)?,
        revoked_at_ms: get(r, 4)?,
    })
}

pub async fn insert_request_key(c: &Client, k: &RequestKeyRecord) -> Result<(), StoreError> {
    c.execute(
        crate::sql::partner::REQUEST_KEYS_INSERT,
        &[&k.key_id, &k.client_id, &k.public_key, &k.created_at_ms],
    )
    .await
    .map_err(db)?;
    Ok(())
}

pub async fn request_key(c: &Client, key_id: &str) -> Result<Option<RequestKeyRecord>, StoreError> {
    c.query_opt(crate::sql::partner::REQUEST_KEYS_SELECT_BY_ID, &[&key_id])
        .await
        .map_err(db)?
        .as_ref()
        .map(request_key_row)
        .transpose()
}

pub async fn request_keys(
    c: &Client,
    client_id: &str,
) -> Result<Vec<RequestKeyRecord>, StoreError> {
    c.query(
        crate::sql::partner::REQUEST_KEYS_SELECT_BY_CLIENT,
        &[&client_id],
    )
    .await
    .map_err(db)?
    .iter()
    .map(request_key_row)
    .collect()
}

pub async fn revoke_request_key(c: &Client, key_id: &str, at_ms: i64) -> Result<bool, StoreError> {
    Ok(
        c.execute(crate::sql::partner::REQUEST_KEYS_REVOKE, &[&key_id, &at_ms])
            .await
            .map_err(db)?
            > 0,
    )
}
