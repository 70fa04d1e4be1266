use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use lendhub_domain::partner::scope::PartnerScope;
use lendhub_http::idempotency::{MaybeIdempotent, Prepared};
use lendhub_http::json::JsonBody;
use serde::Deserialize;
use utoipa::ToSchema;

use super::create::PayoutAccountInput;
use crate::flows::payout_account;
use crate::partner::error::PartnerError;
use crate::partner::rest::caller::RestCaller;
use crate::partner::state::PartnerState;
use crate::views::sub_account::SubAccountView;

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateSubAccount {
    /// Where its payouts are paid from now on (a UK account,
    /// modulus-checked). Its failed payouts are issued again to it.
    #[schema(required = true)]
    payout_account: Option<PayoutAccountInput>,
}

/// Change where a sub-account (beta) is paid. Its payouts that failed (the
/// receiving bank refused them, or it had no payout account) are issued
/// again to the new account at once, under new end-to-end ids: `pending`,
/// then `in_transit`, then `paid` (`payout.paid`) or `failed` again.
#[utoipa::path(post, operation_id = "updateSubAccount", path = "/sub-accounts/{id}", tag = "sub-accounts",
    security(("oauth2" = ["accounts.manage"]), ("api_key" = [])),
    params(("id" = String, Path, description = "sub_…"), ("Idempotency-Key" = Option<String>, Header)),
    request_body = UpdateSubAccount,
    responses((status = 200, body = SubAccountView), (status = 400, description = "invalid_json, unknown_field"),
        (status = 401, description = "credentials"), (status = 403, description = "insufficient_scope"),
        (status = 404, description = "not_found: no such sub-account of yours in this environment"),
        (status = 409, description = "a payout moved meanwhile; send it again"),
        (status = 422, description = "validation_failed (payout_account required; modulus_check_failed)")))]
pub async fn update(
    State(state): State<PartnerState>,
    caller: RestCaller,
    Path(id): Path<String>,
    MaybeIdempotent(key): MaybeIdempotent,
    body: JsonBody<UpdateSubAccount>,
) -> Result<Response, PartnerError> {
    let write = caller.begin_write(&state, PartnerScope::AccountsManage)?;
    state
        .idempotency
        .run_maybe(write.guarded(&key, &body.raw), || async {
            let request = body
                .value
                .payout_account
                .as_ref()
                .map(PayoutAccountInput::request);
            let (changed, writes) = payout_account::change(
                &state.flows,
                &write.owner,
                &id,
                request.as_ref(),
                write.now,
            )
            .await?;
            Ok(Prepared::json(
                StatusCode::OK,
                &SubAccountView::new(&changed),
                writes,
            )?)
        })
        .await
}
