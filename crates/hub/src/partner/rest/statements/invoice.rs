use axum::extract::{Path, State};
use axum::response::Response;

use super::retrieve::find;
use crate::partner::error::PartnerError;
use crate::partner::rest::caller::RestCaller;
use crate::partner::state::PartnerState;
use crate::views::invoice::page;

/// A statement as a printable invoice (or, for a revenue share, a
/// remittance advice): GBP, exclusive of VAT.
#[utoipa::path(get, operation_id = "getStatementInvoice", path = "/statements/{id}/invoice", tag = "billing",
    security(("oauth2" = ["billing.read"]), ("api_key" = [])),
    params(("id" = String, Path, description = "pst_…")),
    responses((status = 200, description = "the invoice, `text/html`, printable", content_type = "text/html"),
        (status = 401, description = "credentials"), (status = 403, description = "insufficient_scope"),
        (status = 404, description = "not_found: no such statement of yours in this environment")))]
pub async fn invoice(
    State(state): State<PartnerState>,
    caller: RestCaller,
    Path(id): Path<String>,
) -> Result<Response, PartnerError> {
    let statement = find(&state, &caller, &id).await?;
    Ok(page(&statement))
}
