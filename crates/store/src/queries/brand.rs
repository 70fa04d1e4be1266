use async_trait::async_trait;
use lendhub_domain::partner::branding::Branding;

use crate::context::brand::BrandStore;
use crate::error::StoreError;
use crate::exec::Backend;
use crate::params;
use crate::sql::brand as sql;

#[async_trait]
impl<B: Backend> BrandStore for B {
    async fn branding(&self, partner_client_id: &str) -> Result<Option<Branding>, StoreError> {
        self.one(sql::BRANDING, &params![partner_client_id], |r| r.json(0))
            .await
    }

    async fn logo(&self, sha256: &str) -> Result<Option<(String, Vec<u8>)>, StoreError> {
        self.one(sql::LOGO, &params![sha256], |r| Ok((r.get(0)?, r.get(1)?)))
            .await
    }
}
