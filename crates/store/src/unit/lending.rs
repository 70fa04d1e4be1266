//! The REST tier's lending and servicing writes: applications, decisions,
//! decisions and journeys (ranks 30–32), and accounts, payments, schedules, mandates and
//! the ledger (ranks 40–43).

use lendhub_domain::clock::unix_ms;
use lendhub_domain::ids::HubId;
use lendhub_domain::lending::application::Application;

use super::{Check, Unit, json, read_check};
use crate::error::StoreError;
use crate::exec::{Dialect, Lock, Statement};
use crate::sql::lending as sql;
use crate::*;

/// The application, still at the version the update follows.
const APPLICATION_AT: Lock =
    lock!("SELECT 1 FROM hub_applications WHERE id = $1 AND owner = $2 AND version = $3");
/// The account, still in the status its review started from.
const ACCOUNT_IN: Lock =
    lock!("SELECT 1 FROM hub_accounts WHERE id = $1 AND owner = $2 AND status = $3");
const PAYMENT_AT: Lock =
    lock!("SELECT 1 FROM hub_payments WHERE id = $1 AND owner = $2 AND version = $3");
const SCHEDULE_AT: Lock =
    lock!("SELECT 1 FROM hub_schedules WHERE id = $1 AND owner = $2 AND version = $3");
const MANDATE_AT: Lock =
    lock!("SELECT 1 FROM hub_mandates WHERE id = $1 AND owner = $2 AND version = $3");
const BANK_CONNECTION_AT: Lock =
    lock!("SELECT 1 FROM hub_bank_connections WHERE id = $1 AND owner = $2 AND version = $3");
const JOURNEY_AT: Lock =
    lock!("SELECT 1 FROM hub_journeys WHERE application_id = $1 AND owner = $2 AND version = $3");
/// The decision exists (its updates replace it whole, so no version).
const DECISION_EXISTS: Lock = lock!("SELECT 1 FROM hub_decisions WHERE id = $1 AND owner = $2");
/// Undoes a journey's start when its set fails another check.
const UNSTART_JOURNEY: &str =
    "DELETE FROM hub_journeys WHERE application_id = $1 AND owner = $2 AND version = $3";
/// The account's row once its check holds.
const UPDATE_ACCOUNT: &str = "UPDATE hub_accounts SET status = $3, body = $4, due_at_ms = $5
     WHERE id = $1 AND owner = $2";

/// When the application sweep next needs it: the sweep's key.
fn due_at_ms(a: &Application) -> Option<i64> {
    a.due_at().map(unix_ms)
}

/// A version check: the row `id` of `owner` still at `version`.
fn at_version(
    rank: u8,
    kind: &'static str,
    lock: &Lock,
    d: &Dialect,
    id: &str,
    owner: &str,
    version: i64,
) -> Check {
    read_check(
        rank,
        id,
        Some(kind),
        Statement::read(d.lock(lock), values![id, owner, version]),
    )
}

/// What the dashboard's search looks in: the id, reference, company number
/// and company name, case-folded (`sql::APPLICATIONS`' `search_text`).
fn search_text(a: &Application) -> String {
    [
        a.id.as_str(),
        a.reference.as_deref().unwrap_or_default(),
        a.company_number.as_str(),
        a.company_name.as_str(),
    ]
    .join(" ")
    .to_lowercase()
}

pub(super) fn plan(write: &LendingWrite, d: &Dialect, unit: &mut Unit) -> Result<(), StoreError> {
    match write {
        LendingWrite::InsertApplication(a) => {
            let search = search_text(a);
            let (sql, values) = d.keyed_insert(
                crate::sqlite::row_keys::lending::INSERT_APPLICATION,
                sql::INSERT_APPLICATION,
                values![
                    a.id.as_str(),
                    a.owner.as_str(),
                    a.status.as_str(),
                    a.reference.as_deref(),
                    a.version,
                    unix_ms(a.created_at),
                    due_at_ms(a),
                    json(a)?,
                    a.company_number.as_str(),
                    search.as_str()
                ],
            );
            unit.step(sql, values);
        }
        LendingWrite::UpdateApplication(a) => {
            let search = search_text(a);
            unit.check(at_version(
                30,
                "hub_application",
                &APPLICATION_AT,
                d,
                a.id.as_str(),
                a.owner.as_str(),
                a.version - 1,
            ));
            unit.step(
                sql::UPDATE_APPLICATION,
                values![
                    a.id.as_str(),
                    a.owner.as_str(),
                    a.status.as_str(),
                    a.reference.as_deref(),
                    a.version,
                    due_at_ms(a),
                    json(a)?,
                    search.as_str()
                ],
            );
        }
        LendingWrite::InsertDecision(dn) => unit.step(
            sql::INSERT_DECISION,
            values![
                dn.id.as_str(),
                dn.owner.as_str(),
                dn.application_id.as_str(),
                dn.verdict.outcome.as_str(),
                unix_ms(dn.decided_at),
                json(dn)?
            ],
        ),
        LendingWrite::UpdateDecision(dn) => {
            unit.check(read_check(
                32,
                dn.id.as_str(),
                None,
                Statement::read(
                    d.lock(&DECISION_EXISTS),
                    values![dn.id.as_str(), dn.owner.as_str()],
                ),
            ));
            unit.step(
                sql::UPDATE_DECISION,
                values![
                    dn.id.as_str(),
                    dn.owner.as_str(),
                    dn.verdict.outcome.as_str(),
                    unix_ms(dn.decided_at),
                    json(dn)?
                ],
            );
        }
        LendingWrite::RecordAct(a) => unit.step(
            sql::INSERT_ACT,
            values![
                a.decision_id.as_str(),
                a.owner.as_str(),
                a.act.as_str(),
                a.actor.as_str(),
                a.note.as_str(),
                unix_ms(a.at)
            ],
        ),
        LendingWrite::OpenAccount(a) => unit.step(
            sql::INSERT_ACCOUNT,
            values![
                a.id.as_str(),
                a.owner.as_str(),
                a.application_id.as_str(),
                a.status.as_str(),
                unix_ms(a.opened_at),
                json(a)?,
                a.next_review.map(unix_ms),
                a.borrower(),
                a.sub_account_id.as_ref().map(|s| s.as_str())
            ],
        ),
        LendingWrite::UpdateAccount { account: a, from } => {
            unit.check(read_check(
                41,
                a.id.as_str(),
                Some("hub_account"),
                Statement::read(
                    d.lock(&ACCOUNT_IN),
                    values![a.id.as_str(), a.owner.as_str(), from.as_str()],
                ),
            ));
            unit.step(
                UPDATE_ACCOUNT,
                values![
                    a.id.as_str(),
                    a.owner.as_str(),
                    a.status.as_str(),
                    json(a)?,
                    a.next_review.map(unix_ms)
                ],
            );
        }
        LendingWrite::InsertVerification(v) => unit.step(
            sql::INSERT_VERIFICATION,
            values![
                v.id.as_str(),
                v.owner.as_str(),
                v.application_id.as_ref().map(|id| id.as_str()),
                unix_ms(v.created_at),
                json(v)?
            ],
        ),
        LendingWrite::InsertPayment(p) => unit.step(
            sql::INSERT_PAYMENT,
            values![
                p.id.as_str(),
                p.owner.as_str(),
                p.account_id.as_str(),
                p.status.as_str(),
                p.version,
                p.due_at().map(unix_ms),
                json(p)?,
                p.schedule.as_ref().map(|i| i.schedule_id.as_str()),
                p.schedule.as_ref().map(|i| i64::from(i.number))
            ],
        ),
        LendingWrite::UpdatePayment(p) => {
            unit.check(at_version(
                40,
                "hub_payment",
                &PAYMENT_AT,
                d,
                p.id.as_str(),
                p.owner.as_str(),
                p.version - 1,
            ));
            unit.step(
                sql::UPDATE_PAYMENT,
                values![
                    p.id.as_str(),
                    p.owner.as_str(),
                    p.status.as_str(),
                    p.version,
                    p.due_at().map(unix_ms),
                    json(p)?
                ],
            );
        }
        LendingWrite::InsertSchedule(s) => unit.step(
            sql::INSERT_SCHEDULE,
            values![
                s.id.as_str(),
                s.owner.as_str(),
                s.account_id.as_str(),
                s.status.as_str(),
                s.version,
                s.due_at().map(unix_ms),
                json(s)?
            ],
        ),
        LendingWrite::UpdateSchedule(s) => {
            unit.check(at_version(
                42,
                "hub_schedule",
                &SCHEDULE_AT,
                d,
                s.id.as_str(),
                s.owner.as_str(),
                s.version - 1,
            ));
            unit.step(
                sql::UPDATE_SCHEDULE,
                values![
                    s.id.as_str(),
                    s.owner.as_str(),
                    s.status.as_str(),
                    s.version,
                    s.due_at().map(unix_ms),
                    json(s)?
                ],
            );
        }
        LendingWrite::InsertMandate(m) => unit.step(
            sql::INSERT_MANDATE,
            values![
                m.id.as_str(),
                m.owner.as_str(),
                m.account_id.as_str(),
                m.status.as_str(),
                m.version,
                json(m)?
            ],
        ),
        LendingWrite::UpdateMandate(m) => {
            unit.check(at_version(
                43,
                "hub_mandate",
                &MANDATE_AT,
                d,
                m.id.as_str(),
                m.owner.as_str(),
                m.version - 1,
            ));
            unit.step(
                sql::UPDATE_MANDATE,
                values![
                    m.id.as_str(),
                    m.owner.as_str(),
                    m.status.as_str(),
                    m.version,
                    json(m)?
                ],
            );
        }
        LendingWrite::MailApplicant(mail) => {
            unit.steps.push(crate::queries::identity::queue_mail(mail))
        }
        // Starting the journey is its own condition: no journey yet.
        LendingWrite::StartJourney(j) => unit.check(Check {
            rank: (31, j.application_id.to_string(), String::new()),
            row: Some(("hub_journey", j.application_id.to_string())),
            test: Statement::change(
                sql::START_JOURNEY,
                values![
                    j.application_id.as_str(),
                    j.owner.as_str(),
                    j.version,
                    json(j)?
                ],
            ),
            release: Some(Statement::change(
                UNSTART_JOURNEY,
                values![j.application_id.as_str(), j.owner.as_str(), j.version],
            )),
        }),
        LendingWrite::UpdateJourney(j) => {
            unit.check(at_version(
                31,
                "hub_journey",
                &JOURNEY_AT,
                d,
                j.application_id.as_str(),
                j.owner.as_str(),
                j.version - 1,
            ));
            unit.step(
                sql::UPDATE_JOURNEY,
                values![
                    j.application_id.as_str(),
                    j.owner.as_str(),
                    j.version,
                    json(j)?
                ],
            );
        }
        LendingWrite::SetModelRole { role, model, at } => match model {
            Some(m) => unit.step(
                sql::SET_MODEL_ROLE,
                values![role.as_str(), unix_ms(*at), json(m)?],
            ),
            None => unit.step(sql::CLEAR_MODEL_ROLE, values![role.as_str()]),
        },
        LendingWrite::RecordAgreement {
            owner,
            agreement: a,
        } => unit.step(
            sql::INSERT_AGREEMENT,
            values![
                a.application_id.as_str(),
                unix_ms(a.signed_at),
                owner.as_str(),
                a.decision_id.as_str(),
                a.template.as_str(),
                a.content_sha256.as_str(),
                json(a)?
            ],
        ),
        LendingWrite::InsertShadowScore(s) => unit.step(
            sql::INSERT_SHADOW_SCORE,
            values![
                s.decision_id.as_str(),
                format!("{}@{}", s.challenger.id, s.challenger.version),
                s.owner.as_str(),
                unix_ms(s.scored_at),
                json(s)?
            ],
        ),
        LendingWrite::RequestMonitoring { week, at_ms } => {
            unit.step(sql::REQUEST_MONITORING, values![week.to_string(), *at_ms])
        }
        LendingWrite::ScheduleMonitoring { week, due_ms } => {
            unit.step(sql::SCHEDULE_MONITORING, values![week.to_string(), *due_ms])
        }
        LendingWrite::Monitored {
            report,
            requested_at_ms,
            at_ms,
        } => unit.step(
            sql::MONITORING_DONE,
            values![
                report.week.to_string(),
                *at_ms,
                *requested_at_ms,
                json(report)?
            ],
        ),
        LendingWrite::RaiseDriftAlert {
            week,
            environment,
            model,
            at_ms,
        } => {
            let key = [
                week.to_string(),
                environment.as_str().to_owned(),
                format!("{}@{}", model.id, model.version),
            ];
            unit.check(Check {
                rank: (33, key.join("/"), String::new()),
                row: None,
                test: Statement::change(
                    sql::TAKE_DRIFT_ALERT,
                    values![key[0].as_str(), key[1].as_str(), key[2].as_str(), *at_ms],
                ),
                release: Some(Statement::change(
                    sql::FREE_DRIFT_ALERT,
                    values![key[0].as_str(), key[1].as_str(), key[2].as_str()],
                )),
            });
        }
        LendingWrite::RecordRailPayment(p) => unit.step(
            sql::INSERT_RAIL_PAYMENT,
            values![
                p.end_to_end_id.as_str(),
                p.owner.as_str(),
                p.kind.as_str(),
                p.subject_id.as_str(),
                unix_ms(p.created_at),
                json(p)?
            ],
        ),
        LendingWrite::InsertBankConnection(c) => unit.step(
            sql::INSERT_BANK_CONNECTION,
            values![
                c.id.as_str(),
                c.owner.as_str(),
                c.application_id.as_str(),
                c.version,
                json(c)?
            ],
        ),
        LendingWrite::UpdateBankConnection(c) => {
            unit.check(at_version(
                33,
                "hub_bank_connection",
                &BANK_CONNECTION_AT,
                d,
                c.id.as_str(),
                c.owner.as_str(),
                c.version - 1,
            ));
            unit.step(
                sql::UPDATE_BANK_CONNECTION,
                values![c.id.as_str(), c.owner.as_str(), c.version, json(c)?],
            );
        }
    }
    Ok(())
}
