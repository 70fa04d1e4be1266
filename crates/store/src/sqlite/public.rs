//! The public ring's tables on SQLite.

use async_trait::async_trait;
use rusqlite::{Connection, OptionalExtension, params};

use super::{SqliteStore, dialect, unavailable};
use crate::error::StoreError;
use crate::public::*;

fn enquiry_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<EnquiryRecord> {
    Ok(EnquiryRecord {
        id: r.get(0)?,
        form: r.get(1)?,
        dept: r.get(2)?,
        fields: r.get(3)?,
        status: r.get(4)?,
        created_at_ms: r.get(5)?,
    })
}

fn page_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<CmsPageRecord> {
    Ok(CmsPageRecord {
        key: r.get(0)?,
        title: r.get(1)?,
        body: r.get(2)?,
        published: r.get(3)?,
        version: r.get(4)?,
        updated_at_ms: r.get(5)?,
    })
}

pub(super) fn insert_enquiry(
    c: &Connection,
    e: &EnquiryRecord,
    m: &MailRecord,
) -> rusqlite::Result<()> {
    c.prepare_cached(
        "INSERT INTO enquiries (id, form, dept, fields, status, created_at_ms)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?
    .execute(params![
        e.id,
        e.form,
        e.dept,
        e.fields,
        e.status,
        e.created_at_ms
    ])?;
    c.prepare_cached(
        "INSERT INTO mail_outbox (id, enquiry_id, recipient, subject, body, state, first_due_ms, due_ms)
         VALUES (?1, ?2, ?3, ?4, ?5, 'pending', ?6, ?6)",
    )?
    .execute(params![m.id, m.enquiry_id, m.recipient, m.subject, m.body, m.due_ms])?;
    Ok(())
}

fn put_page(c: &Connection, p: &CmsPageEdit) -> rusqlite::Result<i64> {
    c.prepare_cached(&dialect(crate::sql::PUT_CMS_PAGE))?
        .query_row(params![p.key, p.title, p.body, p.published, p.at_ms], |r| {
            r.get(0)
        })
}

const PAGE_COLUMNS: &str = "key, title, body, published, version, updated_at_ms";

#[async_trait]
impl PublicStore for SqliteStore {
    async fn insert_enquiry(
        &self,
        enquiry: EnquiryRecord,
        mail: MailRecord,
    ) -> Result<(), StoreError> {
        self.writer
            .run(move |c| insert_enquiry(c, &enquiry, &mail).map_err(unavailable))
            .await
    }

    async fn enquiry(&self, id: &str) -> Result<Option<EnquiryRecord>, StoreError> {
        self.read(|c| {
            c.prepare_cached(shared!(crate::sql::public::ENQUIRIES_SELECT_BY_ID))?
                .query_row([id], enquiry_row)
                .optional()
        })
    }

    async fn mail_status(&self, enquiry_id: &str) -> Result<Option<MailStatus>, StoreError> {
        self.read(|c| {
            c.prepare_cached(shared!(
                crate::sql::public::MAIL_OUTBOX_SELECT_BY_ENQUIRY_ID
            ))?
            .query_row([enquiry_id], |r| {
                Ok(MailStatus {
                    state: r.get(0)?,
                    attempts: r.get(1)?,
                    last_error: r.get(2)?,
                })
            })
            .optional()
        })
    }

    async fn put_cms_page(&self, page: CmsPageEdit) -> Result<i64, StoreError> {
        self.writer
            .run(move |c| put_page(c, &page).map_err(unavailable))
            .await
    }

    async fn cms_page(&self, key: &str) -> Result<Option<CmsPageRecord>, StoreError> {
        self.read(|c| {
            c.prepare_cached(&format!(
                "SELECT {PAGE_COLUMNS} FROM cms_pages WHERE key = ?1"
            ))?
            .query_row([key], page_row)
            .optional()
        })
    }

    async fn list_cms_pages(&self) -> Result<Vec<CmsPageRecord>, StoreError> {
        self.read(|c| {
            c.prepare_cached(&format!(
                "SELECT {PAGE_COLUMNS} FROM cms_pages ORDER BY key"
            ))?
            .query_map([], page_row)?
            .collect()
        })
    }
}
