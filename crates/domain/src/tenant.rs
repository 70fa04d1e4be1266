//! Whose data a row is. Every owner-scoped read and write names one tenant,
//! and a tenant never sees another's rows. The sandbox's clients are
//! tenants, and the REST tier's partners, one in each environment. A
//! partner's sub-accounts are not tenants: they are rows of the partner's,
//! and a loan they introduce stays the partner's (docs/decisions.md); the
//! key form for a narrowed tenant is reserved, unused.

use std::fmt;

use serde::{Deserialize, Serialize};

/// A tenant, held as the key it is stored under (every `owner` column).
/// A sandbox client is stored as its client id, so rows written before this
/// type existed keep their owner; a partner as `client_id/live` or
/// `client_id/test` (`/…` after it is reserved for a narrower tenant).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Tenant(String);

/// What a tenant is, read from its key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TenantKind<'a> {
    /// A sandbox client (`pk_test_…`).
    SandboxClient(&'a str),
    /// A live partner project in one environment, or one of its sub-accounts.
    Partner {
        client_id: &'a str,
        livemode: bool,
        sub_account: Option<&'a str>,
    },
}

impl Tenant {
    /// The public ring's callers, who have no identity: the scope of its
    /// Idempotency-Keys.
    pub fn public_ring() -> Self {
        Tenant("public_ring".to_owned())
    }

    pub fn sandbox_client(client_id: &str) -> Self {
        Tenant(client_id.to_owned())
    }

    pub fn partner(client_id: &str, livemode: bool, sub_account: Option<&str>) -> Self {
        let environment = if livemode { "live" } else { "test" };
        match sub_account {
            Some(sub) => Tenant(format!("{client_id}/{environment}/{sub}")),
            None => Tenant(format!("{client_id}/{environment}")),
        }
    }

    /// A key read back from an `owner` column.
    pub fn from_stored(key: String) -> Self {
        Tenant(key)
    }

    /// The key, as stored and bound in queries.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn kind(&self) -> TenantKind<'_> {
        let mut parts = self.0.splitn(3, '/');
        match (parts.next(), parts.next(), parts.next()) {
            (Some(client_id), Some(environment), sub_account) => TenantKind::Partner {
                client_id,
                livemode: environment == "live",
                sub_account,
            },
            _ => TenantKind::SandboxClient(&self.0),
        }
    }
}

impl fmt::Display for Tenant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tenant_reads_back_as_what_it_was_made_from() {
        let sandbox = Tenant::sandbox_client("pk_test_abc");
        assert_eq!(sandbox.as_str(), "pk_test_abc");
        assert_eq!(sandbox.kind(), TenantKind::SandboxClient("pk_test_abc"));
        let live = Tenant::partner("prt_1", true, None);
        assert_eq!(live.as_str(), "prt_1/live");
        assert_eq!(
            live.kind(),
            TenantKind::Partner {
                client_id: "prt_1",
                livemode: true,
                sub_account: None
            }
        );
        let sub = Tenant::partner("prt_1", false, Some("sub_9"));
        assert_eq!(
            Tenant::from_stored(sub.as_str().to_owned()).kind(),
            TenantKind::Partner {
                client_id: "prt_1",
                livemode: false,
                sub_account: Some("sub_9")
            }
        );
        assert_ne!(live, Tenant::partner("prt_1", false, None));
        assert_eq!(serde_json::to_string(&sandbox).unwrap(), "\"pk_test_abc\"");
    }
}
