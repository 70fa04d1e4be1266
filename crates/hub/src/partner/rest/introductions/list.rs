use std::collections::HashMap;

use axum::extract::{RawQuery, State};
use axum::response::Response;
use lendhub_domain::ids::{HubId, IntroductionId};
use lendhub_domain::list_filter;
use lendhub_domain::partner::scope::PartnerScope;
use lendhub_http::list;
use lendhub_store::{IntroductionPage, IntroductionQuery};

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
    let sub_account_id = list_filter::by_sub_account(request.filter("sub_account_id"))?;
    let cursor_missing = PartnerError::NotFound("introduction for the cursor");
    if request
        .cursors()
        .any(|c| IntroductionId::parse(c).is_none())
    {
        return Err(cursor_missing);
    }
    let owner = caller.tenant();
    let query = IntroductionQuery {
        page: request.page.clone(),
        sub_account_id,
    };
    let page = match state.commercial.introductions(&owner, &query).await? {
        IntroductionPage::Page(page) => page,
        IntroductionPage::UnknownCursor => return Err(cursor_missing),
    };
    let mut views = HashMap::with_capacity(page.items.len());
    for i in &page.items {
        let application = state
            .lending
            .hub_application(&owner, &i.application_id)
            .await?
            .ok_or_else(|| {
                PartnerError::Internal(format!("introduction {} names no application", i.id))
            })?;
        views.insert(i.id.to_string(), IntroductionView::new(i, &application));
    }
    respond(
        caller.env,
        "/introductions",
        &request.page,
        &page,
        |i| i.id.to_string(),
        |i| views.get(i.id.as_str()),
    )
}
