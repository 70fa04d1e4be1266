//! OpenAPI finishing touches every surface's document shares.

use utoipa::openapi::{OpenApi, RefOr};

/// OpenAPI requires a description on every response; where a route gives
/// none, the status's reason phrase stands in.
pub fn fill_response_descriptions(spec: &mut OpenApi) {
    for item in spec.paths.paths.values_mut() {
        for op in [
            &mut item.get,
            &mut item.post,
            &mut item.put,
            &mut item.delete,
            &mut item.patch,
        ]
        .into_iter()
        .flatten()
        {
            for (status, response) in &mut op.responses.responses {
                if let RefOr::T(r) = response
                    && r.description.is_empty()
                {
                    let reason = status
                        .parse::<u16>()
                        .ok()
                        .and_then(|s| axum::http::StatusCode::from_u16(s).ok())
                        .and_then(|s| s.canonical_reason());
                    r.description = reason.unwrap_or("response").to_owned();
                }
            }
        }
    }
}
