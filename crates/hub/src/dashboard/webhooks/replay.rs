use super::*;

/// `POST /dashboard/webhooks/{id}/events/{event}/replay`: the event queued
/// to this endpoint once more, as `POST /events/{id}/replay` with its
/// `endpoint_id` does (a new delivery, signed afresh). The form's id is
/// recorded as an idempotency key, so a resubmitted form queues nothing.
pub async fn replay(
    State(state): State<DashboardState>,
    staff: Staff,
    Path((id, event_id)): Path<(String, String)>,
    Form(form): Form<ActionForm>,
) -> Response {
    use lendhub_domain::ids::{EventId, HubId};
    use lendhub_domain::sandbox::ids::PublishedId;
    use lendhub_store::{EventWrite, WriteSet};
    let Target {
        env,
        owner,
        endpoint,
        now,
    } = match target(&state, &staff, &form, &id).await {
        Ok(t) => t,
        Err(refused) => return refused.page(),
    };
    let Some(published) = EventId::parse(&event_id).map(PublishedId::from) else {
        return not_found();
    };
    match state.events.event(&owner, &published).await {
        Ok(Some(_)) => {}
        Ok(None) => return not_found(),
        Err(_) => return unavailable(),
    }
    if endpoint.status == EndpointStatus::Disabled {
        return crate::dashboard::refusals::problem(
            StatusCode::CONFLICT,
            "This endpoint is disabled",
            "Re-enable it on the webhooks page first; then replay the event.",
            false,
        );
    }
    let at_ms = state.clock.now_ms();
    let mut writes = WriteSet::default();
    writes
        .push(EventWrite::QueueDeliveries {
            event_id: event_id.clone(),
            owner: owner.clone(),
            endpoint_ids: vec![id.clone()],
            at_ms: lendhub_domain::clock::unix_ms(now),
        })
        .push(audit_line(
            &staff,
            "event.replay",
            &format!("{event_id} to {id}"),
            env,
            at_ms,
        ));
    let Some(record) = once(&form, &owner, &event_id, now) else {
        return forbidden(EXPIRED);
    };
    writes.idempotency = Some(record);
    let back = Redirect::to(&format!(
        "/dashboard/webhooks/{id}/deliveries?env={}",
        env.as_str()
    ))
    .into_response();
    match state.flows.commit(writes).await {
        Ok(()) => back,
        // The same form again: it was queued the first time.
        Err(CommitError::IdempotencyKeyTaken) => back,
        Err(_) => unavailable(),
    }
}
