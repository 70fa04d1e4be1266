//! Partner access changed from the dashboard: API keys, client secrets and
//! additional OAuth clients. None has a condition: a key or client is new,
//! an expiry only ever moves sooner, a revocation happens once, and a
//! secret roll is one row replaced as a whole.

use super::Unit;
use crate::sql::partner as sql;
use crate::*;

pub(super) fn plan(write: &AccessWrite, unit: &mut Unit) {
    match write {
        AccessWrite::InsertApiKey(k) => unit.step(
            sql::API_KEYS_INSERT,
            values![
                k.selector.clone(),
                k.verifier_hash.clone(),
                k.client_id.as_str(),
                k.environment.as_str(),
                k.scopes.as_str(),
                k.created_at_ms,
                k.expires_at_ms
            ],
        ),
        AccessWrite::ExpireApiKey { selector, at_ms } => {
            unit.step(sql::API_KEYS_EXPIRE, values![selector.clone(), *at_ms])
        }
        // The partner's own client is a row of partner_clients; another
        // client of its, a row of oauth_clients.
        AccessWrite::RollClientSecret {
            partner_client_id,
            client_id,
            hash,
            previous_until_ms,
            at_ms,
        } if partner_client_id == client_id => unit.step(
            sql::PARTNER_CLIENTS_SET_SECRET_HASH_BY_CLIENT_ID,
            values![client_id.as_str(), hash.clone(), *at_ms, *previous_until_ms],
        ),
        AccessWrite::RollClientSecret {
            partner_client_id,
            client_id,
            hash,
            previous_until_ms,
            ..
        } => unit.step(
            sql::OAUTH_CLIENTS_SET_SECRET_HASH,
            values![
                client_id.as_str(),
                partner_client_id.as_str(),
                hash.clone(),
                *previous_until_ms
            ],
        ),
        AccessWrite::EndPreviousClientSecret {
            partner_client_id,
            client_id,
            at_ms,
        } if partner_client_id == client_id => unit.step(
            sql::PARTNER_CLIENTS_END_PREVIOUS_SECRET_BY_CLIENT_ID,
            values![client_id.as_str(), *at_ms],
        ),
        AccessWrite::EndPreviousClientSecret {
            partner_client_id,
            client_id,
            ..
        } => unit.step(
            sql::OAUTH_CLIENTS_END_PREVIOUS_SECRET,
            values![client_id.as_str(), partner_client_id.as_str()],
        ),
        AccessWrite::InsertOAuthClient(o) => unit.step(
            sql::OAUTH_CLIENTS_INSERT,
            values![
                o.client_id.as_str(),
                o.partner_client_id.as_str(),
                o.name.as_str(),
                o.scopes.as_str(),
                o.secret_hash.clone(),
                o.created_at_ms
            ],
        ),
        AccessWrite::RevokeOAuthClient {
            partner_client_id,
            client_id,
            at_ms,
        } => unit.step(
            sql::OAUTH_CLIENTS_REVOKE,
            values![client_id.as_str(), partner_client_id.as_str(), *at_ms],
        ),
    }
}
