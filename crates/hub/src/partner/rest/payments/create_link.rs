use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use lendhub_domain::partner::scope::PartnerScope;
use lendhub_domain::servicing::link_request::{self, LinkRequest};
use lendhub_http::idempotency::{Idempotent, Prepared};
use lendhub_http::json::JsonBody;
use serde::Deserialize;
use serde_json::Value;
use utoipa::ToSchema;

use crate::flows::payment_links;
use crate::partner::error::PartnerError;
use crate::partner::rest::caller::RestCaller;
use crate::partner::state::PartnerState;
use crate::views::payment::PaymentView;

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreatePaymentLink {
    #[schema(
        required = true,
        pattern = "^acc_[0-7][0-9A-HJKMNP-TV-Z]{25}$",
        example = "acc_01KQ3V1Y2C8WZ3R5T6Y7X819D0"
    )]
    account_id: Option<String>,
    /// Integer pence, from 1 to 50,000,000 (£500,000) and at most the
    /// account's payoff.
    #[schema(required = true, value_type = i64, minimum = 1, maximum = 50_000_000, example = 46589)]
    amount_pence: Option<Value>,
    /// At most 18 characters (Faster Payments carries 18).
    #[schema(max_length = 18, example = "INV-0001")]
    reference: Option<String>,
    /// Shown to the payer; at most 500 characters.
    description: Option<String>,
    /// Where the pay page sends the payer afterwards (https).
    #[schema(
        pattern = "^https://([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\\.(?![0-9]+([:/]|$))(?!0[xX][0-9A-Fa-f]*([:/]|$))[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?|(25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])(\\.(25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])){3})(/[!-~]*)?$"
    )]
    redirect_url: Option<String>,
    /// RFC 3339, in the future; default 7 days.
    #[schema(format = DateTime)]
    expires_at: Option<String>,
}

impl CreatePaymentLink {
    fn request(&self) -> LinkRequest {
        LinkRequest {
            account_id: self.account_id.clone(),
            amount_pence: self.amount_pence.clone(),
            reference: self.reference.clone(),
            description: self.description.clone(),
            redirect_url: self.redirect_url.clone(),
            expires_at: self.expires_at.clone(),
        }
    }
}

/// A hosted payment link for a repayment of one of your accounts: 201 with
/// its `url` on the pay page and `payment.created`. The payer pays it by
/// open banking; `payment.processing`, then `payment.paid` (a collection on
/// the ledger) or `payment.failed` follow.
#[utoipa::path(post, operation_id = "createPaymentLink", path = "/payments/links", tag = "payments",
    security(("oauth2" = ["payments.write"]), ("api_key" = [])),
    params(("Idempotency-Key" = String, Header, description = "required; 8 to 128 characters")),
    request_body = CreatePaymentLink,
    responses((status = 201, body = PaymentView),
        (status = 400, description = "invalid_json, unknown_field, idempotency_key_malformed (also when the required key is missing)"),
        (status = 401, description = "credentials"), (status = 403, description = "insufficient_scope"),
        (status = 404, description = "not_found: no such account of yours in this environment"),
        (status = 409, description = "conflict: the account is settled or closed, or amount_pence is more than its payoff; idempotency_key_reused or idempotency_key_in_progress"),
        (status = 413, description = "payload_too_large"), (status = 415, description = "unsupported_media_type"),
        (status = 422, description = "validation_failed (detail names each field)"),
        (status = 429, description = "rate_limited (10 per second on this route)")))]
pub async fn create_link(
    State(state): State<PartnerState>,
    caller: RestCaller,
    key: Idempotent,
    body: JsonBody<CreatePaymentLink>,
) -> Result<Response, PartnerError> {
    let write = caller.begin_write(&state, PartnerScope::PaymentsWrite)?;
    let key = Some(key);
    state
        .idempotency
        .run_maybe(write.guarded(&key, &body.raw), || async {
            let link = link_request::check(&body.value.request(), write.now)?;
            let (view, writes) =
                payment_links::create(&state.flows, &write.owner, link, write.now).await?;
            Ok(Prepared::json(StatusCode::CREATED, &view, writes)?)
        })
        .await
}
