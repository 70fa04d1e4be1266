use axum::extract::{OriginalUri, Path, State};
use axum::http::{HeaderMap, Method, StatusCode};
use axum::response::Response;
use lendhub_domain::partner::scope::PartnerScope;
use lendhub_domain::sandbox::events::EventType;
use lendhub_domain::servicing::ledger::{Entry, EntryKind};
use lendhub_domain::servicing::refund_request;
use lendhub_http::idempotency::{Idempotent, Prepared};
use lendhub_http::json::JsonBody;
use lendhub_store::{EventWrite, LendingWrite};
use serde::Deserialize;
use utoipa::ToSchema;

use super::find;
use crate::flows::events::event;
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

/// Refund a paid payment in full (the seed: full refunds only): `refunded`,
/// a refund entry on the ledger (negative: the money goes back to the
/// payer, so the borrower owes it again) and `payment.refunded`. Money
/// leaves the lender, so the request must be signed with one of your
/// registered request-signing keys (docs/request-signing.md).
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
    let (owner, now) = (&write.owner, write.now);
    let key = Some(key);
    state
        .idempotency
        .run_maybe(write.guarded(&key, &body.raw), || async {
            let reason = refund_request::check(body.value.reason.as_deref())?;
            let payment = find(&state, owner, &id).await?;
            let refunded = payment
                .refunded(reason.clone(), now)
                .map_err(|_| PartnerError::Conflict("only a paid payment can be refunded"))?;
            let account = state
                .lending
                .hub_account(owner, &payment.account_id)
                .await?
                .ok_or_else(|| PartnerError::Internal(format!("payment {id} names no account")))?;
            let entry = Entry::new(
                lendhub_system::new_hub_id(lendhub_domain::clock::unix_ms(now) as u64),
                &account,
                EntryKind::Refund,
                payment
                    .amount
                    .checked_neg()
                    .ok_or_else(|| PartnerError::Internal("an amount out of range".into()))?,
                Some(payment.id.to_string()),
                reason,
                now,
            )
            .map_err(|e| PartnerError::Internal(e.to_string()))?;
            let view = PaymentView::new(&refunded, &state.links);
            let announced = event(owner, EventType::PaymentRefunded, &view, now)
                .map_err(|e| PartnerError::Internal(e.to_string()))?;
            // Owed again once the money goes back: a settled account the
            // refunded payment settled reopens (`account.updated`).
            let mut entries = state.servicing.ledger(owner, &account.id).await?;
            entries.push(entry.clone());
            let mut writes = crate::flows::review_account::writes(&account, &entries, now)?;
            writes
                .push(LendingWrite::UpdatePayment(refunded))
                .push(LendingWrite::PostEntry(entry))
                .push(EventWrite::InsertEvent(announced));
            Ok(Prepared::json(StatusCode::OK, &view, writes)?)
        })
        .await
}
