//! `summary.json` and its parts in the shape Atlassian Statuspage's v2 API
//! gives, which status-page clients (monitors, chat integrations, browser
//! extensions) already read. Fields Statuspage has and lendhub does not use
//! are present with their empty values, so strict clients parse them.

use axum::Json;
use axum::extract::State;
use lendhub_domain::clock::from_unix_ms;
use lendhub_domain::status::{self, Component, Health, Kind};
use lendhub_store::IncidentRecord;
use serde_json::{Value, json};
use time::format_description::well_known::Rfc3339;

use crate::state::{ComponentState, Snapshot, StatusState};

/// The page's id in every object that names its page.
const PAGE_ID: &str = "lendhub";

pub fn timestamp(ms: i64) -> String {
    from_unix_ms(ms).format(&Rfc3339).unwrap_or_default()
}

fn page(state: &StatusState, snapshot: &Snapshot) -> Value {
    let settings = state.settings();
    json!({
        "id": PAGE_ID,
        "name": settings.name,
        "url": settings.url,
        "time_zone": "Etc/UTC",
        "updated_at": timestamp(snapshot.checked_at_ms.unwrap_or(state.started_at_ms())),
    })
}

fn component(state: &StatusState, c: &ComponentState) -> Value {
    let position = Component::ALL
        .iter()
        .position(|k| *k == c.component)
        .map_or(0, |i| i + 1);
    json!({
        "id": c.component.key(),
        "name": c.component.name(),
        "status": c.health.as_str(),
        "created_at": timestamp(state.started_at_ms()),
        "updated_at": timestamp(c.since_ms),
        "position": position,
        "description": c.component.description(),
        "showcase": true,
        "start_date": null,
        "group_id": null,
        "page_id": PAGE_ID,
        "group": false,
        "only_show_if_degraded": false,
        // lendhub's own: what the last probe measured.
        "probe": {
            "detail": c.detail,
            "latency_ms": c.latency_ms,
            "lag_ms": c.lag_ms,
        },
    })
}

fn components(state: &StatusState, snapshot: &Snapshot) -> Vec<Value> {
    snapshot
        .components
        .iter()
        .map(|c| component(state, c))
        .collect()
}

/// An incident or maintenance, with its updates newest first as Statuspage
/// lists them.
pub fn incident(state: &StatusState, snapshot: &Snapshot, i: &IncidentRecord) -> Value {
    let affected: Vec<Value> = snapshot
        .components
        .iter()
        .filter(|c| i.components.iter().any(|k| k == c.component.key()))
        .map(|c| component(state, c))
        .collect();
    let affected_names: Vec<Value> = affected
        .iter()
        .map(|c| {
            json!({
                "code": c["id"],
                "name": c["name"],
                "old_status": c["status"],
                "new_status": c["status"],
            })
        })
        .collect();
    let updates: Vec<Value> = i
        .updates
        .iter()
        .rev()
        .map(|u| {
            json!({
                "id": u.id,
                "status": u.status,
                "body": u.body,
                "incident_id": i.id,
                "created_at": timestamp(u.created_at_ms),
                "updated_at": timestamp(u.created_at_ms),
                "display_at": timestamp(u.created_at_ms),
                "affected_components": affected_names,
                "deliver_notifications": true,
                "custom_tweet": null,
                "tweet_id": null,
            })
        })
        .collect();
    let monitoring_at = i
        .updates
        .iter()
        .find(|u| u.status == "monitoring")
        .map(|u| timestamp(u.created_at_ms));
    let mut v = json!({
        "id": i.id,
        "name": i.name,
        "status": i.status,
        "created_at": timestamp(i.created_at_ms),
        "updated_at": timestamp(i.updated_at_ms),
        "monitoring_at": monitoring_at,
        "resolved_at": i.resolved_at_ms.map(timestamp),
        "impact": i.impact,
        "shortlink": format!("{}/incidents/{}", state.settings().url, i.id),
        "started_at": timestamp(i.scheduled_for_ms.unwrap_or(i.created_at_ms)),
        "page_id": PAGE_ID,
        "incident_updates": updates,
        "components": affected,
    });
    if Kind::parse(&i.kind) == Some(Kind::Maintenance) {
        v["scheduled_for"] = json!(i.scheduled_for_ms.map(timestamp));
        v["scheduled_until"] = json!(i.scheduled_until_ms.map(timestamp));
    }
    v
}

fn open_of(snapshot: &Snapshot, kind: Kind) -> impl Iterator<Item = &IncidentRecord> {
    snapshot
        .incidents
        .iter()
        .filter(move |i| Kind::parse(&i.kind) == Some(kind) && i.resolved_at_ms.is_none())
}

fn overall(snapshot: &Snapshot) -> Value {
    let worst = if snapshot.checked_at_ms.is_none() {
        Health::Operational
    } else {
        snapshot.worst()
    };
    let (indicator, description) = status::indicator(worst);
    json!({"indicator": indicator, "description": description})
}

/// `GET /api/v2/summary.json`
pub async fn summary(State(state): State<StatusState>) -> Json<Value> {
    let s = state.snapshot();
    let incidents: Vec<Value> = open_of(&s, Kind::Incident)
        .map(|i| incident(&state, &s, i))
        .collect();
    let maintenances: Vec<Value> = open_of(&s, Kind::Maintenance)
        .map(|i| incident(&state, &s, i))
        .collect();
    Json(json!({
        "page": page(&state, &s),
        "components": components(&state, &s),
        "incidents": incidents,
        "scheduled_maintenances": maintenances,
        "status": overall(&s),
    }))
}

/// `GET /api/v2/status.json`
pub async fn status(State(state): State<StatusState>) -> Json<Value> {
    let s = state.snapshot();
    Json(json!({"page": page(&state, &s), "status": overall(&s)}))
}

/// `GET /api/v2/components.json`
pub async fn components_json(State(state): State<StatusState>) -> Json<Value> {
    let s = state.snapshot();
    Json(json!({"page": page(&state, &s), "components": components(&state, &s)}))
}

/// `GET /api/v2/incidents.json`: incidents of the last 90 days, newest first.
pub async fn incidents(State(state): State<StatusState>) -> Json<Value> {
    let s = state.snapshot();
    let list: Vec<Value> = s
        .incidents
        .iter()
        .filter(|i| Kind::parse(&i.kind) == Some(Kind::Incident))
        .map(|i| incident(&state, &s, i))
        .collect();
    Json(json!({"page": page(&state, &s), "incidents": list}))
}

/// `GET /api/v2/scheduled-maintenances.json`
pub async fn maintenances(State(state): State<StatusState>) -> Json<Value> {
    let s = state.snapshot();
    let list: Vec<Value> = s
        .incidents
        .iter()
        .filter(|i| Kind::parse(&i.kind) == Some(Kind::Maintenance))
        .map(|i| incident(&state, &s, i))
        .collect();
    Json(json!({"page": page(&state, &s), "scheduled_maintenances": list}))
}
