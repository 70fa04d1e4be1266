//! The catalogue: pricing configuration, products, loyalty tiers, quotes,
//! the Flex preview, Slice billers and the health probe. Responses that
//! depend only on the configuration are rendered once at start-up.

use axum::extract::{Query, State};
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use lendhub_domain::pricing::{Frequency, PricingConfig, bps_percent};
use lendhub_domain::quote::{self, Quote, parse_gbp};
use lendhub_http::FieldIssue;
use serde::Deserialize;
use serde_json::{Value, json};

use super::error::{PublicError, quote_issue};
use crate::public::state::PublicState;

/// Configuration-derived bodies, serialised once.
pub struct Rendered {
    pricing: String,
    products: String,
    loyalty: String,
    billers: String,
}

#[derive(Deserialize)]
struct Biller {
    id: String,
    name: String,
    category: String,
    min_pence: i64,
    max_pence: i64,
    /// Where the money goes: never part of a public answer.
    #[serde(rename = "bank")]
    _bank: Value,
}

impl Rendered {
    pub fn new(pricing: &PricingConfig, billers: &str) -> Result<Self, String> {
        let billers: Vec<Biller> =
            serde_json::from_str(billers).map_err(|e| format!("billers data: {e}"))?;
        let billers: Vec<Value> = billers
            .into_iter()
            .map(|b| {
                json!({"id": b.id, "object": "biller", "name": b.name, "category": b.category,
                       "min_pence": b.min_pence, "max_pence": b.max_pence})
            })
            .collect();
        let to_string = |v: &Value| serde_json::to_string(v).map_err(|e| e.to_string());
        Ok(Self {
            pricing: serde_json::to_string(pricing).map_err(|e| e.to_string())?,
            products: to_string(&json!({"object": "list", "data": product_list(pricing)}))?,
            loyalty: to_string(&json!({"object": "list", "data": loyalty_list(pricing)}))?,
            billers: to_string(&json!({"object": "list", "data": billers}))?,
        })
    }
}

/// The catalogue's products, as `/products` and the MCP tools show them.
pub fn product_list(c: &PricingConfig) -> Vec<Value> {
    let b = &c.business_loan;
    let s = &c.slice;
    let f = &c.flex;
    vec![
        json!({
            "id": "business_loan", "object": "product", "name": b.name, "summary": b.summary,
            "quotable": true,
            "pricing": {
                "daily_interest_rate_percent": bps_percent(b.daily_interest_bps),
                "establishment_fee_pence": b.establishment_fee_pence,
                "total_cost_cap_percent": b.total_cost_cap_percent,
                "principal_min_pence": b.principal_min_pence,
                "principal_max_pence": b.principal_max_pence,
                "term_min_days": b.term_min_days,
                "term_max_days": b.term_max_days,
                "repayment_frequencies": b.frequencies,
                "default_frequency": b.default_frequency,
            },
        }),
        json!({
            "id": "flex", "object": "product", "name": f.name, "summary": f.summary,
            "quotable": false,
            "pricing": {
                "daily_interest_rate_percent": bps_percent(f.daily_interest_bps),
                "limit_min_pence": f.limit_min_pence,
                "limit_max_pence": f.limit_max_pence,
            },
        }),
        json!({
            "id": "slice", "object": "product", "name": s.name, "summary": s.summary,
            "quotable": false,
            "pricing": {
                "fee_percent": bps_percent(s.fee_bps),
                "instalments_min": s.instalments_min,
                "instalments_max": s.instalments_max,
                "instalment_interval_days": s.instalment_interval_days,
            },
        }),
    ]
}

pub fn loyalty_list(c: &PricingConfig) -> Vec<Value> {
    c.loyalty_tiers
        .iter()
        .map(|t| {
            json!({
                "object": "loyalty_tier", "name": t.name,
                "threshold_loans_repaid": t.threshold_loans_repaid,
                "benefits": t.benefits, "cooldown_days": t.cooldown_days,
                "arrangement_fee_discount_percent": t.arrangement_fee_discount_percent,
            })
        })
        .collect()
}

/// A public, cacheable JSON body.
fn cached(body: &str) -> Response {
    (
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            ),
            (
                header::CACHE_CONTROL,
                HeaderValue::from_static("public, max-age=300"),
            ),
        ],
        body.to_owned(),
    )
        .into_response()
}

/// Health probe: the service and its database.
#[utoipa::path(get, operation_id = "healthz", path = "/healthz", tag = "public",
    responses((status = 200, description = "`{\"status\": \"ok\"}`"),
        (status = 503, description = "temporarily_unavailable: the database does not answer")))]
pub async fn healthz(State(state): State<PublicState>) -> Result<Response, PublicError> {
    state.health.ping().await?;
    Ok(axum::Json(json!({"status": "ok"})).into_response())
}

/// The authoritative pricing configuration every other figure computes from.
#[utoipa::path(get, operation_id = "pricing", path = "/config/pricing", tag = "public",
    responses((status = 200, description = "The versioned pricing configuration")))]
pub async fn pricing(State(state): State<PublicState>) -> Response {
    cached(&state.ring.rendered.pricing)
}

/// The product catalogue: Business Loan, Flex and Slice.
#[utoipa::path(get, operation_id = "products", path = "/products", tag = "public",
    responses((status = 200, description = "`{object: \"list\", data: [product]}`")))]
pub async fn products(State(state): State<PublicState>) -> Response {
    cached(&state.ring.rendered.products)
}

/// The loyalty ladder.
#[utoipa::path(get, operation_id = "loyalty_tiers", path = "/loyalty/tiers", tag = "public",
    responses((status = 200, description = "`{object: \"list\", data: [loyalty_tier]}`")))]
pub async fn loyalty_tiers(State(state): State<PublicState>) -> Response {
    cached(&state.ring.rendered.loyalty)
}

#[derive(Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct OnetimeQuery {
    /// Principal in GBP, e.g. `250` or `250.50`.
    amount: Option<String>,
    /// Term in days.
    term: Option<String>,
    /// `weekly` (default), `fortnightly` or `monthly`.
    frequency: Option<String>,
}

/// Reads the quote inputs; every problem is reported at once.
pub fn read_onetime(
    c: &PricingConfig,
    amount: Option<&str>,
    term: Option<&str>,
    frequency: Option<&str>,
) -> Result<(i64, i64, Frequency), Vec<FieldIssue>> {
    let mut issues = Vec::new();
    let amount = match amount.map(str::trim) {
        None | Some("") => {
            issues.push(FieldIssue::new("amount", "required"));
            None
        }
        Some(a) => match parse_gbp(a) {
            Ok(p) => Some(p),
            Err(reason) => {
                issues.push(FieldIssue::new("amount", reason));
                None
            }
        },
    };
    let term = match term.map(str::trim) {
        None | Some("") => {
            issues.push(FieldIssue::new("term", "required"));
            None
        }
        Some(t) => match t.parse::<i64>() {
            Ok(days) if t.bytes().all(|b| b.is_ascii_digit()) => Some(days),
            _ => {
                issues.push(FieldIssue::new("term", "invalid_integer"));
                None
            }
        },
    };
    let frequency = match frequency.map(str::trim) {
        None | Some("") => Some(c.business_loan.default_frequency),
        Some(f) => match Frequency::parse(f) {
            Some(f) => Some(f),
            None => {
                issues.push(FieldIssue::new("frequency", "invalid"));
                None
            }
        },
    };
    // Bounds are checked for whatever parsed, so one answer names every
    // problem; placeholders stand in (and are not reported) for the rest.
    let loan = &c.business_loan;
    let bounds = quote::check_business_loan(
        loan,
        amount.unwrap_or(loan.principal_min_pence),
        term.unwrap_or(i64::from(loan.term_min_days)),
        frequency.unwrap_or(loan.default_frequency),
    );
    issues.extend(bounds.into_iter().map(quote_issue));
    match (amount, term, frequency) {
        (Some(a), Some(t), Some(f)) if issues.is_empty() => Ok((a, t, f)),
        _ => Err(issues),
    }
}

/// Today by the service clock: the quote's start date.
pub fn today(state: &PublicState) -> time::Date {
    state.clock.now().date()
}

pub fn onetime(
    state: &PublicState,
    amount: i64,
    term: i64,
    frequency: Frequency,
) -> Result<Quote, PublicError> {
    quote::business_loan(
        &state.ring.settings.pricing,
        amount,
        term,
        frequency,
        today(state),
    )
    .map_err(PublicError::quote)
}

pub fn quote_json(q: &Quote) -> Value {
    serde_json::to_value(q).unwrap_or_default()
}

/// A Business Loan quote: the schedule, fees, interest, total, the cost cap
/// and the APR.
#[utoipa::path(get, operation_id = "quote_onetime", path = "/quote/onetime", tag = "public",
    params(OnetimeQuery),
    responses((status = 200, description = "The quote (`object: \"quote\"`)"),
        (status = 422, description = "validation_failed: detail names each field, its reason and the bound")))]
pub async fn quote_onetime(
    State(state): State<PublicState>,
    Query(q): Query<OnetimeQuery>,
) -> Result<Response, PublicError> {
    let (amount, term, frequency) = read_onetime(
        &state.ring.settings.pricing,
        q.amount.as_deref(),
        q.term.as_deref(),
        q.frequency.as_deref(),
    )
    .map_err(PublicError::Validation)?;
    let quote = onetime(&state, amount, term, frequency)?;
    Ok(axum::Json(quote).into_response())
}

pub fn flex_preview(state: &PublicState) -> Value {
    let c = &state.ring.settings.pricing;
    let example = quote::flex_example(c, today(state));
    json!({
        "object": "flex_preview",
        "pricing_version": c.version,
        "limit_pence": c.flex.representative.limit_pence,
        "drawn_pence": c.flex.representative.drawn_pence,
        "daily_interest_rate_percent": bps_percent(c.flex.daily_interest_bps),
        "representative_example": quote_json(&example),
    })
}

/// Flex's representative example.
#[utoipa::path(get, operation_id = "quote_flex", path = "/quote/flex", tag = "public",
    responses((status = 200, description = "`object: \"flex_preview\"` with a representative quote")))]
pub async fn quote_flex(State(state): State<PublicState>) -> Response {
    axum::Json(flex_preview(&state)).into_response()
}

/// Accepted Slice billers, public-safe (no bank details). Behind the
/// `public.slice_billers` switch.
#[utoipa::path(get, operation_id = "slice_billers", path = "/slice/billers", tag = "public",
    responses((status = 200, description = "`{object: \"list\", data: [biller]}`"),
        (status = 403, description = "capability_denied: the operator switched the list off")))]
pub async fn billers(State(state): State<PublicState>) -> Result<Response, PublicError> {
    if !state.ring.settings.slice_billers {
        return Err(PublicError::FeatureDisabled("the Slice biller list"));
    }
    Ok(cached(&state.ring.rendered.billers))
}
