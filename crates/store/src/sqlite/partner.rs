//! Partner projects, signing keys and revoked tokens on SQLite.

use rusqlite::{Connection, OptionalExtension, params};

use crate::*;
use lendhub_domain::partner::credentials::Environment;
use lendhub_domain::partner::project::{PartnerStatus, Tier};

fn bad(what: &str) -> rusqlite::Error {
    rusqlite::Error::FromSqlConversionFailure(
        0,
        rusqlite::types::Type::Text,
        format!("stored {what} is not recognised").into(),
    )
}

const CLIENT_COLUMNS: &str = "client_id, name, secret_hash, scopes, tier, status, created_at_ms, sandbox_client_id, contact_email, white_label, previous_secret_hash, previous_secret_expires_at_ms";

fn client_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<PartnerClientRecord> {
    let tier: String = r.get(4)?;
    let status: String = r.get(5)?;
    Ok(PartnerClientRecord {
        client_id: r.get(0)?,
        name: r.get(1)?,
        secret_hash: r.get(2)?,
        scopes: r.get(3)?,
        tier: Tier::parse(&tier).ok_or_else(|| bad("tier"))?,
        status: PartnerStatus::parse(&status).ok_or_else(|| bad("status"))?,
        created_at_ms: r.get(6)?,
        sandbox_client_id: r.get(7)?,
        contact_email: r.get(8)?,
        white_label: r.get(9)?,
        previous_secret_hash: r.get(10)?,
        previous_secret_expires_at_ms: r.get(11)?,
        acting_client_id: None,
    })
}

pub fn insert_client(c: &Connection, r: &PartnerClientRecord) -> rusqlite::Result<()> {
    c.execute(
        shared!(crate::sql::partner::PARTNER_CLIENTS_INSERT),
        params![
            r.client_id,
            r.name,
            r.secret_hash,
            r.scopes,
            r.tier.as_str(),
            r.status.as_str(),
            r.created_at_ms,
            r.sandbox_client_id,
            r.contact_email
        ],
    )?;
    Ok(())
}

pub fn client(c: &Connection, id: &str) -> rusqlite::Result<Option<PartnerClientRecord>> {
    c.prepare_cached(&format!(
        "SELECT {CLIENT_COLUMNS} FROM partner_clients WHERE client_id = ?1"
    ))?
    .query_row([id], client_row)
    .optional()
}

pub fn clients(c: &Connection) -> rusqlite::Result<Vec<PartnerClientRecord>> {
    c.prepare_cached(&format!(
        "SELECT {CLIENT_COLUMNS} FROM partner_clients ORDER BY created_at_ms, client_id"
    ))?
    .query_map([], client_row)?
    .collect()
}

pub fn update_client(
    c: &Connection,
    id: &str,
    change: &PartnerClientChange,
    now_ms: i64,
) -> rusqlite::Result<bool> {
    let changed = match change {
        PartnerClientChange::Status(s) => c.execute(
            shared!(crate::sql::partner::PARTNER_CLIENTS_SET_STATUS_BY_CLIENT_ID),
            params![id, s.as_str(), now_ms],
        )?,
        PartnerClientChange::Secret {
            hash,
            previous_until_ms,
        } => c.execute(
            shared!(crate::sql::partner::PARTNER_CLIENTS_SET_SECRET_HASH_BY_CLIENT_ID),
            params![id, hash, now_ms, previous_until_ms],
        )?,
        PartnerClientChange::EndPreviousSecret => c.execute(
            shared!(crate::sql::partner::PARTNER_CLIENTS_END_PREVIOUS_SECRET_BY_CLIENT_ID),
            params![id, now_ms],
        )?,
        PartnerClientChange::ContactEmail(email) => c.execute(
            shared!(crate::sql::partner::PARTNER_CLIENTS_SET_CONTACT_BY_CLIENT_ID),
            params![id, email, now_ms],
        )?,
        PartnerClientChange::WhiteLabel(on) => c.execute(
            shared!(crate::sql::partner::PARTNER_CLIENTS_SET_WHITE_LABEL_BY_CLIENT_ID),
            params![id, on, now_ms],
        )?,
    };
    Ok(changed > 0)
}

/// An access change of a unit of work.
pub fn apply_access(c: &Connection, w: &AccessWrite) -> rusqlite::Result<()> {
    match w {
        AccessWrite::InsertApiKey(k) => insert_api_key(c, k),
        AccessWrite::ExpireApiKey { selector, at_ms } => c
            .execute(
                shared!(crate::sql::partner::API_KEYS_EXPIRE),
                params![selector, at_ms],
            )
            .map(drop),
        AccessWrite::RollClientSecret {
            partner_client_id,
            client_id,
            hash,
            previous_until_ms,
            at_ms,
        } if partner_client_id == client_id => {
            let change = PartnerClientChange::Secret {
                hash: hash.clone(),
                previous_until_ms: *previous_until_ms,
            };
            update_client(c, client_id, &change, *at_ms).map(drop)
        }
        AccessWrite::RollClientSecret {
            partner_client_id,
            client_id,
            hash,
            previous_until_ms,
            ..
        } => c
            .execute(
                shared!(crate::sql::partner::OAUTH_CLIENTS_SET_SECRET_HASH),
                params![client_id, partner_client_id, hash, previous_until_ms],
            )
            .map(drop),
        AccessWrite::EndPreviousClientSecret {
            partner_client_id,
            client_id,
            at_ms,
        } if partner_client_id == client_id => update_client(
            c,
            client_id,
            &PartnerClientChange::EndPreviousSecret,
            *at_ms,
        )
        .map(drop),
        AccessWrite::EndPreviousClientSecret {
            partner_client_id,
            client_id,
            ..
        } => c
            .execute(
                shared!(crate::sql::partner::OAUTH_CLIENTS_END_PREVIOUS_SECRET),
                params![client_id, partner_client_id],
            )
            .map(drop),
        AccessWrite::InsertOAuthClient(o) => c
            .execute(
                shared!(crate::sql::partner::OAUTH_CLIENTS_INSERT),
                params![
                    o.client_id,
                    o.partner_client_id,
                    o.name,
                    o.scopes,
                    o.secret_hash,
                    o.created_at_ms
                ],
            )
            .map(drop),
        AccessWrite::RevokeOAuthClient {
            partner_client_id,
            client_id,
            at_ms,
        } => c
            .execute(
                shared!(crate::sql::partner::OAUTH_CLIENTS_REVOKE),
                params![client_id, partner_client_id, at_ms],
            )
            .map(drop),
    }
}

fn oauth_client_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<OAuthClientRecord> {
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

pub fn oauth_client(c: &Connection, id: &str) -> rusqlite::Result<Option<OAuthClientRecord>> {
    c.prepare_cached(shared!(crate::sql::partner::OAUTH_CLIENTS_SELECT_BY_ID))?
        .query_row([id], oauth_client_row)
        .optional()
}

pub fn oauth_clients(c: &Connection, partner: &str) -> rusqlite::Result<Vec<OAuthClientRecord>> {
    c.prepare_cached(shared!(
        crate::sql::partner::OAUTH_CLIENTS_SELECT_BY_PARTNER
    ))?
    .query_map([partner], oauth_client_row)?
    .collect()
}

pub fn signing_keys(c: &Connection, purpose: &str) -> rusqlite::Result<Vec<SigningKeyRecord>> {
    c.prepare_cached(shared!(crate::sql::partner::SIGNING_KEYS_SELECT_BY_PURPOSE))?
        .query_map([purpose], |r| {
            let state: String = r.get(2)?;
            Ok(SigningKeyRecord {
                kid: r.get(0)?,
                purpose: r.get(1)?,
                state: KeyState::parse(&state).ok_or_else(|| bad("key state"))?,
                sealed_private: r.get(3)?,
                public_key: r.get(4)?,
                created_at_ms: r.get(5)?,
            })
        })?
        .collect()
}

fn insert_key(c: &Connection, k: &SigningKeyRecord, or_ignore: bool) -> rusqlite::Result<()> {
    let verb = if or_ignore {
        "INSERT OR IGNORE"
    } else {
        "INSERT"
    };
    c.execute(
        &format!(
            "{verb} INTO signing_keys (kid, purpose, state, sealed_private, public_key, created_at_ms)
             VALUES (?1, ?2, 'current', ?3, ?4, ?5)"
        ),
        params![k.kid, k.purpose, k.sealed_private, k.public_key, k.created_at_ms],
    )?;
    Ok(())
}

pub fn ensure_key(c: &Connection, k: &SigningKeyRecord) -> rusqlite::Result<()> {
    insert_key(c, k, true)
}

pub fn rotate_key(c: &Connection, k: &SigningKeyRecord) -> rusqlite::Result<()> {
    c.execute(
        shared!(crate::sql::partner::DROP_PREVIOUS_KEY),
        [&k.purpose],
    )?;
    c.execute(
        shared!(crate::sql::partner::DEMOTE_CURRENT_KEY),
        [&k.purpose],
    )?;
    insert_key(c, k, false)
}

pub fn revoke_jwt(c: &Connection, t: &RevokedToken) -> rusqlite::Result<()> {
    c.execute(
        "INSERT OR IGNORE INTO revoked_tokens (jti, client_id, expires_at_ms, revoked_at_ms) VALUES (?1, ?2, ?3, ?4)",
        params![t.jti, t.client_id, t.expires_at_ms, t.revoked_at_ms],
    )?;
    Ok(())
}

pub fn client_and_revocation(
    c: &Connection,
    id: &str,
    jti: &str,
) -> rusqlite::Result<(Option<PartnerClientRecord>, bool)> {
    // One row always: the client's columns (NULL when unknown) and the flag.
    c.prepare_cached(&format!(
        "SELECT {CLIENT_COLUMNS}, EXISTS (SELECT 1 FROM revoked_tokens WHERE jti = ?2)
         FROM (SELECT 1) LEFT JOIN partner_clients ON client_id = ?1"
    ))?
    .query_row(params![id, jti], |r| {
        let client: Option<String> = r.get(0)?;
        let record = match client {
            Some(_) => Some(client_row(r)?),
            None => None,
        };
        // The flag follows the client's columns.
        Ok((record, r.get(CLIENT_COLUMNS.split(',').count())?))
    })
}

pub fn epoch(c: &Connection) -> rusqlite::Result<i64> {
    c.prepare_cached(shared!(crate::sql::partner::PARTNER_EPOCH))?
        .query_row([], |r| r.get(0))
}

fn api_key_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<ApiKeyRecord> {
    let environment: String = r.get(3)?;
    Ok(ApiKeyRecord {
        selector: r.get(0)?,
        verifier_hash: r.get(1)?,
        client_id: r.get(2)?,
        environment: Environment::parse(&environment).ok_or_else(|| bad("environment"))?,
        scopes: r.get(4)?,
        created_at_ms: r.get(5)?,
        expires_at_ms: r.get(6)?,
    })
}

pub fn insert_api_key(c: &Connection, k: &ApiKeyRecord) -> rusqlite::Result<()> {
    c.prepare_cached(shared!(crate::sql::partner::API_KEYS_INSERT))?
        .execute(params![
            k.selector,
            k.verifier_hash,
            k.client_id,
            k.environment.as_str(),
            k.scopes,
            k.created_at_ms,
            k.expires_at_ms
        ])?;
    Ok(())
}

pub fn api_key(c: &Connection, selector: &[u8]) -> rusqlite::Result<Option<ApiKeyRecord>> {
    c.prepare_cached(shared!(crate::sql::partner::API_KEYS_SELECT_BY_SELECTOR))?
        .query_row([selector], api_key_row)
        .optional()
}

pub fn api_keys(c: &Connection, client_id: &str) -> rusqlite::Result<Vec<ApiKeyRecord>> {
    c.prepare_cached(shared!(crate::sql::partner::API_KEYS_SELECT_BY_CLIENT))?
        .query_map([client_id], api_key_row)?
        .collect()
}

pub fn expire_api_key(c: &Connection, selector: &[u8], at_ms: i64) -> rusqlite::Result<bool> {
    let changed = c.execute(
        shared!(crate::sql::partner::API_KEYS_EXPIRE),
        params![selector, at_ms],
    )?;
    if changed > 0 {
        return Ok(true);
    }
    c.prepare_cached(shared!(crate::sql::partner::API_KEYS_EXISTS))?
        .exists([selector])
}

fn request_key_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<RequestKeyRecord> {
    Ok(RequestKeyRecord {
        key_id: r.get(0)?,
        client_id: r.get(1)?,
        public_key: r.get(2)?,
        created_at_ms: r.get(3)?,
        revoked_at_ms: r.get(4)?,
    })
}

pub fn insert_request_key(c: &Connection, k: &RequestKeyRecord) -> rusqlite::Result<()> {
    c.execute(
        shared!(crate::sql::partner::REQUEST_KEYS_INSERT),
        params![k.key_id, k.client_id, k.public_key, k.created_at_ms],
    )?;
    Ok(())
}

pub fn request_key(c: &Connection, key_id: &str) -> rusqlite::Result<Option<RequestKeyRecord>> {
    c.prepare_cached(shared!(crate::sql::partner::REQUEST_KEYS_SELECT_BY_ID))?
        .query_row([key_id], request_key_row)
        .optional()
}

pub fn request_keys(c: &Connection, client_id: &str) -> rusqlite::Result<Vec<RequestKeyRecord>> {
    c.prepare_cached(shared!(crate::sql::partner::REQUEST_KEYS_SELECT_BY_CLIENT))?
        .query_map([client_id], request_key_row)?
        .collect()
}

pub fn revoke_request_key(c: &Connection, key_id: &str, at_ms: i64) -> rusqlite::Result<bool> {
    Ok(c.execute(
        shared!(crate::sql::partner::REQUEST_KEYS_REVOKE),
        params![key_id, at_ms],
    )? > 0)
}
