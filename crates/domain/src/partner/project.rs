//! Partner projects on the live partner ring: their tiers, rate limits and
//! the claims of the access tokens they are issued.

use serde::{Deserialize, Serialize};

/// Partner access tokens live 300 seconds and are never refreshed (hub seed,
/// Authentication → Partner ring).
pub const ACCESS_TOKEN_TTL_SECONDS: i64 = 300;

/// The `typ` header of a partner access token (RFC 9068).
pub const ACCESS_TOKEN_TYPE: &str = "at+jwt";

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Tier {
    Build,
    Launch,
    Scale,
    /// Limits negotiated per contract; lendhub's ceiling is the default.
    Platform,
}

/// A tier's token bucket and concurrency cap (hub seed, Limits → Partner rate limits).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TierLimits {
    pub per_second: u32,
    pub burst: u32,
    pub concurrent: u32,
}

impl Tier {
    pub const ALL: [Tier; 4] = [Tier::Build, Tier::Launch, Tier::Scale, Tier::Platform];

    pub fn as_str(self) -> &'static str {
        match self {
            Tier::Build => "build",
            Tier::Launch => "launch",
            Tier::Scale => "scale",
            Tier::Platform => "platform",
        }
    }

    pub fn parse(raw: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.as_str() == raw)
    }

    pub fn limits(self) -> TierLimits {
        let (per_second, burst, concurrent) = match self {
            Tier::Build => (10, 50, 10),
            Tier::Launch => (25, 100, 20),
            Tier::Scale => (100, 400, 50),
            // "Negotiated" in the seed: until a contract says otherwise, high
            // enough never to be the bottleneck of one instance.
            Tier::Platform => (100_000, 100_000, 1_000),
        };
        TierLimits {
            per_second,
            burst,
            concurrent,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PartnerStatus {
    Active,
    Suspended,
}

impl PartnerStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            PartnerStatus::Active => "active",
            PartnerStatus::Suspended => "suspended",
        }
    }

    pub fn parse(raw: &str) -> Option<Self> {
        match raw {
            "active" => Some(PartnerStatus::Active),
            "suspended" => Some(PartnerStatus::Suspended),
            _ => None,
        }
    }
}

/// The claims of a partner access token (RFC 9068 profile).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AccessClaims {
    /// The hub's base URL.
    pub iss: String,
    /// The partner ring's URL.
    pub aud: String,
    pub sub: String,
    pub client_id: String,
    /// Space-delimited granted scopes.
    pub scope: String,
    pub iat: i64,
    pub nbf: i64,
    pub exp: i64,
    pub jti: String,
}

impl AccessClaims {
    pub fn new(
        iss: &str,
        aud: &str,
        client_id: &str,
        scope: String,
        now_s: i64,
        jti: String,
    ) -> Self {
        Self {
            iss: iss.to_owned(),
            aud: aud.to_owned(),
            sub: client_id.to_owned(),
            client_id: client_id.to_owned(),
            scope,
            iat: now_s,
            nbf: now_s,
            exp: now_s + ACCESS_TOKEN_TTL_SECONDS,
            jti,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiers_follow_the_seed() {
        assert_eq!(
            Tier::Build.limits(),
            TierLimits {
                per_second: 10,
                burst: 50,
                concurrent: 10
            }
        );
        assert_eq!(Tier::Launch.limits().burst, 100);
        assert_eq!(Tier::Scale.limits().concurrent, 50);
        for t in Tier::ALL {
            assert_eq!(Tier::parse(t.as_str()), Some(t));
        }
    }

    #[test]
    fn claims_expire_after_300_seconds() {
        let c = AccessClaims::new(
            "https://hub",
            "https://hub/partner/v1",
            "pk_live_x",
            "mcp.read".into(),
            1_000,
            "j".into(),
        );
        assert_eq!((c.iat, c.nbf, c.exp), (1_000, 1_000, 1_300));
        assert_eq!(c.sub, c.client_id);
    }
}
