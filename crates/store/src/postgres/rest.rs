//! The REST tier's contexts on this backend (`crate::context::rest`).

use async_trait::async_trait;
use lendhub_domain::kyc::Verification;
use lendhub_domain::lending::{Application, Decision};
use lendhub_domain::tenant::Tenant;
use tokio_postgres::Row;
use tokio_postgres::types::ToSql;

use super::PgStore;
use super::errors::db;
use super::reads::{from_json, get};
use crate::error::StoreError;
use crate::sql::{self, ApplicationsPage};
use crate::{
    ApplicationPage, ApplicationQuery, CommercialStore, DueExpiry, LendingStore, ServicingStore,
};

fn application_row(r: &Row) -> Result<Application, StoreError> {
    from_json(get(r, 0)?)
}

#[async_trait]
impl LendingStore for PgStore {
    async fn hub_application(
        &self,
        owner: &Tenant,
        id: &str,
    ) -> Result<Option<Application>, StoreError> {
        let c = self.conn().await?;
        let statement = c
            .prepare_cached(sql::lending::APPLICATION)
            .await
            .map_err(db)?;
        c.query_opt(&statement, &[&id, &owner.as_str()])
            .await
            .map_err(db)?
            .as_ref()
            .map(application_row)
            .transpose()
    }

    async fn hub_applications(
        &self,
        owner: &Tenant,
        q: &ApplicationQuery,
    ) -> Result<ApplicationPage, StoreError> {
        let c = self.conn().await?;
        let (anchor, newer) = q.page.anchor();
        if let Some(id) = anchor {
            let statement = c
                .prepare_cached(sql::lending::APPLICATION_EXISTS)
                .await
                .map_err(db)?;
            let known = c
                .query_opt(&statement, &[&id, &owner.as_str()])
                .await
                .map_err(db)?;
            if known.is_none() {
                return Ok(ApplicationPage::UnknownCursor);
            }
        }
        let shape = ApplicationsPage {
            newer,
            cursor: anchor.is_some(),
            status: q.status.is_some(),
            reference: q.reference.is_some(),
            after: q.after_id.is_some(),
        };
        let statement = c
            .prepare_cached(sql::applications_page(shape))
            .await
            .map_err(db)?;
        let status = q.status.map(|s| s.as_str());
        let params: [&(dyn ToSql + Sync); 6] = [
            &owner.as_str(),
            &anchor,
            &status,
            &q.reference,
            &q.after_id,
            &q.page.fetch(),
        ];
        let fetched = c
            .query(&statement, &params)
            .await
            .map_err(db)?
            .iter()
            .map(application_row)
            .collect::<Result<Vec<_>, _>>()?;
        Ok(ApplicationPage::Page(q.page.page(fetched)))
    }

    async fn verification(
        &self,
        owner: &Tenant,
        id: &str,
    ) -> Result<Option<Verification>, StoreError> {
        let c = self.conn().await?;
        let statement = c
            .prepare_cached(sql::lending::VERIFICATION)
            .await
            .map_err(db)?;
        c.query_opt(&statement, &[&id, &owner.as_str()])
            .await
            .map_err(db)?
            .map(|r| from_json(get(&r, 0)?))
            .transpose()
    }

    async fn hub_decision(&self, owner: &Tenant, id: &str) -> Result<Option<Decision>, StoreError> {
        let c = self.conn().await?;
        let statement = c.prepare_cached(sql::lending::DECISION).await.map_err(db)?;
        c.query_opt(&statement, &[&id, &owner.as_str()])
            .await
            .map_err(db)?
            .map(|r| from_json(get(&r, 0)?))
            .transpose()
    }

    async fn due_expiries(
        &self,
        service_now_ms: i64,
        limit: u32,
    ) -> Result<Vec<DueExpiry>, StoreError> {
        let c = self.conn().await?;
        let statement = c
            .prepare_cached(sql::lending::DUE_EXPIRIES)
            .await
            .map_err(db)?;
        c.query(&statement, &[&service_now_ms, &i64::from(limit)])
            .await
            .map_err(db)?
            .iter()
            .map(|r| {
                Ok(DueExpiry {
                    application: application_row(r)?,
                    clock_offset_ms: get(r, 1)?,
                })
            })
            .collect()
    }
}

#[async_trait]
impl ServicingStore for PgStore {}

#[async_trait]
impl CommercialStore for PgStore {}
