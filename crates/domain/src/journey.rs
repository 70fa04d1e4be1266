//! The hosted application journey on `{apply_url}` (hub seed, Partner-facing
//! flows → Hosted handoff; issue #15): what the applicant has done so far,
//! and so which page comes next. One journey per application; the first use
//! of the handoff link creates it, which is what makes the link single-use.
//!
//! The browser holds a random session token in a cookie; the journey keeps
//! only its SHA-256, bound to the one browser that is signing in or signed in.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use time::{Duration, OffsetDateTime};

use crate::hub_ids::{ApplicationId, VerificationId};
use crate::tenant::Tenant;

/// How long a browser session of the journey lasts without a page being
/// answered (docs/decisions.md).
pub const SESSION_IDLE: Duration = Duration::hours(2);

/// The applicant's role in the company (the `company_role` claim's values).
pub const ROLES: [&str; 3] = ["director", "company_secretary", "other"];

/// A sign-in begun at the identity provider and not yet finished: what the
/// callback must see again (RFC 6749 `state`, OIDC `nonce`, RFC 7636 verifier).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PendingSignIn {
    pub state: String,
    pub nonce: String,
    pub code_verifier: String,
}

/// Who signed in, from the ID token. Keyed by `sub` (the seed: key users by
/// `sub`, not by email).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Applicant {
    pub subject: String,
    pub given_name: String,
    pub family_name: String,
    pub email: String,
}

/// The page the journey shows next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    SignIn,
    /// Confirm the company and the applicant's role; the director check.
    Company,
    /// Connect a bank through open banking.
    Bank,
    /// Consents, then submission and the decision.
    Consents,
    /// The decision: the offer to accept and sign, a referral or a decline.
    Outcome,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Journey {
    pub application_id: ApplicationId,
    pub owner: Tenant,
    #[serde(with = "time::serde::rfc3339")]
    pub started_at: OffsetDateTime,
    /// SHA-256 (hex) of the session token the current browser holds.
    pub session_hash: String,
    #[serde(with = "time::serde::rfc3339")]
    pub session_expires_at: OffsetDateTime,
    pub sign_in: Option<PendingSignIn>,
    pub applicant: Option<Applicant>,
    pub role: Option<String>,
    /// The director check made at the company step.
    pub verification_id: Option<VerificationId>,
    pub bank: Option<String>,
    /// Set once the application was submitted from this journey.
    pub submitted: bool,
    /// Bumped by every change; a change commits only over the version it read.
    pub version: i64,
}

/// SHA-256 (hex) of a session token: what a journey stores of it.
pub fn session_hash(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

impl Journey {
    /// The journey the handoff link starts, bound to the browser holding
    /// `session_token`, with a sign-in pending.
    pub fn start(
        application_id: ApplicationId,
        owner: Tenant,
        session_token: &str,
        sign_in: PendingSignIn,
        now: OffsetDateTime,
    ) -> Self {
        Self {
            application_id,
            owner,
            started_at: now,
            session_hash: session_hash(session_token),
            session_expires_at: now + SESSION_IDLE,
            sign_in: Some(sign_in),
            applicant: None,
            role: None,
            verification_id: None,
            bank: None,
            submitted: false,
            version: 1,
        }
    }

    /// Whether the browser holding `session_token` is this journey's, and
    /// its session has not lapsed. Constant-time on the hash.
    pub fn held_by(&self, session_token: &str, now: OffsetDateTime) -> bool {
        use subtle::ConstantTimeEq;
        let same: bool = session_hash(session_token)
            .as_bytes()
            .ct_eq(self.session_hash.as_bytes())
            .into();
        same && now < self.session_expires_at
    }

    pub fn next_step(&self) -> Step {
        match (&self.applicant, &self.verification_id, &self.bank) {
            _ if self.submitted => Step::Outcome,
            (None, _, _) => Step::SignIn,
            (Some(_), None, _) => Step::Company,
            (Some(_), Some(_), None) => Step::Bank,
            (Some(_), Some(_), Some(_)) => Step::Consents,
        }
    }

    /// The next version, with the session's idle time restarted.
    fn changed(&self, now: OffsetDateTime) -> Self {
        Self {
            version: self.version + 1,
            session_expires_at: now + SESSION_IDLE,
            ..self.clone()
        }
    }

    /// A returning applicant's browser takes the journey over; they must sign
    /// in again as the same person.
    pub fn resume(&self, session_token: &str, sign_in: PendingSignIn, now: OffsetDateTime) -> Self {
        Self {
            session_hash: session_hash(session_token),
            sign_in: Some(sign_in),
            ..self.changed(now)
        }
    }

    /// The sign-in finished as `applicant`. `None` if someone else had
    /// already signed in to this journey: a journey has one applicant.
    pub fn signed_in(&self, applicant: Applicant, now: OffsetDateTime) -> Option<Self> {
        if let Some(before) = &self.applicant
            && before.subject != applicant.subject
        {
            return None;
        }
        Some(Self {
            sign_in: None,
            applicant: Some(applicant),
            ..self.changed(now)
        })
    }

    pub fn company_confirmed(
        &self,
        role: &str,
        verification_id: VerificationId,
        now: OffsetDateTime,
    ) -> Self {
        Self {
            role: Some(role.to_owned()),
            verification_id: Some(verification_id),
            ..self.changed(now)
        }
    }

    pub fn bank_connected(&self, bank: &str, now: OffsetDateTime) -> Self {
        Self {
            bank: Some(bank.to_owned()),
            ..self.changed(now)
        }
    }

    pub fn submitted(&self, now: OffsetDateTime) -> Self {
        Self {
            submitted: true,
            ..self.changed(now)
        }
    }

    /// Any page answered: the session's idle time restarts.
    pub fn touched(&self, now: OffsetDateTime) -> Self {
        self.changed(now)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hub_ids::HubId;

    fn journey() -> Journey {
        let at = OffsetDateTime::UNIX_EPOCH + Duration::days(20_000);
        Journey::start(
            ApplicationId::generate(1, 2),
            Tenant::from_stored("partner:p1:test".into()),
            "token-a",
            PendingSignIn {
                state: "s".into(),
                nonce: "n".into(),
                code_verifier: "v".into(),
            },
            at,
        )
    }

    fn ada() -> Applicant {
        Applicant {
            subject: "usr_1".into(),
            given_name: "Ada".into(),
            family_name: "Lovelace".into(),
            email: "ada@example.com".into(),
        }
    }

    #[test]
    fn the_steps_follow_what_the_applicant_has_done() {
        let j = journey();
        let now = j.started_at;
        assert_eq!(j.next_step(), Step::SignIn);
        let j = j.signed_in(ada(), now).expect("first sign-in");
        assert_eq!(j.next_step(), Step::Company);
        assert_eq!(j.sign_in, None);
        let j = j.company_confirmed("director", VerificationId::generate(3, 4), now);
        assert_eq!(j.next_step(), Step::Bank);
        let j = j.bank_connected("test_bank_strong", now);
        assert_eq!(j.next_step(), Step::Consents);
        let j = j.submitted(now);
        assert_eq!(j.next_step(), Step::Outcome);
        assert_eq!(j.version, 5);
    }

    #[test]
    fn only_the_bound_browser_holds_the_session_until_it_lapses() {
        let j = journey();
        assert!(j.held_by("token-a", j.started_at));
        assert!(!j.held_by("token-b", j.started_at));
        assert!(!j.held_by("token-a", j.started_at + SESSION_IDLE));
        let resumed = j.resume(
            "token-b",
            j.sign_in.clone().expect("pending"),
            j.started_at + Duration::days(3),
        );
        assert!(resumed.held_by("token-b", j.started_at + Duration::days(3)));
        assert!(!resumed.held_by("token-a", j.started_at));
    }

    #[test]
    fn a_journey_keeps_its_first_applicant() {
        let j = journey();
        let j = j.signed_in(ada(), j.started_at).expect("first");
        let mallory = Applicant {
            subject: "usr_2".into(),
            ..ada()
        };
        assert_eq!(j.signed_in(mallory, j.started_at), None);
        assert!(j.signed_in(ada(), j.started_at).is_some());
    }
}
