//! The partner ring's OpenAPI 3.1 document, generated from its live routes.
//! It is kept in the repository (`docs/openapi/partner.json`); the ring's own
//! `/partner/v1/openapi.json` belongs to the planned tier and answers 503.

use utoipa::openapi::security::{
    ClientCredentials, Flow, HttpAuthScheme, HttpBuilder, OAuth2, Scopes, SecurityScheme,
};
use utoipa::openapi::{OpenApi, Server};
use utoipa::{Modify, OpenApi as _};

use lendhub_domain::scope::{PartnerScope, Scope};

#[derive(utoipa::OpenApi)]
#[openapi(
    info(title = "lendhub partner ring", version = "v1",
        description = "The live partner ring: the OAuth 2.0 token plane (client credentials, EdDSA JWT access tokens, introspection, revocation, JWKS) and the read-only MCP tier."),
    modifiers(&Security)
)]
struct Base;

struct Security;

impl Modify for Security {
    fn modify(&self, openapi: &mut OpenApi) {
        let scopes = Scopes::from_iter(PartnerScope::ALL.iter().map(|s| (s.as_str(), s.as_str())));
        let oauth = SecurityScheme::OAuth2(OAuth2::new([Flow::ClientCredentials(
            ClientCredentials::new("/partner/v1/oauth/token", scopes),
        )]));
        let bearer = SecurityScheme::Http(
            HttpBuilder::new()
                .scheme(HttpAuthScheme::Bearer)
                .bearer_format("JWT")
                .build(),
        );
        if let Some(components) = openapi.components.as_mut() {
            components.add_security_scheme("oauth2", oauth);
            components.add_security_scheme("bearer", bearer);
        }
    }
}

pub fn openapi() -> OpenApi {
    let mut spec = Base::openapi().merge_from(crate::partner::api().into_openapi());
    spec.servers = Some(vec![Server::new(crate::partner::PREFIX)]);
    lendhub_http::openapi::fill_response_descriptions(&mut spec);
    spec
}

#[derive(utoipa::OpenApi)]
#[openapi(info(
    title = "lendhub public ring",
    version = "v1",
    description = "The unauthenticated public ring: pricing, products, loyalty, quotes, Slice billers, CMS pages, enquiries, the support widget and the public MCP server. Rate limited per client address (60 requests per 60 seconds by default)."
))]
struct PublicBase;

pub fn public_openapi() -> OpenApi {
    let mut spec = PublicBase::openapi().merge_from(crate::public::api().into_openapi());
    spec.servers = Some(vec![Server::new(crate::public::PREFIX)]);
    lendhub_http::openapi::fill_response_descriptions(&mut spec);
    spec
}
