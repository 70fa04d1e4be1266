use axum::extract::{RawQuery, State};
use axum::response::Response;
use lendhub_domain::partner::scope::PartnerScope;
use lendhub_http::list;

use crate::flows::lists;
use crate::partner::error::PartnerError;
use crate::partner::rest::caller::RestCaller;
use crate::partner::rest::list_page::respond;
use crate::partner::state::PartnerState;
use crate::views::introduction::IntroductionView;

/// The applications your sub-accounts introduced in this environment
/// (beta), newest first, each at the stage its application has reached.
#[utoipa::path(get, operation_id = "listIntroductions", path = "/introductions", tag = "sub-accounts",
    security(("oauth2" = ["applications.read"]), ("api_key" = [])),
    params(("limit" = Option<u32>, Query, minimum = 1, maximum = 100, description = "default 20"),
        ("starting_after" = Option<String>, Query, description = "an introduction id: page toward older ones"),
        ("ending_before" = Option<String>, Query, description = "an introduction id: page toward newer ones"),
        ("sub_account_id" = Option<String>, Query, pattern = "^sub_[0-7][0-9A-HJKMNP-TV-Z]{25}$", description = "sub_…: one sub-account's introductions")),
    responses((status = 200, description = "`{object: \"list\", data: [introduction], has_more, url, next_cursor}`"),
        (status = 401, description = "credentials"), (status = 403, description = "insufficient_scope"),
        (status = 404, description = "not_found: the cursor names no introduction of yours"),
        (status = 422, description = "validation_failed: sub_account_id pattern")))]
pub async fn list(
    State(state): State<PartnerState>,
    caller: RestCaller,
    RawQuery(raw): RawQuery,
) -> Result<Response, PartnerError> {
    caller.require(PartnerScope::ApplicationsRead)?;
    let request = list::parse(raw.as_deref(), list::DEFAULT_LIMIT, &["sub_account_id"])
        .map_err(PartnerError::Validation)?;
    let page = lists::introductions(&state.flows, &caller.tenant(), &request).await?;
    respond(
        caller.env,
        "/introductions",
        &request.page,
        &page,
        |(i, _)| i.id.to_string(),
        |(i, a)| IntroductionView::new(i, a),
    )
}
