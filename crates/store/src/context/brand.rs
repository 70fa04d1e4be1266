//! A partner's brand on the pages its customers see (issue #51 item 2).

use async_trait::async_trait;
use lendhub_domain::partner::branding::Branding;

use crate::error::StoreError;

/// A change to a partner's brand, committed with its audit line.
#[derive(Clone, Debug)]
pub enum BrandWrite {
    /// The partner's brand as a whole; `logo` holds the bytes of a newly
    /// uploaded logo (`branding.logo` describes it).
    Set {
        partner_client_id: String,
        branding: Branding,
        logo: Option<Vec<u8>>,
        at_ms: i64,
    },
}

impl From<BrandWrite> for crate::Write {
    fn from(write: BrandWrite) -> Self {
        crate::Write::Brand(write)
    }
}

#[async_trait]
pub trait BrandStore: Send + Sync {
    /// The partner's brand, if it set one.
    async fn branding(&self, partner_client_id: &str) -> Result<Option<Branding>, StoreError>;

    /// A logo's content type and bytes, by their SHA-256.
    async fn logo(&self, sha256: &str) -> Result<Option<(String, Vec<u8>)>, StoreError>;
}
