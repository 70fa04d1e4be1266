//! What the hosted journey holds: the applications and journeys it moves,
//! the banks an applicant may connect, its registration at the identity
//! provider, its links and form key, and the flows each step runs.

use std::sync::Arc;

use lendhub_domain::crypto::DerivedKey;
use lendhub_store::LendingStore;

use crate::counterparties::{AccountInformation, PerEnvironment};
use crate::flows::Context;
use crate::links::Links;
use crate::relying_party::RelyingParty;

#[derive(Clone)]
pub struct JourneyState {
    /// Applications, their journeys, decisions and identity checks.
    pub lending: Arc<dyn LendingStore>,
    /// Each environment's banks, where an applicant connects their account.
    pub accounts: PerEnvironment<Arc<dyn AccountInformation>>,
    /// The journey's registration at the identity provider; without one
    /// (no provider, or one that refused the hub's callback address) the
    /// journey answers that applications are not open.
    pub rp: Option<RelyingParty>,
    /// Whether the REST tier, and with it the journey, is switched on.
    pub open: bool,
    /// Keys the journey's form tokens (CSRF).
    pub csrf_key: DerivedKey,
    pub links: Links,
    pub flows: Context,
    /// Proxies whose `X-Forwarded-For` is believed: the address a
    /// signature is recorded from.
    pub trusted_proxies: Arc<[ipnet::IpNet]>,
}
