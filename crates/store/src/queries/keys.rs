//! Token-signing keys, and the deployment-wide settings instances agree on.

use async_trait::async_trait;

use crate::context::keys::*;
use crate::error::StoreError;
use crate::exec::{Backend, Row, Statement};
use crate::sql::{partner, sandbox};
use crate::{params, values};

fn signing_key(r: &Row) -> Result<SigningKeyRecord, StoreError> {
    let state: String = r.get(2)?;
    Ok(SigningKeyRecord {
        kid: r.get(0)?,
        purpose: r.get(1)?,
        state: KeyState::parse(&state)
            .ok_or_else(|| StoreError::Internal("unknown stored key state".into()))?,
        sealed_private: r.get(3)?,
        public_key: r.get(4)?,
        created_at_ms: r.get(5)?,
    })
}

/// `sql` (`INSERT_CURRENT_KEY` or `ENSURE_CURRENT_KEY`) for `k`.
fn insert_key(sql: &'static str, k: SigningKeyRecord) -> Statement {
    Statement::change(
        sql,
        values![
            k.kid,
            k.purpose,
            k.sealed_private,
            k.public_key,
            k.created_at_ms
        ],
    )
}

#[async_trait]
impl<B: Backend> KeyStore for B {
    async fn bind_setting(&self, name: &str, value: &[u8]) -> Result<Vec<u8>, StoreError> {
        let plan = vec![
            Statement::change(sandbox::SETTINGS_INSERT, values![name, value.to_vec()]),
            Statement::read(sandbox::SETTINGS_SELECT_BY_NAME, values![name]),
        ];
        let done = self.write(plan).await?;
        match done.get(1).and_then(|d| d.rows.first()) {
            Some(r) => r.get(0),
            None => Err(StoreError::Internal(format!("setting {name} vanished"))),
        }
    }

    async fn signing_keys(&self, purpose: &str) -> Result<Vec<SigningKeyRecord>, StoreError> {
        self.all(
            partner::SIGNING_KEYS_SELECT_BY_PURPOSE,
            &params![purpose],
            signing_key,
        )
        .await
    }

    async fn ensure_signing_key(&self, key: SigningKeyRecord) -> Result<(), StoreError> {
        self.write(vec![insert_key(partner::ENSURE_CURRENT_KEY, key)])
            .await
            .map(drop)
    }

    async fn rotate_signing_key(&self, key: SigningKeyRecord) -> Result<(), StoreError> {
        let plan = vec![
            Statement::change(partner::DROP_PREVIOUS_KEY, values![key.purpose.as_str()]),
            Statement::change(partner::DEMOTE_CURRENT_KEY, values![key.purpose.as_str()]),
            insert_key(partner::INSERT_CURRENT_KEY, key),
        ];
        self.write(plan).await.map(drop)
    }
}
