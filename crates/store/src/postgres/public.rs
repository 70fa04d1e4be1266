//! The public ring's tables on PostgreSQL.

use async_trait::async_trait;
use tokio_postgres::Row;

use super::PgStore;
use super::errors::db;
use super::reads::get;
use crate::error::StoreError;
use crate::public::*;

fn enquiry_row(r: &Row) -> Result<EnquiryRecord, StoreError> {
    Ok(EnquiryRecord {
        id: get(r, 0)?,
        form: get(r, 1)?,
        dept: get(r, 2)?,
        fields: get(r, 3)?,
        status: get(r, 4)?,
        created_at_ms: get(r, 5)?,
    })
}

fn page_row(r: &Row) -> Result<CmsPageRecord, StoreError> {
    Ok(CmsPageRecord {
        key: get(r, 0)?,
        title: get(r, 1)?,
        body: get(r, 2)?,
        published: get(r, 3)?,
        version: get(r, 4)?,
        updated_at_ms: get(r, 5)?,
    })
}

const PAGE_COLUMNS: &str = "key, title, body, published, version, updated_at_ms";

/// The enquiry and its notification in one statement.
pub(crate) const INSERT_ENQUIRY: &str = "WITH enquiry AS (
         INSERT INTO enquiries (id, form, dept, fields, status, created_at_ms)
         VALUES ($1, $2, $3, $4, $5, $6) RETURNING id)
     INSERT INTO mail_outbox (id, enquiry_id, recipient, subject, body, state, first_due_ms, due_ms)
     SELECT $7, id, $8, $9, $10, 'pending', $11, $11 FROM enquiry";

pub(crate) fn enquiry_params<'a>(
    e: &'a EnquiryRecord,
    m: &'a MailRecord,
) -> [&'a (dyn tokio_postgres::types::ToSql + Sync); 11] {
    [
        &e.id,
        &e.form,
        &e.dept,
        &e.fields,
        &e.status,
        &e.created_at_ms,
        &m.id,
        &m.recipient,
        &m.subject,
        &m.body,
        &m.due_ms,
    ]
}

#[async_trait]
impl PublicStore for PgStore {
    async fn insert_enquiry(&self, e: EnquiryRecord, m: MailRecord) -> Result<(), StoreError> {
        // One statement: both rows or neither, without a transaction round trip.
        let c = self.conn().await?;
        let statement = c.prepare_cached(INSERT_ENQUIRY).await.map_err(db)?;
        c.execute(&statement, &enquiry_params(&e, &m))
            .await
            .map_err(db)?;
        Ok(())
    }

    async fn enquiry(&self, id: &str) -> Result<Option<EnquiryRecord>, StoreError> {
        let c = self.conn().await?;
        let row = c
            .query_opt(crate::sql::public::ENQUIRIES_SELECT_BY_ID, &[&id])
            .await
            .map_err(db)?;
        row.as_ref().map(enquiry_row).transpose()
    }

    async fn mail_status(&self, enquiry_id: &str) -> Result<Option<MailStatus>, StoreError> {
        let c = self.conn().await?;
        let row = c
            .query_opt(
                crate::sql::public::MAIL_OUTBOX_SELECT_BY_ENQUIRY_ID,
                &[&enquiry_id],
            )
            .await
            .map_err(db)?;
        row.map(|r| {
            let attempts: i32 = get(&r, 1)?;
            Ok(MailStatus {
                state: get(&r, 0)?,
                attempts: u32::try_from(attempts).unwrap_or(0),
                last_error: get(&r, 2)?,
            })
        })
        .transpose()
    }

    async fn put_cms_page(&self, p: CmsPageEdit) -> Result<i64, StoreError> {
        let c = self.conn().await?;
        let row = c
            .query_one(
                crate::sql::PUT_CMS_PAGE,
                &[&p.key, &p.title, &p.body, &p.published, &p.at_ms],
            )
            .await
            .map_err(db)?;
        get(&row, 0)
    }

    async fn cms_page(&self, key: &str) -> Result<Option<CmsPageRecord>, StoreError> {
        let c = self.conn().await?;
        let row = c
            .query_opt(
                &format!("SELECT {PAGE_COLUMNS} FROM cms_pages WHERE key = $1"),
                &[&key],
            )
            .await
            .map_err(db)?;
        row.as_ref().map(page_row).transpose()
    }

    async fn list_cms_pages(&self) -> Result<Vec<CmsPageRecord>, StoreError> {
        let c = self.conn().await?;
        let rows = c
            .query(
                &format!("SELECT {PAGE_COLUMNS} FROM cms_pages ORDER BY key"),
                &[],
            )
            .await
            .map_err(db)?;
        rows.iter().map(page_row).collect()
    }
}
