use super::*;

/// `POST /dashboard/credentials/api-keys/{id}/roll`: a successor with the
/// key's environment and scopes, shown once; the old key keeps working for
/// the overlap chosen, so a deployment switches without a failed request.
pub async fn roll(
    State(state): State<DashboardState>,
    staff: Staff,
    Path(id): Path<String>,
    Form(form): Form<CredentialForm>,
) -> Response {
    use lendhub_domain::partner::scope::PartnerScopes;
    use lendhub_store::AccessWrite;
    let Target {
        env,
        client,
        form: action,
        now,
    } = match target(&state, &staff, &form).await {
        Ok(t) => t,
        Err(refused) => return refused.page(),
    };
    let Some(overlap_ms) = form.overlap_ms() else {
        return forbidden(EXPIRED);
    };
    let old = match own_key(&state, &staff, env, &id).await {
        Ok(k) => k,
        Err(refused) => return refused.page(),
    };
    let at_ms = state.clock.now_ms();
    if !old.active_at(at_ms) {
        return super::super::refusals::not_found();
    }
    let scopes = PartnerScopes::parse(&old.scopes).unwrap_or_default();
    let Ok(created) =
        crate::partner::api_keys::mint(&client, env.credentials(), Some(&scopes), at_ms)
    else {
        // The partner no longer holds a scope the old key had.
        return unavailable();
    };
    let until = at_ms.saturating_add(overlap_ms);
    let owner = tenant(&staff, env);
    let Some(record) = once(&action, &owner, &id, now) else {
        return forbidden(EXPIRED);
    };
    let mut writes = WriteSet::default();
    writes
        .push(AccessWrite::InsertApiKey(created.record.clone()))
        .push(AccessWrite::ExpireApiKey {
            selector: old.selector.clone(),
            at_ms: until,
        })
        .push(audit_line(
            &staff,
            "api_key.roll",
            &format!("{id} to {}", created.id),
            env,
            at_ms,
        ));
    let note = if overlap_ms == 0 {
        format!("{id} has stopped working.")
    } else {
        format!(
            "{id} keeps working until {}, so you can deploy the new key first.",
            moment(until)
        )
    };
    let shown = ShownOnce {
        f: Frame::of(&state, &staff, env),
        heading: format!("New API key {}, replacing {id}", created.id),
        what: "API key",
        value: created.key.into_exposed(),
        note,
    };
    make_once(&state, writes, record, shown).await
}
