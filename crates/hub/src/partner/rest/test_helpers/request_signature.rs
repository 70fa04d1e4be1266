use axum::Json;
use axum::body::Bytes;
use axum::extract::{OriginalUri, State};
use axum::http::{HeaderMap, Method};
use lendhub_http::idempotency::Idempotent;
use serde::Serialize;
use utoipa::ToSchema;

use super::test_only;
use crate::partner::error::PartnerError;
use crate::partner::request_keys::{SignedRequest, check};
use crate::partner::rest::caller::RestCaller;
use crate::partner::state::PartnerState;

#[derive(Serialize, ToSchema)]
pub struct RequestSignatureCheck {
    #[schema(example = "request_signature")]
    object: &'static str,
    valid: bool,
    /// The registered key that signed the request.
    key_id: String,
}

/// Check this request's own `Service-Request-Signature` exactly as a
/// money-moving write will (/docs/guide/request-signing.html): 200 when it verifies,
/// 400 `signature_invalid` saying why when it does not. Nothing is stored.
#[utoipa::path(post, operation_id = "checkRequestSignature", path = "/test_helpers/request_signature", tag = "test_helpers",
    security(("api_key" = []), ("oauth2" = [])),
    params(("Idempotency-Key" = String, Header, description = "required: it is signed"),
        ("Service-Request-Signature" = String, Header, description = "t=<unix>,kid=<rsk_…>,ed25519=<base64url>")),
    request_body(content = Object, description = "any JSON body; its exact bytes are signed"),
    responses((status = 200, body = RequestSignatureCheck),
        (status = 400, description = "signature_invalid or idempotency_key_malformed"),
        (status = 401, description = "credentials"),
        (status = 403, description = "capability_denied: live credentials")))]
pub async fn check_request_signature(
    State(state): State<PartnerState>,
    caller: RestCaller,
    method: Method,
    OriginalUri(uri): OriginalUri,
    headers: HeaderMap,
    idempotent: Idempotent,
    body: Bytes,
) -> Result<Json<RequestSignatureCheck>, PartnerError> {
    test_only(&caller)?;
    let path_and_query = uri.path_and_query().map_or(uri.path(), |p| p.as_str());
    let key_id = check(
        &state,
        &caller.client.client_id,
        &SignedRequest {
            headers: &headers,
            method: method.as_str(),
            path_and_query,
            idempotency_key: &idempotent.key,
            body: &body,
        },
    )
    .await?;
    Ok(Json(RequestSignatureCheck {
        object: "request_signature",
        valid: true,
        key_id,
    }))
}
