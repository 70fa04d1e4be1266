//! The lending context's writes within a unit of work, on SQLite.

use lendhub_domain::clock::unix_ms;
use lendhub_domain::lending::application::Application;
use rusqlite::{Connection, params};

use super::super::{row_keys, rows, unavailable};
use crate::*;

/// When the application sweep next needs it: the sweep's key.
pub(crate) fn due_at_ms(a: &Application) -> Option<i64> {
    a.due_at().map(unix_ms)
}

/// One lending row change; a failed condition is `Conflict`.
pub fn apply(c: &Connection, write: &LendingWrite) -> Result<(), CommitError> {
    let store = |e: rusqlite::Error| CommitError::from(unavailable(e));
    match write {
        LendingWrite::InsertApplication(a) => {
            c.prepare_cached(shared!(row_keys::lending::INSERT_APPLICATION))
                .and_then(|mut s| {
                    let id = a.id.to_string();
                    s.execute(params![
                        row_keys::row_key(&id),
                        id,
                        a.owner.as_str(),
                        a.status.as_str(),
                        a.reference,
                        a.version,
                        unix_ms(a.created_at),
                        due_at_ms(a),
                        rows::to_json(a)?,
                        a.company_number
                    ])
                })
                .map_err(store)?;
        }
        LendingWrite::UpdateApplication(a) => {
            let changed = c
                .prepare_cached(shared!(crate::sql::lending::UPDATE_APPLICATION))
                .and_then(|mut s| {
                    s.execute(params![
                        a.id.to_string(),
                        a.owner.as_str(),
                        a.status.as_str(),
                        a.reference,
                        a.version,
                        due_at_ms(a),
                        rows::to_json(a)?
                    ])
                })
                .map_err(store)?;
            if changed == 0 {
                return Err(CommitError::Conflict);
            }
        }
        LendingWrite::InsertDecision(d) => {
            c.prepare_cached(shared!(crate::sql::lending::INSERT_DECISION))
                .and_then(|mut s| {
                    s.execute(params![
                        d.id.to_string(),
                        d.owner.as_str(),
                        d.application_id.to_string(),
                        d.verdict.outcome.as_str(),
                        unix_ms(d.decided_at),
                        rows::to_json(d)?
                    ])
                })
                .map_err(store)?;
        }
        LendingWrite::UpdateDecision(d) => {
            let changed = c
                .prepare_cached(shared!(crate::sql::lending::UPDATE_DECISION))
                .and_then(|mut s| {
                    s.execute(params![
                        d.id.to_string(),
                        d.owner.as_str(),
                        d.verdict.outcome.as_str(),
                        unix_ms(d.decided_at),
                        rows::to_json(d)?
                    ])
                })
                .map_err(store)?;
            if changed == 0 {
                return Err(CommitError::Conflict);
            }
        }
        LendingWrite::RecordAct(a) => {
            c.prepare_cached(shared!(crate::sql::lending::INSERT_ACT))
                .and_then(|mut s| {
                    s.execute(params![
                        a.decision_id.to_string(),
                        a.owner.as_str(),
                        a.act.as_str(),
                        a.actor,
                        a.note,
                        unix_ms(a.at)
                    ])
                })
                .map_err(store)?;
        }
        LendingWrite::OpenAccount(a) => {
            c.prepare_cached(shared!(crate::sql::lending::INSERT_ACCOUNT))
                .and_then(|mut s| {
                    s.execute(params![
                        a.id.to_string(),
                        a.owner.as_str(),
                        a.application_id.to_string(),
                        a.status.as_str(),
                        unix_ms(a.opened_at),
                        rows::to_json(a)?,
                        a.next_review.map(unix_ms),
                        a.borrower(),
                        a.sub_account_id.as_ref().map(ToString::to_string)
                    ])
                })
                .map_err(store)?;
        }
        LendingWrite::UpdateAccount { account: a, from } => {
            let changed = c
                .prepare_cached(shared!(crate::sql::lending::UPDATE_ACCOUNT))
                .and_then(|mut s| {
                    s.execute(params![
                        a.id.to_string(),
                        a.owner.as_str(),
                        a.status.as_str(),
                        rows::to_json(a)?,
                        from.as_str(),
                        a.next_review.map(unix_ms)
                    ])
                })
                .map_err(store)?;
            if changed == 0 {
                return Err(CommitError::Conflict);
            }
        }
        LendingWrite::InsertPayment(p) => {
            c.prepare_cached(shared!(crate::sql::lending::INSERT_PAYMENT))
                .and_then(|mut s| {
                    s.execute(params![
                        p.id.to_string(),
                        p.owner.as_str(),
                        p.account_id.to_string(),
                        p.status.as_str(),
                        p.version,
                        p.due_at().map(unix_ms),
                        rows::to_json(p)?,
                        p.schedule.as_ref().map(|i| i.schedule_id.to_string()),
                        p.schedule.as_ref().map(|i| i.number)
                    ])
                })
                .map_err(store)?;
        }
        LendingWrite::UpdatePayment(p) => {
            let changed = c
                .prepare_cached(shared!(crate::sql::lending::UPDATE_PAYMENT))
                .and_then(|mut s| {
                    s.execute(params![
                        p.id.to_string(),
                        p.owner.as_str(),
                        p.status.as_str(),
                        p.version,
                        p.due_at().map(unix_ms),
                        rows::to_json(p)?
                    ])
                })
                .map_err(store)?;
            if changed == 0 {
                return Err(CommitError::Conflict);
            }
        }
        LendingWrite::InsertSchedule(sch) => {
            c.prepare_cached(shared!(crate::sql::lending::INSERT_SCHEDULE))
                .and_then(|mut s| {
                    s.execute(params![
                        sch.id.to_string(),
                        sch.owner.as_str(),
                        sch.account_id.to_string(),
                        sch.status.as_str(),
                        sch.version,
                        sch.due_at().map(unix_ms),
                        rows::to_json(sch)?
                    ])
                })
                .map_err(store)?;
        }
        LendingWrite::UpdateSchedule(sch) => {
            let changed = c
                .prepare_cached(shared!(crate::sql::lending::UPDATE_SCHEDULE))
                .and_then(|mut s| {
                    s.execute(params![
                        sch.id.to_string(),
                        sch.owner.as_str(),
                        sch.status.as_str(),
                        sch.version,
                        sch.due_at().map(unix_ms),
                        rows::to_json(sch)?
                    ])
                })
                .map_err(store)?;
            if changed == 0 {
                return Err(CommitError::Conflict);
            }
        }
        LendingWrite::InsertMandate(m) => {
            c.prepare_cached(shared!(crate::sql::lending::INSERT_MANDATE))
                .and_then(|mut s| {
                    s.execute(params![
                        m.id.to_string(),
                        m.owner.as_str(),
                        m.account_id.to_string(),
                        m.status.as_str(),
                        m.version,
                        rows::to_json(m)?
                    ])
                })
                .map_err(store)?;
        }
        LendingWrite::UpdateMandate(m) => {
            let changed = c
                .prepare_cached(shared!(crate::sql::lending::UPDATE_MANDATE))
                .and_then(|mut s| {
                    s.execute(params![
                        m.id.to_string(),
                        m.owner.as_str(),
                        m.status.as_str(),
                        m.version,
                        rows::to_json(m)?
                    ])
                })
                .map_err(store)?;
            if changed == 0 {
                return Err(CommitError::Conflict);
            }
        }
        LendingWrite::PostEntry(e) => {
            c.prepare_cached(shared!(crate::sql::lending::POST_ENTRY))
                .and_then(|mut s| {
                    s.execute(params![
                        e.id.to_string(),
                        e.owner.as_str(),
                        e.account_id.to_string(),
                        e.kind.as_str(),
                        e.amount.as_pence(),
                        e.payment_id,
                        unix_ms(e.posted_at),
                        rows::to_json(e)?
                    ])
                })
                .map_err(store)?;
        }
        LendingWrite::MailApplicant(mail) => {
            c.prepare_cached(shared!(crate::sql::identity::MAIL_PERSON))
                .and_then(|mut s| {
                    s.execute(params![
                        mail.id,
                        mail.recipient,
                        mail.subject,
                        mail.body,
                        mail.due_ms
                    ])
                })
                .map_err(store)?;
        }
        LendingWrite::StartJourney(j) => {
            let inserted = c
                .prepare_cached(shared!(crate::sql::lending::START_JOURNEY))
                .and_then(|mut s| {
                    s.execute(params![
                        j.application_id.to_string(),
                        j.owner.as_str(),
                        j.version,
                        rows::to_json(j)?
                    ])
                })
                .map_err(store)?;
            if inserted == 0 {
                return Err(CommitError::Conflict);
            }
        }
        LendingWrite::UpdateJourney(j) => {
            let changed = c
                .prepare_cached(shared!(crate::sql::lending::UPDATE_JOURNEY))
                .and_then(|mut s| {
                    s.execute(params![
                        j.application_id.to_string(),
                        j.owner.as_str(),
                        j.version,
                        rows::to_json(j)?
                    ])
                })
                .map_err(store)?;
            if changed == 0 {
                return Err(CommitError::Conflict);
            }
        }
        LendingWrite::InsertVerification(v) => {
            c.prepare_cached(shared!(crate::sql::lending::INSERT_VERIFICATION))
                .and_then(|mut s| {
                    s.execute(params![
                        v.id.to_string(),
                        v.owner.as_str(),
                        v.application_id.as_ref().map(ToString::to_string),
                        unix_ms(v.created_at),
                        rows::to_json(v)?
                    ])
                })
                .map_err(store)?;
        }
    }
    Ok(())
}
