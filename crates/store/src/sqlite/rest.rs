//! The REST tier's contexts on this backend (`crate::context::rest`).

use std::sync::LazyLock;

use async_trait::async_trait;
use lendhub_domain::kyc::Verification;
use lendhub_domain::lending::{Application, Decision};
use lendhub_domain::tenant::Tenant;
use rusqlite::{Connection, OptionalExtension, params};

use super::{SqliteStore, dialect, rows};
use crate::error::StoreError;
use crate::sql::{self, ApplicationsPage};
use crate::{
    ApplicationPage, ApplicationQuery, CommercialStore, DueExpiry, LendingStore, ServicingStore,
};

fn application_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Application> {
    let body: String = r.get(0)?;
    rows::from_json(&body)
}

fn application(c: &Connection, owner: &Tenant, id: &str) -> rusqlite::Result<Option<Application>> {
    c.prepare_cached(shared!(sql::lending::APPLICATION))?
        .query_row([id, owner.as_str()], application_row)
        .optional()
}

/// Newest first; `starting_after` pages toward older applications,
/// `ending_before` toward newer.
fn applications(
    c: &Connection,
    owner: &Tenant,
    q: &ApplicationQuery,
) -> rusqlite::Result<ApplicationPage> {
    let (anchor, newer) = q.page.anchor();
    if let Some(id) = anchor {
        let known = c
            .prepare_cached(shared!(sql::lending::APPLICATION_EXISTS))?
            .query_row([id, owner.as_str()], |_| Ok(()))
            .optional()?;
        if known.is_none() {
            return Ok(ApplicationPage::UnknownCursor);
        }
    }
    static SHAPES: LazyLock<Vec<String>> = LazyLock::new(|| {
        (0..ApplicationsPage::COUNT)
            .map(|i| dialect(sql::applications_page(ApplicationsPage::from_index(i))))
            .collect()
    });
    let shape = ApplicationsPage {
        newer,
        cursor: anchor.is_some(),
        status: q.status.is_some(),
        reference: q.reference.is_some(),
        after: q.after_id.is_some(),
    };
    let fetched = c
        .prepare_cached(&SHAPES[shape.index()])?
        .query_map(
            params![
                owner.as_str(),
                anchor,
                q.status.map(|s| s.as_str()),
                q.reference,
                q.after_id,
                q.page.fetch()
            ],
            application_row,
        )?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(ApplicationPage::Page(q.page.page(fetched)))
}

fn verification(
    c: &Connection,
    owner: &Tenant,
    id: &str,
) -> rusqlite::Result<Option<Verification>> {
    c.prepare_cached(shared!(sql::lending::VERIFICATION))?
        .query_row([id, owner.as_str()], |r| {
            let body: String = r.get(0)?;
            rows::from_json(&body)
        })
        .optional()
}

fn decision(c: &Connection, owner: &Tenant, id: &str) -> rusqlite::Result<Option<Decision>> {
    c.prepare_cached(shared!(sql::lending::DECISION))?
        .query_row([id, owner.as_str()], |r| {
            let body: String = r.get(0)?;
            rows::from_json(&body)
        })
        .optional()
}

fn due_expiries(c: &Connection, now_ms: i64, limit: u32) -> rusqlite::Result<Vec<DueExpiry>> {
    c.prepare_cached(shared!(sql::lending::DUE_EXPIRIES))?
        .query_map(params![now_ms, limit], |r| {
            Ok(DueExpiry {
                application: application_row(r)?,
                clock_offset_ms: r.get(1)?,
            })
        })?
        .collect()
}

#[async_trait]
impl LendingStore for SqliteStore {
    async fn hub_application(
        &self,
        owner: &Tenant,
        id: &str,
    ) -> Result<Option<Application>, StoreError> {
        self.read(|c| application(c, owner, id))
    }

    async fn hub_applications(
        &self,
        owner: &Tenant,
        query: &ApplicationQuery,
    ) -> Result<ApplicationPage, StoreError> {
        self.read(|c| applications(c, owner, query))
    }

    async fn verification(
        &self,
        owner: &Tenant,
        id: &str,
    ) -> Result<Option<Verification>, StoreError> {
        self.read(|c| verification(c, owner, id))
    }

    async fn hub_decision(&self, owner: &Tenant, id: &str) -> Result<Option<Decision>, StoreError> {
        self.read(|c| decision(c, owner, id))
    }

    async fn due_expiries(
        &self,
        service_now_ms: i64,
        limit: u32,
    ) -> Result<Vec<DueExpiry>, StoreError> {
        self.read(|c| due_expiries(c, service_now_ms, limit))
    }
}

#[async_trait]
impl ServicingStore for SqliteStore {}

#[async_trait]
impl CommercialStore for SqliteStore {}
