use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use lendhub_domain::partner::scope::PartnerScope;
use lendhub_http::idempotency::{MaybeIdempotent, Prepared};
use lendhub_store::{EventWrite, WriteSet};
use serde::Serialize;
use utoipa::ToSchema;

use super::find;
use crate::partner::error::PartnerError;
use crate::partner::rest::caller::RestCaller;
use crate::partner::state::PartnerState;

#[derive(Serialize, ToSchema)]
pub struct DeletedWebhookEndpoint {
    id: String,
    #[schema(example = "webhook_endpoint")]
    object: &'static str,
    deleted: bool,
}

/// Delete a webhook endpoint: nothing more is delivered to it, and its
/// place under the limit is free again.
#[utoipa::path(delete, operation_id = "deleteWebhookEndpoint", path = "/webhook_endpoints/{id}", tag = "webhooks",
    security(("oauth2" = ["webhooks.manage"]), ("api_key" = [])),
    params(("id" = String, Path, description = "whe_…"), ("Idempotency-Key" = Option<String>, Header)),
    responses((status = 200, body = DeletedWebhookEndpoint), (status = 401, description = "credentials"),
        (status = 403, description = "insufficient_scope"), (status = 404, description = "not_found")))]
pub async fn delete(
    State(state): State<PartnerState>,
    caller: RestCaller,
    Path(id): Path<String>,
    MaybeIdempotent(key): MaybeIdempotent,
) -> Result<Response, PartnerError> {
    let write = caller.begin_write(&state, PartnerScope::WebhooksManage)?;
    let owner = &write.owner;
    state
        .idempotency
        .run_maybe(write.guarded(&key, b""), || async {
            let record = find(&state, owner, &id).await?;
            let mut writes = WriteSet::default();
            writes.push(EventWrite::DeleteEndpoint {
                id: record.endpoint.id.to_string(),
                owner: owner.clone(),
            });
            let view = DeletedWebhookEndpoint {
                id: record.endpoint.id.to_string(),
                object: "webhook_endpoint",
                deleted: true,
            };
            Ok(Prepared::json(StatusCode::OK, &view, writes)?)
        })
        .await
        .map_err(|e| match e {
            // Deleted by a concurrent request.
            PartnerError::Conflict(_) => PartnerError::NotFound("webhook endpoint"),
            e => e,
        })
}
