//! Sandbox scopes and scope strings (space-delimited, OAuth style).

use std::collections::BTreeSet;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SandboxScope {
    Read,
    Write,
}

impl SandboxScope {
    pub const ALL: [SandboxScope; 2] = [SandboxScope::Read, SandboxScope::Write];

    pub fn as_str(self) -> &'static str {
        match self {
            SandboxScope::Read => "sandbox:read",
            SandboxScope::Write => "sandbox:write",
        }
    }

    pub fn parse(raw: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.as_str() == raw)
    }
}

/// A set of scopes, rendered in a stable order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ScopeSet(BTreeSet<SandboxScope>);

impl ScopeSet {
    pub fn all() -> Self {
        Self(SandboxScope::ALL.into_iter().collect())
    }

    /// Parses a space-delimited list; `Err` names the first unknown scope.
    pub fn parse(raw: &str) -> Result<Self, String> {
        raw.split_ascii_whitespace()
            .map(|s| SandboxScope::parse(s).ok_or_else(|| s.to_owned()))
            .collect::<Result<BTreeSet<_>, _>>()
            .map(Self)
    }

    pub fn contains(&self, scope: SandboxScope) -> bool {
        self.0.contains(&scope)
    }

    pub fn is_subset(&self, other: &ScopeSet) -> bool {
        self.0.is_subset(&other.0)
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
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
    fn parse_and_render_are_stable() {
        let s = ScopeSet::parse("sandbox:write  sandbox:read").unwrap_or_default();
        assert_eq!(s.render(), "sandbox:read sandbox:write");
        assert_eq!(
            ScopeSet::parse("sandbox:admin"),
            Err("sandbox:admin".to_owned())
        );
        assert!(ScopeSet::parse("").is_ok_and(|s| s.is_empty()));
    }

    #[test]
    fn subset() {
        let read = ScopeSet::parse("sandbox:read").unwrap_or_default();
        assert!(read.is_subset(&ScopeSet::all()));
        assert!(!ScopeSet::all().is_subset(&read));
    }
}
