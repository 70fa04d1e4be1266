use axum::extract::{RawQuery, State};
use axum::response::Response;
use lendhub_domain::ids::{HubId, SubAccountId};
use lendhub_domain::partner::scope::PartnerScope;
use lendhub_http::list;
use lendhub_store::SubAccountPage;

use crate::partner::error::PartnerError;
use crate::partner::rest::caller::RestCaller;
use crate::partner::rest::list_page::respond;
use crate::partner::state::PartnerState;
use crate::views::sub_account::SubAccountView;

/// Your sub-accounts in this environment (beta), newest first.
#[utoipa::path(get, operation_id = "listSubAccounts", path = "/sub-accounts", tag = "sub-accounts",
    security(("oauth2" = ["accounts.read"]), ("api_key" = [])),
    params(("limit" = Option<u32>, Query, minimum = 1, maximum = 100, description = "default 20"),
        ("starting_after" = Option<String>, Query, description = "a sub-account id: page toward older ones"),
        ("ending_before" = Option<String>, Query, description = "a sub-account id: page toward newer ones")),
    responses((status = 200, description = "`{object: \"list\", data: [sub_account], has_more, url, next_cursor}`"),
        (status = 401, description = "credentials"), (status = 403, description = "insufficient_scope"),
        (status = 404, description = "not_found: the cursor names no sub-account of yours"),
        (status = 422, description = "validation_failed")))]
pub async fn list(
    State(state): State<PartnerState>,
    caller: RestCaller,
    RawQuery(raw): RawQuery,
) -> Result<Response, PartnerError> {
    caller.require(PartnerScope::AccountsRead)?;
    let request =
        list::parse(raw.as_deref(), list::DEFAULT_LIMIT, &[]).map_err(PartnerError::Validation)?;
    let cursor_missing = PartnerError::NotFound("sub-account for the cursor");
    if request.cursors().any(|c| SubAccountId::parse(c).is_none()) {
        return Err(cursor_missing);
    }
    let page = match state
        .commercial
        .sub_accounts(&caller.tenant(), &request.page)
        .await?
    {
        SubAccountPage::Page(page) => page,
        SubAccountPage::UnknownCursor => return Err(cursor_missing),
    };
    respond(
        caller.env,
        "/sub-accounts",
        &request.page,
        &page,
        |s| s.id.to_string(),
        SubAccountView::new,
    )
}
