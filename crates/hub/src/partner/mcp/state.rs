//! What the partner MCP tier holds: read access to applications and
//! decisions, the linked sandbox clients whose decisions it explains, the
//! database probe and the rate limiter its status tools report, and the
//! browser origins it accepts.

use std::sync::Arc;

use lendhub_domain::clock::Clock;
use lendhub_store::{LendingStore, Maintenance, SandboxStore};

use crate::links::Links;
use crate::partner::limits::RateLimiter;

/// Cloned per request, so one `Arc`.
#[derive(Clone)]
pub struct McpState(Arc<Mcp>);

impl std::ops::Deref for McpState {
    type Target = Mcp;

    fn deref(&self) -> &Mcp {
        &self.0
    }
}

pub struct Mcp {
    /// Applications and decisions, read.
    pub lending: Arc<dyn LendingStore>,
    /// Linked sandbox clients and their applications.
    pub sandbox: Arc<dyn SandboxStore>,
    /// Answers the status tool's database probe.
    pub health: Arc<dyn Maintenance>,
    /// The caller's own limits and usage, for the profile tool.
    pub limiter: Arc<RateLimiter>,
    /// Browser origins accepted (a request without `Origin` is a
    /// server-to-server call and always accepted).
    pub origins: Vec<String>,
    pub links: Links,
    pub clock: Arc<dyn Clock>,
}

impl McpState {
    pub fn new(mcp: Mcp) -> Self {
        Self(Arc::new(mcp))
    }
}
