//! Partner access changes of a unit of work on SQLite (`AccessWrite`).

use rusqlite::{Connection, params};

use crate::*;

fn update_client(
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

fn insert_api_key(c: &Connection, k: &ApiKeyRecord) -> rusqlite::Result<()> {
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
