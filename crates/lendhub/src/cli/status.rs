//! `lendhub status …`: the incidents and maintenance windows the status page
//! shows, written by operators. Each prints the incident as JSON.

use anyhow::{Context, bail};
use clap::Subcommand;
use lendhub_domain::clock::{Clock, from_unix_ms, parse_rfc3339_ms};
use lendhub_domain::ids::{HubId, IncidentId, IncidentUpdateId};
use lendhub_domain::status::{self, Kind};
use lendhub_store::{IncidentRecord, IncidentUpdateRecord, StatusStore};
use lendhub_system::{SystemClock, new_hub_id};
use serde_json::{Value, json};
use time::format_description::well_known::Rfc3339;

use crate::config::Config;

#[derive(Subcommand, Debug)]
pub enum StatusCommand {
    /// Open an incident (status `investigating`).
    Open {
        #[arg(long)]
        name: String,
        /// none, minor, major or critical.
        #[arg(long, default_value = "minor")]
        impact: String,
        /// A component it affects (repeat for more): sandbox, partner_ring,
        /// rest_tier, public_ring, identity_provider, webhook_delivery, database.
        #[arg(long = "component")]
        components: Vec<String>,
        /// The first update's text.
        #[arg(long)]
        message: String,
    },
    /// Schedule a maintenance window (status `scheduled`); its components
    /// show as under maintenance from --from until --until or completion.
    Schedule {
        #[arg(long)]
        name: String,
        /// RFC 3339, e.g. 2026-12-01T02:00:00Z.
        #[arg(long)]
        from: String,
        #[arg(long)]
        until: String,
        #[arg(long = "component")]
        components: Vec<String>,
        #[arg(long)]
        message: String,
    },
    /// Post an update: an incident moves through investigating, identified,
    /// monitoring, resolved; a window through scheduled, in_progress,
    /// verifying, completed. The last status closes it.
    Update {
        /// inc_…
        id: String,
        #[arg(long)]
        status: String,
        #[arg(long)]
        message: String,
    },
    /// Open incidents and windows, and those updated in the last 90 days.
    List,
}

pub async fn status(command: StatusCommand, config: &Config) -> anyhow::Result<()> {
    let store = super::database::open_existing_store(config).await?;
    let result = run(command, store.as_ref(), &SystemClock).await;
    store.close().await;
    result
}

fn rfc3339(ms: i64) -> String {
    from_unix_ms(ms).format(&Rfc3339).unwrap_or_default()
}

fn view(i: &IncidentRecord) -> Value {
    json!({
        "id": i.id,
        "kind": i.kind,
        "name": i.name,
        "status": i.status,
        "impact": i.impact,
        "components": i.components,
        "scheduled_for": i.scheduled_for_ms.map(rfc3339),
        "scheduled_until": i.scheduled_until_ms.map(rfc3339),
        "created_at": rfc3339(i.created_at_ms),
        "updated_at": rfc3339(i.updated_at_ms),
        "resolved_at": i.resolved_at_ms.map(rfc3339),
        "updates": i.updates.iter().map(|u| json!({
            "id": u.id, "status": u.status, "body": u.body, "created_at": rfc3339(u.created_at_ms),
        })).collect::<Vec<_>>(),
    })
}

fn first(kind: Kind, id: &str, message: &str, now_ms: i64) -> IncidentUpdateRecord {
    IncidentUpdateRecord {
        id: new_hub_id::<IncidentUpdateId>(now_ms.unsigned_abs()).to_string(),
        incident_id: id.to_owned(),
        status: kind.first_status().to_owned(),
        body: message.trim().to_owned(),
        created_at_ms: now_ms,
    }
}

#[allow(clippy::too_many_arguments)]
fn new_incident(
    kind: Kind,
    name: &str,
    impact: &str,
    components: Vec<String>,
    message: &str,
    window: Option<(i64, i64)>,
    now_ms: i64,
) -> anyhow::Result<IncidentRecord> {
    status::check_new(kind, name, impact, &components, message, window)?;
    let id = new_hub_id::<IncidentId>(now_ms.unsigned_abs()).to_string();
    Ok(IncidentRecord {
        updates: vec![first(kind, &id, message, now_ms)],
        id,
        kind: kind.as_str().to_owned(),
        name: name.trim().to_owned(),
        status: kind.first_status().to_owned(),
        impact: impact.to_owned(),
        components,
        scheduled_for_ms: window.map(|w| w.0),
        scheduled_until_ms: window.map(|w| w.1),
        created_at_ms: now_ms,
        updated_at_ms: now_ms,
        resolved_at_ms: None,
    })
}

async fn run(
    command: StatusCommand,
    store: &dyn StatusStore,
    clock: &dyn Clock,
) -> anyhow::Result<()> {
    let now_ms = clock.now_ms();
    let shown = match command {
        StatusCommand::Open {
            name,
            impact,
            components,
            message,
        } => {
            let incident = new_incident(
                Kind::Incident,
                &name,
                &impact,
                components,
                &message,
                None,
                now_ms,
            )?;
            store.create_incident(incident.clone()).await?;
            view(&incident)
        }
        StatusCommand::Schedule {
            name,
            from,
            until,
            components,
            message,
        } => {
            let at = |s: &str, flag: &str| {
                parse_rfc3339_ms(s).with_context(|| format!("--{flag} must be an RFC 3339 instant"))
            };
            let window = (at(&from, "from")?, at(&until, "until")?);
            let incident = new_incident(
                Kind::Maintenance,
                &name,
                "maintenance",
                components,
                &message,
                Some(window),
                now_ms,
            )?;
            store.create_incident(incident.clone()).await?;
            view(&incident)
        }
        StatusCommand::Update {
            id,
            status: next,
            message,
        } => {
            let found = match IncidentId::parse(&id) {
                Some(parsed) => store.incident(&parsed).await?.map(|i| (parsed, i)),
                None => None,
            };
            let Some((parsed, incident)) = found else {
                bail!("no incident or maintenance window {id}");
            };
            let kind = Kind::parse(&incident.kind).context("a stored incident of no known kind")?;
            status::check_update(kind, &incident.status, &next, &message)?;
            let update = IncidentUpdateRecord {
                id: new_hub_id::<IncidentUpdateId>(now_ms.unsigned_abs()).to_string(),
                incident_id: id.clone(),
                status: next.clone(),
                body: message.trim().to_owned(),
                created_at_ms: now_ms,
            };
            if !store
                .add_incident_update(update, &incident.status, kind.is_final(&next))
                .await?
            {
                bail!("{id} was updated by someone else meanwhile; look again and retry");
            }
            let updated = store
                .incident(&parsed)
                .await?
                .context("the incident just updated")?;
            view(&updated)
        }
        StatusCommand::List => {
            let since = now_ms - 90 * 86_400_000;
            for i in store.recent_incidents(since, 200).await? {
                println!("{}", view(&i));
            }
            return Ok(());
        }
    };
    println!("{shown}");
    Ok(())
}
