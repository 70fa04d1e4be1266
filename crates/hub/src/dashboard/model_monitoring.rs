//! The operations console's model monitoring (issue #48 item 5): the
//! newest week's report in full (each model's stability, variable by
//! variable, and the approval rate by partner, per environment) and the
//! weeks before it in a line each.

use lendhub_domain::credit_model::drift::{
    ALERT_PSI, EnvironmentReport, ModelDrift, Report, WATCH_PSI,
};

use super::state::DashboardState;

/// How many weeks the console lists.
const WEEKS: u32 = 8;

/// A variable's stability, as shown.
pub(super) struct VariableRow {
    pub name: &'static str,
    pub psi: String,
    /// `stable`, `watch` or `drifted`.
    pub status: &'static str,
    pub outside: u64,
}

fn status(psi: Option<f64>) -> &'static str {
    match psi {
        None => "no data",
        Some(p) if p > ALERT_PSI => "drifted",
        Some(p) if p >= WATCH_PSI => "watch",
        Some(_) => "stable",
    }
}

fn psi_text(psi: Option<f64>) -> String {
    psi.map_or_else(|| "–".to_owned(), |p| format!("{p:.4}"))
}

pub(super) struct ModelBlock {
    pub environment: &'static str,
    pub model: String,
    pub decisions: u64,
    pub alert: bool,
    pub variables: Vec<VariableRow>,
}

impl ModelBlock {
    fn of(env: &EnvironmentReport, m: &ModelDrift) -> Self {
        let score = VariableRow {
            name: "score",
            psi: psi_text(m.score_psi),
            status: status(m.score_psi),
            outside: 0,
        };
        Self {
            environment: env.environment.as_str(),
            model: format!("{}@{}", m.model.id, m.model.version),
            decisions: m.decisions,
            alert: m.alert,
            variables: std::iter::once(score)
                .chain(m.features.iter().map(|f| VariableRow {
                    name: f.feature.as_str(),
                    psi: psi_text(f.psi),
                    status: status(f.psi),
                    outside: f.outside,
                }))
                .collect(),
        }
    }
}

pub(super) struct PartnerRow {
    pub environment: &'static str,
    pub client_id: String,
    pub decisions: u64,
    pub approved: u64,
    pub referred: u64,
    pub declined: u64,
    pub approval_rate: String,
}

/// An older week, in a line per environment and model.
pub(super) struct WeekRow {
    pub week: String,
    pub environment: &'static str,
    pub model: String,
    pub decisions: u64,
    pub score_psi: String,
    pub alert: bool,
}

pub(super) struct Monitoring {
    /// The newest week monitored, and when.
    pub latest: Option<(String, String)>,
    pub min_decisions: u64,
    pub models: Vec<ModelBlock>,
    pub partners: Vec<PartnerRow>,
    pub weeks: Vec<WeekRow>,
}

pub(super) async fn monitoring(
    state: &DashboardState,
) -> Result<Monitoring, lendhub_store::StoreError> {
    let reports = state.lending.monitoring_reports(WEEKS).await?;
    let mut shown = Monitoring {
        latest: None,
        min_decisions: 0,
        models: Vec::new(),
        partners: Vec::new(),
        weeks: reports.iter().flat_map(week_rows).collect(),
    };
    if let Some(r) = reports.first() {
        shown.latest = Some((
            lendhub_domain::people::date(r.week),
            lendhub_domain::people::moment(r.ran_at),
        ));
        shown.min_decisions = r.min_decisions;
        for env in &r.environments {
            shown
                .models
                .extend(env.models.iter().map(|m| ModelBlock::of(env, m)));
            shown
                .partners
                .extend(env.partners.iter().map(|p| PartnerRow {
                    environment: env.environment.as_str(),
                    client_id: p.client_id.clone(),
                    decisions: p.decisions,
                    approved: p.approved,
                    referred: p.referred,
                    declined: p.declined,
                    approval_rate: format!("{:.1} %", p.approval_rate() * 100.0),
                }));
        }
    }
    Ok(shown)
}

fn week_rows(r: &Report) -> Vec<WeekRow> {
    r.environments
        .iter()
        .flat_map(|env| {
            env.models.iter().map(move |m| WeekRow {
                week: lendhub_domain::people::date(r.week),
                environment: env.environment.as_str(),
                model: format!("{}@{}", m.model.id, m.model.version),
                decisions: m.decisions,
                score_psi: psi_text(m.score_psi),
                alert: m.alert,
            })
        })
        .collect()
}
