//! The sandbox OpenAPI 3.1 document, generated from the routes.

use utoipa::openapi::security::{ClientCredentials, Flow, OAuth2, Scopes, SecurityScheme};
use utoipa::{Modify, OpenApi};

#[derive(OpenApi)]
#[openapi(
    info(title = "lendhub sandbox partner API", version = "2026-08-11.1",
        description = "Isolated, deterministic integration environment for partners: synthetic data only."),
    modifiers(&Security),
    components(schemas(crate::views::ErrorEnvelope))
)]
struct Base;

struct Security;

impl Modify for Security {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let scopes = Scopes::from_iter([
            ("sandbox:read", "read fixtures, applications and events"),
            ("sandbox:write", "create and change sandbox resources"),
        ]);
        let scheme = SecurityScheme::OAuth2(OAuth2::new([Flow::ClientCredentials(
            ClientCredentials::new("/oauth/token", scopes),
        )]));
        if let Some(components) = openapi.components.as_mut() {
            components.add_security_scheme("oauth2", scheme);
        }
    }
}

/// OpenAPI requires a description on every response; where a route gives none,
/// the status's reason phrase stands in.
struct ResponseDescriptions;

impl Modify for ResponseDescriptions {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        for item in openapi.paths.paths.values_mut() {
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
                    if let utoipa::openapi::RefOr::T(r) = response
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
}

pub(crate) fn base() -> utoipa::openapi::OpenApi {
    Base::openapi()
}

/// Completes the document generated from the routes.
pub(crate) fn finish(mut spec: utoipa::openapi::OpenApi) -> utoipa::openapi::OpenApi {
    ResponseDescriptions.modify(&mut spec);
    spec
}

/// The complete document, as served at `GET /openapi.json`.
pub fn openapi() -> utoipa::openapi::OpenApi {
    finish(crate::routes::api().into_openapi())
}
