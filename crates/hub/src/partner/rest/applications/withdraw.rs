use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use lendhub_domain::lending::application::{CannotWithdraw, Status, check_withdraw_reason};
use lendhub_domain::partner::scope::PartnerScope;
use lendhub_domain::sandbox::events::EventType;
use lendhub_http::idempotency::{MaybeIdempotent, Prepared};
use lendhub_http::json::OptionalJsonBody;
use lendhub_store::{EventWrite, LendingWrite, WriteSet};
use serde::Deserialize;
use utoipa::ToSchema;

use crate::flows::events::event;
use crate::flows::lending::find;
use crate::partner::error::PartnerError;
use crate::partner::rest::caller::RestCaller;
use crate::partner::state::PartnerState;
use crate::views::application::ApplicationView;

#[derive(Deserialize, ToSchema, Default)]
#[serde(deny_unknown_fields)]
pub struct WithdrawApplication {
    /// Why (up to 500 characters); kept on the application.
    reason: Option<String>,
}

fn refused(e: CannotWithdraw) -> PartnerError {
    PartnerError::Conflict(match e {
        CannotWithdraw::Closed(Status::Funded) => {
            "the application is funded: it cannot be withdrawn"
        }
        CannotWithdraw::Closed(Status::Declined) => {
            "the application was declined: there is nothing to withdraw"
        }
        CannotWithdraw::Closed(_) => "the application has expired: there is nothing to withdraw",
        CannotWithdraw::Disbursing => {
            "the loan is being paid out: the money is committed to the borrower's account, so the application can no longer be withdrawn"
        }
    })
}

/// Withdraw an application before it is funded (`application.withdrawn`).
/// Withdrawing it again answers 200 and changes nothing; a funded
/// application is 409 `conflict`, and so is a signed one whose payout the
/// lender has started (the money is committed); until then, a withdrawal
/// cancels the payout.
#[utoipa::path(post, operation_id = "withdrawApplication", path = "/applications/{id}/withdraw", tag = "applications",
    security(("oauth2" = ["applications.write"]), ("api_key" = [])),
    params(("id" = String, Path, description = "app_…"),
        ("Idempotency-Key" = Option<String>, Header, description = "optional; 8 to 128 characters")),
    request_body(content = Option<WithdrawApplication>, description = "optional"),
    responses((status = 200, body = ApplicationView),
        (status = 400, description = "invalid_json, unknown_field, idempotency_key_malformed"),
        (status = 401, description = "credentials"), (status = 403, description = "insufficient_scope"),
        (status = 404, description = "not_found"),
        (status = 409, description = "conflict: funded (or declined, or expired), or its payout already started; or changed concurrently"),
        (status = 422, description = "validation_failed: reason too long")))]
pub async fn withdraw(
    State(state): State<PartnerState>,
    caller: RestCaller,
    Path(id): Path<String>,
    MaybeIdempotent(key): MaybeIdempotent,
    body: OptionalJsonBody<WithdrawApplication>,
) -> Result<Response, PartnerError> {
    let write = caller.begin_write(&state, PartnerScope::ApplicationsWrite)?;
    let (owner, now) = (&write.owner, write.now);
    state
        .idempotency
        .run_maybe(write.guarded(&key, &body.raw), || async {
            let reason = body.value.reason.clone();
            check_withdraw_reason(reason.as_deref())?;
            let current = find(&state.flows, owner, &id).await?;
            let mut writes = WriteSet::default();
            let shown = match current.withdraw(reason, now).map_err(refused)? {
                None => current,
                Some(withdrawn) => {
                    let view = ApplicationView::new(&withdrawn, &state.links);
                    let announced = event(owner, EventType::ApplicationWithdrawn, &view, now)
                        .map_err(|e| PartnerError::Internal(e.to_string()))?;
                    writes
                        .push(LendingWrite::UpdateApplication(withdrawn.clone()))
                        .push(EventWrite::InsertEvent(announced));
                    withdrawn
                }
            };
            Ok(Prepared::json(
                StatusCode::OK,
                &ApplicationView::new(&shown, &state.links),
                writes,
            )?)
        })
        .await
}
