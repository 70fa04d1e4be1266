//! The sandbox OpenAPI 3.1 document, generated from the routes.

use lendhub_domain::sandbox::events::EventType;
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

pub(crate) fn base() -> utoipa::openapi::OpenApi {
    Base::openapi()
}

/// Completes the document generated from the routes.
pub(crate) fn finish(mut spec: utoipa::openapi::OpenApi) -> utoipa::openapi::OpenApi {
    lendhub_http::openapi::finish(&mut spec);
    lendhub_http::openapi::name_event_types(&mut spec, &EventType::SANDBOX);
    spec
}
