//! OAuth scopes and scope strings (space-delimited). Each surface has its own
//! closed set of scopes; `ScopeSet` works for any of them.

use std::collections::BTreeSet;

/// A surface's scope vocabulary.
pub trait Scope: Copy + Ord + 'static {
    const ALL: &'static [Self];
    /// Other spellings accepted for a scope; it is always rendered canonically.
    const ALIASES: &'static [(&'static str, Self)] = &[];
    fn as_str(self) -> &'static str;
    /// What the scope lets its holder do, in one line (the CLI's help).
    fn describe(self) -> &'static str;

    fn parse(raw: &str) -> Option<Self> {
        Self::ALL
            .iter()
            .copied()
            .find(|s| s.as_str() == raw)
            .or_else(|| {
                Self::ALIASES
                    .iter()
                    .find(|(alias, _)| *alias == raw)
                    .map(|(_, s)| *s)
            })
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SandboxScope {
    Read,
    Write,
}

impl Scope for SandboxScope {
    const ALL: &'static [Self] = &[SandboxScope::Read, SandboxScope::Write];

    fn as_str(self) -> &'static str {
        match self {
            SandboxScope::Read => "sandbox:read",
            SandboxScope::Write => "sandbox:write",
        }
    }

    fn describe(self) -> &'static str {
        match self {
            SandboxScope::Read => "read the sandbox's fixtures, applications, events and endpoints",
            SandboxScope::Write => {
                "create applications, payments and webhook endpoints; move the test clock"
            }
        }
    }
}

/// Every scope of `S` with its aliases and what it grants, one line each:
/// the help of a `--scopes` option.
pub fn help<S: Scope>() -> String {
    let width = S::ALL.iter().map(|s| s.as_str().len()).max().unwrap_or(0);
    S::ALL
        .iter()
        .map(|&scope| {
            let aliases: Vec<&str> = S::ALIASES
                .iter()
                .filter(|(_, s)| *s == scope)
                .map(|(alias, _)| *alias)
                .collect();
            let also = if aliases.is_empty() {
                String::new()
            } else {
                format!(" (also {})", aliases.join(", "))
            };
            format!("  {:width$}  {}{also}", scope.as_str(), scope.describe())
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The partner ring's scopes (hub seed, Authentication → Partner ring): the
/// four live ones, which the MCP tools answer to, then the REST tier's, one
/// canonical `resource.action` spelling per capability in the live scopes'
/// style. The seed's other spellings are aliases (docs/decisions.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PartnerScope {
    McpRead,
    OpsRead,
    AccountRead,
    OwnerRead,
    ApplicationsRead,
    ApplicationsWrite,
    DecisionsRead,
    PaymentsRead,
    PaymentsWrite,
    AccountsRead,
    AccountsManage,
    IdentityRead,
    IdentityWrite,
    EventsRead,
    WebhooksManage,
    MarketplaceRead,
    MarketplaceWrite,
    /// lendhub's own: the partner's statements and payouts (issue #17).
    BillingRead,
}

impl PartnerScope {
    /// The scopes MCP tools are filtered by.
    pub const MCP: [PartnerScope; 6] = [
        PartnerScope::McpRead,
        PartnerScope::OpsRead,
        PartnerScope::AccountRead,
        PartnerScope::OwnerRead,
        PartnerScope::ApplicationsRead,
        PartnerScope::DecisionsRead,
    ];
}

impl Scope for PartnerScope {
    const ALL: &'static [Self] = &[
        PartnerScope::McpRead,
        PartnerScope::OpsRead,
        PartnerScope::AccountRead,
        PartnerScope::OwnerRead,
        PartnerScope::ApplicationsRead,
        PartnerScope::ApplicationsWrite,
        PartnerScope::DecisionsRead,
        PartnerScope::PaymentsRead,
        PartnerScope::PaymentsWrite,
        PartnerScope::AccountsRead,
        PartnerScope::AccountsManage,
        PartnerScope::IdentityRead,
        PartnerScope::IdentityWrite,
        PartnerScope::EventsRead,
        PartnerScope::WebhooksManage,
        PartnerScope::MarketplaceRead,
        PartnerScope::MarketplaceWrite,
        PartnerScope::BillingRead,
    ];

    /// Every other spelling the seed uses for a REST-tier scope.
    const ALIASES: &'static [(&'static str, Self)] = &[
        ("apply.write", PartnerScope::ApplicationsWrite),
        ("applications:write", PartnerScope::ApplicationsWrite),
        ("applications:read", PartnerScope::ApplicationsRead),
        ("decision.read", PartnerScope::DecisionsRead),
        ("payments:write", PartnerScope::PaymentsWrite),
        ("payments:read", PartnerScope::PaymentsRead),
    ];

    fn as_str(self) -> &'static str {
        match self {
            PartnerScope::McpRead => "mcp.read",
            PartnerScope::OpsRead => "ops.read",
            PartnerScope::AccountRead => "account.read",
            PartnerScope::OwnerRead => "owner.read",
            PartnerScope::ApplicationsRead => "applications.read",
            PartnerScope::ApplicationsWrite => "applications.write",
            PartnerScope::DecisionsRead => "decisions.read",
            PartnerScope::PaymentsRead => "payments.read",
            PartnerScope::PaymentsWrite => "payments.write",
            PartnerScope::AccountsRead => "accounts.read",
            PartnerScope::AccountsManage => "accounts.manage",
            PartnerScope::IdentityRead => "identity.read",
            PartnerScope::IdentityWrite => "identity.write",
            PartnerScope::EventsRead => "events.read",
            PartnerScope::WebhooksManage => "webhooks.manage",
            PartnerScope::MarketplaceRead => "marketplace.read",
            PartnerScope::MarketplaceWrite => "marketplace.write",
            PartnerScope::BillingRead => "billing.read",
        }
    }

    fn describe(self) -> &'static str {
        match self {
            PartnerScope::McpRead => {
                "read-only MCP tools over your own lending data (decision explanations)"
            }
            PartnerScope::OpsRead => "service and rate-limit status",
            PartnerScope::AccountRead => "your partner profile, tier and limits",
            PartnerScope::OwnerRead => "your project's API clients and key ids (never secrets)",
            PartnerScope::ApplicationsRead => "REST tier: read applications",
            PartnerScope::ApplicationsWrite => {
                "REST tier: create and withdraw applications, refresh decisions"
            }
            PartnerScope::DecisionsRead => "REST tier: read decisions",
            PartnerScope::PaymentsRead => "REST tier: read payments and schedules",
            PartnerScope::PaymentsWrite => {
                "REST tier: create payment links and schedules, refund, cancel"
            }
            PartnerScope::AccountsRead => "REST tier: read loan accounts, balances and ledgers",
            PartnerScope::AccountsManage => "REST tier: manage sub-accounts",
            PartnerScope::IdentityRead => "REST tier: read identity checks",
            PartnerScope::IdentityWrite => "REST tier: run identity checks",
            PartnerScope::EventsRead => "REST tier: list events",
            PartnerScope::WebhooksManage => "REST tier: manage webhook endpoints, replay events",
            PartnerScope::MarketplaceRead => "REST tier: read marketplace listings",
            PartnerScope::MarketplaceWrite => {
                "REST tier: register apps, subscriptions and publish signals"
            }
            PartnerScope::BillingRead => "REST tier: read statements, invoices and payouts",
        }
    }
}

/// A set of scopes, rendered in a stable order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScopeSet<S: Scope>(BTreeSet<S>);

pub type SandboxScopes = ScopeSet<SandboxScope>;
pub type PartnerScopes = ScopeSet<PartnerScope>;

impl<S: Scope> Default for ScopeSet<S> {
    fn default() -> Self {
        Self(BTreeSet::new())
    }
}

impl<S: Scope> FromIterator<S> for ScopeSet<S> {
    fn from_iter<I: IntoIterator<Item = S>>(scopes: I) -> Self {
        Self(scopes.into_iter().collect())
    }
}

/// A scope no set of this kind knows.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct UnknownScope(pub String);

impl<S: Scope> ScopeSet<S> {
    pub fn all() -> Self {
        Self(S::ALL.iter().copied().collect())
    }

    /// Parses a space-delimited list; `Err` names the first unknown scope.
    pub fn parse(raw: &str) -> Result<Self, UnknownScope> {
        raw.split_ascii_whitespace()
            .map(|s| S::parse(s).ok_or_else(|| UnknownScope(s.to_owned())))
            .collect::<Result<BTreeSet<_>, _>>()
            .map(Self)
    }

    pub fn contains(&self, scope: S) -> bool {
        self.0.contains(&scope)
    }

    /// The scopes held by both.
    pub fn intersection(&self, other: &Self) -> Self {
        Self(self.0.intersection(&other.0).copied().collect())
    }

    pub fn is_subset(&self, other: &Self) -> bool {
        self.0.is_subset(&other.0)
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = S> + '_ {
        self.0.iter().copied()
    }

    pub fn render(&self) -> String {
        self.0
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join(" ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_help_names_every_scope_and_its_aliases_once_a_line() {
        let partner = help::<PartnerScope>();
        assert_eq!(partner.lines().count(), PartnerScope::ALL.len());
        for scope in PartnerScope::ALL {
            assert!(
                partner.contains(&format!("  {} ", scope.as_str())),
                "{partner}"
            );
        }
        assert!(
            partner.contains("(also apply.write, applications:write)"),
            "{partner}"
        );
        assert_eq!(help::<SandboxScope>().lines().count(), 2);
    }

    #[test]
    fn parse_and_render_are_stable() {
        let s = SandboxScopes::parse("sandbox:write  sandbox:read").unwrap_or_default();
        assert_eq!(s.render(), "sandbox:read sandbox:write");
        assert_eq!(
            SandboxScopes::parse("sandbox:admin"),
            Err(UnknownScope("sandbox:admin".to_owned()))
        );
        assert!(SandboxScopes::parse("").is_ok_and(|s| s.is_empty()));
        let p = PartnerScopes::parse("owner.read mcp.read").unwrap_or_default();
        assert_eq!(p.render(), "mcp.read owner.read");
        assert!(PartnerScopes::parse("sandbox:read").is_err());
    }

    #[test]
    fn the_seeds_other_spellings_parse_to_one_canonical_scope() {
        let p = PartnerScopes::parse("apply.write applications:write payments:read decision.read")
            .unwrap_or_default();
        assert_eq!(
            p.render(),
            "applications.write decisions.read payments.read",
            "aliases collapse and render canonically"
        );
        for (alias, scope) in PartnerScope::ALIASES {
            assert_eq!(PartnerScope::parse(alias), Some(*scope));
            assert_ne!(
                *alias,
                scope.as_str(),
                "an alias is not the canonical spelling"
            );
        }
        assert_eq!(
            PartnerScope::parse("accounts.read"),
            Some(PartnerScope::AccountsRead)
        );
        assert_eq!(
            PartnerScope::parse("account.read"),
            Some(PartnerScope::AccountRead),
            "the live ring's own account scope stays distinct from loan accounts"
        );
        assert_eq!(PartnerScope::parse("webhooks:manage"), None);
    }

    #[test]
    fn subset() {
        let read = SandboxScopes::parse("sandbox:read").unwrap_or_default();
        assert!(read.is_subset(&SandboxScopes::all()));
        assert!(!SandboxScopes::all().is_subset(&read));
    }
}
