//! Addresses that moved and are scheduled to go: the README walk-throughs
//! once served at `/docs/guides/{slug}` are chapters of the guide now. Until
//! their sunset they answer as before, with the chapter they became, and say
//! that they are deprecated (RFC 9745), when they go (RFC 8594) and where to
//! go instead, as docs/guide/src/versioning.md promises of anything
//! scheduled to go.

/// Each old guide and the chapter it became.
pub const GUIDES: [(&str, &str); 8] = [
    ("quick-start", "getting-started.html"),
    ("sandbox-walk-through", "sandbox-api.html"),
    ("test-helpers", "test-helpers.html"),
    ("partner-ring", "partner-ring.html"),
    ("rest-tier", "lending-flow.html"),
    ("public-ring", "public-ring.html"),
    ("identity-provider", "identity-provider.html"),
    ("status-page", "status-page.html"),
];

/// RFC 9745's `Deprecation`: the moment they were deprecated,
/// 2026-12-02T00:00:00Z, as a structured-field date.
pub const DEPRECATION: &str = "@1796169600";

/// RFC 8594's `Sunset`: six months later, as the policy gives.
pub const SUNSET: &str = "Wed, 02 Jun 2027 00:00:00 GMT";

/// The `Link` header: the chapter that replaces the page (RFC 5829's
/// `successor-version`) and the policy (RFC 9745's `deprecation`).
pub fn link(page: &str) -> String {
    format!(
        r#"</docs/guide/{page}>; rel="successor-version", </docs/guide/versioning.html>; rel="deprecation"; type="text/html""#
    )
}
