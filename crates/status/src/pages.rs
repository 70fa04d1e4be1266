//! The page people read: every component with its 90 days, open incidents
//! and windows, and the recent past; one page per incident; the Atom feed.
//! Server-rendered, no script: the page refreshes itself only when its
//! reader asks it to (`?refresh=on`), which they can stop.

use askama::Template;
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use lendhub_domain::ids::{HubId, IncidentId};
use lendhub_domain::status::{self, Component, Kind};
use lendhub_store::IncidentRecord;

use crate::prober::{HISTORY_DAYS, day_of};
use crate::state::{Snapshot, StatusState};
use crate::summary::timestamp;

const BAR_WIDTH: i64 = 8;
const BAR_STEP: i64 = 10;

struct Bar {
    class: &'static str,
    x: i64,
    title: String,
}

struct ComponentView {
    key: &'static str,
    name: &'static str,
    status: &'static str,
    label: &'static str,
    detail: String,
    since: Option<String>,
    bars: Vec<Bar>,
    uptime: String,
}

struct UpdateView {
    status: String,
    body: String,
    at: String,
}

struct IncidentView {
    id: String,
    name: String,
    kind_label: &'static str,
    impact: String,
    status: String,
    components: String,
    started: String,
    window: Option<String>,
    updates: Vec<UpdateView>,
}

#[derive(Template)]
#[template(path = "index.html")]
struct IndexPage {
    base: String,
    name: String,
    indicator: &'static str,
    description: &'static str,
    checked: bool,
    checked_at: String,
    stale_since: Option<String>,
    components: Vec<ComponentView>,
    bars_width: i64,
    bar_width: i64,
    open_incidents: Vec<IncidentView>,
    past: Vec<IncidentView>,
    refreshing: bool,
}

/// `GET /?refresh=on`: the page reloads itself every 30 seconds. Off by
/// default, as WCAG 2.2.1 asks of a time limit the reader did not choose; a
/// link turns it on and off. Any other query is ignored, never refused.
fn refreshing(query: Option<&str>) -> bool {
    query.is_some_and(|q| q.split('&').any(|pair| pair == "refresh=on"))
}

#[derive(Template)]
#[template(path = "incident.html")]
struct IncidentPage {
    base: String,
    name: String,
    i: IncidentView,
}

#[derive(Template)]
#[template(path = "not_found.html")]
struct NotFoundPage<'a> {
    base: String,
    name: String,
    title: &'a str,
    message: &'a str,
}

struct Entry {
    id: String,
    name: String,
    published: String,
    updated: String,
    content: String,
}

#[derive(Template)]
#[template(path = "history.xml")]
struct Feed {
    base: String,
    name: String,
    updated: String,
    entries: Vec<Entry>,
}

/// "26 November 2026 at 21:04 GMT": the UK's civil time, with its zone.
fn readable(ms: i64) -> String {
    lendhub_domain::people::moment(lendhub_domain::clock::from_unix_ms(ms))
}

fn component_names(keys: &[String]) -> String {
    let names: Vec<&str> = keys
        .iter()
        .filter_map(|k| Component::parse(k))
        .map(Component::name)
        .collect();
    if names.is_empty() {
        "no component named".into()
    } else {
        names.join(", ")
    }
}

fn incident_view(i: &IncidentRecord) -> IncidentView {
    let kind = Kind::parse(&i.kind).unwrap_or(Kind::Incident);
    IncidentView {
        id: i.id.clone(),
        name: i.name.clone(),
        kind_label: match kind {
            Kind::Incident => "Incident",
            Kind::Maintenance => "Maintenance",
        },
        impact: i.impact.clone(),
        status: i.status.replace('_', " "),
        components: component_names(&i.components),
        started: readable(i.scheduled_for_ms.unwrap_or(i.created_at_ms)),
        window: match (i.scheduled_for_ms, i.scheduled_until_ms) {
            (Some(from), Some(until)) => Some(format!(
                "scheduled {} to {}",
                readable(from),
                readable(until)
            )),
            _ => None,
        },
        updates: i
            .updates
            .iter()
            .rev()
            .map(|u| UpdateView {
                status: u.status.replace('_', " "),
                body: u.body.clone(),
                at: readable(u.created_at_ms),
            })
            .collect(),
    }
}

fn bars(snapshot: &Snapshot, component: Component, today_ms: i64) -> (Vec<Bar>, String) {
    let mut bars = Vec::with_capacity(HISTORY_DAYS as usize);
    let (mut up, mut samples) = (0u64, 0u64);
    for n in 0..HISTORY_DAYS {
        let day = day_of(today_ms - (HISTORY_DAYS - 1 - n) * 86_400_000);
        let tally = snapshot.history.get(&(component, day.clone()));
        let worst = tally.and_then(|t| t.worst());
        if let Some(t) = tally
            && let Some(bp) = t.uptime_bp()
        {
            up = up.saturating_add(bp.saturating_mul(t.samples()));
            samples = samples.saturating_add(t.samples());
        }
        let title = match (tally.and_then(|t| t.uptime_bp()), worst) {
            (Some(bp), Some(w)) => {
                format!("{day}: {} – {}.{:02}% up", w.label(), bp / 100, bp % 100)
            }
            _ => format!("{day}: no data"),
        };
        bars.push(Bar {
            class: worst.map_or("none", |w| w.as_str()),
            x: n * BAR_STEP,
            title,
        });
    }
    let uptime = up.checked_div(samples).map_or_else(
        || "no data".to_owned(),
        |bp| format!("{}.{:02}%", bp / 100, bp % 100),
    );
    (bars, uptime)
}

fn html(status: StatusCode, page: &impl Template) -> Response {
    let mut response = match page.render() {
        Ok(body) => (
            status,
            [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
            body,
        )
            .into_response(),
        Err(e) => {
            tracing::error!(error = %e, "rendering the status page");
            StatusCode::INTERNAL_SERVER_ERROR.into_response()
        }
    };
    response
        .extensions_mut()
        .insert(lendhub_http::problem::OwnBody);
    let headers = response.headers_mut();
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(
            "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
        ),
    );
    response
}

/// `GET /`
pub async fn index(State(state): State<StatusState>, RawQuery(query): RawQuery) -> Response {
    let s = state.snapshot();
    let settings = state.settings();
    let now_ms = s.checked_at_ms.unwrap_or(state.started_at_ms());
    let worst = if s.checked_at_ms.is_some() {
        s.worst()
    } else {
        status::Health::Operational
    };
    let (indicator, description) = status::indicator(worst);
    let components = s
        .components
        .iter()
        .map(|c| {
            let (bars, uptime) = bars(&s, c.component, now_ms);
            ComponentView {
                key: c.component.key(),
                name: c.component.name(),
                status: c.health.as_str(),
                label: c.health.label(),
                detail: c.detail.clone(),
                // A change is news; "operational since the page started" is not.
                since: (c.health != status::Health::Operational
                    && c.since_ms > state.started_at_ms())
                .then(|| readable(c.since_ms)),
                bars,
                uptime,
            }
        })
        .collect();
    let (open, past): (Vec<_>, Vec<_>) =
        s.incidents.iter().partition(|i| i.resolved_at_ms.is_none());
    let page = IndexPage {
        base: settings.url.clone(),
        name: settings.name.clone(),
        indicator,
        description,
        checked: s.checked_at_ms.is_some(),
        checked_at: s.checked_at_ms.map_or_else(|| "not yet".into(), readable),
        stale_since: match (s.checked_at_ms, s.read_at_ms) {
            (Some(checked), Some(read)) if read < checked => Some(readable(read)),
            (Some(_), None) => Some("the page started".into()),
            _ => None,
        },
        components,
        bars_width: HISTORY_DAYS * BAR_STEP,
        bar_width: BAR_WIDTH,
        open_incidents: open.into_iter().map(incident_view).collect(),
        past: past.into_iter().map(incident_view).collect(),
        refreshing: refreshing(query.as_deref()),
    };
    html(StatusCode::OK, &page)
}

/// `GET /incidents/{id}`: from memory if recent, else from the database.
pub async fn incident(State(state): State<StatusState>, Path(id): Path<String>) -> Response {
    let s = state.snapshot();
    let settings = state.settings();
    let found = match s.incidents.iter().find(|i| i.id == id) {
        Some(i) => Ok(Some(i.clone())),
        None => match IncidentId::parse(&id) {
            Some(id) => state.inner.store.incident(&id).await,
            // Not an incident's id: nothing to look up.
            None => Ok(None),
        },
    };
    match found {
        Ok(Some(i)) => html(
            StatusCode::OK,
            &IncidentPage {
                base: settings.url.clone(),
                name: settings.name.clone(),
                i: incident_view(&i),
            },
        ),
        Ok(None) => html(
            StatusCode::NOT_FOUND,
            &NotFoundPage {
                base: settings.url.clone(),
                name: settings.name.clone(),
                title: "No such incident",
                message: "The link may be incomplete. Every incident of the last 90 days is on the main page.",
            },
        ),
        Err(_) => html(
            StatusCode::SERVICE_UNAVAILABLE,
            &NotFoundPage {
                base: settings.url.clone(),
                name: settings.name.clone(),
                title: "This incident cannot be shown just now",
                message: "It is older than the page keeps in memory and the database does not answer. The main page shows what is known.",
            },
        ),
    }
}

/// Any other path: the page's own 404; under `/api/`, the error envelope.
pub async fn not_found(State(state): State<StatusState>, uri: axum::http::Uri) -> Response {
    if uri.path().starts_with("/api/") {
        return lendhub_http::problem::Problem::new(
            StatusCode::NOT_FOUND,
            "resource_not_found",
            "no such status API path (see /api/v2/summary.json)",
        )
        .into_response();
    }
    let settings = state.settings();
    html(
        StatusCode::NOT_FOUND,
        &NotFoundPage {
            base: settings.url.clone(),
            name: settings.name.clone(),
            title: "Page not found",
            message: "There is nothing at this address.",
        },
    )
}

fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// `GET /history.atom`: every incident and window of the last 90 days,
/// each entry carrying its updates.
pub async fn feed(State(state): State<StatusState>) -> Response {
    let s = state.snapshot();
    let settings = state.settings();
    let entries: Vec<Entry> = s
        .incidents
        .iter()
        .map(|i| {
            let content = i
                .updates
                .iter()
                .rev()
                .map(|u| {
                    format!(
                        "<p><small>{}</small><br><strong>{}</strong> - {}</p>",
                        readable(u.created_at_ms),
                        escape(&u.status.replace('_', " ")),
                        escape(&u.body)
                    )
                })
                .collect::<String>();
            Entry {
                id: i.id.clone(),
                name: i.name.clone(),
                published: timestamp(i.created_at_ms),
                updated: timestamp(i.updated_at_ms),
                content,
            }
        })
        .collect();
    let updated = s
        .incidents
        .iter()
        .map(|i| i.updated_at_ms)
        .max()
        .unwrap_or(state.started_at_ms());
    let feed = Feed {
        base: settings.url.clone(),
        name: settings.name.clone(),
        updated: timestamp(updated),
        entries,
    };
    let mut response = match feed.render() {
        Ok(body) => (
            StatusCode::OK,
            [(header::CONTENT_TYPE, "application/atom+xml; charset=utf-8")],
            body,
        )
            .into_response(),
        Err(e) => {
            tracing::error!(error = %e, "rendering the incident feed");
            StatusCode::INTERNAL_SERVER_ERROR.into_response()
        }
    };
    response
        .extensions_mut()
        .insert(lendhub_http::problem::OwnBody);
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn feed_text_is_escaped_before_it_becomes_markup() {
        assert_eq!(
            escape("<b>\"a\" & 'b'</b>"),
            "&lt;b&gt;&quot;a&quot; &amp; &#39;b&#39;&lt;/b&gt;"
        );
    }

    #[test]
    fn times_read_as_people_write_them() {
        assert_eq!(readable(1_795_000_000_000), "18 November 2026 at 11:06 GMT");
    }
}
