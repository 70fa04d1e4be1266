//! The hub's two rings, each with a state of its own: the partner ring's
//! (`partner::PartnerState`) and the public ring's (`public::PublicState`).
//! They share the store and the clock, nothing else. The people-facing
//! pages of the partner ring each hold a narrower state made from the
//! ring's (`FromRef`): the pay page, the hosted journey and the dashboard
//! reach only their own stores, counterparties and links, and the flows.

use axum::extract::FromRef;

use crate::apply::state::JourneyState;
use crate::dashboard::state::DashboardState;
use crate::pay::state::PayState;

pub use crate::partner::state::{PartnerSettings, PartnerState, Urls};
pub use crate::public::PublicState;

/// Both rings' states, which the server builds and hands to `router`.
#[derive(Clone)]
pub struct HubState {
    pub partner: PartnerState,
    pub public: PublicState,
}

impl FromRef<PartnerState> for PayState {
    fn from_ref(ring: &PartnerState) -> Self {
        Self {
            servicing: ring.servicing.clone(),
            payments: ring.payments.clone(),
            links: ring.links.clone(),
            flows: ring.flows.clone(),
        }
    }
}

impl FromRef<PartnerState> for JourneyState {
    fn from_ref(ring: &PartnerState) -> Self {
        Self {
            lending: ring.lending.clone(),
            accounts: ring.accounts.clone(),
            rp: ring.settings.journey.clone(),
            open: ring.settings.rest_tier_enabled,
            csrf_key: ring.master_key.derive("apply-csrf"),
            links: ring.links.clone(),
            flows: ring.flows.clone(),
            trusted_proxies: ring.settings.trusted_proxies.clone().into(),
        }
    }
}

impl FromRef<PartnerState> for DashboardState {
    fn from_ref(ring: &PartnerState) -> Self {
        Self {
            dashboard: ring.dashboard.clone(),
            partners: ring.partners.clone(),
            lending: ring.lending.clone(),
            servicing: ring.servicing.clone(),
            commercial: ring.commercial.clone(),
            events: ring.events.clone(),
            jobs: ring.jobs.clone(),
            rp: ring.settings.dashboard.clone(),
            operators: ring.settings.operators.clone(),
            master_key: ring.master_key.clone(),
            secret_pepper: ring.secret_pepper.clone(),
            traffic: ring.traffic.clone(),
            directory: ring.directory.clone(),
            links: ring.links.clone(),
            clock: ring.clock.clone(),
            flows: ring.flows.clone(),
            stand_ins: ring.stand_ins.clone(),
        }
    }
}
