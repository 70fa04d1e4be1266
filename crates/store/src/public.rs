//! Storage for the hub's public ring: enquiries with the notification each
//! one queues (a mail outbox), and the CMS pages.

use async_trait::async_trait;

use crate::error::StoreError;

#[derive(Clone, Debug, PartialEq)]
pub struct EnquiryRecord {
    /// `enq_…`
    pub id: String,
    pub form: String,
    /// `None`: the general inbox.
    pub dept: Option<String>,
    /// The `fields` object as received (JSON).
    pub fields: String,
    pub status: String,
    pub created_at_ms: i64,
}

/// A notification waiting in the outbox, rendered when it was queued.
#[derive(Clone, Debug, PartialEq)]
pub struct MailRecord {
    /// `mail_…`
    pub id: String,
    /// The enquiry it notifies of; `None` for a notice to a partner.
    pub enquiry_id: Option<String>,
    pub recipient: String,
    pub subject: String,
    pub body: String,
    pub due_ms: i64,
}

/// Where a queued notification stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MailStatus {
    pub state: String,
    pub attempts: u32,
    pub last_error: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CmsPageRecord {
    pub key: String,
    pub title: String,
    /// Markdown source.
    pub body: String,
    pub published: bool,
    /// Starts at 1 and moves with every put.
    pub version: i64,
    pub updated_at_ms: i64,
}

/// A page as an editor puts it.
#[derive(Clone, Debug)]
pub struct CmsPageEdit {
    pub key: String,
    pub title: String,
    /// Markdown source.
    pub body: String,
    pub published: bool,
    pub at_ms: i64,
}

/// The public ring's row changes within a [`crate::WriteSet`].
#[derive(Clone, Debug)]
pub enum PublicWrite {
    /// The enquiry and its department notification, together.
    InsertEnquiry {
        enquiry: EnquiryRecord,
        mail: MailRecord,
    },
    /// A notice mailed to `recipient` (the lender's operators').
    Mail {
        id: String,
        recipient: String,
        subject: String,
        body: String,
        due_ms: i64,
    },
    /// A notice mailed to the partner's contact address; nothing if the
    /// partner has none.
    MailPartner {
        id: String,
        client_id: String,
        subject: String,
        body: String,
        due_ms: i64,
    },
}

impl From<PublicWrite> for crate::Write {
    fn from(write: PublicWrite) -> Self {
        crate::Write::Public(write)
    }
}

#[async_trait]
pub trait PublicStore: Send + Sync {
    /// The enquiry and its notification, in one transaction.
    async fn insert_enquiry(
        &self,
        enquiry: EnquiryRecord,
        mail: MailRecord,
    ) -> Result<(), StoreError>;
    async fn enquiry(&self, id: &str) -> Result<Option<EnquiryRecord>, StoreError>;
    /// The notification an enquiry queued.
    async fn mail_status(&self, enquiry_id: &str) -> Result<Option<MailStatus>, StoreError>;

    /// Creates or replaces the page under its key; returns its new version.
    async fn put_cms_page(&self, page: CmsPageEdit) -> Result<i64, StoreError>;
    async fn cms_page(&self, key: &str) -> Result<Option<CmsPageRecord>, StoreError>;
    async fn list_cms_pages(&self) -> Result<Vec<CmsPageRecord>, StoreError>;
}
