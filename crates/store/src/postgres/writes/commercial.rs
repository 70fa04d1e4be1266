//! The commercial context's writes within a group commit. Inserts only:
//! nothing here needs a check or takes a lock.

use deadpool_postgres::Transaction;
use lendhub_domain::clock::unix_ms;
use lendhub_domain::hub_ids::HubId;
use tokio_postgres::Statement;

use super::{Bound, JsonText, Param};
use crate::error::StoreError;
use crate::*;

pub(crate) struct Statements {
    insert_sub_account: Statement,
    insert_introduction: Statement,
}

impl Statements {
    pub async fn prepare(tx: &Transaction<'_>) -> Result<Self, StoreError> {
        let p = |sql| async move { tx.prepare_cached(sql).await.map_err(super::db) };
        Ok(Self {
            insert_sub_account: p(crate::sql::commercial::INSERT_SUB_ACCOUNT).await?,
            insert_introduction: p(crate::sql::commercial::INSERT_INTRODUCTION).await?,
        })
    }

    pub fn write<'a>(
        &self,
        write: &'a CommercialWrite,
        out: &mut Vec<Bound<'a>>,
    ) -> Result<(), StoreError> {
        match write {
            CommercialWrite::InsertSubAccount(s) => out.push((
                self.insert_sub_account.clone(),
                vec![
                    Box::new(s.id.as_str()) as Param<'a>,
                    Box::new(s.owner.as_str()),
                    Box::new(unix_ms(s.created_at)),
                    Box::new(JsonText(s)),
                ],
            )),
            CommercialWrite::InsertIntroduction(i) => out.push((
                self.insert_introduction.clone(),
                vec![
                    Box::new(i.id.as_str()) as Param<'a>,
                    Box::new(i.owner.as_str()),
                    Box::new(i.application_id.as_str()),
                    Box::new(i.sub_account_id.as_str()),
                    Box::new(unix_ms(i.introduced_at)),
                    Box::new(JsonText(i)),
                ],
            )),
        }
        Ok(())
    }
}
