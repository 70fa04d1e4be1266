use axum::extract::{Path, RawQuery, State};
use axum::response::Response;
use lendhub_http::list;

use super::caller::AccountsCaller;
use crate::flows::accounts;
use crate::partner::error::PartnerError;
use crate::partner::rest::list_page::respond;
use crate::partner::state::PartnerState;
use crate::views::account::EntryView;

/// An account's statement, newest first, a page at a time: one entry per
/// transfer of the double-entry ledger posted on the loan (drawdown,
/// interest, fee, collection, return, refund, write_off), never changed or
/// removed. With a person's
/// identity-provider token (`accounts.read`), of an account of their own
/// company's.
#[utoipa::path(get, operation_id = "listAccountTransactions", path = "/accounts/{id}/transactions", tag = "accounts",
    security(("oauth2" = ["accounts.read"]), ("api_key" = [])),
    params(("id" = String, Path, description = "acc_…"),
        ("limit" = Option<u32>, Query, minimum = 1, maximum = 100, description = "default 20"),
        ("starting_after" = Option<String>, Query, description = "an entry id: page toward older ones"),
        ("ending_before" = Option<String>, Query, description = "an entry id: page toward newer ones")),
    responses((status = 200, description = "`{object: \"list\", data: [ledger_entry], has_more, url, next_cursor}`"),
        (status = 401, description = "credentials; a person's token: unauthenticated, token_expired or token_revoked"), (status = 403, description = "insufficient_scope (accounts.read, for a partner or a person)"),
        (status = 404, description = "not_found: no such account of yours, or the cursor names no entry of yours"),
        (status = 422, description = "validation_failed")))]
pub async fn transactions(
    State(state): State<PartnerState>,
    caller: AccountsCaller,
    Path(id): Path<String>,
    RawQuery(raw): RawQuery,
) -> Result<Response, PartnerError> {
    let request =
        list::parse(raw.as_deref(), list::DEFAULT_LIMIT, &[]).map_err(PartnerError::Validation)?;
    let page = accounts::transactions(&state.flows, &caller.reader(&state), &id, &request).await?;
    respond(
        caller.env(),
        &format!("/accounts/{id}/transactions"),
        &request.page,
        &page,
        |e| e.id.to_string(),
        EntryView::new,
    )
}
