use std::sync::Arc;

use lendhub_domain::clock::Clock;
use lendhub_domain::crypto::MasterKey;
use lendhub_store::Store;

use crate::keys::KeyRing;

/// Where the hub is reached; tokens name these as issuer and audience.
#[derive(Clone, Debug)]
pub struct Urls {
    /// The hub's public base URL, e.g. `https://hub.lendhub.example`: the issuer.
    pub base: String,
}

impl Urls {
    pub fn issuer(&self) -> &str {
        &self.base
    }

    /// The partner ring: the audience of partner access tokens and the
    /// protected resource of RFC 9728.
    pub fn partner(&self) -> String {
        format!("{}/partner/v1", self.base)
    }
}

#[derive(Clone)]
pub struct HubState {
    pub store: Arc<dyn Store>,
    pub clock: Arc<dyn Clock>,
    pub master_key: MasterKey,
    /// Peppers partner client-secret hashes.
    pub secret_pepper: [u8; 32],
    pub keys: Arc<KeyRing>,
    pub urls: Urls,
    /// The planned REST tier answers 503 until this is switched on.
    pub rest_tier_enabled: bool,
    /// Browser origins the MCP endpoint accepts (a request without `Origin`
    /// is a server-to-server call and always accepted).
    pub mcp_origins: Vec<String>,
    pub limiter: Arc<crate::partner::limits::RateLimiter>,
}

impl HubState {
    pub fn new(
        store: Arc<dyn Store>,
        clock: Arc<dyn Clock>,
        master_key: MasterKey,
        keys: Arc<KeyRing>,
        urls: Urls,
        rest_tier_enabled: bool,
    ) -> Self {
        Self {
            secret_pepper: crate::partner::clients::pepper(&master_key),
            store,
            clock,
            master_key,
            keys,
            urls,
            rest_tier_enabled,
            mcp_origins: Vec::new(),
            limiter: Arc::default(),
        }
    }
}
