//! The public ring's tables: enquiries with their notifications, and the
//! CMS's pages.

use async_trait::async_trait;

use crate::error::StoreError;
use crate::exec::{Backend, Exec, Row, Statement, Value};
use crate::public::*;
use crate::sql::public as sql;
use crate::{params, values};

fn enquiry(r: &Row) -> Result<EnquiryRecord, StoreError> {
    Ok(EnquiryRecord {
        id: r.get(0)?,
        form: r.get(1)?,
        dept: r.get(2)?,
        fields: r.get(3)?,
        status: r.get(4)?,
        created_at_ms: r.get(5)?,
    })
}

fn page(r: &Row) -> Result<CmsPageRecord, StoreError> {
    Ok(CmsPageRecord {
        key: r.get(0)?,
        title: r.get(1)?,
        body: r.get(2)?,
        published: r.get(3)?,
        version: r.get(4)?,
        updated_at_ms: r.get(5)?,
    })
}

/// The enquiry and its notification: `INSERT_ENQUIRY`'s then
/// `QUEUE_ENQUIRY_MAIL`'s parameters.
pub(crate) fn enquiry_values(e: &EnquiryRecord, m: &MailRecord) -> [Vec<Value>; 2] {
    [
        values![
            e.id.as_str(),
            e.form.as_str(),
            e.dept.clone(),
            e.fields.as_str(),
            e.status.as_str(),
            e.created_at_ms
        ],
        values![
            m.id.as_str(),
            m.enquiry_id.clone(),
            m.recipient.as_str(),
            m.subject.as_str(),
            m.body.as_str(),
            m.due_ms
        ],
    ]
}

#[async_trait]
impl<B: Backend> PublicStore for B {
    async fn insert_enquiry(
        &self,
        enquiry: EnquiryRecord,
        mail: MailRecord,
    ) -> Result<(), StoreError> {
        let [enquiry, mail] = enquiry_values(&enquiry, &mail);
        let plan = vec![
            Statement::change(sql::INSERT_ENQUIRY, enquiry),
            Statement::change(sql::QUEUE_ENQUIRY_MAIL, mail),
        ];
        self.write(plan).await.map(drop)
    }

    async fn enquiry(&self, id: &str) -> Result<Option<EnquiryRecord>, StoreError> {
        self.one(sql::ENQUIRIES_SELECT_BY_ID, &params![id], enquiry)
            .await
    }

    async fn mail_status(&self, enquiry_id: &str) -> Result<Option<MailStatus>, StoreError> {
        let mut c = self.connection().await?;
        c.query_opt(sql::MAIL_OUTBOX_SELECT_BY_ENQUIRY_ID, &params![enquiry_id])
            .await?
            .map(|r| {
                Ok(MailStatus {
                    state: r.get(0)?,
                    attempts: r.get(1)?,
                    last_error: r.get(2)?,
                })
            })
            .transpose()
    }

    async fn put_cms_page(&self, p: CmsPageEdit) -> Result<i64, StoreError> {
        let plan = vec![Statement::read(
            crate::sql::PUT_CMS_PAGE,
            values![p.key, p.title, p.body, p.published, p.at_ms],
        )];
        let done = self.write(plan).await?;
        match done.first().and_then(|d| d.rows.first()) {
            Some(r) => r.get(0),
            None => Err(StoreError::Internal("a CMS page without a version".into())),
        }
    }

    async fn cms_page(&self, key: &str) -> Result<Option<CmsPageRecord>, StoreError> {
        self.one(sql::CMS_PAGE, &params![key], page).await
    }

    async fn list_cms_pages(&self) -> Result<Vec<CmsPageRecord>, StoreError> {
        self.all(sql::CMS_PAGES, &[], page).await
    }
}
