use super::*;

#[derive(Template)]
#[template(path = "dashboard/secret.html")]
struct SecretShown {
    f: Frame,
    endpoint: String,
    secret: String,
    previous_until: String,
}

/// How long the replaced secret still signs (beside the new one): a day, as
/// the API's default.
const OVERLAP: time::Duration = time::Duration::days(1);

/// `POST /dashboard/webhooks/{id}/roll-secret`: a new signing secret, shown
/// on the answer and never again. The form's id is recorded as an
/// idempotency key in the same commit, so a second submission of the same
/// form rolls nothing (and cannot show the secret again).
pub async fn roll_secret(
    State(state): State<DashboardState>,
    staff: Staff,
    Path(id): Path<String>,
    Form(form): Form<ActionForm>,
) -> Response {
    use lendhub_store::{EventWrite, WriteSet};
    use lendhub_system::Seal;
    let Target {
        env, owner, now, ..
    } = match target(&state, &staff, &form, &id).await {
        Ok(t) => t,
        Err(refused) => return refused.page(),
    };
    let secret = lendhub_system::webhook_secret();
    let until = time::OffsetDateTime::now_utc() + OVERLAP;
    let at_ms = state.clock.now_ms();
    let mut writes = WriteSet::default();
    writes
        .push(EventWrite::RotateEndpointSecret {
            id: id.clone(),
            owner: owner.clone(),
            sealed_secret: state
                .master_key
                .seal(lendhub_webhooks::SECRET_PURPOSE, secret.as_bytes()),
            previous_expires_at_ms: lendhub_domain::clock::unix_ms(until),
        })
        .push(audit_line(
            &staff,
            "webhook_endpoint.roll_secret",
            &id,
            env,
            at_ms,
        ));
    // Only that the form was used: never the secret.
    let Some(record) = once(&form, &owner, &id, now) else {
        return forbidden(EXPIRED);
    };
    writes.idempotency = Some(record);
    match state.flows.commit(writes).await {
        Ok(()) => screen(
            &state,
            StatusCode::OK,
            &SecretShown {
                f: Frame::of(&state, &staff, env),
                endpoint: id,
                secret,
                previous_until: lendhub_domain::people::moment(until),
            },
        ),
        Err(CommitError::IdempotencyKeyTaken) => crate::dashboard::refusals::problem(
            StatusCode::CONFLICT,
            "This form was already used",
            "The secret was rolled and shown when it was first submitted. If you did not keep it, roll it again from the webhooks page.",
            false,
        ),
        Err(CommitError::Conflict) => not_found(),
        Err(_) => unavailable(),
    }
}
