//! The hub (seed 001): the live partner ring under `/partner/v1` — the OAuth
//! token plane, the read-only MCP tier and the planned REST tier — the
//! metadata documents under `/.well-known`, and the unauthenticated public
//! ring under `/public/v1`. It runs on its own listener; the error envelope,
//! request and correlation ids are the hub's own.

pub mod apply;
mod bank_callback;
pub mod bank_events;
mod brand_logos;
pub mod counterparties;
pub mod dashboard;
pub mod documents;
mod envelope;
pub mod flows;
mod html;
pub mod keys;
mod links;
mod openapi;
pub mod partner;
mod pay;
pub mod public;
pub mod rail_events;
mod ratelimit_headers;
pub mod relying_party;
pub mod shared_limits;
mod state;
mod static_asset;
mod views;

pub use envelope::{IdHeaders as HubIdHeaders, render as render_problem};
pub use html::{legal_footer, with_footer};
pub use keys::{KeyRing, PARTNER_KEYS};
pub use openapi::{openapi, public_openapi};
pub use state::{HubState, PartnerSettings, PartnerState, PublicState, Urls};

/// The hub's routes: the partner ring with the authorization-server
/// metadata, and the public ring.
pub fn router(state: HubState) -> axum::Router {
    use axum::extract::FromRef;
    let public_document = serde_json::to_value(public_openapi()).unwrap_or_default();
    let public = public::router(&state.public, public_document).with_state(state.public);
    // Every page for people carries the lender's legal footer.
    let footer = axum::middleware::map_response_with_state(
        html::legal_footer(state.partner.flows.lender(), &state.partner.links.urls.base),
        html::with_footer,
    );
    let journey = apply::router(FromRef::from_ref(&state.partner)).layer(footer.clone());
    let pay = pay::router(FromRef::from_ref(&state.partner)).layer(footer.clone());
    let dashboard = dashboard::router(FromRef::from_ref(&state.partner)).layer(footer);
    let logos = brand_logos::router(state.partner.flows.clone());
    let bank_events = bank_events::router(state.partner.flows.clone());
    let rail_events = rail_events::router(state.partner.flows.clone());
    let flows = state.partner.flows.clone();
    let document = partner::rest::openapi_doc::Document(openapi::partner_document());
    partner::router(state.partner)
        .layer(axum::Extension(document))
        .merge(public)
        .merge(journey)
        .merge(pay)
        .merge(dashboard)
        .merge(logos)
        .merge(bank_events)
        .merge(rail_events)
        .merge(
            axum::Router::new()
                .route(
                    "/open-banking/callback",
                    axum::routing::get(bank_callback::callback),
                )
                .with_state(flows),
        )
}
