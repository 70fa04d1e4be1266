use axum::extract::{RawQuery, State};
use axum::response::Response;
use lendhub_domain::partner::scope::PartnerScope;
use lendhub_http::list;

use crate::flows::lists;
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
    let filters = &["account_id", "status"];
    let request = list::parse(raw.as_deref(), list::DEFAULT_LIMIT, filters)
        .map_err(PartnerError::Validation)?;
    let page = lists::payments(&state.flows, &caller.tenant(), &request).await?;
    respond(
        caller.env,
        "/payments",
        &request.page,
        &page,
        |p| p.id.to_string(),
        |p| PaymentView::new(p, &state.links),
    )
}
