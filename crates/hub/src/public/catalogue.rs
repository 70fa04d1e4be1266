//! The catalogue: pricing configuration, products, loyalty tiers, quotes,
//! the Flex preview, Slice billers and the health probe. Responses that
//! depend only on the configuration are rendered once at start-up.

use axum::extract::{RawQuery, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use lendhub_domain::public::pricing::{Frequency, PricingConfig, bps_percent};
use lendhub_domain::public::quote::{self, Quote};
use lendhub_http::json::Json;
use lendhub_http::{FieldIssue, Problem, list};
use serde::Deserialize;
use serde_json::{Value, json};
use std::borrow::Cow;
use url::form_urlencoded;

use super::error::{PublicError, quote_issue};
use crate::public::state::PublicState;

/// Configuration-derived bodies, serialised once.
pub struct Rendered {
    pricing: String,
    products: CatalogueList,
    loyalty: CatalogueList,
    billers: CatalogueList,
}

/// A fixed list answered in the one list envelope and paged by the one
/// pager (`lendhub_http::list`), each item rendered once; its first page
/// (what nearly every caller asks for) is rendered once too.
/// The catalogue could not be rendered at start-up: a defect in the bundled
/// data or the configured pricing, never a request's.
#[derive(Debug, thiserror::Error)]
pub enum CatalogueError {
    #[error("billers data: {0}")]
    Billers(serde_json::Error),
    #[error("rendering the catalogue: {0}")]
    Render(#[from] serde_json::Error),
}

struct CatalogueList {
    url: &'static str,
    /// (the key a cursor names, the item's JSON)
    items: Vec<(String, String)>,
    first_page: String,
}

impl CatalogueList {
    fn new(url: &'static str, items: Vec<Value>, key: &str) -> Result<Self, CatalogueError> {
        let items = items
            .iter()
            .map(|item| {
                let k = item[key].as_str().unwrap_or_default().to_owned();
                serde_json::to_string(item).map(|json| (k, json))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let mut list = Self {
            url,
            items,
            first_page: String::new(),
        };
        // The first page has no cursor to miss.
        list.first_page = list
            .page(&lendhub_store::PageQuery {
                limit: list::DEFAULT_LIMIT,
                ..Default::default()
            })
            .unwrap_or_default();
        Ok(list)
    }

    /// The page `query` asks for; `None` when its cursor names no item.
    fn page(&self, query: &lendhub_store::PageQuery) -> Option<String> {
        let page = query.slice(&self.items, |(k, _)| k.as_str())?;
        let first = page.items.first().map(|(k, _)| k.as_str());
        let last = page.items.last().map(|(k, _)| k.as_str());
        Some(list::envelope(
            self.url,
            page.items.iter().map(|(_, json)| json.as_str()),
            page.has_more,
            list::next_cursor(query, first, last, page.has_more),
        ))
    }

    /// The page a query string asks for; a cursor naming no item is 404.
    fn answer(&self, raw: Option<&str>) -> Result<Response, PublicError> {
        if raw.is_none_or(str::is_empty) {
            return Ok(cached(&self.first_page));
        }
        let request =
            list::parse(raw, list::DEFAULT_LIMIT, &[]).map_err(PublicError::Validation)?;
        let body = self
            .page(&request.page)
            .ok_or(PublicError::ResourceNotFound(
                "no item of this list has the cursor's id",
            ))?;
        Ok(cached(&body))
    }
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
    pub fn new(pricing: &PricingConfig, billers: &str) -> Result<Self, CatalogueError> {
        let billers: Vec<Biller> =
            serde_json::from_str(billers).map_err(CatalogueError::Billers)?;
        let billers: Vec<Value> = billers
            .into_iter()
            .map(|b| {
                json!({"id": b.id, "object": "biller", "name": b.name, "category": b.category,
                       "min_pence": b.min_pence, "max_pence": b.max_pence})
            })
            .collect();
        Ok(Self {
            pricing: serde_json::to_string(pricing)?,
            products: CatalogueList::new("/public/v1/products", product_list(pricing), "id")?,
            loyalty: CatalogueList::new("/public/v1/loyalty/tiers", loyalty_list(pricing), "name")?,
            billers: CatalogueList::new("/public/v1/slice/billers", billers, "id")?,
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
    params(("limit" = Option<u32>, Query, minimum = 1, maximum = 100, description = "default 20"), ("starting_after" = Option<String>, Query, description = "a product id"),
        ("ending_before" = Option<String>, Query, description = "a product id")),
    responses((status = 200, description = "`{object: \"list\", data: [product], has_more, url, next_cursor}`"),
        (status = 404, description = "resource_not_found: the cursor names no product"),
        (status = 422, description = "validation_failed")))]
pub async fn products(
    State(state): State<PublicState>,
    RawQuery(raw): RawQuery,
) -> Result<Response, PublicError> {
    state.ring.rendered.products.answer(raw.as_deref())
}

/// The loyalty ladder.
#[utoipa::path(get, operation_id = "loyalty_tiers", path = "/loyalty/tiers", tag = "public",
    params(("limit" = Option<u32>, Query, minimum = 1, maximum = 100, description = "default 20"), ("starting_after" = Option<String>, Query, description = "a tier name"),
        ("ending_before" = Option<String>, Query, description = "a tier name")),
    responses((status = 200, description = "`{object: \"list\", data: [loyalty_tier], has_more, url, next_cursor}`"),
        (status = 404, description = "resource_not_found: the cursor names no tier"),
        (status = 422, description = "validation_failed")))]
pub async fn loyalty_tiers(
    State(state): State<PublicState>,
    RawQuery(raw): RawQuery,
) -> Result<Response, PublicError> {
    state.ring.rendered.loyalty.answer(raw.as_deref())
}

/// The query `GET /quote/onetime` reads (for the OpenAPI document; the
/// handler decodes the query itself, see [`onetime_params`]).
#[derive(utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(dead_code)]
pub struct OnetimeQuery {
    /// Principal in GBP, e.g. `250` or `250.50`, within the product's
    /// limits (`GET /config/pricing`).
    #[param(required = true, pattern = "^[0-9]{1,9}(\\.[0-9]{1,2})?$")]
    amount: Option<String>,
    /// Term in days, within the product's limits.
    #[param(required = true, pattern = "^[0-9]{1,5}$")]
    term: Option<String>,
    /// `weekly` (default), `fortnightly` or `monthly`.
    #[param(pattern = "^(weekly|fortnightly|monthly)$")]
    frequency: Option<String>,
}

/// `amount`, `term` and `frequency` from a quote's query, decoded as
/// axum's `Query` decodes (`+` and `%XX`), borrowed where nothing needed
/// decoding: this is the public calculator's hot path, and building the
/// struct through serde was a twentieth of its CPU. Other parameters are
/// ignored; one of these given twice is refused.
pub fn onetime_params(query: Option<&str>) -> Result<[Option<Cow<'_, str>>; 3], PublicError> {
    const NAMES: [&str; 3] = ["amount", "term", "frequency"];
    let mut found: [Option<Cow<'_, str>>; 3] = Default::default();
    for (name, value) in form_urlencoded::parse(query.unwrap_or_default().as_bytes()) {
        if let Some(i) = NAMES.iter().position(|n| *n == name)
            && found[i].replace(value).is_some()
        {
            return Err(PublicError::Shared(Problem::new(
                StatusCode::BAD_REQUEST,
                "invalid_request",
                format!("`{}` is given more than once", NAMES[i]),
            )));
        }
    }
    Ok(found)
}

/// Reads the quote inputs; every problem is reported at once.
pub fn read_onetime(
    c: &PricingConfig,
    amount: Option<&str>,
    term: Option<&str>,
    frequency: Option<&str>,
) -> Result<(i64, i64, Frequency), Vec<FieldIssue>> {
    quote::read_business_loan(&c.business_loan, amount, term, frequency)
        .map_err(|issues| issues.into_iter().map(quote_issue).collect())
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
        (status = 400, description = "invalid_request: a parameter given twice"),
        (status = 422, description = "validation_failed: detail names each field, its reason and the bound")))]
pub async fn quote_onetime(
    State(state): State<PublicState>,
    RawQuery(query): RawQuery,
) -> Result<Response, PublicError> {
    let [amount, term, frequency] = onetime_params(query.as_deref())?;
    let (amount, term, frequency) = read_onetime(
        &state.ring.settings.pricing,
        amount.as_deref(),
        term.as_deref(),
        frequency.as_deref(),
    )
    .map_err(PublicError::Validation)?;
    let quote = onetime(&state, amount, term, frequency)?;
    Ok((
        [(header::CONTENT_TYPE, "application/json")],
        super::quote_body::render(&quote),
    )
        .into_response())
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
    Json(flex_preview(&state)).into_response()
}

/// Accepted Slice billers, public-safe (no bank details). Behind the
/// `public.slice_billers` switch.
#[utoipa::path(get, operation_id = "slice_billers", path = "/slice/billers", tag = "public",
    params(("limit" = Option<u32>, Query, minimum = 1, maximum = 100, description = "default 20"), ("starting_after" = Option<String>, Query, description = "a biller id"),
        ("ending_before" = Option<String>, Query, description = "a biller id")),
    responses((status = 200, description = "`{object: \"list\", data: [biller], has_more, url, next_cursor}`"),
        (status = 403, description = "capability_denied: the operator switched the list off"),
        (status = 404, description = "resource_not_found: the cursor names no biller"),
        (status = 422, description = "validation_failed")))]
pub async fn billers(
    State(state): State<PublicState>,
    RawQuery(raw): RawQuery,
) -> Result<Response, PublicError> {
    if !state.ring.settings.slice_billers {
        return Err(PublicError::FeatureDisabled("the Slice biller list"));
    }
    state.ring.rendered.billers.answer(raw.as_deref())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(query: &str) -> [Option<String>; 3] {
        onetime_params(Some(query))
            .unwrap_or_else(|_| panic!("refused {query}"))
            .map(|p| p.map(Cow::into_owned))
    }

    #[test]
    fn quote_parameters_decode_as_a_form_would() {
        assert_eq!(
            params("amount=25%30&term=4+2&frequency=weekly&x=1"),
            [
                Some("250".into()),
                Some("4 2".into()),
                Some("weekly".into())
            ]
        );
        assert_eq!(params(""), [None, None, None]);
        assert_eq!(
            params("amount=&term"),
            [Some(String::new()), Some(String::new()), None]
        );
        assert!(onetime_params(None).is_ok_and(|p| p.iter().all(Option::is_none)));
    }

    #[test]
    fn a_quote_parameter_given_twice_is_refused() {
        let refused = onetime_params(Some("term=1&amount=2&term=1"));
        let Err(PublicError::Shared(problem)) = refused else {
            panic!("accepted a repeated parameter");
        };
        assert_eq!(problem.code, "invalid_request");
        assert!(problem.message.contains("`term`"));
    }
}
