//! The Variable Recurring Payments API, domestic: standing consents with
//! control parameters (the client's token, `payments` scope), and the
//! payments the client makes under one the payer authorised, without the
//! payer (the payer's token from the code, renewed with its refresh
//! token). POSTs honour `x-idempotency-key` as the payment initiation API
//! does.
//!
//! The bank enforces the consent: a payment over `MaximumIndividualAmount`,
//! or one that would take a period past its `PeriodicLimits`, is refused
//! (`400 UK.OBIE.Rules.FailsControlParameters`); under a consent the payer
//! revoked (`POST /_model/consents/{id}/revoke`) or the client deleted,
//! every payment is refused (`403 UK.OBIE.Resource.InvalidConsentStatus`)
//! and its refresh token no longer works. What becomes of an accepted
//! payment depends on the test account the payer chose, as for single
//! payments (`pis.rs`): `strong`, `thin` settle when next read, `low` is
//! rejected when next read, `closed` at once.

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use lendhub_domain::open_banking::pis::PaymentStatus;
use lendhub_domain::open_banking::vrp::{
    Consent as ConsentData, ConsentRequest, ConsentStatus, Payment as PaymentData, PaymentRequest,
    PeriodAlignment, PeriodType, PeriodicLimit,
};
use serde_json::{Value, json};
use time::{Date, Duration, Month, OffsetDateTime};

use super::oidc::{Grant, bearer};
use super::pis::{
    bad_request, client, created, first_status, next_status, not_found, refused, signed_once,
    unauthorised,
};
use super::{Bank, PISP};

/// A VRP consent and, once authorised, the account payments come from.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub(super) struct VrpConsent {
    pub data: ConsentData,
    pub account: Option<super::AccountKey>,
    /// Revoked by the payer at the bank, or deleted by the client.
    pub revoked: bool,
}

/// A payment made under a consent.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub(super) struct SubmittedVrp {
    pub data: PaymentData,
    pub account: super::AccountKey,
    /// When it counts against the consent's periods: the due date the
    /// client stated (`SupplementaryData.DueDate`), else when it was made.
    #[serde(with = "time::serde::rfc3339")]
    pub counts_at: OffsetDateTime,
}

pub(super) fn routes() -> Router<Bank> {
    Router::new()
        .route(
            &format!("{PISP}/domestic-vrp-consents"),
            post(create_consent),
        )
        .route(
            &format!("{PISP}/domestic-vrp-consents/{{id}}"),
            get(read_consent).delete(delete_consent),
        )
        .route(&format!("{PISP}/domestic-vrps"), post(create_payment))
        .route(&format!("{PISP}/domestic-vrps/{{id}}"), get(read_payment))
}

/// What the consent page says the payer agrees to.
pub(super) fn asks(consent: &VrpConsent) -> Vec<String> {
    let limits = &consent.data.control_parameters;
    let creditor = &consent.data.initiation.creditor_account;
    let per = |l: &PeriodicLimit| {
        let period = match l.period_type {
            PeriodType::Day => "day",
            PeriodType::Week => "week",
            PeriodType::Fortnight => "fortnight",
            PeriodType::Month => "month",
            PeriodType::HalfYear => "half-year",
            PeriodType::Year => "year",
        };
        format!(
            "at most {} {} a {period}",
            l.amount.currency, l.amount.amount
        )
    };
    let mut asks = vec![format!(
        "take payments from your account without asking you each time, to {} (sort code and account {})",
        creditor.name.as_deref().unwrap_or("the payee"),
        creditor.identification,
    )];
    asks.push(format!(
        "at most {} {} a payment",
        limits.maximum_individual_amount.currency, limits.maximum_individual_amount.amount
    ));
    asks.extend(limits.periodic_limits.iter().map(per));
    asks
}

fn consent_document(bank: &Bank, data: &ConsentData) -> Value {
    json!({
        "Data": data,
        "Risk": {},
        "Links": { "Self": format!("{}{PISP}/domestic-vrp-consents/{}", bank.base, data.consent_id) },
        "Meta": {},
    })
}

fn payment_document(bank: &Bank, data: &PaymentData) -> Value {
    json!({
        "Data": data,
        "Risk": {},
        "Links": { "Self": format!("{}{PISP}/domestic-vrps/{}", bank.base, data.domestic_vrp_id) },
        "Meta": {},
    })
}

fn fails_controls(why: &str) -> Response {
    refused(
        StatusCode::BAD_REQUEST,
        "UK.OBIE.Rules.FailsControlParameters",
        why,
    )
}

async fn create_consent(State(bank): State<Bank>, headers: HeaderMap, body: Bytes) -> Response {
    let operation = "POST /domestic-vrp-consents";
    if let Err(refused) = client(&bank, &headers) {
        return refused.into_response();
    }
    let (received, key) = match signed_once(&bank, operation, &headers, &body) {
        Ok(admitted) => admitted,
        Err(answer) => return *answer,
    };
    let request = received
        .clone()
        .and_then(|v| serde_json::from_value::<ConsentRequest>(v).ok());
    let Some(request) = request.filter(|r| {
        let limits = &r.data.control_parameters;
        limits
            .maximum_individual_amount
            .pence()
            .is_some_and(|p| p > 0)
            && !limits.periodic_limits.is_empty()
            && limits
                .periodic_limits
                .iter()
                .all(|l| l.amount.pence().is_some_and(|p| p > 0))
    }) else {
        return bad_request(
            "the consent is not an OBDomesticVRPConsentRequest with positive limits in GBP",
        );
    };
    let now = bank.now();
    let data = ConsentData {
        consent_id: format!("vrp-{}", lendhub_system::random_token(12)),
        status: ConsentStatus::AwaitingAuthorisation,
        created: now,
        status_updated: now,
        control_parameters: request.data.control_parameters,
        initiation: request.data.initiation,
        read_refund_account: request.data.read_refund_account,
    };
    let document = consent_document(&bank, &data);
    bank.books().vrp_consents.insert(
        data.consent_id.clone(),
        VrpConsent {
            data,
            account: None,
            revoked: false,
        },
    );
    created(&bank, operation, &headers, (received, &key), document)
}

/// `GET /domestic-vrp-consents/{id}`: a revoked consent reads as
/// `Rejected`, the standard's one status for a consent that no longer
/// serves (its response names no `Revoked`).
async fn read_consent(
    State(bank): State<Bank>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Response {
    if let Err(refused) = client(&bank, &headers) {
        return refused.into_response();
    }
    let Some(consent) = bank.books().vrp_consents.get(&id).cloned() else {
        return not_found("consent");
    };
    let mut data = consent.data;
    if consent.revoked {
        data.status = ConsentStatus::Rejected;
    }
    let document = consent_document(&bank, &data);
    bank.answer_signed(
        "GET /domestic-vrp-consents/{ConsentId}",
        &headers,
        None,
        StatusCode::OK,
        document,
    )
}

/// `DELETE /domestic-vrp-consents/{id}`: the client ends the consent (the
/// payer withdrew the mandate on the client's side).
async fn delete_consent(
    State(bank): State<Bank>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Response {
    if let Err(refused) = client(&bank, &headers) {
        return refused.into_response();
    }
    let now = bank.now();
    let found = match bank.books().vrp_consents.get_mut(&id) {
        Some(consent) => {
            consent.revoked = true;
            consent.data.status_updated = now;
            true
        }
        None => false,
    };
    let status = if found {
        StatusCode::NO_CONTENT
    } else {
        StatusCode::NOT_FOUND
    };
    bank.record(
        "DELETE /domestic-vrp-consents/{ConsentId}",
        &headers,
        status,
    );
    status.into_response()
}

/// The start of the period `limit` counts in, for a consent created at
/// `created`, at `now`: calendar periods begin at midnight on a Monday,
/// the 1st of a month, or January and July; consent periods on the
/// consent's own day.
fn period_start(
    limit: &PeriodicLimit,
    created: OffsetDateTime,
    now: OffsetDateTime,
) -> OffsetDateTime {
    let midnight = |d: Date| d.midnight().assume_utc();
    let every_days = |n: i64| {
        let elapsed = (now - created).whole_days().max(0);
        created + Duration::days(elapsed - elapsed % n)
    };
    let months = |n: i32| {
        if limit.period_alignment == PeriodAlignment::Calendar {
            let index = month_index(now.date());
            first_of(index - index.rem_euclid(n), 1).map_or(now, midnight)
        } else {
            let anchor = created.date();
            let mut gone = month_index(now.date()) - month_index(anchor);
            if now.date().day() < anchor.day() {
                gone -= 1;
            }
            let gone = gone.max(0);
            first_of(month_index(anchor) + gone - gone % n, anchor.day()).map_or(now, midnight)
        }
    };
    let calendar = limit.period_alignment == PeriodAlignment::Calendar;
    match limit.period_type {
        PeriodType::Day if calendar => midnight(now.date()),
        PeriodType::Day => every_days(1),
        PeriodType::Week if calendar => {
            let back = i64::from(now.weekday().number_days_from_monday());
            midnight(now.date() - Duration::days(back))
        }
        PeriodType::Week => every_days(7),
        PeriodType::Fortnight => every_days(14),
        PeriodType::Month => months(1),
        PeriodType::HalfYear => months(6),
        PeriodType::Year => months(12),
    }
}

/// Months since year 0, January 0 = 0.
fn month_index(d: Date) -> i32 {
    d.year() * 12 + i32::from(u8::from(d.month())) - 1
}

/// `day` (or the month's last, if shorter) of the month at `index`.
fn first_of(index: i32, day: u8) -> Option<Date> {
    let year = index.div_euclid(12);
    let month = Month::try_from(u8::try_from(index.rem_euclid(12) + 1).ok()?).ok()?;
    Date::from_calendar_date(year, month, day.min(time::util::days_in_month(month, year))).ok()
}

async fn create_payment(State(bank): State<Bank>, headers: HeaderMap, body: Bytes) -> Response {
    let operation = "POST /domestic-vrps";
    let Some(Grant::Consent { consent_id, .. }) = bearer(&bank, &headers) else {
        return unauthorised();
    };
    let (received, key) = match signed_once(&bank, operation, &headers, &body) {
        Ok(admitted) => admitted,
        Err(answer) => return *answer,
    };
    let Some(request) = received
        .clone()
        .and_then(|v| serde_json::from_value::<PaymentRequest>(v).ok())
    else {
        return bad_request("the payment is not an OBDomesticVRPRequest");
    };
    let Some(pence) = request
        .data
        .instruction
        .instructed_amount
        .pence()
        .filter(|p| *p > 0)
    else {
        return bad_request("Data.Instruction.InstructedAmount is not a positive amount in GBP");
    };
    let now = bank.now();
    // A client moving its own test clock states the instalment's date: the
    // periods follow it (never before the consent).
    let counts_at = request
        .data
        .instruction
        .supplementary_data
        .as_ref()
        .and_then(|s| s.due_date)
        .map_or(now, |d| d.midnight().assume_utc());
    let data = {
        let mut books = bank.books();
        let Some(consent) = books.vrp_consents.get(&consent_id).cloned() else {
            return unauthorised();
        };
        if request.data.consent_id != consent_id {
            return bad_request("Data.ConsentId is not the consent the token was issued for");
        }
        if request.data.initiation != consent.data.initiation {
            return bad_request("Data.Initiation differs from the consent's");
        }
        let (ConsentStatus::Authorised, Some(account), false) =
            (consent.data.status, consent.account, consent.revoked)
        else {
            return refused(
                StatusCode::FORBIDDEN,
                "UK.OBIE.Resource.InvalidConsentStatus",
                "the consent is not authorised, or was revoked",
            );
        };
        let limits = &consent.data.control_parameters;
        if !limits.allows_payment(pence) {
            return fails_controls("the payment is over the consent's MaximumIndividualAmount");
        }
        let counts_at = counts_at.max(consent.data.created);
        for limit in &limits.periodic_limits {
            let since = period_start(limit, consent.data.created, counts_at);
            let taken: i64 = books
                .vrps
                .values()
                .filter(|p| p.data.consent_id == consent_id)
                .filter(|p| p.data.status != PaymentStatus::Rejected)
                .filter(|p| p.counts_at >= since && p.counts_at <= counts_at)
                .filter_map(|p| p.data.instruction.instructed_amount.pence())
                .sum();
            if limit.amount.pence().is_none_or(|most| taken + pence > most) {
                return fails_controls("the payment would take the period past its limit");
            }
        }
        let data = PaymentData {
            domestic_vrp_id: format!("dvrp-{}", lendhub_system::random_token(12)),
            consent_id: consent_id.clone(),
            status: first_status(account),
            created: now,
            status_updated: now,
            initiation: request.data.initiation,
            instruction: request.data.instruction,
            refund: super::pis::refund_account(
                consent.data.read_refund_account.as_deref(),
                account,
            )
            .map(|r| r.account),
        };
        books.vrps.insert(
            data.domestic_vrp_id.clone(),
            SubmittedVrp {
                data: data.clone(),
                account,
                counts_at,
            },
        );
        data
    };
    let document = payment_document(&bank, &data);
    created(&bank, operation, &headers, (received, &key), document)
}

/// `GET /domestic-vrps/{id}`: the client's token, its status moved on as
/// the model says.
async fn read_payment(
    State(bank): State<Bank>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Response {
    if let Err(refused) = client(&bank, &headers) {
        return refused.into_response();
    }
    let now = bank.now();
    let data = {
        let mut books = bank.books();
        let Some(payment) = books.vrps.get_mut(&id) else {
            return not_found("payment");
        };
        let next = next_status(payment.account, payment.data.status);
        if next != payment.data.status {
            payment.data.status = next;
            payment.data.status_updated = now;
        }
        payment.data.clone()
    };
    let document = payment_document(&bank, &data);
    bank.answer_signed(
        "GET /domestic-vrps/{DomesticVRPId}",
        &headers,
        None,
        StatusCode::OK,
        document,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use lendhub_domain::open_banking::amount::Amount;
    use time::macros::datetime;

    fn limit(period_type: PeriodType, period_alignment: PeriodAlignment) -> PeriodicLimit {
        PeriodicLimit {
            period_type,
            period_alignment,
            amount: Amount::gbp(100),
        }
    }

    #[test]
    fn a_period_starts_with_the_calendar_or_with_the_consent() {
        let created = datetime!(2026-01-20 09:30 UTC);
        let now = datetime!(2026-03-05 14:00 UTC);
        let start = |t, a| period_start(&limit(t, a), created, now);
        use PeriodAlignment::*;
        assert_eq!(
            start(PeriodType::Month, Calendar),
            datetime!(2026-03-01 0:00 UTC)
        );
        assert_eq!(
            start(PeriodType::Month, Consent),
            datetime!(2026-02-20 0:00 UTC)
        );
        assert_eq!(
            start(PeriodType::Year, Calendar),
            datetime!(2026-01-01 0:00 UTC)
        );
        assert_eq!(
            start(PeriodType::HalfYear, Calendar),
            datetime!(2026-01-01 0:00 UTC)
        );
        assert_eq!(
            start(PeriodType::Day, Calendar),
            datetime!(2026-03-05 0:00 UTC)
        );
        assert_eq!(
            start(PeriodType::Week, Calendar),
            datetime!(2026-03-02 0:00 UTC)
        );
        assert_eq!(
            start(PeriodType::Fortnight, Consent),
            datetime!(2026-03-03 9:30 UTC)
        );
    }
}
