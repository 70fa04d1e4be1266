//! `lendhub models list | show | promote | shadow | compare | monitor`: the
//! credit models built into lendhub (issue #48), which one decides (the
//! champion) and which scores beside it in shadow (the challenger), how the
//! two compare over the decisions both scored, and a week's monitoring.
//! Roles change in one commit and apply from the next decision; a decision
//! keeps the model that made it.

use anyhow::{Context, bail};
use clap::Subcommand;
use lendhub_domain::clock::Clock;
use lendhub_domain::credit_model::registry::{self, Role, Roles};
use lendhub_domain::credit_model::{self, ModelRef, Scorecard};
use lendhub_store::{LendingWrite, Store, WriteSet};
use lendhub_system::SystemClock;
use serde_json::{Value, json};

use crate::config::Config;

#[derive(Subcommand, Debug)]
pub enum ModelsCommand {
    /// Every bundled model, with its role: one JSON line each.
    List,
    /// A model's cut-offs, price bands, features and training: one JSON
    /// object.
    Show {
        /// `id@version`, e.g. `pd-scorecard@2`.
        model: String,
    },
    /// Make a model the champion: it decides from the next decision. A
    /// challenger promoted stops scoring in shadow.
    Promote {
        /// `id@version`.
        model: String,
    },
    /// Score every decision with a challenger too, in shadow (stored,
    /// never shown to partners); `--stop` ends it.
    Shadow {
        /// `id@version`.
        #[arg(required_unless_present = "stop", conflicts_with = "stop")]
        model: Option<String>,
        #[arg(long)]
        stop: bool,
    },
    /// The champion against the challenger over the newest decisions both
    /// scored: approval rates and score distributions. One JSON object.
    Compare {
        /// How many of the newest shadow scores to compare over.
        #[arg(long, default_value_t = 10_000)]
        last: u32,
    },
    /// Monitor a week now (again, if it ran): the population stability of
    /// the score and each feature against training, the approval rate by
    /// partner, and any drift alert. A running `lendhub serve` does the
    /// run; this waits for its report and prints it as one JSON object.
    Monitor {
        /// A day of the week (Monday to Sunday, UTC), YYYY-MM-DD; by
        /// default last week.
        #[arg(long)]
        week: Option<String>,
        /// How long to wait for the server's report.
        #[arg(long, default_value_t = 60)]
        wait_secs: u64,
    },
}

pub async fn models(command: ModelsCommand, config: &Config) -> anyhow::Result<()> {
    let store = super::database::open_existing_store(config).await?;
    let result = run(command, store.as_ref()).await;
    store.close().await;
    result
}

/// `id@version` among the bundled models.
fn bundled(named: &str) -> anyhow::Result<&'static Scorecard> {
    let (id, version) = named
        .split_once('@')
        .context("name a model as id@version, e.g. pd-scorecard@2")?;
    credit_model::find(id, version).with_context(|| {
        format!("no bundled model {named}: `lendhub models list` shows those built in")
    })
}

fn named(m: &ModelRef) -> String {
    format!("{}@{}", m.id, m.version)
}

async fn set(store: &dyn Store, role: Role, model: Option<ModelRef>) -> anyhow::Result<()> {
    let mut writes = WriteSet::default();
    writes.push(LendingWrite::SetModelRole {
        role,
        model,
        at: SystemClock.now(),
    });
    store.commit(writes).await?;
    Ok(())
}

fn roles_line(roles: &Roles) -> anyhow::Result<Value> {
    let in_force = roles.in_force().context("no credit model is bundled")?;
    Ok(json!({
        "champion": named(&ModelRef::of(in_force.champion)),
        "challenger": in_force.challenger.map(|c| named(&ModelRef::of(c))),
    }))
}

async fn run(command: ModelsCommand, store: &dyn Store) -> anyhow::Result<()> {
    let roles = store.model_roles().await?;
    match command {
        ModelsCommand::List => {
            let in_force = roles.in_force().context("no credit model is bundled")?;
            for m in credit_model::bundled() {
                let role = if std::ptr::eq(m, in_force.champion) {
                    Some(Role::Champion.as_str())
                } else if in_force.challenger.is_some_and(|c| std::ptr::eq(m, c)) {
                    Some(Role::Challenger.as_str())
                } else {
                    None
                };
                let line = json!({"model": named(&ModelRef::of(m)), "id": m.id,
                    "version": m.version, "role": role, "features": m.features.len(),
                    "cutoffs": m.cutoffs, "training": m.training});
                println!("{line}");
            }
        }
        ModelsCommand::Show { model } => {
            let m = bundled(&model)?;
            let features: Vec<Value> = m
                .features
                .iter()
                .map(|f| {
                    json!({"name": f.name.as_str(), "words": f.words, "bins": f.bins.len(),
                                "may_be_missing": f.missing_points.is_some()})
                })
                .collect();
            let line = json!({"model": named(&ModelRef::of(m)), "kind": m.kind,
                "intercept": m.intercept, "cutoffs": m.cutoffs, "price_bands": m.price_bands,
                "features": features, "training": m.training});
            println!("{line}");
        }
        ModelsCommand::Promote { model } => {
            let m = ModelRef::of(bundled(&model)?);
            set(store, Role::Champion, Some(m.clone())).await?;
            if roles.challenger.as_ref() == Some(&m) {
                set(store, Role::Challenger, None).await?;
            }
            println!("{}", roles_line(&store.model_roles().await?)?);
        }
        ModelsCommand::Shadow { model, stop } => {
            let model = match (model, stop) {
                (_, true) => None,
                (Some(named), false) => {
                    let m = ModelRef::of(bundled(&named)?);
                    let champion = roles.in_force().map(|f| ModelRef::of(f.champion));
                    if champion.as_ref() == Some(&m) {
                        bail!("{named} is the champion: it decides, so it cannot shadow itself");
                    }
                    Some(m)
                }
                (None, false) => bail!("name a challenger, or --stop"),
            };
            set(store, Role::Challenger, model).await?;
            println!("{}", roles_line(&store.model_roles().await?)?);
        }
        ModelsCommand::Compare { last } => {
            let in_force = roles.in_force().context("no credit model is bundled")?;
            let Some(challenger) = in_force.challenger else {
                bail!(
                    "no challenger scores in shadow: `lendhub models shadow id@version` names one"
                );
            };
            let scores = store.shadow_scores(last).await?;
            let compared = registry::compare(
                &scores,
                &ModelRef::of(in_force.champion),
                &ModelRef::of(challenger),
            );
            let line = match compared {
                Some(c) => serde_json::to_value(c)?,
                None => json!({"decisions": 0, "champion": named(&ModelRef::of(in_force.champion)),
                               "challenger": named(&ModelRef::of(challenger))}),
            };
            println!("{line}");
        }
        ModelsCommand::Monitor { week, wait_secs } => {
            let report = monitor(store, week.as_deref(), wait_secs).await?;
            println!("{}", serde_json::to_string(&report)?);
        }
    }
    Ok(())
}

/// How often the report is looked for.
const POLL: std::time::Duration = std::time::Duration::from_millis(200);

/// Asks for the week's run and waits for the report that answers it.
async fn monitor(
    store: &dyn Store,
    day: Option<&str>,
    wait_secs: u64,
) -> anyhow::Result<lendhub_domain::credit_model::drift::Report> {
    use lendhub_domain::credit_model::drift::week_of;
    let week = match day {
        Some(day) => {
            let format = time::macros::format_description!("[year]-[month]-[day]");
            week_of(time::Date::parse(day, format).context("--week: a date, YYYY-MM-DD")?)
        }
        None => week_of(SystemClock.now().date()) - time::Duration::weeks(1),
    };
    let at_ms = SystemClock.now_ms();
    let mut writes = WriteSet::default();
    writes.push(LendingWrite::RequestMonitoring { week, at_ms });
    store.commit(writes).await?;
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(wait_secs);
    loop {
        let run = store.monitoring_run(week).await?;
        if let Some(report) = run
            .filter(|r| r.requested_at_ms == at_ms && r.done_at_ms.is_some())
            .and_then(|r| r.report)
        {
            return Ok(report);
        }
        if tokio::time::Instant::now() >= deadline {
            bail!(
                "no server monitored the week of {week} within {wait_secs} s: is `lendhub serve` \
                 running on this database?"
            );
        }
        tokio::time::sleep(POLL).await;
    }
}
