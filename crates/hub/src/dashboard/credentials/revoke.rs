use super::*;

/// `POST /dashboard/credentials/api-keys/{id}/revoke`: the key stops
/// working now (an overlap still running is cut short). Idempotent: a key
/// already ended is left as it is, and nothing is audited.
pub async fn revoke(
    State(state): State<DashboardState>,
    staff: Staff,
    Path(id): Path<String>,
    Form(form): Form<CredentialForm>,
) -> Response {
    let Target { env, .. } = match target(&state, &staff, &form).await {
        Ok(t) => t,
        Err(refused) => return refused.page(),
    };
    let key = match own_key(&state, &staff, env, &id).await {
        Ok(k) => k,
        Err(refused) => return refused.page(),
    };
    let at_ms = state.clock.now_ms();
    if !key.active_at(at_ms) {
        return back(env);
    }
    let mut writes = WriteSet::default();
    writes
        .push(lendhub_store::AccessWrite::ExpireApiKey {
            selector: key.selector,
            at_ms,
        })
        .push(audit_line(&staff, "api_key.revoke", &id, env, at_ms));
    change(&state, writes, env).await
}
