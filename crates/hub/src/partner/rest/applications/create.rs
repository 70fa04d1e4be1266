use std::collections::BTreeMap;

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use lendhub_domain::lending::application::{Applicant, Request};
use lendhub_domain::partner::scope::PartnerScope;
use lendhub_http::idempotency::{MaybeIdempotent, Prepared};
use lendhub_http::json::JsonBody;
use serde::Deserialize;
use utoipa::ToSchema;

use crate::flows::open_application::{Opener, open};
use crate::partner::error::PartnerError;
use crate::partner::rest::caller::RestCaller;
use crate::partner::state::PartnerState;
use crate::views::application::ApplicationView;

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct BusinessInput {
    /// 8 characters: eight digits, or two letters (`SC`, `NI`, `OC`, …) and six digits.
    #[schema(
        required = true,
        pattern = "^([0-9]{2}|[A-Z]{2})[0-9]{6}$",
        example = "00000401"
    )]
    company_number: Option<String>,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ApplicantInput {
    /// Required if there is no `redirect_uri`. At most 254 characters: a
    /// local part, `@`, and a domain with a dot, without white space.
    #[schema(
        max_length = 254,
        pattern = "^[^@\\s\\u0000-\\u001F\\u007F-\\u009F\\u202A-\\u202E\\u2066-\\u2069]+@[^.\\s\\u0000-\\u001F\\u007F-\\u009F\\u202A-\\u202E\\u2066-\\u2069][^\\s\\u0000-\\u001F\\u007F-\\u009F\\u202A-\\u202E\\u2066-\\u2069]*\\.[^\\s\\u0000-\\u001F\\u007F-\\u009F\\u202A-\\u202E\\u2066-\\u2069]*$",
        example = "founder@healthy-widgets.example"
    )]
    email: Option<String>,
    /// Pre-fills the hosted journey.
    first_name: Option<String>,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateApplication {
    #[schema(required = true)]
    business: Option<BusinessInput>,
    /// 100000 to 25000000 inclusive (integer pence).
    #[schema(
        required = true,
        minimum = 100000,
        maximum = 25000000,
        example = 1000000
    )]
    amount_pence: Option<i64>,
    #[schema(required = true, minimum = 3, maximum = 60, example = 24)]
    term_months: Option<i64>,
    /// working_capital, asset_finance, expansion, refinance or stock.
    #[schema(example = "working_capital")]
    purpose: Option<String>,
    applicant: Option<ApplicantInput>,
    /// HTTPS: where the hosted journey returns the applicant, with `application_id` appended.
    #[schema(
        pattern = "^https://([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\\.(?![0-9]+([:/]|$))(?!0[xX][0-9A-Fa-f]*([:/]|$))[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?|(25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])(\\.(25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])){3})(/[!-~]*)?$"
    )]
    redirect_uri: Option<String>,
    /// Yours (up to 100 characters), echoed on every object and event.
    reference: Option<String>,
    /// `sub_…`: one of your sub-accounts (beta), the distribution partner
    /// the deal is attributed to; the loan keeps it (`sub_account_id`).
    #[schema(pattern = "^sub_[0-7][0-9A-HJKMNP-TV-Z]{25}$")]
    introduction_id: Option<String>,
    /// Your own attribution of the deal — the channel, campaign or merchant
    /// it came through: up to 64 of `A-Z a-z 0-9 . _ : / -`. Frozen on the
    /// loan and shown on its statement line.
    #[schema(
        example = "merchant:4471",
        pattern = "^[A-Za-z0-9._:/-]+$",
        min_length = 1,
        max_length = 64
    )]
    partner_ref: Option<String>,
    /// Up to 20 string pairs, returned verbatim.
    #[serde(default)]
    metadata: BTreeMap<String, String>,
}

impl CreateApplication {
    fn request(&self) -> Request {
        let applicant = self.applicant.as_ref();
        Request {
            company_number: self
                .business
                .as_ref()
                .and_then(|b| b.company_number.clone()),
            amount_pence: self.amount_pence,
            term_months: self.term_months,
            purpose: self.purpose.clone(),
            applicant: Applicant {
                email: applicant.and_then(|a| a.email.clone()),
                first_name: applicant.and_then(|a| a.first_name.clone()),
            },
            redirect_uri: self.redirect_uri.clone(),
            reference: self.reference.clone(),
            introduction_id: self.introduction_id.clone(),
            partner_ref: self.partner_ref.clone(),
            metadata: self.metadata.clone(),
        }
    }
}

/// Start an application. The company is looked up on the register:
/// limited companies and LLPs only (sole traders, partnerships and
/// dissolved companies are 422 `validation_failed`, reason `not_eligible`).
/// Send the applicant to `handoff_url`.
#[utoipa::path(post, operation_id = "createApplication", path = "/applications", tag = "applications",
    security(("oauth2" = ["applications.write"]), ("api_key" = [])),
    params(("Idempotency-Key" = Option<String>, Header, description = "optional; 8 to 128 characters")),
    request_body = CreateApplication,
    responses((status = 201, body = ApplicationView),
        (status = 400, description = "invalid_json, unknown_field, idempotency_key_malformed"),
        (status = 401, description = "credentials"), (status = 403, description = "insufficient_scope"),
        (status = 409, description = "idempotency_key_reused or idempotency_key_in_progress"),
        (status = 413, description = "payload_too_large"), (status = 415, description = "unsupported_media_type"),
        (status = 422, description = "validation_failed: a rule of a field (detail names each), `introduction_id` not one of your sub-accounts (`unknown_sub_account`), the company not on the register (`not_found`), not eligible (`not_eligible`), or declined for you within the last 30 days (`cooling_off`, `bound` the moment it may apply again)"),
        (status = 429, description = "rate_limited (5 per second on this route)"),
        (status = 503, description = "service_unavailable: the company register could not be asked")))]
pub async fn create(
    State(state): State<PartnerState>,
    caller: RestCaller,
    MaybeIdempotent(key): MaybeIdempotent,
    body: JsonBody<CreateApplication>,
) -> Result<Response, PartnerError> {
    let write = caller.begin_write(&state, PartnerScope::ApplicationsWrite)?;
    let by = Opener {
        owner: &write.owner,
        client_id: &caller.client.client_id,
        client_name: &caller.client.name,
    };
    state
        .idempotency
        .run_maybe(write.guarded(&key, &body.raw), || async {
            let (view, writes) = open(&state.flows, &by, body.value.request(), write.now).await?;
            Ok(Prepared::json(StatusCode::CREATED, &view, writes)?)
        })
        .await
}
