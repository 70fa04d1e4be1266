use axum::Json;
use axum::extract::{Path, State};
use lendhub_domain::ids::{HubId, MarketplaceAppId};
use lendhub_domain::partner::scope::PartnerScope;

use crate::partner::error::PartnerError;
use crate::partner::rest::caller::RestCaller;
use crate::partner::state::PartnerState;
use crate::views::marketplace::AppView;

/// A marketplace app listing of yours, with its review state.
#[utoipa::path(get, operation_id = "getMarketplaceApp", path = "/marketplace/apps/{id}", tag = "marketplace",
    security(("oauth2" = ["marketplace.read"]), ("api_key" = [])),
    params(("id" = String, Path, description = "mkt_…")),
    responses((status = 200, body = AppView), (status = 401, description = "credentials"),
        (status = 403, description = "insufficient_scope"),
        (status = 404, description = "not_found: no such app of yours in this environment")))]
pub async fn retrieve_app(
    State(state): State<PartnerState>,
    caller: RestCaller,
    Path(id): Path<String>,
) -> Result<Json<AppView>, PartnerError> {
    caller.require(PartnerScope::MarketplaceRead)?;
    let missing = PartnerError::NotFound("marketplace app");
    let Some(id) = MarketplaceAppId::parse(&id) else {
        return Err(missing);
    };
    let app = state
        .commercial
        .marketplace_app(&caller.tenant(), &id)
        .await?
        .ok_or(missing)?;
    Ok(Json(AppView::new(&app)))
}
