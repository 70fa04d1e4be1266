//! The identity provider's storage: people who sign in, relying-party
//! clients, sign-in tickets, browser sessions, consents, authorization codes
//! and the token families issued from them. Everything the protocol relies on
//! once (a code, a refresh token, a ticket) is spent by a conditional write in
//! the database, so two instances can never both accept it.

use async_trait::async_trait;
use lendhub_domain::identity::grants::{self, CodeBinding, RefreshStanding};
pub use lendhub_domain::identity::grants::{GrantRefusal, scope_within};

use crate::error::StoreError;

/// A request to reset a password by e-mail (issue #19): one row for every
/// request, an account matched or not.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PasswordResetRecord {
    /// `pwr_…`
    pub reset_id: String,
    /// The SHA-256 of the link's token; `None` when no account matched.
    pub token_hash: Option<Vec<u8>>,
    pub user_id: Option<String>,
    pub created_at_ms: i64,
    pub expires_at_ms: i64,
    pub used_at_ms: Option<i64>,
}

/// A person's new password, and the mail that tells them it changed.
#[derive(Clone, Debug)]
pub struct NewPassword {
    pub user_id: String,
    /// An argon2id PHC string.
    pub password_hash: String,
    pub now_ms: i64,
    /// Queued in the same transaction as the change.
    pub notice: crate::public::MailRecord,
}

/// A person who can sign in (seed 001, Identity claims).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SsoUserRecord {
    /// `usr_…`: the stable, opaque `sub`.
    pub user_id: String,
    /// Lower-cased; unique.
    pub email: String,
    /// An argon2id PHC string (parameters inside it).
    pub password_hash: String,
    pub given_name: String,
    pub family_name: String,
    pub email_verified: bool,
    pub company_number: String,
    pub company_name: String,
    pub company_role: String,
    pub created_at_ms: i64,
    pub updated_at_ms: i64,
}

/// A relying party.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SsoClientRecord {
    pub client_id: String,
    pub name: String,
    /// Keyed hash of the secret; `None` for a public client (PKCE alone).
    pub secret_hash: Option<Vec<u8>>,
    /// Matched exactly.
    pub redirect_uris: Vec<String>,
    pub post_logout_redirect_uris: Vec<String>,
    pub created_at_ms: i64,
}

/// A person as the operator's list shows them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SsoUserListing {
    pub user_id: String,
    pub email: String,
    pub given_name: String,
    pub family_name: String,
    pub company_number: String,
    pub company_name: String,
    pub company_role: String,
    pub created_at_ms: i64,
    pub disabled_at_ms: Option<i64>,
}

/// A relying party as the operator's list shows it (never its secret).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SsoClientListing {
    pub client_id: String,
    pub name: String,
    pub confidential: bool,
    pub redirect_uris: Vec<String>,
    pub created_at_ms: i64,
    pub disabled_at_ms: Option<i64>,
}

/// A sign-in transaction: a validated authorization request waiting for the
/// person to sign in and consent. It lapses at `expires_at_ms`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TicketRecord {
    pub ticket_id: String,
    pub client_id: String,
    pub redirect_uri: String,
    /// Granted scopes, rendered.
    pub scope: String,
    pub state: String,
    pub nonce: Option<String>,
    pub code_challenge: String,
    /// The request's `prompt` and `max_age`, to start it again as sent.
    pub prompt: Option<String>,
    pub max_age: Option<i64>,
    pub login_hint: Option<String>,
    /// SHA-256 of the browser-binding cookie the ticket was created for.
    pub browser_hash: Vec<u8>,
    /// Set once the person has signed in.
    pub user_id: Option<String>,
    pub auth_time_ms: Option<i64>,
    pub session_selector: Option<Vec<u8>>,
    pub created_at_ms: i64,
    pub expires_at_ms: i64,
}

/// A signed-in browser. The cookie carries selector and verifier; only the
/// verifier's SHA-256 is stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SessionRecord {
    pub selector: Vec<u8>,
    pub verifier_hash: Vec<u8>,
    pub user_id: String,
    pub auth_time_ms: i64,
    pub created_at_ms: i64,
    pub expires_at_ms: i64,
    pub ended_at_ms: Option<i64>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConsentRecord {
    pub user_id: String,
    pub client_id: String,
    /// Every scope the person has approved for this client, rendered.
    pub scope: String,
    pub granted_at_ms: i64,
}

/// An authorization code, bound to its client, redirect URI and PKCE challenge.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AuthCodeRecord {
    pub selector: Vec<u8>,
    pub verifier_hash: Vec<u8>,
    pub client_id: String,
    pub redirect_uri: String,
    pub code_challenge: String,
    pub user_id: String,
    pub scope: String,
    pub nonce: Option<String>,
    pub auth_time_ms: i64,
    /// The browser session it was issued in; ending that session revokes
    /// the tokens it led to.
    pub session_selector: Option<Vec<u8>>,
    pub created_at_ms: i64,
    pub expires_at_ms: i64,
}

/// One stored token: the selector finds it, the verifier's SHA-256 proves it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TokenKey {
    pub selector: Vec<u8>,
    pub verifier_hash: Vec<u8>,
    pub expires_at_ms: i64,
}

/// Everything one successful grant issues: an access token and the next
/// refresh token of the family.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IssuedTokens {
    pub access: TokenKey,
    /// The access token's scope when narrower than the family's (a refresh
    /// that asked for less); `None` gives it the family's scope.
    pub access_scope: Option<String>,
    pub refresh: TokenKey,
}

/// The tokens that descend from one authorization code. Revoking the family
/// revokes every access and refresh token in it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TokenFamily {
    pub family_id: String,
    pub client_id: String,
    pub user_id: String,
    pub scope: String,
    pub auth_time_ms: i64,
    pub session_selector: Option<Vec<u8>>,
    pub created_at_ms: i64,
    pub revoked_at_ms: Option<i64>,
}

/// Redeem a code: spend it, and if its bindings hold, start a token family.
#[derive(Clone, Debug)]
pub struct CodeRedemption {
    pub selector: Vec<u8>,
    pub verifier_hash: Vec<u8>,
    /// What the token request presented; the code must have been issued for these.
    pub client_id: String,
    pub redirect_uri: String,
    /// S256 of the presented `code_verifier`.
    pub code_challenge: String,
    pub now_ms: i64,
    pub family_id: String,
    pub tokens: IssuedTokens,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Redeemed {
    Issued(Box<AuthCodeRecord>),
    Refused(GrantRefusal),
}

/// Rotate a refresh token: spend it and issue the family's next tokens.
#[derive(Clone, Debug)]
pub struct RefreshRotation {
    pub selector: Vec<u8>,
    pub verifier_hash: Vec<u8>,
    pub client_id: String,
    /// A narrower scope asked for, already parsed and rendered; `None` keeps
    /// the family's.
    pub scope: Option<String>,
    pub now_ms: i64,
    pub tokens: IssuedTokens,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Rotated {
    Issued(TokenFamily),
    Refused(GrantRefusal),
}

/// What a bearer access token grants, read in one go for `/userinfo`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AccessGrant {
    pub verifier_hash: Vec<u8>,
    pub scope: String,
    pub expires_at_ms: i64,
    pub client_id: String,
    pub family_revoked: bool,
    pub user: SsoUserRecord,
}

/// The domain's rule for an unspent code, on the stored code and the redemption.
pub(crate) fn judge_code(code: &AuthCodeRecord, r: &CodeRedemption) -> Option<GrantRefusal> {
    let issued = CodeBinding {
        client_id: &code.client_id,
        redirect_uri: &code.redirect_uri,
        code_challenge: &code.code_challenge,
    };
    let presented = CodeBinding {
        client_id: &r.client_id,
        redirect_uri: &r.redirect_uri,
        code_challenge: &r.code_challenge,
    };
    grants::judge_code(issued, code.expires_at_ms, presented, r.now_ms)
}

/// The domain's rule for a refresh token, on the stored token and family.
pub(crate) fn judge_refresh(
    family: &TokenFamily,
    used: bool,
    expires_at_ms: i64,
    r: &RefreshRotation,
) -> Option<GrantRefusal> {
    let standing = RefreshStanding {
        family_client_id: &family.client_id,
        family_scope: &family.scope,
        family_revoked: family.revoked_at_ms.is_some(),
        used,
        expires_at_ms,
    };
    grants::judge_refresh(standing, &r.client_id, r.scope.as_deref(), r.now_ms)
}

/// A code to store, with what its issue completes.
#[derive(Clone, Debug)]
pub struct CodeIssue {
    pub code: AuthCodeRecord,
    /// The sign-in transaction the code completes, spent with it.
    pub ticket_id: Option<String>,
    /// Consent given on the way, recorded with it.
    pub consent: Option<ConsentRecord>,
}

/// The identity provider's directory: people and relying parties, what the
/// operator does to them, and password resets.
#[async_trait]
pub trait IdentityDirectory: Send + Sync {
    /// `false` if the email is already taken.
    async fn insert_sso_user(&self, user: SsoUserRecord) -> Result<bool, StoreError>;
    async fn sso_user(&self, user_id: &str) -> Result<Option<SsoUserRecord>, StoreError>;
    /// `email` already normalised.
    async fn sso_user_by_email(&self, email: &str) -> Result<Option<SsoUserRecord>, StoreError>;

    /// Registers a client, or replaces the registration of the same id.
    async fn put_sso_client(&self, client: SsoClientRecord) -> Result<(), StoreError>;
    async fn sso_client(&self, client_id: &str) -> Result<Option<SsoClientRecord>, StoreError>;

    /// Every person, oldest first, disabled ones included.
    async fn sso_users(&self) -> Result<Vec<SsoUserListing>, StoreError>;

    /// Every relying party, oldest first, disabled ones included.
    async fn sso_clients(&self) -> Result<Vec<SsoClientListing>, StoreError>;

    /// Disables a person at `now_ms`, in one transaction with ending their
    /// sessions, revoking their token families and spending their unspent
    /// codes. `false` if there is no such person or they already were.
    async fn disable_sso_user(&self, user_id: &str, now_ms: i64) -> Result<bool, StoreError>;

    /// Disables a relying party likewise (its families revoked, its codes
    /// spent); it is unknown to every flow from then on.
    async fn disable_sso_client(&self, client_id: &str, now_ms: i64) -> Result<bool, StoreError>;

    /// Records a reset request and, when an account matched, queues the
    /// mail carrying its link, in one transaction.
    async fn request_password_reset(
        &self,
        reset: PasswordResetRecord,
        mail: Option<crate::public::MailRecord>,
    ) -> Result<(), StoreError>;

    /// The reset a link's token names (by its SHA-256), used or not.
    async fn password_reset(
        &self,
        token_hash: &[u8],
    ) -> Result<Option<PasswordResetRecord>, StoreError>;

    /// Spends the link and sets the person's password, in one transaction
    /// with spending their other links, ending every session of theirs,
    /// revoking every token family and spending unspent codes, and queuing
    /// `change.notice`. `false` (and the password unchanged) if the link is
    /// used, expired at `change.now_ms`, not `change.user_id`'s, or the
    /// person is disabled.
    async fn reset_password(
        &self,
        token_hash: &[u8],
        change: NewPassword,
    ) -> Result<bool, StoreError>;

    /// Sets a signed-in person's password, in one transaction with ending
    /// their other sessions, revoking the token families not issued under
    /// `keep_session`, spending their reset links and queuing
    /// `change.notice`. `false` (nothing written) if the person is disabled.
    async fn change_password(
        &self,
        change: NewPassword,
        keep_session: &[u8],
    ) -> Result<bool, StoreError>;
}

/// The identity provider's sign-ins: transactions, browser sessions,
/// consent, codes and token families.
#[async_trait]
pub trait SignInStore: Send + Sync {
    async fn insert_ticket(&self, ticket: TicketRecord) -> Result<(), StoreError>;
    async fn ticket(&self, ticket_id: &str) -> Result<Option<TicketRecord>, StoreError>;
    /// Opens `session` and records on the ticket who signed in, in one
    /// transaction; `false` (and nothing written) if the ticket is gone.
    async fn sign_in(&self, ticket_id: &str, session: SessionRecord) -> Result<bool, StoreError>;
    /// Deletes the ticket; `false` if it was already gone (used or cancelled).
    async fn cancel_ticket(&self, ticket_id: &str) -> Result<bool, StoreError>;

    async fn session(&self, selector: &[u8]) -> Result<Option<SessionRecord>, StoreError>;
    /// Ends the session and revokes every token family issued under it.
    async fn end_session(&self, selector: &[u8], now_ms: i64) -> Result<(), StoreError>;

    async fn consent(
        &self,
        user_id: &str,
        client_id: &str,
    ) -> Result<Option<ConsentRecord>, StoreError>;

    /// Stores `code`, in one transaction with spending `ticket_id` (when the
    /// code completes a sign-in transaction) and recording `consent`. `false`
    /// (and nothing written) if the ticket was already spent.
    async fn issue_code(&self, issue: CodeIssue) -> Result<bool, StoreError>;

    /// Spends the code whatever else is wrong with the request (a code is
    /// good for one presentation), then, if [`judge_code`] finds nothing,
    /// starts its token family with `tokens`. Presenting a spent code revokes
    /// the family its first presentation started.
    async fn redeem_code(&self, redemption: CodeRedemption) -> Result<Redeemed, StoreError>;

    /// Spends the refresh token and issues the family's next tokens. A token
    /// presented by another client, or asking for more scope, changes
    /// nothing; a token already spent revokes its whole family.
    async fn rotate_refresh(&self, rotation: RefreshRotation) -> Result<Rotated, StoreError>;

    async fn sso_access(&self, selector: &[u8]) -> Result<Option<AccessGrant>, StoreError>;
    /// A counter that moves whenever a token family is revoked or a person's
    /// record changes: instances poll it to know when remembered grants are
    /// out of date.
    async fn sso_epoch(&self) -> Result<i64, StoreError>;

    /// Deletes tickets, codes, sessions and tokens that ended before
    /// `before_ms`, and families with nothing left in them.
    async fn prune_identity(&self, before_ms: i64) -> Result<u64, StoreError>;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code() -> AuthCodeRecord {
        AuthCodeRecord {
            selector: vec![1],
            verifier_hash: vec![2],
            client_id: "rp_a".into(),
            redirect_uri: "https://rp.example/cb".into(),
            code_challenge: "c".into(),
            user_id: "usr_a".into(),
            scope: "openid".into(),
            nonce: None,
            auth_time_ms: 0,
            session_selector: None,
            created_at_ms: 0,
            expires_at_ms: 60_000,
        }
    }

    fn redemption(client: &str, uri: &str, challenge: &str, now_ms: i64) -> CodeRedemption {
        let key = TokenKey {
            selector: vec![],
            verifier_hash: vec![],
            expires_at_ms: 0,
        };
        CodeRedemption {
            selector: vec![1],
            verifier_hash: vec![2],
            client_id: client.into(),
            redirect_uri: uri.into(),
            code_challenge: challenge.into(),
            now_ms,
            family_id: "fam".into(),
            tokens: IssuedTokens {
                access: key.clone(),
                access_scope: None,
                refresh: key,
            },
        }
    }

    #[test]
    fn a_code_holds_only_for_its_bindings_within_its_lifetime() {
        let c = code();
        let uri = "https://rp.example/cb";
        assert_eq!(judge_code(&c, &redemption("rp_a", uri, "c", 59_999)), None);
        assert_eq!(
            judge_code(&c, &redemption("rp_a", uri, "c", 60_000)),
            Some(GrantRefusal::Expired)
        );
        assert_eq!(
            judge_code(&c, &redemption("rp_b", uri, "c", 0)),
            Some(GrantRefusal::Mismatch)
        );
        assert_eq!(
            judge_code(&c, &redemption("rp_a", "https://rp.example/cb/", "c", 0)),
            Some(GrantRefusal::Mismatch)
        );
        assert_eq!(
            judge_code(&c, &redemption("rp_a", uri, "d", 0)),
            Some(GrantRefusal::Mismatch)
        );
    }

    #[test]
    fn scope_subsets() {
        assert!(scope_within("openid", "openid email"));
        assert!(scope_within("", "openid"));
        assert!(!scope_within("openid profile", "openid email"));
    }
}
