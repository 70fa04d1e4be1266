use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use lendhub_domain::sandbox::application::ApplicationStatus;
use lendhub_domain::sandbox::events::EventType;
use lendhub_domain::sandbox::ids::{ApplicationId, SandboxId};
use lendhub_domain::sandbox::payment::{PaymentStatus, RepaymentRequest};
use lendhub_http::FieldIssue;
use lendhub_http::idempotency::{Idempotent, Prepared};
use lendhub_http::json::JsonBody;
use lendhub_store::{EventWrite, SandboxWrite, WriteSet};
use serde::Deserialize;
use utoipa::ToSchema;

use crate::auth::Writer;
use crate::error::SandboxError;
use crate::event_log::event;
use crate::routes::applications::load;
use crate::state::SandboxState;
use crate::views::{ApplicationView, ErrorEnvelope, PaymentView, application_record};
use lendhub_domain::money::Money;
use lendhub_system::NewRandom;

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateRepayment {
    /// A funded application you own.
    #[schema(required = true, pattern = "^[0-9A-HJKMNP-TV-Z]{26}$")]
    application_id: Option<String>,
    /// At least 1, at most the outstanding balance. Test amounts 4001–4004 fail (see fixtures).
    #[schema(required = true, minimum = 1)]
    amount_pence: Option<i64>,
}

fn validate(body: &CreateRepayment) -> Result<(ApplicationId, i64), SandboxError> {
    let mut issues = Vec::new();
    let application_id = match body.application_id.as_deref() {
        None => {
            issues.push(FieldIssue::new("application_id", "required"));
            None
        }
        Some(id) => {
            let parsed = ApplicationId::parse(id);
            if parsed.is_none() {
                issues.push(FieldIssue::new("application_id", "pattern"));
            }
            parsed
        }
    };
    match body.amount_pence {
        None => issues.push(FieldIssue::new("amount_pence", "required")),
        Some(a) if a < 1 => issues.push(FieldIssue::new("amount_pence", "min_value")),
        Some(_) => {}
    }
    match (application_id, body.amount_pence) {
        (Some(id), Some(a)) if issues.is_empty() => Ok((id, a)),
        _ => Err(SandboxError::Validation(issues)),
    }
}

/// Create a synthetic repayment against a funded application.
#[utoipa::path(post, operation_id = "createRepayment", path = "/v1/payments", tag = "payments", security(("oauth2" = ["sandbox:write"])),
    params(("Idempotency-Key" = String, Header)),
    request_body = CreateRepayment,
    responses((status = 201, body = PaymentView), (status = 400, body = ErrorEnvelope),
        (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope),
        (status = 409, description = "not funded, or more than is owed", body = ErrorEnvelope), (status = 413, body = ErrorEnvelope),
        (status = 415, body = ErrorEnvelope), (status = 422, body = ErrorEnvelope)))]
pub async fn create(
    State(state): State<SandboxState>,
    Writer(caller): Writer,
    idempotent: Idempotent,
    body: JsonBody<CreateRepayment>,
) -> Result<Response, SandboxError> {
    let guarded = idempotent.by(&caller.tenant, &body.raw, caller.now(&state));
    state
        .idempotency
        .run(guarded, || async {
            let (application_id, amount) = validate(&body.value)?;
            let app = load(&state, &caller.tenant, &application_id).await?;
            let now = caller.now(&state);
            let id = SandboxId::new_random(lendhub_domain::clock::unix_ms(now) as u64);
            let (next, payment) = app
                .repay(
                    RepaymentRequest {
                        amount_pence: Money::pence(amount),
                    },
                    id,
                    now,
                )
                .map_err(|e| SandboxError::Conflict(e.to_string()))?;
            let view = PaymentView::from(&payment);
            let kind = if payment.status == PaymentStatus::Settled {
                EventType::PaymentSettled
            } else {
                EventType::PaymentFailed
            };
            let mut writes = WriteSet::default();
            writes.push(EventWrite::InsertEvent(event(
                &caller.tenant,
                kind,
                &view,
                now,
            )?));
            if next.status == ApplicationStatus::Repaid {
                writes.push(EventWrite::InsertEvent(event(
                    &caller.tenant,
                    EventType::AccountClosed,
                    &ApplicationView::from(&next),
                    now,
                )?));
            }
            writes
                .push(SandboxWrite::InsertPayment(payment))
                .push(SandboxWrite::UpdateApplication(application_record(&next)?));
            Ok(Prepared::json(StatusCode::CREATED, &view, writes)?)
        })
        .await
}
