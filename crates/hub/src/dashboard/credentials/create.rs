use super::*;

/// `POST /dashboard/credentials/api-keys`: a new secret API key of the
/// environment on screen, with the scopes named (blank: every scope the
/// partner holds; never more), shown on the answer and never again. The
/// form's id is recorded in the same commit, so a resubmitted form makes no
/// second key.
pub async fn create(
    State(state): State<DashboardState>,
    staff: Staff,
    Form(form): Form<CredentialForm>,
) -> Response {
    let Target {
        env,
        client,
        form: action,
        now,
    } = match target(&state, &staff, &form).await {
        Ok(t) => t,
        Err(refused) => return refused.page(),
    };
    let scopes = match scopes_asked(&form) {
        Ok(s) => s,
        Err(raw) => return bad_scopes(raw),
    };
    let at_ms = state.clock.now_ms();
    let created =
        match crate::partner::api_keys::mint(&client, env.credentials(), scopes.as_ref(), at_ms) {
            Ok(c) => c,
            Err(crate::partner::api_keys::KeyError::ScopeNotHeld(s)) => return bad_scopes(&s),
            Err(_) => return unavailable(),
        };
    let owner = tenant(&staff, env);
    let Some(record) = once(&action, &owner, "api_key.create", now) else {
        return forbidden(EXPIRED);
    };
    let mut writes = WriteSet::default();
    writes
        .push(lendhub_store::AccessWrite::InsertApiKey(
            created.record.clone(),
        ))
        .push(audit_line(
            &staff,
            "api_key.create",
            &created.id,
            env,
            at_ms,
        ));
    let note = format!(
        "It works under /{}/v1 with the scopes {}.",
        match env {
            Environment::Live => "partner",
            Environment::Test => "sandbox",
        },
        created.record.scopes
    );
    let shown = ShownOnce {
        f: Frame::of(&state, &staff, env),
        heading: format!("New API key {}", created.id),
        what: "API key",
        value: created.key.into_exposed(),
        note,
    };
    make_once(&state, writes, record, shown).await
}
