use axum::extract::{RawQuery, State};
use axum::response::Response;
use lendhub_domain::ids::{HubId, PayoutId};
use lendhub_domain::list_filter;
use lendhub_domain::partner::scope::PartnerScope;
use lendhub_http::list;
use lendhub_store::{PayoutPage, PayoutQuery};

use crate::partner::error::PartnerError;
use crate::partner::rest::caller::RestCaller;
use crate::partner::rest::list_page::respond;
use crate::partner::state::PartnerState;
use crate::views::payout::PayoutView;

/// Payouts of revenue share in this environment (beta), newest first: to
/// your sub-accounts, and your own remittances (`sub_account_id` null).
#[utoipa::path(get, operation_id = "listPayouts", path = "/payouts", tag = "sub-accounts",
    security(("oauth2" = ["billing.read"]), ("api_key" = [])),
    params(("limit" = Option<u32>, Query, minimum = 1, maximum = 100, description = "default 20"),
        ("starting_after" = Option<String>, Query, description = "a payout id: page toward older ones"),
        ("ending_before" = Option<String>, Query, description = "a payout id: page toward newer ones"),
        ("sub_account_id" = Option<String>, Query, pattern = "^sub_[0-7][0-9A-HJKMNP-TV-Z]{25}$", description = "sub_…: one sub-account's payouts")),
    responses((status = 200, description = "`{object: \"list\", data: [payout], has_more, url, next_cursor}`"),
        (status = 401, description = "credentials"), (status = 403, description = "insufficient_scope"),
        (status = 404, description = "not_found: the cursor names no payout of yours"),
        (status = 422, description = "validation_failed: limit, the cursors, sub_account_id pattern")))]
pub async fn list(
    State(state): State<PartnerState>,
    caller: RestCaller,
    RawQuery(raw): RawQuery,
) -> Result<Response, PartnerError> {
    caller.require(PartnerScope::BillingRead)?;
    let request = list::parse(raw.as_deref(), list::DEFAULT_LIMIT, &["sub_account_id"])
        .map_err(PartnerError::Validation)?;
    let sub_account_id = list_filter::by_sub_account(request.filter("sub_account_id"))?;
    let cursor_missing = PartnerError::NotFound("payout for the cursor");
    if request.cursors().any(|c| PayoutId::parse(c).is_none()) {
        return Err(cursor_missing);
    }
    let query = PayoutQuery {
        page: request.page.clone(),
        sub_account_id,
    };
    let page = match state.commercial.payouts(&caller.tenant(), &query).await? {
        PayoutPage::Page(page) => page,
        PayoutPage::UnknownCursor => return Err(cursor_missing),
    };
    respond(
        caller.env,
        "/payouts",
        &request.page,
        &page,
        |p| p.id.to_string(),
        PayoutView::new,
    )
}
