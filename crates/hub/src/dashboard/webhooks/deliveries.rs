use super::*;
use crate::dashboard::forms::moment;

struct DeliveryRow {
    id: i64,
    event_id: String,
    event_type: String,
    state: String,
    attempt: i64,
    status: Option<i64>,
    error: Option<String>,
    latency: String,
    response: String,
    at: String,
}

#[derive(Template)]
#[template(path = "dashboard/deliveries.html")]
struct Deliveries {
    f: Frame,
    endpoint: String,
    url: String,
    status: &'static str,
    rows: Vec<DeliveryRow>,
    can_manage: bool,
    /// The replay forms' id (replaying is not idempotent by its nature).
    form_id: String,
}

/// `GET /dashboard/webhooks/{id}/deliveries`: the endpoint's 100 latest
/// deliveries, each with its latest attempt.
pub async fn deliveries(
    State(state): State<DashboardState>,
    staff: Staff,
    Path(id): Path<String>,
    Query(q): Query<ListQuery>,
) -> Response {
    let env = Environment::from_query(q.env.as_deref());
    let owner = tenant(&staff, env);
    let Ok(records) = state.events.endpoints(&owner).await else {
        return unavailable();
    };
    let Some(endpoint) = records
        .into_iter()
        .map(|r| r.endpoint)
        .find(|e| e.id.as_str() == id)
    else {
        return not_found();
    };
    let Ok(rows) = state
        .jobs
        .endpoint_deliveries(&owner, &endpoint.id, 100)
        .await
    else {
        return unavailable();
    };
    screen(
        &state,
        StatusCode::OK,
        &Deliveries {
            f: Frame::of(&state, &staff, env),
            endpoint: id,
            url: endpoint.url.clone(),
            status: endpoint.status.as_str(),
            rows: rows
                .into_iter()
                .map(|d| DeliveryRow {
                    id: d.id,
                    event_id: d.event_id,
                    event_type: d.event_type,
                    state: d.state,
                    attempt: d.attempt,
                    status: d.last_status,
                    error: d.last_error,
                    latency: d
                        .last_latency_ms
                        .map(|ms| format!("{ms} ms"))
                        .unwrap_or_default(),
                    response: d.last_response.unwrap_or_default(),
                    at: moment(d.updated_at_ms),
                })
                .collect(),
            can_manage: staff.role.may(Action::ManageWebhooks),
            form_id: form_id(),
        },
    )
}
