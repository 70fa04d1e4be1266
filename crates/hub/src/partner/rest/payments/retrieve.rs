use axum::Json;
use axum::extract::{Path, State};
use lendhub_domain::partner::scope::PartnerScope;

use super::find;
use crate::partner::error::PartnerError;
use crate::partner::rest::caller::RestCaller;
use crate::partner::state::PartnerState;
use crate::views::payment::PaymentView;

/// A payment of yours, in this environment.
#[utoipa::path(get, operation_id = "getPayment", path = "/payments/{id}", tag = "payments",
    security(("oauth2" = ["payments.read"]), ("api_key" = [])),
    params(("id" = String, Path, description = "pay_…")),
    responses((status = 200, body = PaymentView), (status = 401, description = "credentials"),
        (status = 403, description = "insufficient_scope"),
        (status = 404, description = "not_found: no such payment of yours in this environment")))]
pub async fn retrieve(
    State(state): State<PartnerState>,
    caller: RestCaller,
    Path(id): Path<String>,
) -> Result<Json<PaymentView>, PartnerError> {
    caller.require(PartnerScope::PaymentsRead)?;
    let payment = find(&state, &caller.tenant(), &id).await?;
    Ok(Json(PaymentView::new(&payment, &state.links)))
}
