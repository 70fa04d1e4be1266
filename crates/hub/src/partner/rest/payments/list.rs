use axum::extract::{RawQuery, State};
use axum::response::Response;
use lendhub_domain::ids::{HubId, PaymentId};
use lendhub_domain::partner::scope::PartnerScope;
use lendhub_domain::servicing::list_filters;
use lendhub_http::list;
use lendhub_store::{PaymentPage, PaymentQuery};

use crate::partner::error::PartnerError;
use crate::partner::rest::caller::RestCaller;
use crate::partner::rest::list_page::respond;
use crate::partner::state::PartnerState;
use crate::views::payment::PaymentView;

/// Your payments in this environment, newest first.
#[utoipa::path(get, operation_id = "listPayments", path = "/payments", tag = "payments",
    security(("oauth2" = ["payments.read"]), ("api_key" = [])),
    params(("limit" = Option<u32>, Query, minimum = 1, maximum = 100, description = "default 20"),
        ("starting_after" = Option<String>, Query, description = "a payment id: page toward older ones"),
        ("ending_before" = Option<String>, Query, description = "a payment id: page toward newer ones"),
        ("account_id" = Option<String>, Query, pattern = "^acc_[0-7][0-9A-HJKMNP-TV-Z]{25}$", description = "acc_…: one account's payments"),
        ("status" = Option<String>, Query, pattern = "^(pending|processing|paid|failed|refunded|provisioned|settled)$", description = "pending, processing, paid, failed or refunded; the catalogue's provisioned (= pending) and settled (= paid) too")),
    responses((status = 200, description = "`{object: \"list\", data: [payment], has_more, url, next_cursor}`"),
        (status = 401, description = "credentials"), (status = 403, description = "insufficient_scope"),
        (status = 404, description = "not_found: the cursor names no payment of yours"),
        (status = 422, description = "validation_failed")))]
pub async fn list(
    State(state): State<PartnerState>,
    caller: RestCaller,
    RawQuery(raw): RawQuery,
) -> Result<Response, PartnerError> {
    caller.require(PartnerScope::PaymentsRead)?;
    let request = list::parse(
        raw.as_deref(),
        list::DEFAULT_LIMIT,
        &["account_id", "status"],
    )
    .map_err(PartnerError::Validation)?;
    let filters = list_filters::payments(request.filter("status"), request.filter("account_id"))?;
    let cursor_missing = PartnerError::NotFound("payment for the cursor");
    if request.cursors().any(|c| PaymentId::parse(c).is_none()) {
        return Err(cursor_missing);
    }
    let query = PaymentQuery {
        page: request.page.clone(),
        account_id: filters.account_id,
        status: filters.status,
    };
    let page = match state
        .servicing
        .hub_payments(&caller.tenant(), &query)
        .await?
    {
        PaymentPage::Page(page) => page,
        PaymentPage::UnknownCursor => return Err(cursor_missing),
    };
    respond(
        caller.env,
        "/payments",
        &request.page,
        &page,
        |p| p.id.to_string(),
        |p| PaymentView::new(p, &state.links),
    )
}
