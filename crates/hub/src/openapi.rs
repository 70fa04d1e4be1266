//! The partner ring's OpenAPI 3.1 document, generated from its routes: the
//! token plane, the MCP tier and the REST tier as built so far. It is kept
//! in the repository (`docs/openapi/partner.json`) and served at
//! `/partner/v1/openapi.json` when the REST tier is switched on.

use lendhub_domain::sandbox::events::EventType;
use utoipa::openapi::path::{Parameter, ParameterIn};
use utoipa::openapi::schema::{AdditionalProperties, ObjectBuilder, Schema, SchemaType, Type};
use utoipa::openapi::security::{
    ClientCredentials, Flow, HttpAuthScheme, HttpBuilder, OAuth2, Scopes, SecurityScheme,
};
use utoipa::openapi::{OpenApi, RefOr, Required, Server};
use utoipa::{Modify, OpenApi as _};

use lendhub_domain::partner::scope::{PartnerScope, Scope};

#[derive(utoipa::OpenApi)]
#[openapi(
    info(title = "lendhub partner ring", version = "v1",
        description = "The partner ring: the OAuth 2.0 token plane (client credentials, EdDSA JWT access tokens, introspection, revocation, JWKS), the read-only MCP tier and the REST tier. The REST tier is served live under /partner/v1 and as the test environment under /sandbox/v1; it takes a secret API key of that environment (sk_live_/sk_test_) or an access token whose audience is that environment, as a bearer credential."),
    modifiers(&Security),
    // An event's payload that no path answers with.
    components(schemas(crate::views::model_drift::ModelDriftView))
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
        let api_key = SecurityScheme::Http(
            HttpBuilder::new()
                .scheme(HttpAuthScheme::Bearer)
                .bearer_format("sk_live_… or sk_test_…")
                .description(Some(
                    "A secret API key of the environment called (the REST tier only).",
                ))
                .build(),
        );
        if let Some(components) = openapi.components.as_mut() {
            components.add_security_scheme("oauth2", oauth);
            components.add_security_scheme("bearer", bearer);
            components.add_security_scheme("api_key", api_key);
        }
    }
}

/// The header every REST-tier path takes (`partner::rest::api_version`).
fn version_header() -> RefOr<Parameter> {
    let mut header = Parameter::new("Lendhub-Version");
    header.parameter_in = ParameterIn::Header;
    header.required = Required::False;
    header.description = Some(
        "The dated API version to answer in; without it, the newest. Every answer names \
         the version that answered in this header. An unknown version is 422 \
         `validation_failed` (`unknown_version`)."
            .to_owned(),
    );
    let mut schema = ObjectBuilder::new().schema_type(Type::String).build();
    schema.enum_values = Some(
        lendhub_domain::sandbox::events::HUB_API_VERSIONS
            .iter()
            .map(|v| serde_json::json!(v))
            .collect(),
    );
    header.schema = Some(RefOr::T(Schema::Object(schema)));
    RefOr::T(header)
}

/// Webhook endpoints' metadata: pairs, name and value lengths
/// (`lendhub_domain::metadata::check`).
const METADATA_BOUNDS: (usize, usize, usize) = (20, 40, 500);

/// The partner ring's document rendered once, as `GET /openapi.json` serves it.
pub(crate) fn partner_document() -> &'static str {
    static DOCUMENT: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
        openapi()
            .to_pretty_json()
            .unwrap_or_else(|e| unreachable!("the generated document serialises: {e}"))
    });
    DOCUMENT.as_str()
}

pub fn openapi() -> OpenApi {
    let mut rest = crate::partner::rest::api().into_openapi();
    // The REST tier is served in both environments; the rest of the ring
    // only live.
    for item in rest.paths.paths.values_mut() {
        item.servers = Some(vec![
            Server::new(crate::partner::PREFIX),
            Server::new(crate::partner::rest::SANDBOX_PREFIX),
        ]);
        let operations = [
            &mut item.get,
            &mut item.post,
            &mut item.put,
            &mut item.patch,
            &mut item.delete,
        ];
        for operation in operations.into_iter().flatten() {
            operation
                .parameters
                .get_or_insert_with(Vec::new)
                .push(version_header());
        }
    }
    let mut spec = Base::openapi()
        .merge_from(crate::partner::api().into_openapi())
        .merge_from(rest);
    spec.servers = Some(vec![Server::new(crate::partner::PREFIX)]);
    lendhub_http::openapi::finish(&mut spec);
    lendhub_http::openapi::name_event_types(&mut spec, &EventType::HUB);
    // The tier's `check_events`: `*` alone (the sandbox takes it in a list).
    for component in [
        "CreateWebhookEndpoint",
        "UpdateWebhookEndpoint",
        "Subscribe",
    ] {
        lendhub_http::openapi::wildcard_alone(&mut spec, component, "enabled_events");
    }
    // Without a `redirect_uri`, the applicant's e-mail is required
    // (`lending::check`, `required_without_redirect_uri`).
    lendhub_http::openapi::also(
        &mut spec,
        "CreateApplication",
        // Members in sorted order: serde_json keeps insertion order when a
        // crate of the workspace asks it to, and the snapshot must not care.
        serde_json::json!({"anyOf": [
            {"properties": {"redirect_uri": {"type": "string"}}, "required": ["redirect_uri"]},
            {"properties": {"applicant": {
                "properties": {"email": {"type": "string"}}, "required": ["email"], "type": "object"}},
             "required": ["applicant"]},
        ]}),
    );
    // An application's metadata: `lending::check_metadata`'s bounds.
    lendhub_http::openapi::bound_map(
        &mut spec,
        "CreateApplication",
        "metadata",
        (
            lendhub_domain::lending::application::MAX_METADATA,
            lendhub_domain::lending::application::MAX_METADATA_KEY,
            lendhub_domain::lending::application::MAX_METADATA_VALUE,
        ),
    );
    for component in ["CreateWebhookEndpoint", "UpdateWebhookEndpoint"] {
        lendhub_http::openapi::bound_map(&mut spec, component, "metadata", METADATA_BOUNDS);
        lendhub_http::openapi::name_values(
            &mut spec,
            component,
            "api_version",
            lendhub_domain::sandbox::events::HUB_API_VERSIONS,
        );
    }
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
    lendhub_http::openapi::finish(&mut spec);
    // A JSON-RPC id is a string, a number or null (utoipa spells one type).
    if let Some(components) = spec.components.as_mut()
        && let Some(RefOr::T(Schema::Object(message))) =
            components.schemas.get_mut("JsonRpcMessage")
        && let Some(RefOr::T(Schema::Object(id))) = message.properties.get_mut("id")
    {
        id.schema_type = SchemaType::Array(vec![Type::String, Type::Number, Type::Null]);
        id.pattern = None;
    }
    // An enquiry's fields: named without control characters, each a
    // string, a number or a boolean (`lendhub_domain::public::enquiry::validate`).
    if let Some(components) = spec.components.as_mut()
        && let Some(RefOr::T(Schema::Object(fields))) = components.schemas.get_mut("EnquiryFields")
    {
        let no_controls = Some(lendhub_http::openapi::NO_CONTROLS);
        fields.additional_properties = Some(Box::new(AdditionalProperties::RefOr(RefOr::T(
            Schema::Object(
                ObjectBuilder::new()
                    .schema_type(SchemaType::Array(vec![
                        Type::String,
                        Type::Number,
                        Type::Boolean,
                    ]))
                    .pattern(no_controls)
                    .build(),
            ),
        ))));
        fields.property_names = Some(Box::new(Schema::Object(
            ObjectBuilder::new()
                .schema_type(Type::String)
                .pattern(no_controls)
                .build(),
        )));
    }
    spec
}
