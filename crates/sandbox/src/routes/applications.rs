use axum::body::Bytes;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use lendhub_domain::sandbox::application::Application;
use lendhub_domain::sandbox::decisioning::decide;
use lendhub_domain::sandbox::events::EventType;
use lendhub_domain::sandbox::ids::{ApplicationId, SandboxId, kind};
use lendhub_domain::sandbox::payment::{BankAccount, PaymentStatus};
use lendhub_http::FieldIssue;
use lendhub_http::idempotency::{Idempotent, Prepared};
use lendhub_http::json::JsonBody;
use lendhub_store::{EventWrite, SandboxWrite, WriteSet};
use serde::Deserialize;
use utoipa::ToSchema;

use crate::auth::{Reader, Writer};
use crate::error::SandboxError;
use crate::event_log::event;
use crate::path_id::PathId;
use crate::routes::events::json_response;
use crate::state::SandboxState;
use crate::views::{
    ApplicationView, DecisionView, ErrorEnvelope, PaymentView, application_record,
    record_with_view, render_application,
};
use lendhub_domain::money::Money;
use lendhub_domain::tenant::Tenant;
use lendhub_system::NewRandom;

pub const MIN_AMOUNT_PENCE: i64 = 5_000;
pub const MAX_AMOUNT_PENCE: i64 = 250_000_000;

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateApplication {
    #[schema(required = true)]
    business: Option<BusinessInput>,
    /// 5000 to 250000000 inclusive.
    #[schema(required = true, minimum = 5000, maximum = 250000000)]
    amount_pence: Option<i64>,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct BusinessInput {
    /// Exactly 8 digits.
    #[schema(required = true, pattern = "^[0-9]{8}$")]
    company_number: Option<String>,
}

fn validate(body: &CreateApplication) -> Result<(String, i64), SandboxError> {
    let mut issues = Vec::new();
    let number = body
        .business
        .as_ref()
        .and_then(|b| b.company_number.as_deref());
    match number {
        None => issues.push(FieldIssue::new(
            if body.business.is_none() {
                "business"
            } else {
                "business.company_number"
            },
            "required",
        )),
        Some(n) if n.len() != 8 || !n.bytes().all(|b| b.is_ascii_digit()) => {
            issues.push(FieldIssue::new("business.company_number", "pattern"))
        }
        Some(_) => {}
    }
    match body.amount_pence {
        None => issues.push(FieldIssue::new("amount_pence", "required")),
        Some(a) if a < MIN_AMOUNT_PENCE => {
            issues.push(FieldIssue::new("amount_pence", "min_value"))
        }
        Some(a) if a > MAX_AMOUNT_PENCE => {
            issues.push(FieldIssue::new("amount_pence", "max_value"))
        }
        Some(_) => {}
    }
    match (number, body.amount_pence) {
        (Some(n), Some(a)) if issues.is_empty() => Ok((n.to_owned(), a)),
        _ => Err(SandboxError::Validation(issues)),
    }
}

/// Create an application; the response carries its deterministic decision.
#[utoipa::path(post, operation_id = "createApplication", path = "/v1/applications", tag = "applications", security(("oauth2" = ["sandbox:write"])),
    params(("Idempotency-Key" = String, Header, description = "8 to 128 characters")),
    request_body = CreateApplication,
    responses((status = 201, body = ApplicationView),
        (status = 400, body = ErrorEnvelope), (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope),
        (status = 409, body = ErrorEnvelope), (status = 413, body = ErrorEnvelope), (status = 415, body = ErrorEnvelope),
        (status = 422, body = ErrorEnvelope)))]
pub async fn create(
    State(state): State<SandboxState>,
    Writer(caller): Writer,
    idempotent: Idempotent,
    body: JsonBody<CreateApplication>,
) -> Result<Response, SandboxError> {
    let guarded = idempotent.by(&caller.tenant, &body.raw, caller.now(&state));
    state
        .idempotency
        .run_pure(guarded, || async {
            let (company_number, amount) = validate(&body.value)?;
            let now = caller.now(&state);
            let id = SandboxId::new_random(lendhub_domain::clock::unix_ms(now) as u64);
            let decision = decide(&company_number, amount);
            let app = Application::new(
                id,
                caller.tenant.clone(),
                company_number,
                Money::pence(amount),
                decision,
                now,
            );
            let view = render_application(&app)?;
            let mut writes = WriteSet::default();
            writes
                .push(EventWrite::InsertEvent(event(
                    &caller.tenant,
                    EventType::ApplicationCreated,
                    &view,
                    now,
                )?))
                .push(EventWrite::InsertEvent(event(
                    &caller.tenant,
                    EventType::DecisionCompleted,
                    &DecisionView::from(&app),
                    now,
                )?));
            let body = view.get().as_bytes().to_vec();
            writes.push(SandboxWrite::InsertApplication(record_with_view(app, view)));
            Ok(Prepared::raw(StatusCode::CREATED, body, writes))
        })
        .await
}

pub(crate) async fn load(
    state: &SandboxState,
    owner: &Tenant,
    id: &ApplicationId,
) -> Result<Application, SandboxError> {
    state
        .sandbox
        .application(owner, id)
        .await?
        .ok_or(SandboxError::NotFound("application"))
}

/// Retrieve an application you own.
#[utoipa::path(get, operation_id = "getApplication", path = "/v1/applications/{id}", tag = "applications", security(("oauth2" = ["sandbox:read"])),
    params(("id" = String, Path, pattern = "^[0-9A-HJKMNP-TV-Z]{26}$")),
    responses((status = 200, body = ApplicationView), (status = 401, body = ErrorEnvelope),
        (status = 403, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope)))]
pub async fn get(
    State(state): State<SandboxState>,
    Reader(caller): Reader,
    PathId(id): PathId<kind::Application>,
) -> Result<Response, SandboxError> {
    // Served as rendered at the last write: no decode, no re-encode. Polled
    // far more often than it changes, so kept at its version as well, and a
    // repeat costs a probe of the version (none at all on SQLite while
    // nothing has been written) instead of a read of the body. With nothing
    // kept, the body's read brings its version: no probe.
    let key = (caller.tenant, id.as_str().to_owned());
    if state.application_pages.holds(&key)
        && let Some(version) = state
            .sandbox
            .sandbox_application_version(&key.0, &id)
            .await?
        && let Some(body) = state.application_pages.get(&key, &version)
    {
        return Ok(json_response(body));
    }
    let rendered = state
        .sandbox
        .rendered_application(&key.0, &id)
        .await?
        .ok_or(SandboxError::NotFound("application"))?;
    let body = Bytes::from(rendered.body);
    state
        .application_pages
        .put(key, rendered.version, body.clone());
    Ok(json_response(body))
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AcceptApplication {
    /// `bank_settle` funds the loan; `bank_fail` fails the disbursement.
    #[schema(
        required = true,
        pattern = "^(bank_settle|bank_fail)$",
        example = "bank_settle"
    )]
    bank_account: Option<String>,
}

/// Accept the offer; the simulated bank account decides the funding outcome.
#[utoipa::path(post, operation_id = "acceptApplication", path = "/v1/applications/{id}/accept", tag = "applications", security(("oauth2" = ["sandbox:write"])),
    params(("id" = String, Path, pattern = "^[0-9A-HJKMNP-TV-Z]{26}$"), ("Idempotency-Key" = String, Header)),
    request_body = AcceptApplication,
    responses((status = 200, body = ApplicationView), (status = 400, body = ErrorEnvelope),
        (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope),
        (status = 409, description = "not approved or funding_failed", body = ErrorEnvelope), (status = 413, body = ErrorEnvelope), (status = 415, body = ErrorEnvelope), (status = 422, body = ErrorEnvelope)))]
pub async fn accept(
    State(state): State<SandboxState>,
    Writer(caller): Writer,
    PathId(id): PathId<kind::Application>,
    idempotent: Idempotent,
    body: JsonBody<AcceptApplication>,
) -> Result<Response, SandboxError> {
    let guarded = idempotent.by(&caller.tenant, &body.raw, caller.now(&state));
    state
        .idempotency
        .run(guarded, || async {
            let bank = match body.value.bank_account.as_deref() {
                None => {
                    return Err(SandboxError::Validation(vec![FieldIssue::new(
                        "bank_account",
                        "required",
                    )]));
                }
                Some(raw) => BankAccount::parse(raw).ok_or_else(|| {
                    SandboxError::Validation(vec![FieldIssue::new("bank_account", "one_of")])
                })?,
            };
            let app = load(&state, &caller.tenant, &id).await?;
            let now = caller.now(&state);
            let payment_id = SandboxId::new_random(lendhub_domain::clock::unix_ms(now) as u64);
            let next = app
                .accept(bank, payment_id, now)
                .map_err(|e| SandboxError::Conflict(e.to_string()))?;
            let view = ApplicationView::from(&next);
            let mut writes = WriteSet::default();
            writes.push(EventWrite::InsertEvent(event(
                &caller.tenant,
                EventType::OfferAccepted,
                &view,
                now,
            )?));
            if let Some(funding) = &next.funding {
                let payment = PaymentView::from(funding);
                if funding.status == PaymentStatus::Settled {
                    writes.push(EventWrite::InsertEvent(event(
                        &caller.tenant,
                        EventType::PaymentSettled,
                        &payment,
                        now,
                    )?));
                    writes.push(EventWrite::InsertEvent(event(
                        &caller.tenant,
                        EventType::AccountActivated,
                        &view,
                        now,
                    )?));
                } else {
                    writes.push(EventWrite::InsertEvent(event(
                        &caller.tenant,
                        EventType::PaymentFailed,
                        &payment,
                        now,
                    )?));
                }
                writes.push(SandboxWrite::InsertPayment(funding.clone()));
            }
            writes.push(SandboxWrite::UpdateApplication(application_record(&next)?));
            Ok(Prepared::json(StatusCode::OK, &view, writes)?)
        })
        .await
}
