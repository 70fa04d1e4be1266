//! The lending context's checks and writes within a group commit.

use deadpool_postgres::Transaction;
use lendhub_domain::clock::unix_ms;
use lendhub_domain::ids::HubId;
use lendhub_domain::lending::application::Application;
use lendhub_domain::lending::journey::Journey;
use lendhub_domain::servicing::account::Account;
use lendhub_domain::servicing::collection::Payment;
use lendhub_domain::servicing::mandate::Mandate;
use lendhub_domain::servicing::schedule::Schedule;
use tokio_postgres::Statement;

use super::{Bound, Needs, Param, Rank, json};
use crate::error::StoreError;
use crate::*;

/// One row, locked until commit, if the application is still at the
/// version the update was computed from.
const LOCK_APPLICATION: &str = "SELECT 1 FROM hub_applications
     WHERE id = $1 AND owner = $2 AND version = $3 FOR UPDATE";
/// `UPDATE_ACCOUNT`'s condition, checked and locked before any write; the
/// write then needs no condition of its own.
const LOCK_ACCOUNT: &str = "SELECT 1 FROM hub_accounts
     WHERE id = $1 AND owner = $2 AND status = $3 FOR UPDATE";
const UPDATE_ACCOUNT_LOCKED: &str = "UPDATE hub_accounts SET status = $3, body = $4, due_at_ms = $5
     WHERE id = $1 AND owner = $2";
const LOCK_PAYMENT: &str = "SELECT 1 FROM hub_payments
     WHERE id = $1 AND owner = $2 AND version = $3 FOR UPDATE";
const LOCK_SCHEDULE: &str = "SELECT 1 FROM hub_schedules
     WHERE id = $1 AND owner = $2 AND version = $3 FOR UPDATE";
const LOCK_MANDATE: &str = "SELECT 1 FROM hub_mandates
     WHERE id = $1 AND owner = $2 AND version = $3 FOR UPDATE";
const LOCK_JOURNEY: &str = "SELECT 1 FROM hub_journeys
     WHERE application_id = $1 AND owner = $2 AND version = $3 FOR UPDATE";
/// Undoes a journey's insert when its job fails another check.
const UNSTART_JOURNEY: &str =
    "DELETE FROM hub_journeys WHERE application_id = $1 AND owner = $2 AND version = $3";

/// A lending write's precondition.
pub(crate) enum Check<'a> {
    /// The application is still at the version the update follows.
    Version(&'a Application),
    /// The application had no journey: inserting it is the check.
    NewJourney(&'a Journey),
    /// The journey is still at the version the update follows.
    JourneyVersion(&'a Journey),
    /// The payment is still at the version the update follows.
    PaymentVersion(&'a Payment),
    /// The account is still in the status its review started from.
    AccountStatus(
        &'a Account,
        lendhub_domain::servicing::account::AccountStatus,
    ),
    /// The schedule is still at the version the update follows.
    ScheduleVersion(&'a Schedule),
    /// The mandate is still at the version the update follows.
    MandateVersion(&'a Mandate),
}

impl Check<'_> {
    /// Ranks 30–39 of the lock order (`super`).
    pub fn rank(&self) -> Rank<'_> {
        match self {
            Check::Version(a) => (30, a.id.as_str(), ""),
            Check::NewJourney(j) | Check::JourneyVersion(j) => (31, j.application_id.as_str(), ""),
            Check::PaymentVersion(p) => (40, p.id.as_str(), ""),
            Check::AccountStatus(a, _) => (41, a.id.as_str(), ""),
            Check::ScheduleVersion(s) => (42, s.id.as_str(), ""),
            Check::MandateVersion(m) => (43, m.id.as_str(), ""),
        }
    }
}

pub(crate) fn needs(write: &LendingWrite) -> Option<Needs<'_, Check<'_>>> {
    match write {
        LendingWrite::UpdateApplication(a) => Some(Needs {
            check: Check::Version(a),
            row: Some(("hub_application", a.id.as_str())),
        }),
        LendingWrite::StartJourney(j) => Some(Needs {
            check: Check::NewJourney(j),
            row: Some(("hub_journey", j.application_id.as_str())),
        }),
        LendingWrite::UpdateJourney(j) => Some(Needs {
            check: Check::JourneyVersion(j),
            row: Some(("hub_journey", j.application_id.as_str())),
        }),
        LendingWrite::UpdateAccount { account, from } => Some(Needs {
            check: Check::AccountStatus(account, *from),
            row: Some(("hub_account", account.id.as_str())),
        }),
        LendingWrite::UpdatePayment(p) => Some(Needs {
            check: Check::PaymentVersion(p),
            row: Some(("hub_payment", p.id.as_str())),
        }),
        LendingWrite::UpdateSchedule(s) => Some(Needs {
            check: Check::ScheduleVersion(s),
            row: Some(("hub_schedule", s.id.as_str())),
        }),
        LendingWrite::UpdateMandate(m) => Some(Needs {
            check: Check::MandateVersion(m),
            row: Some(("hub_mandate", m.id.as_str())),
        }),
        LendingWrite::InsertApplication(_)
        | LendingWrite::InsertPayment(_)
        | LendingWrite::InsertSchedule(_)
        | LendingWrite::InsertMandate(_)
        | LendingWrite::InsertVerification(_)
        | LendingWrite::InsertDecision(_)
        | LendingWrite::UpdateDecision(_)
        | LendingWrite::RecordAct(_)
        | LendingWrite::OpenAccount(_)
        | LendingWrite::MailApplicant(_)
        | LendingWrite::PostEntry(_) => None,
    }
}

/// When the application sweep next needs it: the sweep's key.
fn due_at_ms(a: &Application) -> Option<i64> {
    a.due_at().map(unix_ms)
}

pub(crate) struct Statements {
    lock_application: Statement,
    insert_application: Statement,
    update_application: Statement,
    insert_verification: Statement,
    insert_decision: Statement,
    update_decision: Statement,
    insert_act: Statement,
    insert_account: Statement,
    post_entry: Statement,
    insert_payment: Statement,
    update_payment: Statement,
    lock_payment: Statement,
    lock_account: Statement,
    update_account: Statement,
    insert_schedule: Statement,
    update_schedule: Statement,
    lock_schedule: Statement,
    insert_mandate: Statement,
    update_mandate: Statement,
    lock_mandate: Statement,
    start_journey: Statement,
    lock_journey: Statement,
    unstart_journey: Statement,
    update_journey: Statement,
    mail: Statement,
}

impl Statements {
    pub async fn prepare(tx: &Transaction<'_>) -> Result<Self, StoreError> {
        let p = |sql| async move { tx.prepare_cached(sql).await.map_err(super::db) };
        Ok(Self {
            lock_application: p(LOCK_APPLICATION).await?,
            insert_application: p(crate::sql::lending::INSERT_APPLICATION).await?,
            update_application: p(crate::sql::lending::UPDATE_APPLICATION).await?,
            insert_verification: p(crate::sql::lending::INSERT_VERIFICATION).await?,
            insert_decision: p(crate::sql::lending::INSERT_DECISION).await?,
            update_decision: p(crate::sql::lending::UPDATE_DECISION).await?,
            insert_act: p(crate::sql::lending::INSERT_ACT).await?,
            insert_account: p(crate::sql::lending::INSERT_ACCOUNT).await?,
            post_entry: p(crate::sql::lending::POST_ENTRY).await?,
            insert_payment: p(crate::sql::lending::INSERT_PAYMENT).await?,
            update_payment: p(crate::sql::lending::UPDATE_PAYMENT).await?,
            lock_payment: p(LOCK_PAYMENT).await?,
            lock_account: p(LOCK_ACCOUNT).await?,
            update_account: p(UPDATE_ACCOUNT_LOCKED).await?,
            insert_schedule: p(crate::sql::lending::INSERT_SCHEDULE).await?,
            update_schedule: p(crate::sql::lending::UPDATE_SCHEDULE).await?,
            lock_schedule: p(LOCK_SCHEDULE).await?,
            insert_mandate: p(crate::sql::lending::INSERT_MANDATE).await?,
            update_mandate: p(crate::sql::lending::UPDATE_MANDATE).await?,
            lock_mandate: p(LOCK_MANDATE).await?,
            start_journey: p(crate::sql::lending::START_JOURNEY).await?,
            lock_journey: p(LOCK_JOURNEY).await?,
            unstart_journey: p(UNSTART_JOURNEY).await?,
            update_journey: p(crate::sql::lending::UPDATE_JOURNEY).await?,
            mail: p(crate::sql::identity::MAIL_PERSON).await?,
        })
    }

    pub fn check<'a>(&self, check: &Check<'a>) -> Bound<'a> {
        match check {
            Check::Version(a) => (
                self.lock_application.clone(),
                vec![
                    Box::new(a.id.as_str()) as Param<'a>,
                    Box::new(a.owner.as_str()),
                    Box::new(a.version - 1),
                ],
            ),
            Check::NewJourney(j) => (
                self.start_journey.clone(),
                vec![
                    Box::new(j.application_id.as_str()) as Param<'a>,
                    Box::new(j.owner.as_str()),
                    Box::new(j.version),
                    Box::new(super::JsonText(*j)),
                ],
            ),
            Check::JourneyVersion(j) => (
                self.lock_journey.clone(),
                vec![
                    Box::new(j.application_id.as_str()) as Param<'a>,
                    Box::new(j.owner.as_str()),
                    Box::new(j.version - 1),
                ],
            ),
            Check::AccountStatus(a, from) => (
                self.lock_account.clone(),
                vec![
                    Box::new(a.id.as_str()) as Param<'a>,
                    Box::new(a.owner.as_str()),
                    Box::new(from.as_str()),
                ],
            ),
            Check::PaymentVersion(p) => (
                self.lock_payment.clone(),
                vec![
                    Box::new(p.id.as_str()) as Param<'a>,
                    Box::new(p.owner.as_str()),
                    Box::new(p.version - 1),
                ],
            ),
            Check::ScheduleVersion(s) => (
                self.lock_schedule.clone(),
                vec![
                    Box::new(s.id.as_str()) as Param<'a>,
                    Box::new(s.owner.as_str()),
                    Box::new(s.version - 1),
                ],
            ),
            Check::MandateVersion(m) => (
                self.lock_mandate.clone(),
                vec![
                    Box::new(m.id.as_str()) as Param<'a>,
                    Box::new(m.owner.as_str()),
                    Box::new(m.version - 1),
                ],
            ),
        }
    }

    pub fn release<'a>(&self, check: &Check<'a>) -> Option<Bound<'a>> {
        match check {
            Check::NewJourney(j) => Some((
                self.unstart_journey.clone(),
                vec![
                    Box::new(j.application_id.as_str()) as Param<'a>,
                    Box::new(j.owner.as_str()),
                    Box::new(j.version),
                ],
            )),
            Check::Version(_)
            | Check::JourneyVersion(_)
            | Check::PaymentVersion(_)
            | Check::ScheduleVersion(_)
            | Check::MandateVersion(_)
            | Check::AccountStatus(..) => None,
        }
    }

    pub fn write<'a>(
        &self,
        write: &'a LendingWrite,
        out: &mut Vec<Bound<'a>>,
    ) -> Result<(), StoreError> {
        match write {
            LendingWrite::InsertApplication(a) => out.push((
                self.insert_application.clone(),
                vec![
                    Box::new(a.id.as_str()) as Param<'a>,
                    Box::new(a.owner.as_str()),
                    Box::new(a.status.as_str()),
                    Box::new(a.reference.as_deref()),
                    Box::new(a.version),
                    Box::new(unix_ms(a.created_at)),
                    Box::new(due_at_ms(a)),
                    Box::new(json(a)?),
                    Box::new(a.company_number.as_str()),
                ],
            )),
            LendingWrite::UpdateApplication(a) => out.push((
                self.update_application.clone(),
                vec![
                    Box::new(a.id.as_str()) as Param<'a>,
                    Box::new(a.owner.as_str()),
                    Box::new(a.status.as_str()),
                    Box::new(a.reference.as_deref()),
                    Box::new(a.version),
                    Box::new(due_at_ms(a)),
                    Box::new(json(a)?),
                ],
            )),
            LendingWrite::InsertDecision(d) => out.push((
                self.insert_decision.clone(),
                vec![
                    Box::new(d.id.as_str()) as Param<'a>,
                    Box::new(d.owner.as_str()),
                    Box::new(d.application_id.as_str()),
                    Box::new(d.verdict.outcome.as_str()),
                    Box::new(unix_ms(d.decided_at)),
                    Box::new(json(d)?),
                ],
            )),
            LendingWrite::UpdateDecision(d) => out.push((
                self.update_decision.clone(),
                vec![
                    Box::new(d.id.as_str()) as Param<'a>,
                    Box::new(d.owner.as_str()),
                    Box::new(d.verdict.outcome.as_str()),
                    Box::new(unix_ms(d.decided_at)),
                    Box::new(json(d)?),
                ],
            )),
            LendingWrite::RecordAct(a) => out.push((
                self.insert_act.clone(),
                vec![
                    Box::new(a.decision_id.as_str()) as Param<'a>,
                    Box::new(a.owner.as_str()),
                    Box::new(a.act.as_str()),
                    Box::new(a.actor.as_str()),
                    Box::new(a.note.as_str()),
                    Box::new(unix_ms(a.at)),
                ],
            )),
            LendingWrite::OpenAccount(a) => out.push((
                self.insert_account.clone(),
                vec![
                    Box::new(a.id.as_str()) as Param<'a>,
                    Box::new(a.owner.as_str()),
                    Box::new(a.application_id.as_str()),
                    Box::new(a.status.as_str()),
                    Box::new(unix_ms(a.opened_at)),
                    Box::new(json(a)?),
                    Box::new(a.next_review.map(unix_ms)),
                    Box::new(a.borrower()),
                    Box::new(a.sub_account_id.as_ref().map(|s| s.as_str())),
                ],
            )),
            LendingWrite::UpdateAccount { account: a, .. } => out.push((
                self.update_account.clone(),
                vec![
                    Box::new(a.id.as_str()) as Param<'a>,
                    Box::new(a.owner.as_str()),
                    Box::new(a.status.as_str()),
                    Box::new(json(a)?),
                    Box::new(a.next_review.map(unix_ms)),
                ],
            )),
            LendingWrite::InsertVerification(v) => out.push((
                self.insert_verification.clone(),
                vec![
                    Box::new(v.id.as_str()) as Param<'a>,
                    Box::new(v.owner.as_str()),
                    Box::new(v.application_id.as_ref().map(|id| id.as_str())),
                    Box::new(unix_ms(v.created_at)),
                    Box::new(json(v)?),
                ],
            )),
            LendingWrite::InsertPayment(p) => out.push((
                self.insert_payment.clone(),
                vec![
                    Box::new(p.id.as_str()) as Param<'a>,
                    Box::new(p.owner.as_str()),
                    Box::new(p.account_id.as_str()),
                    Box::new(p.status.as_str()),
                    Box::new(p.version),
                    Box::new(p.due_at().map(unix_ms)),
                    Box::new(json(p)?),
                    Box::new(p.schedule.as_ref().map(|i| i.schedule_id.as_str())),
                    Box::new(p.schedule.as_ref().map(|i| i64::from(i.number))),
                ],
            )),
            LendingWrite::UpdatePayment(p) => out.push((
                self.update_payment.clone(),
                vec![
                    Box::new(p.id.as_str()) as Param<'a>,
                    Box::new(p.owner.as_str()),
                    Box::new(p.status.as_str()),
                    Box::new(p.version),
                    Box::new(p.due_at().map(unix_ms)),
                    Box::new(json(p)?),
                ],
            )),
            LendingWrite::InsertSchedule(s) => out.push((
                self.insert_schedule.clone(),
                vec![
                    Box::new(s.id.as_str()) as Param<'a>,
                    Box::new(s.owner.as_str()),
                    Box::new(s.account_id.as_str()),
                    Box::new(s.status.as_str()),
                    Box::new(s.version),
                    Box::new(s.due_at().map(unix_ms)),
                    Box::new(json(s)?),
                ],
            )),
            // Its check locked the row at the version it follows.
            LendingWrite::UpdateSchedule(s) => out.push((
                self.update_schedule.clone(),
                vec![
                    Box::new(s.id.as_str()) as Param<'a>,
                    Box::new(s.owner.as_str()),
                    Box::new(s.status.as_str()),
                    Box::new(s.version),
                    Box::new(s.due_at().map(unix_ms)),
                    Box::new(json(s)?),
                ],
            )),
            LendingWrite::InsertMandate(m) => out.push((
                self.insert_mandate.clone(),
                vec![
                    Box::new(m.id.as_str()) as Param<'a>,
                    Box::new(m.owner.as_str()),
                    Box::new(m.account_id.as_str()),
                    Box::new(m.status.as_str()),
                    Box::new(m.version),
                    Box::new(json(m)?),
                ],
            )),
            LendingWrite::UpdateMandate(m) => out.push((
                self.update_mandate.clone(),
                vec![
                    Box::new(m.id.as_str()) as Param<'a>,
                    Box::new(m.owner.as_str()),
                    Box::new(m.status.as_str()),
                    Box::new(m.version),
                    Box::new(json(m)?),
                ],
            )),
            LendingWrite::PostEntry(e) => out.push((
                self.post_entry.clone(),
                vec![
                    Box::new(e.id.as_str()) as Param<'a>,
                    Box::new(e.owner.as_str()),
                    Box::new(e.account_id.as_str()),
                    Box::new(e.kind.as_str()),
                    Box::new(e.amount.as_pence()),
                    Box::new(e.payment_id.as_deref()),
                    Box::new(unix_ms(e.posted_at)),
                    Box::new(json(e)?),
                ],
            )),
            // Inserted by its check.
            LendingWrite::MailApplicant(mail) => out.push((
                self.mail.clone(),
                vec![
                    Box::new(mail.id.as_str()) as Param<'a>,
                    Box::new(mail.recipient.as_str()),
                    Box::new(mail.subject.as_str()),
                    Box::new(mail.body.as_str()),
                    Box::new(mail.due_ms),
                ],
            )),
            LendingWrite::StartJourney(_) => {}
            LendingWrite::UpdateJourney(j) => out.push((
                self.update_journey.clone(),
                vec![
                    Box::new(j.application_id.as_str()) as Param<'a>,
                    Box::new(j.owner.as_str()),
                    Box::new(j.version),
                    Box::new(json(j)?),
                ],
            )),
        }
        Ok(())
    }
}
