use axum::extract::{OriginalUri, Path, State};
use axum::http::{HeaderMap, Method, StatusCode};
use axum::response::Response;
use lendhub_domain::partner::scope::PartnerScope;
use lendhub_http::idempotency::{Idempotent, Prepared};
use lendhub_http::json::JsonBody;
use serde::Deserialize;
use utoipa::ToSchema;

use crate::flows::refund;
use crate::partner::error::PartnerError;
use crate::partner::request_keys::{SignedRequest, check};
use crate::partner::rest::caller::RestCaller;
use crate::partner::state::PartnerState;
use crate::views::payment::PaymentView;

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RefundPayment {
    /// Why, for the ledger and the payer (at most 500 characters).
    #[schema(example = "paid twice")]
    reason: Option<String>,
}

/// Refund a paid payment in full (the seed: full refunds only): `refunded`
/// and `payment.refunded`; the payout rail pays the money back to the payer,
/// and once it has, the refund is on the account's statement (negative: the
/// borrower owes it again). Money
/// leaves the lender, so the request must be signed with one of your
/// registered request-signing keys (/docs/guide/request-signing.html).
#[utoipa::path(post, operation_id = "refundPayment", path = "/payments/{id}/refund", tag = "payments",
    security(("oauth2" = ["payments.write"]), ("api_key" = [])),
    params(("id" = String, Path, description = "pay_…"),
        ("Idempotency-Key" = String, Header, description = "required; 8 to 128 characters; signed"),
        ("Service-Request-Signature" = String, Header, description = "t=<unix>,kid=<rsk_…>,ed25519=<base64url>")),
    request_body = RefundPayment,
    responses((status = 200, body = PaymentView),
        (status = 400, description = "signature_invalid, invalid_json, unknown_field, idempotency_key_malformed (also when missing)"),
        (status = 401, description = "credentials"), (status = 403, description = "insufficient_scope"),
        (status = 404, description = "not_found: no such payment of yours in this environment"),
        (status = 409, description = "conflict: only a paid payment can be refunded; idempotency_key_reused or idempotency_key_in_progress"),
        (status = 422, description = "validation_failed: reason too long")))]
#[allow(clippy::too_many_arguments)]
pub async fn refund(
    State(state): State<PartnerState>,
    caller: RestCaller,
    method: Method,
    OriginalUri(uri): OriginalUri,
    headers: HeaderMap,
    key: Idempotent,
    Path(id): Path<String>,
    body: JsonBody<RefundPayment>,
) -> Result<Response, PartnerError> {
    let write = caller.begin_write(&state, PartnerScope::PaymentsWrite)?;
    let path_and_query = uri.path_and_query().map_or(uri.path(), |p| p.as_str());
    check(
        &state,
        &caller.client.client_id,
        &SignedRequest {
            headers: &headers,
            method: method.as_str(),
            path_and_query,
            idempotency_key: &key.key,
            body: &body.raw,
        },
    )
    .await?;
    let key = Some(key);
    state
        .idempotency
        .run_maybe(write.guarded(&key, &body.raw), || async {
            let reason = body.value.reason.as_deref();
            let (view, writes) =
                refund::refund(&state.flows, &write.owner, &id, reason, write.now).await?;
            Ok(Prepared::json(StatusCode::OK, &view, writes)?)
        })
        .await
}
