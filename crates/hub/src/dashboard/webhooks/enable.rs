use super::*;

/// `POST /dashboard/webhooks/{id}/enable`: idempotent (an endpoint that is
/// not disabled is left as it is, and nothing is audited).
pub async fn enable(
    State(state): State<PartnerState>,
    staff: Staff,
    Path(id): Path<String>,
    Form(form): Form<ActionForm>,
) -> Response {
    let env = match admitted(&staff, &form) {
        Ok(env) => env,
        Err(why) => return forbidden(why),
    };
    let owner = tenant(&staff, env);
    let (Ok(records), Ok(now)) = (
        state.events.endpoints(&owner).await,
        state.now_for(&owner).await,
    ) else {
        return unavailable();
    };
    let Some(current) = records
        .into_iter()
        .map(|r| r.endpoint)
        .find(|e| e.id.as_str() == id)
    else {
        return not_found();
    };
    let back = Redirect::to(&format!("/dashboard/webhooks?env={}", env.as_str())).into_response();
    if current.status != EndpointStatus::Disabled {
        return back;
    }
    let Ok((_, mut writes)) = enabling(&owner, &current, env.livemode(), now) else {
        return unavailable();
    };
    writes.push(audit_line(
        &staff,
        "webhook_endpoint.enable",
        &id,
        env,
        state.clock.now_ms(),
    ));
    match state.units.commit(writes).await {
        Ok(()) => {
            state.outbox_wake.notify_one();
            back
        }
        // Enabled by someone else meanwhile: what they see is what we wanted.
        Err(CommitError::Conflict) => back,
        Err(_) => unavailable(),
    }
}
