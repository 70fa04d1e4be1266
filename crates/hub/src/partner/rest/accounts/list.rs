use axum::extract::{RawQuery, State};
use axum::response::Response;
use lendhub_http::list;

use super::caller::AccountsCaller;
use crate::flows::accounts;
use crate::partner::error::PartnerError;
use crate::partner::rest::list_page::respond_shown;
use crate::partner::state::PartnerState;

/// Your servicing accounts in this environment, newest first, each with its
/// balance now. With a person's identity-provider token (`accounts.read`),
/// their own company's accounts.
#[utoipa::path(get, operation_id = "listAccounts", path = "/accounts", tag = "accounts",
    security(("oauth2" = ["accounts.read"]), ("api_key" = [])),
    params(("limit" = Option<u32>, Query, minimum = 1, maximum = 100, description = "default 20"),
        ("starting_after" = Option<String>, Query, description = "an account id: page toward older ones"),
        ("ending_before" = Option<String>, Query, description = "an account id: page toward newer ones"),
        ("status" = Option<String>, Query, pattern = "^(performing|in_arrears|forborne|settled|closed)$", description = "performing, in_arrears, forborne, settled or closed"),
        ("sub_account_id" = Option<String>, Query, pattern = "^sub_[0-7][0-9A-HJKMNP-TV-Z]{25}$", description = "sub_…: loans introduced through one of your sub-accounts (partners only)")),
    responses((status = 200, description = "`{object: \"list\", data: [account], has_more, url, next_cursor}`"),
        (status = 401, description = "credentials; a person's token: unauthenticated, token_expired or token_revoked"), (status = 403, description = "insufficient_scope (accounts.read, for a partner or a person)"),
        (status = 404, description = "not_found: the cursor names no account of yours"),
        (status = 422, description = "validation_failed: status one_of; sub_account_id pattern, or partners_only with a person's token")))]
pub async fn list(
    State(state): State<PartnerState>,
    caller: AccountsCaller,
    RawQuery(raw): RawQuery,
) -> Result<Response, PartnerError> {
    let request = list::parse(
        raw.as_deref(),
        list::DEFAULT_LIMIT,
        &["status", "sub_account_id"],
    )
    .map_err(PartnerError::Validation)?;
    let page = accounts::list(&state.flows, &caller.reader(&state), &request).await?;
    respond_shown(caller.env(), "/accounts", &request.page, &page, |a| {
        a.id().to_owned()
    })
}
