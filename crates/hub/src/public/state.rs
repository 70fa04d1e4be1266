//! The public ring's state: the store, the clock and the ring itself
//! (pricing, rendered catalogue, per-address window, mail wake).

use std::sync::Arc;

use lendhub_domain::clock::Clock;
use lendhub_http::idempotency::Idempotency;
use lendhub_store::{Maintenance, PublicStore, Store};
use tokio::sync::Notify;

use super::error::PublicError;

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
    /// Enquiries, at most once per Idempotency-Key.
    pub idempotency: Idempotency<PublicError>,
}

impl PublicState {
    /// Takes the whole store and keeps of it only the contexts the ring uses.
    pub fn new(
        store: Arc<dyn Store>,
        clock: Arc<dyn Clock>,
        ring: PublicRing,
        master_key: lendhub_domain::crypto::MasterKey,
    ) -> Self {
        // An enquiry queues no webhook deliveries: nothing to wake.
        let idempotency = Idempotency::new(store.clone(), master_key, Arc::new(Notify::new()));
        Self(Arc::new(Public {
            idempotency,
            store: store.clone(),
            health: store,
            clock,
            ring,
        }))
    }
}
