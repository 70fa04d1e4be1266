use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use lendhub_domain::lending::kyc::Request;
use lendhub_domain::partner::scope::PartnerScope;
use lendhub_http::idempotency::{MaybeIdempotent, Prepared};
use lendhub_http::json::JsonBody;
use serde::Deserialize;
use utoipa::ToSchema;

use crate::flows::check_person::check_person;
use crate::partner::error::PartnerError;
use crate::partner::rest::caller::RestCaller;
use crate::partner::state::PartnerState;
use crate::views::verification::VerificationView;

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PersonInput {
    #[schema(required = true, min_length = 1, max_length = 100, example = "Ada")]
    first_name: Option<String>,
    #[schema(
        required = true,
        min_length = 1,
        max_length = 100,
        example = "Lovelace"
    )]
    last_name: Option<String>,
    /// YYYY-MM-DD; at least 16 years before today.
    #[schema(required = true, format = Date, example = "1985-04-12")]
    date_of_birth: Option<String>,
    #[schema(example = "SW1A 1AA")]
    postcode: Option<String>,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateIdentityCheck {
    #[schema(required = true)]
    person: Option<PersonInput>,
    /// The company whose officer the person should be; defaults to the
    /// application's. Without either, directorship is not checked.
    #[schema(pattern = "^([0-9]{8}|[A-Z]{2}[0-9]{6})$")]
    company_number: Option<String>,
    /// `app_…` of yours: links the check, and echoes its reference.
    #[schema(pattern = "^app_[0-7][0-9A-HJKMNP-TV-Z]{25}$")]
    application_id: Option<String>,
}

/// Check a person's identity, sanctions and PEP status, and (with a company)
/// that they are its officer. The answer and its event
/// (`identity.verified`, or `identity.review_required` with the flags that
/// need a person to look) come at once.
#[utoipa::path(post, operation_id = "createIdentityCheck", path = "/identity/checks", tag = "identity",
    security(("oauth2" = ["identity.write"]), ("api_key" = [])),
    params(("Idempotency-Key" = Option<String>, Header, description = "optional; 8 to 128 characters")),
    request_body = CreateIdentityCheck,
    responses((status = 201, body = VerificationView),
        (status = 400, description = "invalid_json, unknown_field, idempotency_key_malformed"),
        (status = 401, description = "credentials"), (status = 403, description = "insufficient_scope"),
        (status = 404, description = "not_found: the application is not yours"),
        (status = 409, description = "idempotency_key_reused or idempotency_key_in_progress"),
        (status = 413, description = "payload_too_large"), (status = 415, description = "unsupported_media_type"),
        (status = 422, description = "validation_failed (detail names each field)"),
        (status = 429, description = "rate_limited (5 per second on this route)"),
        (status = 503, description = "service_unavailable: the person register could not be asked")))]
pub async fn create(
    State(state): State<PartnerState>,
    caller: RestCaller,
    MaybeIdempotent(key): MaybeIdempotent,
    body: JsonBody<CreateIdentityCheck>,
) -> Result<Response, PartnerError> {
    let write = caller.begin_write(&state, PartnerScope::IdentityWrite)?;
    let (owner, now) = (&write.owner, write.now);
    state
        .idempotency
        .run_maybe(write.guarded(&key, &body.raw), || async {
            let input = &body.value;
            let person = input.person.as_ref();
            let request = Request {
                first_name: person.and_then(|p| p.first_name.clone()),
                last_name: person.and_then(|p| p.last_name.clone()),
                date_of_birth: person.and_then(|p| p.date_of_birth.clone()),
                postcode: person.and_then(|p| p.postcode.clone()),
                company_number: input.company_number.clone(),
                application_id: input.application_id.clone(),
            };
            let (_, view, writes) = check_person(&state.flows, owner, &request, now).await?;
            Ok(Prepared::json(StatusCode::CREATED, &view, writes)?)
        })
        .await
}
