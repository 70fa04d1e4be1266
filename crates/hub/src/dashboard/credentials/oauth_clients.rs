use super::*;

/// The longest name an additional OAuth client may have.
const NAME_MAX: usize = 64;

/// `POST /dashboard/credentials/clients`: a new OAuth client acting as the
/// partner (its tenant, rate limit and statement), named, with the scopes
/// asked for (blank: every scope the partner holds; never more). Its id and
/// secret are shown on the answer, the secret never again. The form's id is
/// recorded in the same commit, so a resubmitted form makes no second
/// client.
pub async fn create_oauth_client(
    State(state): State<DashboardState>,
    staff: Staff,
    Form(form): Form<CredentialForm>,
) -> Response {
    let Target {
        env,
        client: partner,
        form: action,
        now,
    } = match target(&state, &staff, &form).await {
        Ok(t) => t,
        Err(refused) => return refused.page(),
    };
    let Some(name) = form.name.as_deref().map(str::trim).filter(|n| named(n)) else {
        return bad_name();
    };
    let held = PartnerScopes::parse(&partner.scopes).unwrap_or_default();
    let scopes = match scopes_asked(&form) {
        Ok(None) => held,
        Ok(Some(asked)) => {
            if let Some(extra) = asked.iter().find(|s| !held.contains(*s)) {
                return bad_scopes(lendhub_domain::partner::scope::Scope::as_str(extra));
            }
            asked
        }
        Err(raw) => return bad_scopes(raw),
    };
    let Some(record) = once(&action, &tenant(&staff, env), "oauth_client.create", now) else {
        return forbidden(EXPIRED);
    };
    let credentials =
        lendhub_system::generate_client(lendhub_domain::partner::credentials::Environment::Live);
    let at_ms = state.clock.now_ms();
    let made = OAuthClientRecord {
        client_id: credentials.client_id.clone(),
        partner_client_id: partner.client_id.clone(),
        name: name.to_owned(),
        scopes: scopes.render(),
        secret_hash: lendhub_domain::partner::credentials::hash_secret(
            state.secret_pepper.expose(),
            credentials.client_secret.expose(),
        )
        .to_vec(),
        previous_secret_hash: None,
        previous_secret_expires_at_ms: None,
        created_at_ms: at_ms,
        revoked_at_ms: None,
    };
    let note = format!(
        "Client id {}. It acts as your partner account with the scopes {}: tokens from POST /partner/v1/oauth/token, for the test environment with resource set to the sandbox.",
        made.client_id, made.scopes
    );
    let mut writes = WriteSet::default();
    writes
        .push(lendhub_store::AccessWrite::InsertOAuthClient(made))
        .push(audit_line(
            &staff,
            "oauth_client.create",
            &credentials.client_id,
            env,
            at_ms,
        ));
    let shown = ShownOnce {
        f: Frame::of(&state, &staff, env),
        heading: format!("New OAuth client {}", credentials.client_id),
        what: "client secret",
        value: credentials.client_secret.into_exposed(),
        note,
    };
    make_once(&state, writes, record, shown).await
}

/// `POST /dashboard/credentials/clients/{id}/revoke`: the additional client
/// stops working now, and so do the tokens it was issued (within the
/// directory's sync interval on other instances). Idempotent: a client
/// already revoked is left as it is, and nothing is audited.
pub async fn revoke_oauth_client(
    State(state): State<DashboardState>,
    staff: Staff,
    Path(id): Path<String>,
    Form(form): Form<CredentialForm>,
) -> Response {
    let Target {
        env,
        client: partner,
        ..
    } = match target(&state, &staff, &form).await {
        Ok(t) => t,
        Err(refused) => return refused.page(),
    };
    // The partner's own client is not one of these: the operator ends it.
    let revoked_at = match state.partners.oauth_client(&id).await {
        Ok(Some(c)) if c.partner_client_id == partner.client_id => c.revoked_at_ms,
        Ok(_) => return Refused::NotFound.page(),
        Err(_) => return unavailable(),
    };
    if revoked_at.is_some() {
        return back(env);
    }
    let at_ms = state.clock.now_ms();
    let mut writes = WriteSet::default();
    writes
        .push(lendhub_store::AccessWrite::RevokeOAuthClient {
            partner_client_id: partner.client_id.clone(),
            client_id: id.clone(),
            at_ms,
        })
        .push(audit_line(&staff, "oauth_client.revoke", &id, env, at_ms));
    change(&state, writes, env).await
}

fn named(name: &str) -> bool {
    !name.is_empty()
        && name.chars().count() <= NAME_MAX
        && !name.chars().any(lendhub_domain::text::refused_char)
}

fn bad_name() -> Response {
    crate::dashboard::refusals::problem(
        StatusCode::UNPROCESSABLE_ENTITY,
        "Give the client a name",
        "A name of 1 to 64 characters, without control characters, says who holds the client (a deployment, a vendor), on this page and in the audit log.",
        false,
    )
}
