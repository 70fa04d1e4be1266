//! The commercial context's writes: terms, sub-accounts, introductions,
//! the marketplace, statements and payouts. Two have a condition: moving a
//! month's close on (rank 50), and a payout on the rail (rank 51).

use lendhub_domain::clock::unix_ms;
use lendhub_domain::ids::{HubId, SubAccountId};

use super::{Check, Unit, json};
use crate::error::StoreError;
use crate::exec::{Dialect, Lock, Statement};
use crate::sql::commercial as sql;
use crate::*;

/// The payout, still at the version read.
const PAYOUT_AT: Lock = lock!("SELECT 1 FROM hub_payouts WHERE id = $1 AND version = $2");

/// The close, still at the version read.
const CLOSE_AT: Lock =
    lock!("SELECT 1 FROM hub_billing_due WHERE owner = $1 AND period = $2 AND version = $3");

/// The payee a payout is keyed by in its row: the sub-account's id, or ''
/// for the partner's own remittance (one per owner and month either way).
pub(crate) fn payee(sub_account_id: Option<&SubAccountId>) -> &str {
    sub_account_id.map_or("", SubAccountId::as_str)
}

pub(super) fn plan(
    write: &CommercialWrite,
    d: &Dialect,
    unit: &mut Unit,
) -> Result<(), StoreError> {
    match write {
        CommercialWrite::AgreeTerms {
            client_id,
            agreement,
            agreed_at_ms,
        } => unit.step(
            sql::AGREE_TERMS,
            values![
                client_id.as_str(),
                agreement.effective_from.to_string(),
                *agreed_at_ms,
                json(agreement)?
            ],
        ),
        CommercialWrite::InsertSubAccount(s) => unit.step(
            sql::INSERT_SUB_ACCOUNT,
            values![
                s.id.as_str(),
                s.owner.as_str(),
                unix_ms(s.created_at),
                json(s)?
            ],
        ),
        CommercialWrite::UpdateSubAccount(s) => unit.step(
            sql::UPDATE_SUB_ACCOUNT,
            values![s.id.as_str(), s.owner.as_str(), json(s)?],
        ),
        CommercialWrite::SetPartnerPayoutAccount { owner, account, at } => unit.step(
            sql::SET_PARTNER_PAYOUT_ACCOUNT,
            values![owner.as_str(), unix_ms(*at), json(account)?],
        ),
        CommercialWrite::InsertIntroduction(i) => unit.step(
            sql::INSERT_INTRODUCTION,
            values![
                i.id.as_str(),
                i.owner.as_str(),
                i.application_id.as_str(),
                i.sub_account_id.as_str(),
                unix_ms(i.introduced_at),
                json(i)?
            ],
        ),
        CommercialWrite::InsertApp(a) => unit.step(
            sql::INSERT_APP,
            values![
                a.id.as_str(),
                a.owner.as_str(),
                a.review.as_str(),
                a.version,
                unix_ms(a.created_at),
                json(a)?
            ],
        ),
        CommercialWrite::InsertSubscription(m) => unit.step(
            sql::INSERT_SUBSCRIPTION,
            values![
                m.id.as_str(),
                m.owner.as_str(),
                m.app_id.as_str(),
                m.endpoint_id.as_str(),
                unix_ms(m.created_at),
                json(m)?
            ],
        ),
        CommercialWrite::InsertSignal(g) => unit.step(
            sql::INSERT_SIGNAL,
            values![
                g.id.as_str(),
                g.owner.as_str(),
                g.application_id.as_str(),
                unix_ms(g.created_at),
                json(g)?
            ],
        ),
        CommercialWrite::PutStatement(st) => unit.step(
            sql::PUT_STATEMENT,
            values![
                st.id.as_str(),
                st.owner.as_str(),
                st.period.as_str(),
                st.status.as_str(),
                json(st)?
            ],
        ),
        CommercialWrite::PutPayout(p) => unit.step(
            sql::PUT_PAYOUT,
            values![
                p.id.as_str(),
                p.owner.as_str(),
                payee(p.sub_account_id.as_ref()),
                p.period.as_str(),
                p.status.as_str(),
                p.due_at.map(unix_ms),
                json(p)?
            ],
        ),
        CommercialWrite::MovePayout(next) => {
            let read_version = next.version - 1;
            unit.check(Check {
                rank: (51, next.id.to_string(), String::new()),
                row: Some(("hub_payouts", next.id.to_string())),
                test: Statement::read(d.lock(&PAYOUT_AT), values![next.id.as_str(), read_version]),
                release: None,
            });
            unit.step(
                sql::MOVE_PAYOUT,
                values![
                    next.id.as_str(),
                    read_version,
                    next.status.as_str(),
                    next.due_at.map(unix_ms),
                    next.version,
                    json(next)?
                ],
            )
        }
        CommercialWrite::InsertAdjustment(a) => unit.step(
            sql::INSERT_ADJUSTMENT,
            values![
                a.id.as_str(),
                a.owner.as_str(),
                a.applies_to.as_str(),
                json(a)?
            ],
        ),
        CommercialWrite::ScheduleClose(c) => unit.step(
            sql::SCHEDULE_CLOSE,
            values![
                c.owner.as_str(),
                c.period.as_str(),
                c.due_at_ms,
                c.version,
                json(c)?
            ],
        ),
        CommercialWrite::MoveClose { read, key, next } => {
            unit.check(Check {
                rank: (50, read.owner.to_string(), read.period.clone()),
                row: Some(("hub_billing_due", key.clone())),
                test: Statement::read(
                    d.lock(&CLOSE_AT),
                    values![read.owner.as_str(), read.period.as_str(), read.version],
                ),
                release: None,
            });
            match next {
                Some(next) => unit.step(
                    sql::MOVE_CLOSE,
                    values![
                        read.owner.as_str(),
                        read.period.as_str(),
                        read.version,
                        next.due_at_ms,
                        json(next)?
                    ],
                ),
                None => unit.step(
                    sql::END_CLOSE,
                    values![read.owner.as_str(), read.period.as_str(), read.version],
                ),
            }
        }
    }
    Ok(())
}
