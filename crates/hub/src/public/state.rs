//! The public ring's state: the store, the clock and the ring itself
//! (pricing, rendered catalogue, per-address window, mail wake).

use std::sync::Arc;

use lendhub_domain::clock::Clock;
use lendhub_store::{Maintenance, PublicStore, Store};

use super::PublicRing;

/// What every public-ring handler shares; cloned per request, so one `Arc`.
#[derive(Clone)]
pub struct PublicState(Arc<Public>);

impl std::ops::Deref for PublicState {
    type Target = Public;

    fn deref(&self) -> &Public {
        &self.0
    }
}

pub struct Public {
    pub store: Arc<dyn PublicStore>,
    /// Answers the health probe.
    pub health: Arc<dyn Maintenance>,
    pub clock: Arc<dyn Clock>,
    pub ring: PublicRing,
}

impl PublicState {
    /// Takes the whole store and keeps of it only the contexts the ring uses.
    pub fn new(store: Arc<dyn Store>, clock: Arc<dyn Clock>, ring: PublicRing) -> Self {
        Self(Arc::new(Public {
            store: store.clone(),
            health: store,
            clock,
            ring,
        }))
    }
}
