//! A white-label journey's connection to the applicant's bank: the partner
//! asks for it, the applicant authorises lendhub at their bank (open-banking
//! account information) and comes back through lendhub's callback, where
//! the account is read; the partner then submits the application naming
//! the connection. The hosted journey keeps its own connection on the
//! journey; this is the same step for partners who build the pages.

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use crate::ids::{ApplicationId, BankConnectionId};
use crate::lending::journey::{BANK_AUTHORISATION_LIFE, SharedAccount, same_hash, session_hash};
use crate::marketplace::app_request::redirect_uri_issue;
use crate::problem::{Problem, Problems};
use crate::tenant::Tenant;

/// A bank id, at most (characters).
const MAX_BANK: usize = 64;

/// Where the connection stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// The applicant has not come back from their bank yet.
    AwaitingAuthorisation,
    /// The account was read: the application may be submitted with it.
    Connected,
    /// The authorisation ended without an account (`failure_reason` says why).
    Failed,
    /// The applicant did not come back within the authorisation's life.
    Expired,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::AwaitingAuthorisation => "awaiting_authorisation",
            Self::Connected => "connected",
            Self::Failed => "failed",
            Self::Expired => "expired",
        }
    }
}

/// Why a connection ended without an account.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Failure {
    /// The applicant declined at their bank.
    ConsentRefused,
    /// The bank no longer honours the consent (revoked, expired, or the
    /// code was spent).
    ConsentNotHonoured,
    /// No open sterling account lendhub could read and pay into was shared.
    NoUsableAccount,
    /// The bank could not be reached to read the account.
    BankUnavailable,
}

impl Failure {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::ConsentRefused => "consent_refused",
            Self::ConsentNotHonoured => "consent_not_honoured",
            Self::NoUsableAccount => "no_usable_account",
            Self::BankUnavailable => "bank_unavailable",
        }
    }
}

/// The account read at the bank: where the loan is paid, and what the
/// decision reads.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Connected {
    /// Sort code and account number (14 digits).
    pub payout: String,
    pub account: SharedAccount,
    #[serde(with = "time::serde::rfc3339")]
    pub at: OffsetDateTime,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BankConnection {
    pub id: BankConnectionId,
    pub owner: Tenant,
    pub application_id: ApplicationId,
    pub bank: String,
    /// Where the applicant is sent back to, with the connection's id and
    /// status; lendhub's own page when `None`.
    pub return_url: Option<String>,
    /// The bank's page the applicant authorises at.
    pub authorisation_url: String,
    /// SHA-256 of the secret half of the `state` the bank sends back.
    pub state_hash: String,
    /// The nonce the bank's ID token must carry.
    pub nonce: String,
    pub connected: Option<Connected>,
    pub failure: Option<Failure>,
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
    /// Bumped by every change; a change commits only over the version it read.
    pub version: i64,
}

/// What the partner asked for, checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    pub bank: String,
    pub return_url: Option<String>,
}

/// `bank` named (`required`, at most 64 characters: `max_length`) and
/// `return_url`, when given, an absolute URI without a fragment over HTTPS
/// (HTTP to the developer's own machine): all at once.
pub fn check(bank: Option<&str>, return_url: Option<&str>) -> Result<Request, Vec<Problem>> {
    let mut problems = Problems::new();
    let bank = problems.required("bank", bank.map(str::trim).filter(|b| !b.is_empty()));
    if bank.is_some_and(|b| b.chars().count() > MAX_BANK) {
        problems.push_bounded("bank", "max_length", MAX_BANK as i64);
    }
    if let Some(reason) = return_url.and_then(redirect_uri_issue) {
        problems.push("return_url", reason);
    }
    problems.finish(bank.map(|bank| Request {
        bank: bank.to_owned(),
        return_url: return_url.map(str::to_owned),
    }))
}

/// The connection an authorisation started, and what it needs to begin.
pub struct Start<'a> {
    pub id: BankConnectionId,
    pub owner: Tenant,
    pub application_id: ApplicationId,
    pub request: Request,
    pub authorisation_url: String,
    /// The secret half of the `state` sent to the bank.
    pub secret: &'a str,
    pub nonce: String,
}

impl BankConnection {
    pub fn start(start: Start<'_>, now: OffsetDateTime) -> Self {
        Self {
            id: start.id,
            owner: start.owner,
            application_id: start.application_id,
            bank: start.request.bank,
            return_url: start.request.return_url,
            authorisation_url: start.authorisation_url,
            state_hash: session_hash(start.secret),
            nonce: start.nonce,
            connected: None,
            failure: None,
            created_at: now,
            version: 1,
        }
    }

    /// The `state` the bank sends back: the id, then the secret.
    pub fn state(&self, secret: &str) -> String {
        format!("{}.{secret}", self.id)
    }

    pub fn expires_at(&self) -> OffsetDateTime {
        self.created_at + BANK_AUTHORISATION_LIFE
    }

    pub fn status(&self, now: OffsetDateTime) -> Status {
        match (&self.connected, self.failure) {
            (Some(_), _) => Status::Connected,
            (None, Some(_)) => Status::Failed,
            (None, None) if now >= self.expires_at() => Status::Expired,
            (None, None) => Status::AwaitingAuthorisation,
        }
    }

    /// Whether `secret` is the one this connection's state carried.
    pub fn holds(&self, secret: &str) -> bool {
        same_hash(secret, &self.state_hash)
    }

    fn changed(&self) -> Self {
        Self {
            version: self.version + 1,
            ..self.clone()
        }
    }

    pub fn connect(&self, payout: &str, account: SharedAccount, now: OffsetDateTime) -> Self {
        Self {
            connected: Some(Connected {
                payout: payout.to_owned(),
                account,
                at: now,
            }),
            ..self.changed()
        }
    }

    pub fn fail(&self, failure: Failure) -> Self {
        Self {
            failure: Some(failure),
            ..self.changed()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::HubId;
    use crate::lending::underwriting::Banking;

    fn started(now: OffsetDateTime) -> BankConnection {
        BankConnection::start(
            Start {
                id: BankConnectionId::generate(1_790_000_000_000, 1),
                owner: Tenant::from_stored("pc_x".into()),
                application_id: ApplicationId::generate(1_790_000_000_000, 2),
                request: Request {
                    bank: "acme_bank".into(),
                    return_url: None,
                },
                authorisation_url: "https://bank.example/authorize".into(),
                secret: "s3cret",
                nonce: "n".into(),
            },
            now,
        )
    }

    fn shared() -> SharedAccount {
        SharedAccount {
            bank: "acme_bank".into(),
            name: None,
            balance_pence: Some(1),
            banking: Banking {
                months: 12,
                average_monthly_inflow_pence: 1,
                average_monthly_outflow_pence: 1,
                ..Default::default()
            },
        }
    }

    #[test]
    fn a_connection_waits_for_its_own_secret_until_it_expires() {
        let now = OffsetDateTime::UNIX_EPOCH + time::Duration::days(20_000);
        let c = started(now);
        assert!(c.holds("s3cret"));
        assert!(!c.holds("other"));
        assert_eq!(c.status(now), Status::AwaitingAuthorisation);
        let late = now + BANK_AUTHORISATION_LIFE;
        assert_eq!(c.status(late), Status::Expired);
        assert!(c.state("s3cret").starts_with("bcn_"));
    }

    #[test]
    fn it_ends_connected_or_failed_once() {
        let now = OffsetDateTime::UNIX_EPOCH + time::Duration::days(20_000);
        let c = started(now);
        let done = c.connect("12345612345678", shared(), now);
        assert_eq!(done.status(now), Status::Connected);
        assert_eq!(done.version, 2);
        assert_ne!(done.status(now), Status::AwaitingAuthorisation);
        // Connected stays connected after the authorisation's life.
        assert_eq!(
            done.status(now + BANK_AUTHORISATION_LIFE),
            Status::Connected
        );
        let failed = c.fail(Failure::ConsentRefused);
        assert_eq!(failed.status(now), Status::Failed);
    }

    #[test]
    fn the_request_names_a_bank_and_a_safe_return_url() {
        assert_eq!(
            check(Some("acme_bank"), Some("https://partner.example/back")).map(|r| r.bank),
            Ok("acme_bank".into())
        );
        let refused = |bank, url| {
            check(bank, url)
                .err()
                .unwrap_or_default()
                .into_iter()
                .map(|p| (p.field, p.reason))
                .collect::<Vec<_>>()
        };
        assert_eq!(refused(None, None), [("bank".into(), "required")]);
        assert_eq!(
            refused(Some(" "), Some("http://partner.example/back")),
            [
                ("bank".into(), "required"),
                ("return_url".into(), "https_required")
            ]
        );
        assert_eq!(
            refused(Some("b"), Some("https://p.example/#x")),
            [("return_url".into(), "fragment_not_allowed")]
        );
        assert!(check(Some("b"), Some("http://127.0.0.1:9/back")).is_ok());
    }
}
