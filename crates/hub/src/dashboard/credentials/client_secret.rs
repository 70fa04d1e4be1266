use super::*;

/// `POST /dashboard/credentials/client/roll-secret`: a new secret for the
/// partner's own OAuth client (`pk_live_…`, which serves both
/// environments), shown once; the old one keeps working for the overlap
/// chosen.
pub async fn roll_client_secret(
    State(state): State<DashboardState>,
    staff: Staff,
    Form(form): Form<CredentialForm>,
) -> Response {
    let own = staff.session.partner_client_id.clone();
    roll_secret(&state, &staff, &form, &own).await
}

/// `POST /dashboard/credentials/clients/{id}/roll-secret`: the same for
/// one of the partner's additional OAuth clients (or its own, by its id).
pub async fn roll_oauth_client_secret(
    State(state): State<DashboardState>,
    staff: Staff,
    Path(id): Path<String>,
    Form(form): Form<CredentialForm>,
) -> Response {
    roll_secret(&state, &staff, &form, &id).await
}

/// `POST /dashboard/credentials/client/end-previous-secret`: the secret a
/// roll replaced stops working now. Idempotent: with none in its overlap,
/// nothing changes and nothing is audited.
pub async fn end_previous_secret(
    State(state): State<DashboardState>,
    staff: Staff,
    Form(form): Form<CredentialForm>,
) -> Response {
    let own = staff.session.partner_client_id.clone();
    end_previous(&state, &staff, &form, &own).await
}

/// `POST /dashboard/credentials/clients/{id}/end-previous-secret`
pub async fn end_previous_oauth_client_secret(
    State(state): State<DashboardState>,
    staff: Staff,
    Path(id): Path<String>,
    Form(form): Form<CredentialForm>,
) -> Response {
    end_previous(&state, &staff, &form, &id).await
}

async fn roll_secret(
    state: &DashboardState,
    staff: &Staff,
    form: &CredentialForm,
    client_id: &str,
) -> Response {
    let Target {
        env,
        client,
        form: action,
        now,
    } = match target(state, staff, form).await {
        Ok(t) => t,
        Err(refused) => return refused.page(),
    };
    if let Err(refused) = own_client(state, &client, client_id).await {
        return refused.page();
    }
    let Some(overlap_ms) = form.overlap_ms() else {
        return forbidden(EXPIRED);
    };
    let (secret, hash) = crate::partner::clients::mint_secret(state.secret_pepper.expose());
    let at_ms = state.clock.now_ms();
    let until = (overlap_ms > 0).then(|| at_ms.saturating_add(overlap_ms));
    let Some(record) = once(&action, &tenant(staff, env), client_id, now) else {
        return forbidden(EXPIRED);
    };
    let mut writes = WriteSet::default();
    writes
        .push(lendhub_store::AccessWrite::RollClientSecret {
            partner_client_id: client.client_id.clone(),
            client_id: client_id.to_owned(),
            hash,
            previous_until_ms: until,
            at_ms,
        })
        .push(audit_line(
            staff,
            "oauth_client.roll_secret",
            client_id,
            env,
            at_ms,
        ));
    let note = match until {
        None => "The old secret has stopped working.".to_owned(),
        Some(at) => format!(
            "The old secret keeps working until {}, so you can deploy the new one first.",
            moment(at)
        ),
    };
    let shown = ShownOnce {
        f: Frame::of(state, staff, env),
        heading: format!("New client secret for {client_id}"),
        what: "client secret",
        value: secret.into_exposed(),
        note,
    };
    make_once(state, writes, record, shown).await
}

async fn end_previous(
    state: &DashboardState,
    staff: &Staff,
    form: &CredentialForm,
    client_id: &str,
) -> Response {
    let Target { env, client, .. } = match target(state, staff, form).await {
        Ok(t) => t,
        Err(refused) => return refused.page(),
    };
    let at_ms = state.clock.now_ms();
    let overlapping = match own_client(state, &client, client_id).await {
        Ok(Some(additional)) => additional.previous_secret_at(at_ms).is_some(),
        Ok(None) => client.previous_secret_at(at_ms).is_some(),
        Err(refused) => return refused.page(),
    };
    if !overlapping {
        return back(env);
    }
    let mut writes = WriteSet::default();
    writes
        .push(lendhub_store::AccessWrite::EndPreviousClientSecret {
            partner_client_id: client.client_id.clone(),
            client_id: client_id.to_owned(),
            at_ms,
        })
        .push(audit_line(
            staff,
            "oauth_client.end_previous_secret",
            client_id,
            env,
            at_ms,
        ));
    change(state, writes, env).await
}
