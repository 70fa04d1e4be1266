//! The commercial context's writes within a unit of work, on SQLite.

use lendhub_domain::clock::unix_ms;
use rusqlite::{Connection, params};

use super::super::{rows, unavailable};
use crate::*;

pub fn apply(c: &Connection, write: &CommercialWrite) -> Result<(), CommitError> {
    let store = |e: rusqlite::Error| CommitError::from(unavailable(e));
    match write {
        CommercialWrite::AgreeTerms {
            client_id,
            agreement,
            agreed_at_ms,
        } => {
            c.prepare_cached(shared!(crate::sql::commercial::AGREE_TERMS))
                .and_then(|mut q| {
                    q.execute(params![
                        client_id,
                        agreement.effective_from.to_string(),
                        agreed_at_ms,
                        rows::to_json(agreement)?
                    ])
                })
                .map_err(store)?;
        }
        CommercialWrite::InsertSubAccount(s) => {
            c.prepare_cached(shared!(crate::sql::commercial::INSERT_SUB_ACCOUNT))
                .and_then(|mut st| {
                    st.execute(params![
                        s.id.to_string(),
                        s.owner.as_str(),
                        unix_ms(s.created_at),
                        rows::to_json(s)?
                    ])
                })
                .map_err(store)?;
        }
        CommercialWrite::InsertIntroduction(i) => {
            c.prepare_cached(shared!(crate::sql::commercial::INSERT_INTRODUCTION))
                .and_then(|mut st| {
                    st.execute(params![
                        i.id.to_string(),
                        i.owner.as_str(),
                        i.application_id.to_string(),
                        i.sub_account_id.to_string(),
                        unix_ms(i.introduced_at),
                        rows::to_json(i)?
                    ])
                })
                .map_err(store)?;
        }
        CommercialWrite::InsertApp(a) => {
            c.prepare_cached(shared!(crate::sql::commercial::INSERT_APP))
                .and_then(|mut st| {
                    st.execute(params![
                        a.id.to_string(),
                        a.owner.as_str(),
                        a.review.as_str(),
                        a.version,
                        unix_ms(a.created_at),
                        rows::to_json(a)?
                    ])
                })
                .map_err(store)?;
        }
        CommercialWrite::InsertSubscription(m) => {
            c.prepare_cached(shared!(crate::sql::commercial::INSERT_SUBSCRIPTION))
                .and_then(|mut st| {
                    st.execute(params![
                        m.id.to_string(),
                        m.owner.as_str(),
                        m.app_id.to_string(),
                        m.endpoint_id,
                        unix_ms(m.created_at),
                        rows::to_json(m)?
                    ])
                })
                .map_err(store)?;
        }
        CommercialWrite::InsertSignal(g) => {
            c.prepare_cached(shared!(crate::sql::commercial::INSERT_SIGNAL))
                .and_then(|mut st| {
                    st.execute(params![
                        g.id.to_string(),
                        g.owner.as_str(),
                        g.application_id.to_string(),
                        unix_ms(g.created_at),
                        rows::to_json(g)?
                    ])
                })
                .map_err(store)?;
        }
        CommercialWrite::PutStatement(st) => {
            c.prepare_cached(shared!(crate::sql::commercial::PUT_STATEMENT))
                .and_then(|mut q| {
                    q.execute(params![
                        st.id.to_string(),
                        st.owner.as_str(),
                        st.period,
                        st.status.as_str(),
                        rows::to_json(st)?
                    ])
                })
                .map_err(store)?;
        }
        CommercialWrite::PutPayout(p) => {
            c.prepare_cached(shared!(crate::sql::commercial::PUT_PAYOUT))
                .and_then(|mut q| {
                    q.execute(params![
                        p.id.to_string(),
                        p.owner.as_str(),
                        p.sub_account_id.to_string(),
                        p.period,
                        p.status.as_str(),
                        rows::to_json(p)?
                    ])
                })
                .map_err(store)?;
        }
        CommercialWrite::InsertAdjustment(a) => {
            c.prepare_cached(shared!(crate::sql::commercial::INSERT_ADJUSTMENT))
                .and_then(|mut q| {
                    q.execute(params![
                        a.id.to_string(),
                        a.owner.as_str(),
                        a.applies_to,
                        rows::to_json(a)?
                    ])
                })
                .map_err(store)?;
        }
        CommercialWrite::ScheduleClose(close) => {
            c.prepare_cached(shared!(crate::sql::commercial::SCHEDULE_CLOSE))
                .and_then(|mut q| {
                    q.execute(params![
                        close.owner.as_str(),
                        close.period,
                        close.due_at_ms,
                        close.version,
                        rows::to_json(close)?
                    ])
                })
                .map_err(store)?;
        }
        CommercialWrite::MoveClose { read, next, .. } => {
            let changed = match next {
                Some(next) => c
                    .prepare_cached(shared!(crate::sql::commercial::MOVE_CLOSE))
                    .and_then(|mut q| {
                        q.execute(params![
                            read.owner.as_str(),
                            read.period,
                            read.version,
                            next.due_at_ms,
                            rows::to_json(next)?
                        ])
                    }),
                None => c
                    .prepare_cached(shared!(crate::sql::commercial::END_CLOSE))
                    .and_then(|mut q| {
                        q.execute(params![read.owner.as_str(), read.period, read.version])
                    }),
            }
            .map_err(store)?;
            if changed == 0 {
                return Err(CommitError::Conflict);
            }
        }
    }
    Ok(())
}
