use super::*;

/// `POST /dashboard/webhooks/{id}/enable`: idempotent (an endpoint that is
/// not disabled is left as it is, and nothing is audited).
pub async fn enable(
    State(state): State<DashboardState>,
    staff: Staff,
    Path(id): Path<String>,
    Form(form): Form<ActionForm>,
) -> Response {
    let Target {
        env,
        owner,
        endpoint: current,
        now,
    } = match target(&state, &staff, &form, &id).await {
        Ok(t) => t,
        Err(refused) => return refused.page(),
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
    match state.flows.commit(writes).await {
        Ok(()) => back,
        // Enabled by someone else meanwhile: what they see is what we wanted.
        Err(CommitError::Conflict) => back,
        Err(_) => unavailable(),
    }
}
