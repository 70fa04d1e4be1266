use axum::extract::{RawQuery, State};
use axum::response::Response;
use lendhub_domain::partner::scope::PartnerScope;
use lendhub_http::list;

use crate::flows::lists;
use crate::partner::error::PartnerError;
use crate::partner::rest::caller::RestCaller;
use crate::partner::rest::list_page::respond;
use crate::partner::state::PartnerState;
use crate::views::application::ApplicationView;

/// The seed's default page size on this list (Limits: 25 on applications).
pub const DEFAULT_LIMIT: u32 = 25;

/// Your applications in this environment, newest first.
#[utoipa::path(get, operation_id = "listApplications", path = "/applications", tag = "applications",
    security(("oauth2" = ["applications.read"]), ("api_key" = [])),
    params(("limit" = Option<u32>, Query, minimum = 1, maximum = 100, description = "default 25"),
        ("starting_after" = Option<String>, Query, description = "an application id: page toward older ones"),
        ("ending_before" = Option<String>, Query, description = "an application id: page toward newer ones"),
        ("status" = Option<String>, Query, pattern = "^(created|submitted|in_review|approved|declined|funded|withdrawn|expired)$", description = "created, submitted, in_review, approved, declined, funded, withdrawn or expired"),
        ("reference" = Option<String>, Query, description = "exactly this reference"),
        ("created_after" = Option<String>, Query, format = DateTime, description = "RFC 3339: only applications created after this moment")),
    responses((status = 200, description = "`{object: \"list\", data: [application], has_more, url, next_cursor}`"),
        (status = 401, description = "credentials"), (status = 403, description = "insufficient_scope"),
        (status = 404, description = "not_found: the cursor names no application of yours"),
        (status = 422, description = "validation_failed")))]
pub async fn list(
    State(state): State<PartnerState>,
    caller: RestCaller,
    RawQuery(raw): RawQuery,
) -> Result<Response, PartnerError> {
    caller.require(PartnerScope::ApplicationsRead)?;
    let filters = &["status", "reference", "created_after"];
    let request =
        list::parse(raw.as_deref(), DEFAULT_LIMIT, filters).map_err(PartnerError::Validation)?;
    let page = lists::applications(&state.flows, &caller.tenant(), &request).await?;
    respond(
        caller.env,
        "/applications",
        &request.page,
        &page,
        |a| a.id.to_string(),
        |a| ApplicationView::new(a, &state.links),
    )
}
