use axum::Json;
use axum::extract::State;
use serde::Serialize;
use utoipa::ToSchema;

use crate::error::SandboxError;
use crate::state::SandboxState;
use crate::views::ErrorEnvelope;

#[derive(Serialize, ToSchema)]
pub struct Health {
    #[schema(example = "ok")]
    status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(example = "ok")]
    database: Option<&'static str>,
}

/// Readiness: 200 only when the database answers.
#[utoipa::path(get, operation_id = "health", path = "/healthz", tag = "health",
    responses((status = 200, body = Health), (status = 503, body = ErrorEnvelope)))]
pub async fn healthz(State(state): State<SandboxState>) -> Result<Json<Health>, SandboxError> {
    state.health.ping().await?;
    Ok(Json(Health {
        status: "ok",
        database: Some("ok"),
    }))
}

/// Liveness: the process answers. Touches nothing else.
#[utoipa::path(get, operation_id = "liveness", path = "/livez", tag = "health", responses((status = 200, body = Health)))]
pub async fn livez() -> Json<Health> {
    Json(Health {
        status: "ok",
        database: None,
    })
}
