//! The access context's writes within a group commit: API keys, client
//! secrets and additional OAuth clients changed from the dashboard. None
//! takes a lock: a key or client is new, an expiry only ever moves sooner,
//! a revocation happens once, and a secret roll is one row replaced as a
//! whole.

use deadpool_postgres::Transaction;
use tokio_postgres::Statement;

use super::{Bound, Param};
use crate::error::StoreError;
use crate::sql::partner as sql;
use crate::*;

pub(crate) struct Statements {
    insert_api_key: Statement,
    expire_api_key: Statement,
    set_secret: Statement,
    end_previous_secret: Statement,
    insert_oauth_client: Statement,
    set_oauth_secret: Statement,
    end_previous_oauth_secret: Statement,
    revoke_oauth_client: Statement,
}

impl Statements {
    pub async fn prepare(tx: &Transaction<'_>) -> Result<Self, StoreError> {
        let p = |sql| async move { tx.prepare_cached(sql).await.map_err(super::db) };
        Ok(Self {
            insert_api_key: p(sql::API_KEYS_INSERT).await?,
            expire_api_key: p(sql::API_KEYS_EXPIRE).await?,
            set_secret: p(sql::PARTNER_CLIENTS_SET_SECRET_HASH_BY_CLIENT_ID).await?,
            end_previous_secret: p(sql::PARTNER_CLIENTS_END_PREVIOUS_SECRET_BY_CLIENT_ID).await?,
            insert_oauth_client: p(sql::OAUTH_CLIENTS_INSERT).await?,
            set_oauth_secret: p(sql::OAUTH_CLIENTS_SET_SECRET_HASH).await?,
            end_previous_oauth_secret: p(sql::OAUTH_CLIENTS_END_PREVIOUS_SECRET).await?,
            revoke_oauth_client: p(sql::OAUTH_CLIENTS_REVOKE).await?,
        })
    }

    pub fn write<'a>(&self, write: &'a AccessWrite, out: &mut Vec<Bound<'a>>) {
        out.push(match write {
            AccessWrite::InsertApiKey(k) => (
                self.insert_api_key.clone(),
                vec![
                    Box::new(k.selector.as_slice()) as Param<'a>,
                    Box::new(k.verifier_hash.as_slice()),
                    Box::new(k.client_id.as_str()),
                    Box::new(k.environment.as_str()),
                    Box::new(k.scopes.as_str()),
                    Box::new(k.created_at_ms),
                    Box::new(k.expires_at_ms),
                ],
            ),
            AccessWrite::ExpireApiKey { selector, at_ms } => (
                self.expire_api_key.clone(),
                vec![Box::new(selector.as_slice()) as Param<'a>, Box::new(*at_ms)],
            ),
            AccessWrite::RollClientSecret {
                partner_client_id,
                client_id,
                hash,
                previous_until_ms,
                at_ms,
            } if partner_client_id == client_id => (
                self.set_secret.clone(),
                vec![
                    Box::new(client_id.as_str()) as Param<'a>,
                    Box::new(hash.as_slice()),
                    Box::new(*at_ms),
                    Box::new(*previous_until_ms),
                ],
            ),
            AccessWrite::RollClientSecret {
                partner_client_id,
                client_id,
                hash,
                previous_until_ms,
                ..
            } => (
                self.set_oauth_secret.clone(),
                vec![
                    Box::new(client_id.as_str()) as Param<'a>,
                    Box::new(partner_client_id.as_str()),
                    Box::new(hash.as_slice()),
                    Box::new(*previous_until_ms),
                ],
            ),
            AccessWrite::EndPreviousClientSecret {
                partner_client_id,
                client_id,
                at_ms,
            } if partner_client_id == client_id => (
                self.end_previous_secret.clone(),
                vec![Box::new(client_id.as_str()) as Param<'a>, Box::new(*at_ms)],
            ),
            AccessWrite::EndPreviousClientSecret {
                partner_client_id,
                client_id,
                ..
            } => (
                self.end_previous_oauth_secret.clone(),
                vec![
                    Box::new(client_id.as_str()) as Param<'a>,
                    Box::new(partner_client_id.as_str()),
                ],
            ),
            AccessWrite::InsertOAuthClient(o) => (
                self.insert_oauth_client.clone(),
                vec![
                    Box::new(o.client_id.as_str()) as Param<'a>,
                    Box::new(o.partner_client_id.as_str()),
                    Box::new(o.name.as_str()),
                    Box::new(o.scopes.as_str()),
                    Box::new(o.secret_hash.as_slice()),
                    Box::new(o.created_at_ms),
                ],
            ),
            AccessWrite::RevokeOAuthClient {
                partner_client_id,
                client_id,
                at_ms,
            } => (
                self.revoke_oauth_client.clone(),
                vec![
                    Box::new(client_id.as_str()) as Param<'a>,
                    Box::new(partner_client_id.as_str()),
                    Box::new(*at_ms),
                ],
            ),
        });
    }
}
