use super::*;

/// `POST /dashboard/webhooks/{id}/deliveries/{delivery}/retry`: a failed
/// delivery is due again now (on the owner's clock) and the outbox woken.
/// Idempotent: a delivery that is not failed (already retried) is left as it
/// is, and nothing is audited.
pub async fn retry(
    State(state): State<DashboardState>,
    staff: Staff,
    Path((id, delivery)): Path<(String, i64)>,
    Form(form): Form<ActionForm>,
) -> Response {
    use lendhub_domain::ids::{HubId, WebhookEndpointId};
    use lendhub_domain::sandbox::ids::PublishedId;
    use lendhub_store::{EventWrite, WriteSet};
    let env = match admitted(&staff, &form) {
        Ok(env) => env,
        Err(why) => return forbidden(why),
    };
    let owner = tenant(&staff, env);
    let Some(endpoint) = WebhookEndpointId::parse(&id).map(PublishedId::from) else {
        return not_found();
    };
    let (Ok(rows), Ok(now)) = (
        state
            .jobs
            .endpoint_deliveries(&owner, &endpoint, 1_000)
            .await,
        state.flows.now_for(&owner).await,
    ) else {
        return unavailable();
    };
    let Some(found) = rows.into_iter().find(|d| d.id == delivery) else {
        return not_found();
    };
    let back = Redirect::to(&format!(
        "/dashboard/webhooks/{id}/deliveries?env={}",
        env.as_str()
    ))
    .into_response();
    if found.state != "failed" {
        return back;
    }
    let at_ms = state.clock.now_ms();
    let mut writes = WriteSet::default();
    writes
        .push(EventWrite::RetryDelivery {
            id: delivery,
            owner: owner.clone(),
            due_ms: lendhub_domain::clock::unix_ms(now),
            at_ms,
        })
        .push(audit_line(
            &staff,
            "webhook_delivery.retry",
            &format!("{id}/{}", found.event_id),
            env,
            at_ms,
        ));
    match state.flows.commit(writes).await {
        Ok(()) => back,
        Err(_) => unavailable(),
    }
}
