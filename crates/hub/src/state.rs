//! The hub's two rings, each with a state of its own: the partner ring's
//! (`partner::PartnerState`) and the public ring's (`public::PublicState`).
//! They share the store and the clock, nothing else.

pub use crate::partner::state::{PartnerSettings, PartnerState, Urls};
pub use crate::public::PublicState;

/// Both rings' states, which the server builds and hands to `router`.
#[derive(Clone)]
pub struct HubState {
    pub partner: PartnerState,
    pub public: PublicState,
}
