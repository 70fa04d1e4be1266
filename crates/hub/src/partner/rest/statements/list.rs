use axum::extract::{RawQuery, State};
use axum::response::Response;
use lendhub_domain::billing::statement_list;
use lendhub_domain::ids::{HubId, StatementId};
use lendhub_domain::partner::scope::PartnerScope;
use lendhub_http::list;
use lendhub_store::{StatementPage, StatementQuery};

use crate::partner::error::PartnerError;
use crate::partner::rest::caller::RestCaller;
use crate::partner::rest::list_page::respond;
use crate::partner::state::PartnerState;
use crate::views::statement::StatementView;

/// Your statements in this environment, newest month first: drafts once a
/// month has ended, finalized on its invoice date.
#[utoipa::path(get, operation_id = "listStatements", path = "/statements", tag = "billing",
    security(("oauth2" = ["billing.read"]), ("api_key" = [])),
    params(("limit" = Option<u32>, Query, minimum = 1, maximum = 100, description = "default 20"),
        ("starting_after" = Option<String>, Query, description = "a statement id: page toward older ones"),
        ("ending_before" = Option<String>, Query, description = "a statement id: page toward newer ones"),
        ("period" = Option<String>, Query, pattern = "^[2-9][0-9]{3}-(0[1-9]|1[0-2])$", description = "YYYY-MM: one month's statement")),
    responses((status = 200, description = "`{object: \"list\", data: [partner_statement], has_more, url, next_cursor}`"),
        (status = 401, description = "credentials"), (status = 403, description = "insufficient_scope"),
        (status = 404, description = "not_found: the cursor names no statement of yours"),
        (status = 422, description = "validation_failed: limit, the cursors, period (`pattern`)")))]
pub async fn list(
    State(state): State<PartnerState>,
    caller: RestCaller,
    RawQuery(raw): RawQuery,
) -> Result<Response, PartnerError> {
    caller.require(PartnerScope::BillingRead)?;
    let request = list::parse(raw.as_deref(), list::DEFAULT_LIMIT, &["period"])
        .map_err(PartnerError::Validation)?;
    let period = statement_list::check(request.filter("period"))?;
    let cursor_missing = PartnerError::NotFound("statement for the cursor");
    if request.cursors().any(|c| StatementId::parse(c).is_none()) {
        return Err(cursor_missing);
    }
    let query = StatementQuery {
        page: request.page.clone(),
        period,
    };
    let page = match state
        .commercial
        .statements(&caller.tenant(), &query)
        .await?
    {
        StatementPage::Page(page) => page,
        StatementPage::UnknownCursor => return Err(cursor_missing),
    };
    respond(
        caller.env,
        "/statements",
        &request.page,
        &page,
        |s| s.id.to_string(),
        StatementView::new,
    )
}
