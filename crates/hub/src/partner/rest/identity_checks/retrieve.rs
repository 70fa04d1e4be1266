use axum::Json;
use axum::extract::{Path, State};
use lendhub_domain::ids::{HubId, VerificationId};
use lendhub_domain::partner::scope::PartnerScope;

use crate::partner::error::PartnerError;
use crate::partner::rest::caller::RestCaller;
use crate::partner::state::PartnerState;
use crate::views::verification::VerificationView;

/// An identity check of yours, in this environment.
#[utoipa::path(get, operation_id = "getIdentityCheck", path = "/identity/checks/{id}", tag = "identity",
    security(("oauth2" = ["identity.read"]), ("api_key" = [])),
    params(("id" = String, Path, description = "ver_…")),
    responses((status = 200, body = VerificationView), (status = 401, description = "credentials"),
        (status = 403, description = "insufficient_scope"), (status = 404, description = "not_found")))]
pub async fn retrieve(
    State(state): State<PartnerState>,
    caller: RestCaller,
    Path(id): Path<String>,
) -> Result<Json<VerificationView>, PartnerError> {
    caller.require(PartnerScope::IdentityRead)?;
    let missing = PartnerError::NotFound("identity check");
    let Some(id) = VerificationId::parse(&id) else {
        return Err(missing);
    };
    let verification = state
        .lending
        .verification(&caller.tenant(), &id)
        .await?
        .ok_or(missing)?;
    Ok(Json(VerificationView::new(&verification)))
}
