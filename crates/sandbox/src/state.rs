use std::sync::Arc;

use lendhub_domain::clock::Clock;
use lendhub_domain::crypto::MasterKey;
use lendhub_http::idempotency::Idempotency;
use lendhub_store::{EventStore, Maintenance, SandboxStore, Store, UnitOfWork};
use lendhub_webhooks::sender::Sender;
use tokio::sync::Notify;

use crate::known_clients::KnownClients;
use lendhub_domain::sandbox::token::TokenSeal;
use lendhub_domain::tenant::Tenant;
use lendhub_http::event_pages::EventPages;
use lendhub_http::rendered::Rendered;

/// What every sandbox handler shares; cloned per request (and per layer),
/// so one `Arc`.
#[derive(Clone)]
pub struct SandboxState(Arc<Sandbox>);

impl std::ops::Deref for SandboxState {
    type Target = Sandbox;

    fn deref(&self) -> &Sandbox {
        &self.0
    }
}

pub struct Sandbox {
    pub sandbox: Arc<dyn SandboxStore>,
    pub events: Arc<dyn EventStore>,
    /// Commits what a request changes (the idempotency runner holds it too).
    pub writes: Arc<dyn UnitOfWork>,
    /// Answers the readiness probe.
    pub health: Arc<dyn Maintenance>,
    pub clock: Arc<dyn Clock>,
    pub master_key: MasterKey,
    /// Keyed-hash pepper for client secrets, derived from the master key once.
    pub secret_pepper: lendhub_domain::crypto::DerivedKey,
    pub sender: Sender,
    /// Tells the outbox worker that new deliveries are waiting.
    pub outbox_wake: Arc<Notify>,
    /// Tells the referral worker that a clock moved (reviews may be due).
    pub referrals_wake: Arc<Notify>,
    pub token_ttl_seconds: i64,
    /// Runs every write at most once per (client, Idempotency-Key).
    pub(crate) idempotency: Idempotency<crate::SandboxError>,
    pub(crate) event_pages: Arc<EventPages>,
    /// Applications as last served, each at its version.
    pub(crate) application_pages: Rendered<(Tenant, String), i64>,
    /// Seals and opens access tokens (a key derived from the master key).
    pub(crate) token_seal: TokenSeal,
    /// Active clients remembered between token requests and bearer checks
    /// (the server keeps it in step with the store).
    pub clients: Arc<KnownClients>,
}

impl SandboxState {
    /// Takes the whole store and keeps of it only the contexts the sandbox uses.
    pub fn new(
        store: Arc<dyn Store>,
        clock: Arc<dyn Clock>,
        master_key: MasterKey,
        sender: Sender,
        outbox_wake: Arc<Notify>,
        token_ttl_seconds: i64,
        read_caches: bool,
    ) -> Self {
        let idempotency = Idempotency::new(store.clone(), master_key.clone(), outbox_wake.clone());
        Self(Arc::new(Sandbox {
            secret_pepper: crate::clients::pepper(&master_key),
            token_seal: TokenSeal::new(&master_key),
            sandbox: store.clone(),
            events: store.clone(),
            writes: store.clone(),
            health: store,
            clock,
            master_key,
            sender,
            outbox_wake,
            referrals_wake: Arc::new(Notify::new()),
            token_ttl_seconds,
            idempotency,
            event_pages: Arc::new(EventPages::new(read_caches)),
            application_pages: Rendered::new(read_caches),
            clients: Arc::default(),
        }))
    }
}
