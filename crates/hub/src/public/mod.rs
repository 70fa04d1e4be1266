//! The public ring under `/public/v1`: no credentials; protected by a fixed
//! window per client address, strict input rules and server-fixed response
//! shapes. Every figure it shows — products, quotes, loyalty, the MCP tools —
//! is computed from one pricing configuration.

pub mod catalogue;
mod cms;
mod enquiries;
pub mod error;
mod mcp;
mod protect;
mod quote_body;
pub mod state;
mod widget;
pub mod window;

use std::collections::HashMap;
use std::sync::Arc;

use axum::Router;
use axum::http::{HeaderName, HeaderValue, Method, header};
use ipnet::IpNet;
use lendhub_domain::public::enquiry::Dept;
use lendhub_domain::public::pricing::PricingConfig;
use tokio::sync::Notify;
use tower_http::cors::{AllowOrigin, Any, CorsLayer};
use utoipa_axum::router::{OpenApiRouter, UtoipaMethodRouter};
use utoipa_axum::routes;

use crate::ratelimit_headers::{LIMIT, POLICY, REMAINING, RESET};
use protect::Protect;
pub use state::PublicState;
use window::{FixedWindow, WindowPolicy};

pub use mcp::{SERVER_NAME as MCP_SERVER_NAME, TOOLS as MCP_TOOLS};

/// Where the public ring is mounted on the hub.
pub const PREFIX: &str = "/public/v1";

/// The pricing configuration shipped with the service.
pub const DEFAULT_PRICING: &str = include_str!("../../data/pricing.json");
/// The Slice billers, bank details included (never shown publicly).
const BILLERS: &str = include_str!("../../data/billers.json");

/// Where enquiry notifications go.
#[derive(Clone, Debug)]
pub struct Inboxes {
    pub default: String,
    pub by_dept: HashMap<Dept, String>,
}

impl Inboxes {
    pub fn for_dept(&self, dept: Option<Dept>) -> &str {
        dept.and_then(|d| self.by_dept.get(&d))
            .map_or(self.default.as_str(), String::as_str)
    }
}

pub struct PublicSettings {
    pub pricing: PricingConfig,
    pub trusted_proxies: Vec<IpNet>,
    /// Origins allowed to post enquiries from a browser (the support widget).
    pub enquiry_origins: Vec<String>,
    pub window: WindowPolicy,
    /// Where the per-address window is kept when instances share it.
    pub shared_limits: Option<Arc<crate::shared_limits::SharedLimits>>,
    pub inboxes: Inboxes,
    pub slice_billers: bool,
}

/// The public ring's shared state.
pub struct PublicRing {
    pub settings: PublicSettings,
    pub limiter: FixedWindow,
    /// Poked when an enquiry queues a notification.
    pub mail_wake: Arc<Notify>,
    rendered: catalogue::Rendered,
    /// `RateLimit-Policy`, the same on every response.
    policy_header: HeaderValue,
}

/// The public ring cannot start with these settings.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error(transparent)]
    Catalogue(#[from] catalogue::CatalogueError),
    #[error("the public rate limit's policy header: {0}")]
    PolicyHeader(#[from] axum::http::header::InvalidHeaderValue),
}

impl PublicRing {
    pub fn new(settings: PublicSettings, mail_wake: Arc<Notify>) -> Result<Self, StartError> {
        let rendered = catalogue::Rendered::new(&settings.pricing, BILLERS)?;
        let window_s = (settings.window.window_ms / 1000).max(1);
        let policy_header =
            HeaderValue::from_str(&format!("{};w={window_s}", settings.window.requests))?;
        Ok(Self {
            policy_header,
            limiter: FixedWindow::new(settings.window, settings.shared_limits.clone()),
            settings,
            mail_wake,
            rendered,
        })
    }
}

/// The public ring's documented routes, each registered with its OpenAPI entry.
pub fn api() -> OpenApiRouter<PublicState> {
    reads().documented.merge(writes().documented)
}

/// Routes registered twice from one `routes!`: at `PREFIX` + path to be
/// served, and at their own path for the OpenAPI document (whose server is
/// `PREFIX`). Serving them under `Router::nest` instead rewrote each
/// request's URI into a new string, parsed it again and routed the request
/// twice: about a tenth of a quote's server instructions.
#[derive(Default)]
struct Mount {
    served: Router<PublicState>,
    documented: OpenApiRouter<PublicState>,
}

impl Mount {
    /// As `OpenApiRouter::routes`: the method router at each of its paths.
    fn routes(mut self, routes: UtoipaMethodRouter<PublicState>) -> Self {
        let (_, paths, method_router) = &routes;
        for path in paths.paths.keys() {
            self.served = self
                .served
                .route(&format!("{PREFIX}{path}"), method_router.clone());
        }
        self.documented = self.documented.routes(routes);
        self
    }
}

/// Open to every origin.
fn reads() -> Mount {
    Mount::default()
        .routes(routes!(catalogue::healthz))
        .routes(routes!(catalogue::pricing))
        .routes(routes!(catalogue::products))
        .routes(routes!(catalogue::loyalty_tiers))
        .routes(routes!(catalogue::quote_onetime))
        .routes(routes!(catalogue::quote_flex))
        .routes(routes!(catalogue::billers))
        .routes(routes!(cms::page))
        .routes(routes!(widget::script))
        .routes(routes!(widget::stylesheet))
        .routes(routes!(mcp::card, mcp::mcp))
}

/// Open to the configured origins only.
fn writes() -> Mount {
    Mount::default().routes(routes!(enquiries::create))
}

/// The ring's routes at their full paths, to merge into the hub's router.
/// `document` is the ring's OpenAPI document: like the sandbox's, it is
/// served beside the routes it describes rather than listed in itself.
pub fn router(state: &PublicState, document: serde_json::Value) -> Router<PublicState> {
    let reads = reads().served.route(
        &format!("{PREFIX}/openapi.json"),
        axum::routing::get(move || async move { axum::Json(document) }),
    );
    let origins: Vec<HeaderValue> = state
        .ring
        .settings
        .enquiry_origins
        .iter()
        .filter_map(|o| HeaderValue::from_str(o).ok())
        .collect();
    let enquiry_cors = CorsLayer::new()
        .allow_origin(AllowOrigin::list(origins))
        .allow_methods([Method::POST])
        .allow_headers([
            header::CONTENT_TYPE,
            HeaderName::from_static("idempotency-key"),
        ])
        .expose_headers(exposed());
    let enquiries = writes().served.layer(enquiry_cors);
    let open_cors = CorsLayer::new()
        .allow_origin(Any)
        .allow_methods([Method::GET, Method::POST])
        .allow_headers([
            header::CONTENT_TYPE,
            header::ACCEPT,
            HeaderName::from_static("mcp-protocol-version"),
        ])
        .expose_headers(exposed());
    // Unknown paths under the prefix are the ring's too, so they pass the
    // window as well.
    let unknown = || axum::routing::any(|| async { axum::http::StatusCode::NOT_FOUND });
    reads
        .layer(open_cors)
        .merge(enquiries)
        .route(PREFIX, unknown())
        .route(&format!("{PREFIX}/"), unknown())
        .route(&format!("{PREFIX}/{{*rest}}"), unknown())
        .layer(Protect(state.clone()))
}

/// What a browser script may read of a public response.
fn exposed() -> [HeaderName; 6] {
    [
        LIMIT,
        REMAINING,
        RESET,
        POLICY,
        HeaderName::from_static("x-service-request-id"),
        HeaderName::from_static("idempotent-replayed"),
    ]
}
