use axum::extract::{RawQuery, State};
use axum::response::Response;
use lendhub_domain::partner::scope::PartnerScope;
use lendhub_http::list;

use crate::flows::lists;
use crate::partner::error::PartnerError;
use crate::partner::rest::caller::RestCaller;
use crate::partner::rest::list_page::respond;
use crate::partner::state::PartnerState;
use crate::views::decision::DecisionView;

/// Your decisions in this environment, newest first.
#[utoipa::path(get, operation_id = "listDecisions", path = "/decisions", tag = "decisions",
    security(("oauth2" = ["decisions.read"]), ("api_key" = [])),
    params(("limit" = Option<u32>, Query, minimum = 1, maximum = 100, description = "default 20"),
        ("starting_after" = Option<String>, Query, description = "a decision id: page toward older ones"),
        ("ending_before" = Option<String>, Query, description = "a decision id: page toward newer ones"),
        ("outcome" = Option<String>, Query, pattern = "^(approved|referred|declined)$", description = "approved, referred or declined"),
        ("decided_after" = Option<String>, Query, format = DateTime, description = "RFC 3339: only decisions made after this moment")),
    responses((status = 200, description = "`{object: \"list\", data: [decision], has_more, url, next_cursor}`"),
        (status = 401, description = "credentials"), (status = 403, description = "insufficient_scope"),
        (status = 404, description = "not_found: the cursor names no decision of yours"),
        (status = 422, description = "validation_failed")))]
pub async fn list(
    State(state): State<PartnerState>,
    caller: RestCaller,
    RawQuery(raw): RawQuery,
) -> Result<Response, PartnerError> {
    caller.require(PartnerScope::DecisionsRead)?;
    let filters = &["outcome", "decided_after"];
    let request = list::parse(raw.as_deref(), list::DEFAULT_LIMIT, filters)
        .map_err(PartnerError::Validation)?;
    let page = lists::decisions(&state.flows, &caller.tenant(), &request).await?;
    respond(
        caller.env,
        "/decisions",
        &request.page,
        &page,
        |d| d.id.to_string(),
        DecisionView::new,
    )
}
