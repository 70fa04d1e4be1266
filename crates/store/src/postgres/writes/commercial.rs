//! The commercial context's writes within a group commit. One takes a
//! lock: moving a month's close on (rank 50 of the lock order, `super`).

use deadpool_postgres::Transaction;
use lendhub_domain::clock::unix_ms;
use lendhub_domain::ids::HubId;
use tokio_postgres::Statement;

use super::{Bound, JsonText, Needs, Param, Rank};
use crate::error::StoreError;
use crate::*;

/// The close is still at the version read.
const LOCK_CLOSE: &str = "SELECT 1 FROM hub_billing_due
     WHERE owner = $1 AND period = $2 AND version = $3 FOR UPDATE";

pub(crate) enum Check<'a> {
    Close(&'a lendhub_domain::billing::statement::Close),
}

impl Check<'_> {
    /// Rank 50 of the lock order (`super`).
    pub fn rank(&self) -> Rank<'_> {
        match self {
            Check::Close(c) => (50, c.owner.as_str(), c.period.as_str()),
        }
    }
}

pub(crate) fn needs(write: &CommercialWrite) -> Option<Needs<'_, Check<'_>>> {
    match write {
        CommercialWrite::MoveClose { read, key, .. } => Some(Needs {
            check: Check::Close(read),
            row: Some(("hub_billing_due", key.as_str())),
        }),
        _ => None,
    }
}

pub(crate) struct Statements {
    agree_terms: Statement,
    insert_sub_account: Statement,
    insert_introduction: Statement,
    insert_app: Statement,
    insert_subscription: Statement,
    insert_signal: Statement,
    put_statement: Statement,
    put_payout: Statement,
    schedule_close: Statement,
    move_close: Statement,
    end_close: Statement,
    lock_close: Statement,
    insert_adjustment: Statement,
}

impl Statements {
    pub async fn prepare(tx: &Transaction<'_>) -> Result<Self, StoreError> {
        let p = |sql| async move { tx.prepare_cached(sql).await.map_err(super::db) };
        Ok(Self {
            agree_terms: p(crate::sql::commercial::AGREE_TERMS).await?,
            insert_sub_account: p(crate::sql::commercial::INSERT_SUB_ACCOUNT).await?,
            insert_introduction: p(crate::sql::commercial::INSERT_INTRODUCTION).await?,
            insert_app: p(crate::sql::commercial::INSERT_APP).await?,
            insert_subscription: p(crate::sql::commercial::INSERT_SUBSCRIPTION).await?,
            insert_signal: p(crate::sql::commercial::INSERT_SIGNAL).await?,
            put_statement: p(crate::sql::commercial::PUT_STATEMENT).await?,
            put_payout: p(crate::sql::commercial::PUT_PAYOUT).await?,
            schedule_close: p(crate::sql::commercial::SCHEDULE_CLOSE).await?,
            move_close: p(crate::sql::commercial::MOVE_CLOSE).await?,
            end_close: p(crate::sql::commercial::END_CLOSE).await?,
            lock_close: p(LOCK_CLOSE).await?,
            insert_adjustment: p(crate::sql::commercial::INSERT_ADJUSTMENT).await?,
        })
    }

    pub fn check<'a>(&self, check: &Check<'a>) -> Bound<'a> {
        match check {
            Check::Close(c) => (
                self.lock_close.clone(),
                vec![
                    Box::new(c.owner.as_str()) as Param<'a>,
                    Box::new(c.period.as_str()),
                    Box::new(c.version),
                ],
            ),
        }
    }

    pub fn write<'a>(
        &self,
        write: &'a CommercialWrite,
        out: &mut Vec<Bound<'a>>,
    ) -> Result<(), StoreError> {
        match write {
            CommercialWrite::AgreeTerms {
                client_id,
                agreement,
                agreed_at_ms,
            } => out.push((
                self.agree_terms.clone(),
                vec![
                    Box::new(client_id.as_str()) as Param<'a>,
                    Box::new(agreement.effective_from.to_string()),
                    Box::new(*agreed_at_ms),
                    Box::new(JsonText(agreement)),
                ],
            )),
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
            CommercialWrite::PutStatement(st) => out.push((
                self.put_statement.clone(),
                vec![
                    Box::new(st.id.as_str()) as Param<'a>,
                    Box::new(st.owner.as_str()),
                    Box::new(st.period.as_str()),
                    Box::new(st.status.as_str()),
                    Box::new(JsonText(st)),
                ],
            )),
            CommercialWrite::PutPayout(p) => out.push((
                self.put_payout.clone(),
                vec![
                    Box::new(p.id.as_str()) as Param<'a>,
                    Box::new(p.owner.as_str()),
                    Box::new(p.sub_account_id.as_str()),
                    Box::new(p.period.as_str()),
                    Box::new(p.status.as_str()),
                    Box::new(JsonText(p)),
                ],
            )),
            CommercialWrite::InsertAdjustment(a) => out.push((
                self.insert_adjustment.clone(),
                vec![
                    Box::new(a.id.as_str()) as Param<'a>,
                    Box::new(a.owner.as_str()),
                    Box::new(a.applies_to.as_str()),
                    Box::new(JsonText(a)),
                ],
            )),
            CommercialWrite::ScheduleClose(c) => out.push((
                self.schedule_close.clone(),
                vec![
                    Box::new(c.owner.as_str()) as Param<'a>,
                    Box::new(c.period.as_str()),
                    Box::new(c.due_at_ms),
                    Box::new(c.version),
                    Box::new(JsonText(c)),
                ],
            )),
            // The check locked the row at the due time read.
            CommercialWrite::MoveClose { read, next, .. } => out.push(match next {
                Some(next) => (
                    self.move_close.clone(),
                    vec![
                        Box::new(read.owner.as_str()) as Param<'a>,
                        Box::new(read.period.as_str()),
                        Box::new(read.version),
                        Box::new(next.due_at_ms),
                        Box::new(JsonText(next)),
                    ],
                ),
                None => (
                    self.end_close.clone(),
                    vec![
                        Box::new(read.owner.as_str()) as Param<'a>,
                        Box::new(read.period.as_str()),
                        Box::new(read.version),
                    ],
                ),
            }),
        }
        Ok(())
    }
}
