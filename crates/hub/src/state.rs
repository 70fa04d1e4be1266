//! The hub's two rings, each with a state of its own: the partner ring's
//! (`partner::PartnerState`) and the public ring's (`public::PublicState`).
//! They share the store and the clock, nothing else.

use std::sync::Arc;

use lendhub_domain::clock::Clock;
use lendhub_domain::crypto::MasterKey;
use lendhub_store::Store;

use crate::keys::KeyRing;
pub use crate::partner::state::{PartnerSettings, PartnerState, Urls};
use crate::public::{PublicRing, PublicState};

/// Both rings' states, built together by the server.
#[derive(Clone)]
pub struct HubState {
    pub partner: PartnerState,
    pub public: PublicState,
}

impl HubState {
    pub fn new(
        store: Arc<dyn Store>,
        clock: Arc<dyn Clock>,
        master_key: MasterKey,
        keys: Arc<KeyRing>,
        urls: Urls,
        settings: PartnerSettings,
        public: PublicRing,
    ) -> Self {
        Self {
            public: PublicState::new(store.clone(), clock.clone(), public),
            partner: PartnerState::new(store, clock, master_key, keys, urls, settings),
        }
    }
}
