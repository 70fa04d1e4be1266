//! The identity provider's rules that need no I/O (hub seed 001,
//! Authentication → Identity provider, Identity claims): its scopes and what
//! each one releases, lifetimes, the `prompt` parameter, and which claims a
//! set of granted scopes lets a relying party see.

use serde_json::{Map, Value, json};

use crate::partner::scope::{Scope, ScopeSet};

/// A sign-in transaction lapses this long after `/authorize` (seed: 120 s).
pub const TICKET_TTL_MS: i64 = 120_000;
/// Authorization codes are short-lived (RFC 6749 §4.1.2 recommends at most
/// ten minutes); a relying party redeems one within seconds.
pub const CODE_TTL_MS: i64 = 60_000;
/// Access tokens live 3600 seconds (seed, Limits).
pub const ACCESS_TOKEN_TTL_S: i64 = 3600;
/// ID tokens share the access token's lifetime.
pub const ID_TOKEN_TTL_S: i64 = 3600;
/// Each refresh token is valid this long after it was issued; every use
/// replaces it with a new one.
pub const REFRESH_TOKEN_TTL_S: i64 = 30 * 24 * 3600;
/// A browser session lasts this long after sign-in, then the user signs in again.
pub const SESSION_TTL_MS: i64 = 12 * 3600 * 1000;
/// A password-reset link works once, for 30 minutes (issue #19).
pub const PASSWORD_RESET_TTL_MS: i64 = 30 * 60 * 1000;

/// The identity provider's scopes (seed, Authentication → Identity provider §4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum IdentityScope {
    OpenId,
    Profile,
    Email,
    Business,
    AccountsRead,
}

impl Scope for IdentityScope {
    const ALL: &'static [Self] = &[
        IdentityScope::OpenId,
        IdentityScope::Profile,
        IdentityScope::Email,
        IdentityScope::Business,
        IdentityScope::AccountsRead,
    ];

    fn as_str(self) -> &'static str {
        match self {
            IdentityScope::OpenId => "openid",
            IdentityScope::Profile => "profile",
            IdentityScope::Email => "email",
            IdentityScope::Business => "business",
            IdentityScope::AccountsRead => "accounts.read",
        }
    }

    fn describe(self) -> &'static str {
        // The consent page's words.
        IdentityScope::describe(self)
    }
}

impl IdentityScope {
    /// What the consent page says the application will be able to do.
    pub fn describe(self) -> &'static str {
        match self {
            IdentityScope::OpenId => {
                "Know who you are when you sign in (a private account identifier)"
            }
            IdentityScope::Profile => "See your name",
            IdentityScope::Email => "See your email address and whether it is verified",
            IdentityScope::Business => {
                "See your company's name and number, and your role in the company"
            }
            IdentityScope::AccountsRead => "Read your business accounts with us",
        }
    }

    /// The claims this scope releases (seed, Authentication → Identity provider §4).
    pub fn claims(self) -> &'static [&'static str] {
        match self {
            IdentityScope::OpenId => &["sub"],
            IdentityScope::Profile => &["name", "given_name", "family_name", "updated_at"],
            IdentityScope::Email => &["email", "email_verified"],
            IdentityScope::Business => &["company_number", "company_name", "company_role"],
            IdentityScope::AccountsRead => &[],
        }
    }
}

pub type IdentityScopes = ScopeSet<IdentityScope>;

/// Every claim the provider can release, for discovery's `claims_supported`
/// (with the ID token's own claims).
pub fn claims_supported() -> Vec<&'static str> {
    let mut claims = vec!["iss", "aud", "exp", "iat", "auth_time", "nonce", "at_hash"];
    for scope in IdentityScope::ALL {
        claims.extend_from_slice(scope.claims());
    }
    claims
}

/// Why a requested `scope` cannot be granted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ScopeRequestError {
    Missing,
    NoOpenId,
}

/// The scopes to grant for a requested `scope` string: values the provider
/// does not offer are ignored (RFC 6749 §3.3 lets the server grant less than
/// asked), but `openid` must be among them.
pub fn requested_scopes(raw: Option<&str>) -> Result<IdentityScopes, ScopeRequestError> {
    let raw = raw.map(str::trim).filter(|s| !s.is_empty());
    let Some(raw) = raw else {
        return Err(ScopeRequestError::Missing);
    };
    let known = raw
        .split_ascii_whitespace()
        .filter_map(IdentityScope::parse)
        .map(|s| s.as_str())
        .collect::<Vec<_>>()
        .join(" ");
    let scopes = IdentityScopes::parse(&known).unwrap_or_default();
    if !scopes.contains(IdentityScope::OpenId) {
        return Err(ScopeRequestError::NoOpenId);
    }
    Ok(scopes)
}

/// The `prompt` parameter (OpenID Connect Core §3.1.2.1).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Prompt {
    /// No page may be shown: answer at once or fail.
    pub none: bool,
    /// Ask for the password again even within a session.
    pub login: bool,
    /// Show the consent page even if the user consented before.
    pub consent: bool,
}

/// Why a `prompt` parameter is refused (its `error_description`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PromptRefused {
    #[error("unsupported prompt value {0}")]
    Unsupported(String),
    #[error("prompt=none cannot be combined with other values")]
    NoneWithOthers,
}

impl Prompt {
    /// Space-delimited values; `none` must stand alone; unknown values
    /// (`select_account` included: there is one account per browser) are refused.
    pub fn parse(raw: Option<&str>) -> Result<Self, PromptRefused> {
        let mut prompt = Prompt::default();
        for value in raw.unwrap_or("").split_ascii_whitespace() {
            match value {
                "none" => prompt.none = true,
                "login" => prompt.login = true,
                "consent" => prompt.consent = true,
                other => return Err(PromptRefused::Unsupported(other.to_owned())),
            }
        }
        if prompt.none && (prompt.login || prompt.consent) {
            return Err(PromptRefused::NoneWithOthers);
        }
        Ok(prompt)
    }

    /// The parameter as sent, for starting a lapsed sign-in again.
    pub fn render(self) -> Option<String> {
        let values: Vec<&str> = [
            (self.none, "none"),
            (self.login, "login"),
            (self.consent, "consent"),
        ]
        .into_iter()
        .filter_map(|(on, name)| on.then_some(name))
        .collect();
        (!values.is_empty()).then(|| values.join(" "))
    }
}

/// What the provider knows about a person (seed, Identity claims).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Profile {
    /// `usr_…`: stable, opaque, never derived from the email.
    pub sub: String,
    pub given_name: String,
    pub family_name: String,
    pub email: String,
    pub email_verified: bool,
    pub company_number: String,
    pub company_name: String,
    pub company_role: String,
    /// Seconds since the epoch.
    pub updated_at: i64,
}

/// The claims `granted` releases about `profile`, exactly as the seed lists
/// them per scope; nothing else.
pub fn claims(profile: &Profile, granted: &IdentityScopes) -> Map<String, Value> {
    let mut out = Map::new();
    for scope in granted.iter() {
        for &claim in scope.claims() {
            let value = match claim {
                "sub" => json!(profile.sub),
                "name" => json!(format!("{} {}", profile.given_name, profile.family_name)),
                "given_name" => json!(profile.given_name),
                "family_name" => json!(profile.family_name),
                "updated_at" => json!(profile.updated_at),
                "email" => json!(profile.email),
                "email_verified" => json!(profile.email_verified),
                "company_number" => json!(profile.company_number),
                "company_name" => json!(profile.company_name),
                "company_role" => json!(profile.company_role),
                _ => continue,
            };
            out.insert(claim.to_owned(), value);
        }
    }
    out
}

/// Whether a session that began at `auth_time_ms` is recent enough for a
/// request's `max_age` (seconds) at `now_ms`.
pub fn within_max_age(auth_time_ms: i64, max_age_s: Option<i64>, now_ms: i64) -> bool {
    match max_age_s {
        None => true,
        Some(age) => now_ms - auth_time_ms <= age.saturating_mul(1000),
    }
}

/// Email addresses are compared case-insensitively and without surrounding space.
pub fn normalise_email(raw: &str) -> String {
    raw.trim().to_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn profile() -> Profile {
        Profile {
            sub: "usr_abc".into(),
            given_name: "Ada".into(),
            family_name: "Lovelace".into(),
            email: "ada@example.com".into(),
            email_verified: true,
            company_number: "01234567".into(),
            company_name: "Analytical Engines Ltd".into(),
            company_role: "director".into(),
            updated_at: 1_790_000_000,
        }
    }

    fn keys(m: &Map<String, Value>) -> Vec<&str> {
        let mut k: Vec<&str> = m.keys().map(String::as_str).collect();
        k.sort_unstable();
        k
    }

    #[test]
    fn each_scope_releases_exactly_its_claims() {
        let p = profile();
        let only = |s: &str| claims(&p, &IdentityScopes::parse(s).unwrap_or_default());
        assert_eq!(keys(&only("openid")), vec!["sub"]);
        assert_eq!(
            keys(&only("openid profile")),
            vec!["family_name", "given_name", "name", "sub", "updated_at"]
        );
        assert_eq!(
            keys(&only("openid email")),
            vec!["email", "email_verified", "sub"]
        );
        assert_eq!(
            keys(&only("openid business")),
            vec!["company_name", "company_number", "company_role", "sub"]
        );
        assert_eq!(keys(&only("openid accounts.read")), vec!["sub"]);
        let all = only("openid profile email business accounts.read");
        assert_eq!(all.len(), 10);
        assert_eq!(all["name"], "Ada Lovelace");
        assert_eq!(all["email_verified"], true);
        assert_eq!(all["updated_at"], 1_790_000_000);
    }

    #[test]
    fn sub_is_never_the_email() {
        let c = claims(&profile(), &IdentityScopes::all());
        assert_ne!(c["sub"], c["email"]);
    }

    #[test]
    fn requested_scopes_need_openid_and_ignore_unknown_values() {
        assert_eq!(requested_scopes(None), Err(ScopeRequestError::Missing));
        assert_eq!(
            requested_scopes(Some("  ")),
            Err(ScopeRequestError::Missing)
        );
        assert_eq!(
            requested_scopes(Some("profile email")),
            Err(ScopeRequestError::NoOpenId)
        );
        assert_eq!(
            requested_scopes(Some("email openid address offline_access")).map(|s| s.render()),
            Ok("openid email".to_owned())
        );
        assert_eq!(
            requested_scopes(Some("OPENID")),
            Err(ScopeRequestError::NoOpenId),
            "scope values are case-sensitive"
        );
    }

    #[test]
    fn prompt_values() {
        assert_eq!(Prompt::parse(None), Ok(Prompt::default()));
        let p = Prompt::parse(Some("login consent")).unwrap_or_default();
        assert!(p.login && p.consent && !p.none);
        assert_eq!(p.render().as_deref(), Some("login consent"));
        assert!(Prompt::parse(Some("none")).is_ok_and(|p| p.none));
        assert!(Prompt::parse(Some("none login")).is_err());
        assert!(Prompt::parse(Some("select_account")).is_err());
        assert_eq!(Prompt::default().render(), None);
    }

    #[test]
    fn max_age() {
        assert!(within_max_age(0, None, i64::MAX));
        assert!(within_max_age(1_000, Some(10), 11_000));
        assert!(!within_max_age(1_000, Some(10), 11_001));
        assert!(!within_max_age(1_000, Some(0), 1_001));
    }

    #[test]
    fn emails_compare_case_insensitively() {
        assert_eq!(normalise_email("  Ada@Example.COM "), "ada@example.com");
    }

    #[test]
    fn discovery_lists_every_releasable_claim() {
        let c = claims_supported();
        for claim in [
            "sub",
            "name",
            "email_verified",
            "company_role",
            "at_hash",
            "nonce",
        ] {
            assert!(c.contains(&claim), "{claim}");
        }
    }
}
