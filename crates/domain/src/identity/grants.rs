//! When the identity provider's token endpoint accepts a code or a refresh
//! token. The stores only load the facts and save the outcome; the judgement
//! — and the order in which refusals are given — is here, once, for every
//! backend.

/// Why a code or refresh token was not accepted. All are `invalid_grant`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GrantRefusal {
    /// Never issued (or pruned long ago).
    Unknown,
    Expired,
    /// Issued to another client, for another redirect URI, or for another
    /// PKCE verifier.
    Mismatch,
    /// Already used: the family it started (or belongs to) is now revoked.
    Replayed,
    /// Its family was revoked (reuse detected, or the session ended).
    Revoked,
    /// A refresh asked for scopes beyond the family's.
    ScopeExceeded,
}

impl GrantRefusal {
    /// Whether the store must revoke the token family along with refusing:
    /// a second use of a code or refresh token means one of the two users
    /// is an attacker, and RFC 6749 §10.4/§4.1.2 say to revoke.
    pub fn revokes_family(self) -> bool {
        self == GrantRefusal::Replayed
    }
}

/// Whether every scope in `requested` is in `granted` (space-delimited).
pub fn scope_within(requested: &str, granted: &str) -> bool {
    let granted: Vec<&str> = granted.split_ascii_whitespace().collect();
    requested
        .split_ascii_whitespace()
        .all(|s| granted.contains(&s))
}

/// What a code is bound to, or what a token request presented for it.
#[derive(Clone, Copy, Debug)]
pub struct CodeBinding<'a> {
    pub client_id: &'a str,
    pub redirect_uri: &'a str,
    /// S256 of the verifier.
    pub code_challenge: &'a str,
}

/// A code that was found unspent: it must still be in its lifetime and be
/// redeemed with the bindings it was issued for. (A spent code is
/// [`GrantRefusal::Replayed`] before this is asked.)
pub fn judge_code(
    issued: CodeBinding<'_>,
    expires_at_ms: i64,
    presented: CodeBinding<'_>,
    now_ms: i64,
) -> Option<GrantRefusal> {
    if now_ms >= expires_at_ms {
        return Some(GrantRefusal::Expired);
    }
    if issued.client_id != presented.client_id
        || issued.redirect_uri != presented.redirect_uri
        || issued.code_challenge != presented.code_challenge
    {
        return Some(GrantRefusal::Mismatch);
    }
    None
}

/// A stored refresh token and its family, as the store found them.
#[derive(Clone, Copy, Debug)]
pub struct RefreshStanding<'a> {
    pub family_client_id: &'a str,
    pub family_scope: &'a str,
    pub family_revoked: bool,
    pub used: bool,
    pub expires_at_ms: i64,
}

/// A presented refresh token: refused, in this order, when presented by
/// another client, already used (which revokes the family), in a revoked
/// family, expired, or asking for more than the family holds.
pub fn judge_refresh(
    standing: RefreshStanding<'_>,
    client_id: &str,
    requested_scope: Option<&str>,
    now_ms: i64,
) -> Option<GrantRefusal> {
    if standing.family_client_id != client_id {
        Some(GrantRefusal::Mismatch)
    } else if standing.used {
        Some(GrantRefusal::Replayed)
    } else if standing.family_revoked {
        Some(GrantRefusal::Revoked)
    } else if now_ms >= standing.expires_at_ms {
        Some(GrantRefusal::Expired)
    } else if requested_scope.is_some_and(|s| !scope_within(s, standing.family_scope)) {
        Some(GrantRefusal::ScopeExceeded)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ISSUED: CodeBinding<'static> = CodeBinding {
        client_id: "rp_a",
        redirect_uri: "https://a.example/cb",
        code_challenge: "challenge",
    };

    #[test]
    fn a_code_holds_only_in_its_lifetime_with_its_bindings() {
        assert_eq!(judge_code(ISSUED, 1_000, ISSUED, 999), None);
        assert_eq!(
            judge_code(ISSUED, 1_000, ISSUED, 1_000),
            Some(GrantRefusal::Expired)
        );
        for presented in [
            CodeBinding {
                client_id: "rp_b",
                ..ISSUED
            },
            CodeBinding {
                redirect_uri: "https://a.example/other",
                ..ISSUED
            },
            CodeBinding {
                code_challenge: "another",
                ..ISSUED
            },
        ] {
            assert_eq!(
                judge_code(ISSUED, 1_000, presented, 0),
                Some(GrantRefusal::Mismatch)
            );
        }
        // Expiry is told before a mismatch.
        let wrong = CodeBinding {
            client_id: "rp_b",
            ..ISSUED
        };
        assert_eq!(
            judge_code(ISSUED, 1_000, wrong, 2_000),
            Some(GrantRefusal::Expired)
        );
    }

    fn standing() -> RefreshStanding<'static> {
        RefreshStanding {
            family_client_id: "rp_a",
            family_scope: "openid email profile",
            family_revoked: false,
            used: false,
            expires_at_ms: 1_000,
        }
    }

    #[test]
    fn a_refresh_token_is_refused_in_a_fixed_order() {
        let ok = standing();
        assert_eq!(judge_refresh(ok, "rp_a", None, 0), None);
        assert_eq!(judge_refresh(ok, "rp_a", Some("openid email"), 0), None);
        assert_eq!(
            judge_refresh(ok, "rp_a", Some("openid accounts.read"), 0),
            Some(GrantRefusal::ScopeExceeded)
        );
        assert_eq!(
            judge_refresh(ok, "rp_a", None, 1_000),
            Some(GrantRefusal::Expired)
        );
        let revoked = RefreshStanding {
            family_revoked: true,
            ..ok
        };
        assert_eq!(
            judge_refresh(revoked, "rp_a", None, 1_000),
            Some(GrantRefusal::Revoked)
        );
        let used = RefreshStanding {
            used: true,
            ..revoked
        };
        let replayed = judge_refresh(used, "rp_a", None, 1_000);
        assert_eq!(replayed, Some(GrantRefusal::Replayed));
        assert!(replayed.is_some_and(GrantRefusal::revokes_family));
        // Another client learns nothing else, and revokes nothing.
        let refused = judge_refresh(used, "rp_b", None, 1_000);
        assert_eq!(refused, Some(GrantRefusal::Mismatch));
        assert!(!refused.is_some_and(GrantRefusal::revokes_family));
    }

    #[test]
    fn scopes_are_contained_word_by_word() {
        assert!(scope_within("", "openid"));
        assert!(scope_within("email openid", "openid profile email"));
        assert!(!scope_within("open", "openid"));
        assert!(!scope_within("openid business", "openid"));
    }
}
