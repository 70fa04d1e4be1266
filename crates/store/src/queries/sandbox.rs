//! The sandbox's clients, applications and test clocks.

use async_trait::async_trait;
use lendhub_domain::sandbox::application::Application;
use lendhub_domain::sandbox::ids::ApplicationId;
use lendhub_domain::tenant::Tenant;

use crate::context::sandbox::*;
use crate::error::StoreError;
use crate::exec::{self, Backend, Exec, Row, Statement};
use crate::sql::sandbox as sql;
use crate::sqlite::row_keys::sandbox as keyed;
use crate::{params, values};

fn client(r: &Row) -> Result<ClientRecord, StoreError> {
    let status: String = r.get(4)?;
    Ok(ClientRecord {
        client_id: r.get(0)?,
        name: r.get(1)?,
        secret_hash: r.get(2)?,
        scopes: r.get(3)?,
        status: if status == "active" {
            ClientStatus::Active
        } else {
            ClientStatus::Revoked
        },
        created_at_ms: r.get(5)?,
    })
}

fn due_referral(r: &Row) -> Result<DueReferral, StoreError> {
    Ok(DueReferral {
        application: r.json(0)?,
        clock_offset_ms: r.get(1)?,
    })
}

/// The owner's application `id` by `keyed` (SQLite's row key) or `plain`.
async fn application_row<B: Backend>(
    backend: &B,
    keyed: &'static str,
    plain: &'static str,
    owner: &Tenant,
    id: &ApplicationId,
) -> Result<Option<Row>, StoreError> {
    let (sql, params) = B::DIALECT.by_row_key(keyed, plain, &params![id.as_str(), owner]);
    let mut c = backend.connection().await?;
    c.query_opt(sql, &params).await
}

#[async_trait]
impl<B: Backend> SandboxStore for B {
    async fn insert_client(&self, client: ClientRecord) -> Result<(), StoreError> {
        let plan = vec![Statement::change(
            sql::SANDBOX_CLIENTS_INSERT,
            values![
                client.client_id,
                client.name,
                client.secret_hash,
                client.scopes,
                client.created_at_ms
            ],
        )];
        self.write(plan).await.map(drop)
    }

    async fn client(&self, client_id: &str) -> Result<Option<ClientRecord>, StoreError> {
        self.one(sql::SANDBOX_CLIENT, &params![client_id], client)
            .await
    }

    async fn list_clients(&self) -> Result<Vec<ClientRecord>, StoreError> {
        self.all(sql::SANDBOX_CLIENTS, &[], client).await
    }

    async fn revoke_client(&self, client_id: &str, now_ms: i64) -> Result<bool, StoreError> {
        let plan = vec![Statement::change(
            sql::REVOKE_SANDBOX_CLIENT,
            values![client_id, now_ms],
        )];
        let done = self.write(plan).await?;
        Ok(done.first().is_some_and(|d| d.changed > 0))
    }

    async fn sandbox_epoch(&self) -> Result<i64, StoreError> {
        let mut c = self.connection().await?;
        c.query_one(sql::SANDBOX_EPOCH, &[]).await?.get(0)
    }

    async fn clock_offset(&self, owner: &Tenant) -> Result<i64, StoreError> {
        let mut c = self.connection().await?;
        match c.query_opt(sql::CLOCK_OFFSET, &params![owner]).await? {
            Some(r) => r.get(0),
            None => Ok(0),
        }
    }

    async fn application(
        &self,
        owner: &Tenant,
        id: &ApplicationId,
    ) -> Result<Option<Application>, StoreError> {
        application_row(
            self,
            keyed::APPLICATION_BODY,
            sql::APPLICATION_BODY,
            owner,
            id,
        )
        .await?
        .map(|r| r.json(0))
        .transpose()
    }

    async fn rendered_application(
        &self,
        owner: &Tenant,
        id: &ApplicationId,
    ) -> Result<Option<RenderedApplication>, StoreError> {
        application_row(
            self,
            keyed::APPLICATION_RENDERED,
            sql::APPLICATION_RENDERED,
            owner,
            id,
        )
        .await?
        .map(|r| {
            Ok(RenderedApplication {
                version: r.get(0)?,
                body: r.get(1)?,
            })
        })
        .transpose()
    }

    async fn sandbox_application_version(
        &self,
        owner: &Tenant,
        id: &ApplicationId,
    ) -> Result<Option<i64>, StoreError> {
        let key = format!("{}\u{0}{id}", owner.as_str());
        exec::remembered(self, |m| &m.sandbox_application_versions, &key, async {
            application_row(
                self,
                keyed::APPLICATION_VERSION,
                sql::APPLICATION_VERSION,
                owner,
                id,
            )
            .await?
            .map(|r| r.get(0))
            .transpose()
        })
        .await
    }

    async fn due_referrals(
        &self,
        owner: Option<&Tenant>,
        service_now_ms: i64,
        limit: u32,
    ) -> Result<Vec<DueReferral>, StoreError> {
        let mut c = self.connection().await?;
        let rows = match owner {
            Some(owner) => {
                c.query(
                    sql::DUE_REFERRALS_OF_OWNER,
                    &params![service_now_ms, limit, owner],
                )
                .await?
            }
            None => {
                c.query(sql::DUE_REFERRALS, &params![service_now_ms, limit])
                    .await?
            }
        };
        rows.iter().map(due_referral).collect()
    }
}
