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
    insert_app: Statement,
    insert_subscription: Statement,
    insert_signal: Statement,
}

impl Statements {
    pub async fn prepare(tx: &Transaction<'_>) -> Result<Self, StoreError> {
        let p = |sql| async move { tx.prepare_cached(sql).await.map_err(super::db) };
        Ok(Self {
            insert_sub_account: p(crate::sql::commercial::INSERT_SUB_ACCOUNT).await?,
            insert_introduction: p(crate::sql::commercial::INSERT_INTRODUCTION).await?,
            insert_app: p(crate::sql::commercial::INSERT_APP).await?,
            insert_subscription: p(crate::sql::commercial::INSERT_SUBSCRIPTION).await?,
            insert_signal: p(crate::sql::commercial::INSERT_SIGNAL).await?,
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
            CommercialWrite::InsertApp(a) => out.push((
                self.insert_app.clone(),
                vec![
                    Box::new(a.id.as_str()) as Param<'a>,
                    Box::new(a.owner.as_str()),
                    Box::new(a.review.as_str()),
                    Box::new(a.version),
                    Box::new(unix_ms(a.created_at)),
                    Box::new(JsonText(a)),
                ],
            )),
            CommercialWrite::InsertSubscription(m) => out.push((
                self.insert_subscription.clone(),
                vec![
                    Box::new(m.id.as_str()) as Param<'a>,
                    Box::new(m.owner.as_str()),
                    Box::new(m.app_id.as_str()),
                    Box::new(m.endpoint_id.as_str()),
                    Box::new(unix_ms(m.created_at)),
                    Box::new(JsonText(m)),
                ],
            )),
            CommercialWrite::InsertSignal(g) => out.push((
                self.insert_signal.clone(),
                vec![
                    Box::new(g.id.as_str()) as Param<'a>,
                    Box::new(g.owner.as_str()),
                    Box::new(g.application_id.as_str()),
                    Box::new(unix_ms(g.created_at)),
                    Box::new(JsonText(g)),
                ],
            )),
        }
        Ok(())
    }
}
