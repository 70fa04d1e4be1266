//! The credit model's weekly monitoring (issue #48 item 5; the model card's
//! "Monitoring"): the week's decisions, every partner's, read in pages and
//! measured against the training population the model was fitted on
//! (`credit_model::drift`). A model that drifted over enough decisions is
//! an alert, raised once per week, environment and model: the lender's
//! operators are e-mailed, and each partner whose decisions it scored that
//! week gets `model.drift_detected` with its own figures. The report is
//! kept for the operations console and `lendhub models monitor`.
//!
//! A run is a row like a day's reconciliation: scheduled for each week two
//! hours after it ends (Monday 02:00 UTC, on the service clock), or asked
//! for by `lendhub models monitor --week`, and taken by the sweep.

use std::sync::Arc;

use lendhub_domain::clock::unix_ms;
use lendhub_domain::credit_model::drift::{
    ALERT_PSI, EnvironmentReport, ModelDrift, Monitor, Report,
};
use lendhub_domain::ids::{DecisionId, HubId, ModelDriftId};
use lendhub_domain::partner::credentials::Environment;
use lendhub_domain::sandbox::events::EventType;
use lendhub_domain::tenant::Tenant;
use lendhub_store::{CommitError, EventWrite, LendingWrite, PublicWrite, WriteSet};
use time::{Date, Duration, OffsetDateTime};

use super::FlowError;
use crate::flows::Context;
use crate::flows::events::event;
use crate::views::model_drift::ModelDriftView;

/// What monitoring is told by configuration.
#[derive(Clone, Debug)]
pub struct Settings {
    /// Monitor each week unasked, once it has ended.
    pub weekly: bool,
    /// The fewest decisions a model must have scored in a week for its
    /// drift to alert.
    pub min_decisions: u64,
    /// Who is e-mailed an alert: the lender's operators.
    pub operators: Arc<[String]>,
}

/// A week is monitored this long after it ends, so its last decisions are
/// in.
pub const MONITOR_AFTER_WEEK: Duration = Duration::hours(2);

/// Decisions read at a time.
const PAGE: u32 = 500;

/// Monitors the week starting `week` (a Monday), raises its alerts and
/// keeps its report as the answer to the request made at
/// `requested_at_ms`.
pub async fn monitor(
    cx: &Context,
    settings: &Settings,
    week: Date,
    requested_at_ms: i64,
) -> Result<Report, FlowError> {
    let from = unix_ms(week.midnight().assume_utc());
    let to = unix_ms(week.midnight().assume_utc() + Duration::weeks(1));
    let mut monitor = Monitor::new(settings.min_decisions);
    let mut after: Option<(i64, DecisionId)> = None;
    loop {
        let page = cx
            .lending
            .decided_between(from, to, after.as_ref().map(|(ms, id)| (*ms, id)), PAGE)
            .await?;
        for (_, decision) in &page {
            monitor.add(decision);
        }
        if page.len() < PAGE as usize {
            break;
        }
        after = page.last().map(|(ms, d)| (*ms, d.id.clone()));
    }
    let now = cx.clock.now();
    let report = monitor.report(week, now);
    for env in &report.environments {
        for drift in env.models.iter().filter(|m| m.alert) {
            raise(cx, settings, week, env, drift, now).await?;
        }
        record_gauges(env);
    }
    let mut writes = WriteSet::default();
    writes.push(LendingWrite::Monitored {
        report: report.clone(),
        requested_at_ms,
        at_ms: unix_ms(now),
    });
    cx.commit(writes).await?;
    Ok(report)
}

/// The week's alert for `drift`, once: the partners' events and the
/// operators' e-mails in one commit with the alert's row, which a week
/// monitored again finds taken.
async fn raise(
    cx: &Context,
    settings: &Settings,
    week: Date,
    env: &EnvironmentReport,
    drift: &ModelDrift,
    now: OffsetDateTime,
) -> Result<(), FlowError> {
    let at_ms = unix_ms(now);
    let livemode = env.environment == Environment::Live;
    let mut writes = WriteSet::default();
    writes.push(LendingWrite::RaiseDriftAlert {
        week,
        environment: env.environment,
        model: drift.model.clone(),
        at_ms,
    });
    for rate in env
        .partners
        .iter()
        .filter(|p| drift.partners.contains(&p.client_id))
    {
        let id: ModelDriftId = lendhub_system::new_hub_id(at_ms as u64);
        let view = ModelDriftView::new(&id, week, drift, rate, livemode, now);
        let owner = Tenant::partner(&rate.client_id, livemode, None);
        let told = event(&owner, EventType::ModelDriftDetected, &view, now)?;
        writes.push(EventWrite::InsertEvent(told));
    }
    let alert: ModelDriftId = lendhub_system::new_hub_id(at_ms as u64);
    let (subject, body) = operators_mail(week, env, drift);
    for (n, operator) in settings.operators.iter().enumerate() {
        writes.push(PublicWrite::Mail {
            id: format!("mail_{}_{n}", alert.as_str()),
            recipient: operator.clone(),
            subject: subject.clone(),
            body: body.clone(),
            due_ms: at_ms,
        });
    }
    tracing::warn!(%week, environment = env.environment.as_str(),
        model = %format!("{}@{}", drift.model.id, drift.model.version),
        score_psi = ?drift.score_psi, "the credit model drifted");
    match cx.commit(writes).await {
        Ok(()) | Err(CommitError::Conflict) => Ok(()),
        Err(e) => Err(e.into()),
    }
}

/// The operators' e-mail: what drifted, the week's figures, what to do.
fn operators_mail(week: Date, env: &EnvironmentReport, drift: &ModelDrift) -> (String, String) {
    let model = format!("{}@{}", drift.model.id, drift.model.version);
    let environment = env.environment.as_str();
    let day = lendhub_domain::people::date(week);
    let subject = format!("[{environment}] Credit model {model} drifted in the week of {day}");
    let moved: String = drift
        .drifted()
        .iter()
        .map(|(variable, psi)| format!("  {variable:<28} PSI {psi:.4}\n"))
        .collect();
    let partners: String = env
        .partners
        .iter()
        .map(|p| {
            format!(
                "  {:<40} {:>6} decisions, {:>5.1} % approved\n",
                p.client_id,
                p.decisions,
                p.approval_rate() * 100.0
            )
        })
        .collect();
    let body = format!(
        "The population that credit model {model} scored in the {environment} environment in the \
         week of {day} moved away from the one it was trained on by more than a population \
         stability index of {ALERT_PSI}, over {decisions} decisions:\n\n{moved}\n\
         Approval rate by partner that week:\n{partners}\n\
         The model keeps deciding. Review the week on the operations console \
         (/dashboard/operations) or with `lendhub models monitor --week {week}`; the model \
         card (docs/guide/src/model-card.md) says what it was trained on. The partners whose decisions \
         it scored were sent model.drift_detected.\n",
        decisions = drift.decisions,
    );
    (subject, body)
}

/// Each model's score PSI, for `/metrics` (what monitoring alerts on).
fn record_gauges(env: &EnvironmentReport) {
    for m in &env.models {
        if let Some(psi) = m.score_psi {
            metrics::gauge!(
                SCORE_PSI,
                "environment" => env.environment.as_str(),
                "model" => format!("{}@{}", m.model.id, m.model.version)
            )
            .set(psi);
        }
    }
}

const SCORE_PSI: &str = "lendhub_model_score_psi";

/// Says what the gauge is, for `/metrics`' HELP line.
pub fn describe() {
    metrics::describe_gauge!(
        SCORE_PSI,
        "The population stability index of the credit model's score over the last week monitored, against its training population"
    );
}

/// The week before the one `today` is in, and when it falls due.
pub fn last_week(today: Date) -> (Date, OffsetDateTime) {
    let this_week = lendhub_domain::credit_model::drift::week_of(today);
    let week = this_week - Duration::weeks(1);
    (week, this_week.midnight().assume_utc() + MONITOR_AFTER_WEEK)
}
