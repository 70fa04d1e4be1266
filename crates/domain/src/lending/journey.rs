//! The hosted application journey on `{apply_url}` (hub seed, Partner-facing
//! flows → Hosted handoff; issue #15): what the applicant has done so far,
//! and so which page comes next. One journey per application; the first use
//! of the handoff link creates it, which is what makes the link single-use.
//!
//! The browser holds a random session token in a cookie; the journey keeps
//! only its SHA-256. A browser is bound to the journey only by finishing a
//! sign-in it started itself: a browser that merely starts one (a second
//! visit, `resume`) holds nothing until the identity provider says who it
//! is, and the one already signed in stays signed in meanwhile.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use time::{Duration, OffsetDateTime};

use crate::ids::{ApplicationId, VerificationId};
use crate::lending::underwriting::Banking;
use crate::tenant::Tenant;

/// How long a browser session of the journey lasts after the applicant's
/// last step (docs/decisions.md); a sign-in must finish within it too.
pub const SESSION_IDLE: Duration = Duration::hours(2);

/// How long after its application was created a journey is kept when the
/// application ended without a loan (declined, withdrawn or expired): the
/// applicant's name, e-mail, role and bank then go. An application is open
/// 14 days (`lending::OPEN_FOR`), so this keeps a journey well past the
/// 30 days its application's events are kept and the 30-day cooling-off a
/// decline starts. A funded loan's journey is kept with the loan: it
/// records who signed the agreement (docs/decisions.md).
pub const RETENTION: Duration = Duration::days(90);

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

/// A sign-in under way, and the browser (its session token's hash) that
/// started it and alone may finish it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SignInUnderWay {
    pub request: PendingSignIn,
    pub session_hash: String,
    #[serde(with = "time::serde::rfc3339")]
    pub expires_at: OffsetDateTime,
}

/// Who signed in, from the ID token. Keyed by `sub` (the seed: key users by
/// `sub`, not by email).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Applicant {
    pub subject: String,
    pub given_name: String,
    pub family_name: String,
    pub email: String,
    /// The provider's `email_verified`: the address is theirs.
    #[serde(default)]
    pub email_verified: bool,
    /// The provider's `company_number` claim (scope `business`): the company
    /// the person acts for. Empty when the provider has none for them.
    #[serde(default)]
    pub company_number: String,
}

/// Why a signed-in person may not carry on an application's journey.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NotTheApplicant {
    /// The application names its applicant by e-mail and this is not that
    /// address, or the provider has not verified it as theirs.
    OtherEmail,
    /// The application names no applicant and the person's company claim is
    /// not the application's company.
    OtherCompany,
}

impl Applicant {
    /// Whether this person is the one the application is for (issue #44
    /// item 6; docs/guide/src/hosted-journey.md): the verified e-mail the partner
    /// named, compared without regard to case, or, when the partner named
    /// nobody (a `redirect_uri` was given instead), a company claim equal
    /// to the application's company.
    pub fn may_apply(
        &self,
        named_email: Option<&str>,
        company_number: &str,
    ) -> Result<(), NotTheApplicant> {
        match named_email {
            Some(named) => {
                let same = self.email.trim().eq_ignore_ascii_case(named.trim());
                if same && self.email_verified {
                    Ok(())
                } else {
                    Err(NotTheApplicant::OtherEmail)
                }
            }
            None if self.company_number.eq_ignore_ascii_case(company_number) => Ok(()),
            None => Err(NotTheApplicant::OtherCompany),
        }
    }
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
    /// SHA-256 (hex) of the session token of the browser signed in, if any.
    pub session_hash: Option<String>,
    #[serde(with = "time::serde::rfc3339")]
    pub session_expires_at: OffsetDateTime,
    pub sign_in: Option<SignInUnderWay>,
    pub applicant: Option<Applicant>,
    pub role: Option<String>,
    /// The director check made at the company step.
    pub verification_id: Option<VerificationId>,
    /// Where the loan is paid: the shared account's sort code and account
    /// number.
    pub bank: Option<String>,
    /// The authorisation under way at the applicant's bank, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bank_authorisation: Option<BankAuthorisation>,
    /// The account the applicant shared, as read when they came back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shared_account: Option<SharedAccount>,
    /// Set once the application was submitted from this journey.
    pub submitted: bool,
    /// Bumped by every change; a change commits only over the version it read.
    pub version: i64,
}

/// The applicant was sent to their bank to authorise lendhub to read an
/// account: the callback must bring back the state whose hash is kept,
/// and the bank's ID token the nonce.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BankAuthorisation {
    pub bank: String,
    pub state_hash: String,
    pub nonce: String,
    #[serde(with = "time::serde::rfc3339")]
    pub started_at: OffsetDateTime,
}

/// How long an applicant has to authorise at their bank.
pub const BANK_AUTHORISATION_LIFE: Duration = Duration::minutes(15);

/// The account the applicant shared through open banking.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SharedAccount {
    pub bank: String,
    pub name: Option<String>,
    pub balance_pence: Option<i64>,
    pub banking: Banking,
}

/// SHA-256 (hex) of a session token: what a journey stores of it.
pub fn session_hash(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

impl Journey {
    /// The journey the handoff link starts, with a sign-in under way in the
    /// browser holding `session_token`.
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
            session_hash: None,
            session_expires_at: now,
            sign_in: Some(SignInUnderWay {
                request: sign_in,
                session_hash: session_hash(session_token),
                expires_at: now + SESSION_IDLE,
            }),
            applicant: None,
            role: None,
            verification_id: None,
            bank: None,
            bank_authorisation: None,
            shared_account: None,
            submitted: false,
            version: 1,
        }
    }

    /// Whether the browser holding `session_token` signed in to this
    /// journey and its session has not lapsed.
    pub fn held_by(&self, session_token: &str, now: OffsetDateTime) -> bool {
        self.session_hash
            .as_deref()
            .is_some_and(|h| same_hash(session_token, h))
            && now < self.session_expires_at
    }

    /// The sign-in the browser holding `session_token` started, if it is
    /// still under way.
    pub fn signing_in(&self, session_token: &str, now: OffsetDateTime) -> Option<&PendingSignIn> {
        self.sign_in
            .as_ref()
            .filter(|s| same_hash(session_token, &s.session_hash) && now < s.expires_at)
            .map(|s| &s.request)
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

    /// A returning applicant's browser starts a sign-in; it takes the
    /// journey over only if the same person signs in (`signed_in`). `None`
    /// before anyone has signed in: until then the journey belongs to the
    /// browser the handoff link was first opened in.
    pub fn resume(
        &self,
        session_token: &str,
        sign_in: PendingSignIn,
        now: OffsetDateTime,
    ) -> Option<Self> {
        self.applicant.as_ref()?;
        Some(Self {
            sign_in: Some(SignInUnderWay {
                request: sign_in,
                session_hash: session_hash(session_token),
                expires_at: now + SESSION_IDLE,
            }),
            version: self.version + 1,
            ..self.clone()
        })
    }

    /// The handoff link opened again after the first browser's sign-in
    /// lapsed unfinished: this browser starts one instead. `None` while that
    /// sign-in may still finish, or once someone has signed in.
    pub fn restart(
        &self,
        session_token: &str,
        sign_in: PendingSignIn,
        now: OffsetDateTime,
    ) -> Option<Self> {
        if self.applicant.is_some() || self.sign_in.as_ref().is_some_and(|s| now < s.expires_at) {
            return None;
        }
        Some(Self {
            sign_in: Some(SignInUnderWay {
                request: sign_in,
                session_hash: session_hash(session_token),
                expires_at: now + SESSION_IDLE,
            }),
            version: self.version + 1,
            ..self.clone()
        })
    }

    /// The sign-in under way finished as someone the application is not for
    /// (`Applicant::may_apply`): it is dropped, so the handoff link starts
    /// afresh for the right person instead of counting as used.
    pub fn sign_in_refused(&self) -> Self {
        Self {
            sign_in: None,
            version: self.version + 1,
            ..self.clone()
        }
    }

    /// The sign-in under way finished as `applicant`: its browser now holds
    /// the journey. `None` if there is no sign-in under way, or someone else
    /// had already signed in to this journey (a journey has one applicant).
    pub fn signed_in(&self, applicant: Applicant, now: OffsetDateTime) -> Option<Self> {
        let under_way = self.sign_in.as_ref()?;
        if let Some(before) = &self.applicant
            && before.subject != applicant.subject
        {
            return None;
        }
        Some(Self {
            session_hash: Some(under_way.session_hash.clone()),
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

    /// The applicant was sent to their bank with `state` (its hash kept).
    pub fn bank_authorising(
        &self,
        bank: &str,
        state: &str,
        nonce: &str,
        now: OffsetDateTime,
    ) -> Self {
        Self {
            bank_authorisation: Some(BankAuthorisation {
                bank: bank.to_owned(),
                state_hash: session_hash(state),
                nonce: nonce.to_owned(),
                started_at: now,
            }),
            ..self.changed(now)
        }
    }

    /// The authorisation the callback's `state` answers, while it may.
    pub fn authorising(&self, state: &str, now: OffsetDateTime) -> Option<&BankAuthorisation> {
        self.bank_authorisation
            .as_ref()
            .filter(|a| same_hash(state, &a.state_hash))
            .filter(|a| now < a.started_at + BANK_AUTHORISATION_LIFE)
    }

    /// The applicant shared `account`, paid into at `payout`.
    pub fn bank_connected(
        &self,
        payout: &str,
        account: SharedAccount,
        now: OffsetDateTime,
    ) -> Self {
        Self {
            bank: Some(payout.to_owned()),
            bank_authorisation: None,
            shared_account: Some(account),
            ..self.changed(now)
        }
    }

    /// The authorisation ended without an account (declined at the bank,
    /// or the consent did not hold): the applicant chooses again.
    pub fn bank_not_connected(&self, now: OffsetDateTime) -> Self {
        Self {
            bank_authorisation: None,
            ..self.changed(now)
        }
    }

    pub fn submitted(&self, now: OffsetDateTime) -> Self {
        Self {
            submitted: true,
            ..self.changed(now)
        }
    }

    /// A step that changes nothing of the journey's own (signing the
    /// offer): the session's idle time restarts.
    pub fn touched(&self, now: OffsetDateTime) -> Self {
        self.changed(now)
    }
}

/// Whether `token` hashes to `hash`, in constant time.
pub fn same_hash(token: &str, hash: &str) -> bool {
    use subtle::ConstantTimeEq;
    session_hash(token).as_bytes().ct_eq(hash.as_bytes()).into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::HubId;

    fn pending() -> PendingSignIn {
        PendingSignIn {
            state: "s".into(),
            nonce: "n".into(),
            code_verifier: "v".into(),
        }
    }

    fn journey() -> Journey {
        let at = OffsetDateTime::UNIX_EPOCH + Duration::days(20_000);
        Journey::start(
            ApplicationId::generate(1, 2),
            Tenant::from_stored("partner:p1:test".into()),
            "token-a",
            pending(),
            at,
        )
    }

    fn ada() -> Applicant {
        Applicant {
            subject: "usr_1".into(),
            given_name: "Ada".into(),
            family_name: "Lovelace".into(),
            email: "ada@example.com".into(),
            email_verified: true,
            company_number: "00000401".into(),
        }
    }

    #[test]
    fn only_the_named_applicant_or_their_company_may_carry_on() {
        let named = Some("Ada@Example.com");
        assert_eq!(ada().may_apply(named, "99999999"), Ok(()));
        let eve = Applicant {
            email: "eve@evil.example".into(),
            company_number: "00000401".into(),
            ..ada()
        };
        // A director of the company is still not the person named.
        assert_eq!(
            eve.may_apply(named, "00000401"),
            Err(NotTheApplicant::OtherEmail)
        );
        let unverified = Applicant {
            email_verified: false,
            ..ada()
        };
        assert_eq!(
            unverified.may_apply(named, "00000401"),
            Err(NotTheApplicant::OtherEmail)
        );
        // Nobody named: the company claim decides.
        assert_eq!(ada().may_apply(None, "00000401"), Ok(()));
        assert_eq!(
            ada().may_apply(None, "00000402"),
            Err(NotTheApplicant::OtherCompany)
        );
    }

    #[test]
    fn a_refused_sign_in_leaves_the_link_to_start_again() {
        let j = journey();
        let now = j.started_at;
        assert_eq!(j.restart("token-b", pending(), now), None);
        let refused = j.sign_in_refused();
        assert_eq!(refused.version, j.version + 1);
        assert!(refused.signing_in("token-a", now).is_none());
        assert!(refused.restart("token-b", pending(), now).is_some());
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
        let j = j.bank_authorising("model_bank", "st4te", "n0nce", now);
        assert_eq!(j.next_step(), Step::Bank);
        assert!(j.authorising("other", now).is_none());
        assert!(
            j.authorising("st4te", now + BANK_AUTHORISATION_LIFE)
                .is_none()
        );
        assert_eq!(
            j.authorising("st4te", now).map(|a| a.nonce.as_str()),
            Some("n0nce")
        );
        let shared = SharedAccount {
            bank: "model_bank".into(),
            name: None,
            balance_pence: None,
            banking: Banking {
                months: 12,
                average_monthly_inflow_pence: 1,
                average_monthly_outflow_pence: 1,
                ..Default::default()
            },
        };
        let j = j.bank_connected("04000410000010", shared, now);
        assert_eq!(j.bank_authorisation, None);
        assert_eq!(j.next_step(), Step::Consents);
        let j = j.submitted(now);
        assert_eq!(j.next_step(), Step::Outcome);
        assert_eq!(j.version, 6);
    }

    #[test]
    fn only_a_browser_that_finished_its_own_sign_in_holds_the_journey() {
        let j = journey();
        let now = j.started_at;
        // Starting the sign-in binds nothing yet.
        assert!(!j.held_by("token-a", now));
        assert!(j.signing_in("token-a", now).is_some());
        assert!(j.signing_in("token-b", now).is_none());
        assert!(j.signing_in("token-a", now + SESSION_IDLE).is_none());
        // Nobody resumes a journey nobody has signed in to.
        assert_eq!(j.resume("token-b", pending(), now), None);
        let j = j.signed_in(ada(), now).expect("signed in");
        assert!(j.held_by("token-a", now));
        assert!(!j.held_by("token-b", now));
        assert!(!j.held_by("token-a", now + SESSION_IDLE));

        // Another browser resuming holds nothing until it signs in, and the
        // signed-in browser keeps the journey meanwhile.
        let later = now + Duration::minutes(5);
        let resumed = j.resume("token-b", pending(), later).expect("resumable");
        assert!(!resumed.held_by("token-b", later));
        assert!(resumed.held_by("token-a", later));
        let taken = resumed.signed_in(ada(), later).expect("same person");
        assert!(taken.held_by("token-b", later));
        assert!(!taken.held_by("token-a", later));
        // A sign-in finishes once.
        assert_eq!(taken.signed_in(ada(), later), None);
    }

    #[test]
    fn the_link_starts_afresh_only_once_the_first_sign_in_has_lapsed() {
        let j = journey();
        let now = j.started_at;
        assert_eq!(
            j.restart("token-b", pending(), now),
            None,
            "still under way"
        );
        let lapsed = now + SESSION_IDLE;
        let restarted = j.restart("token-b", pending(), lapsed).expect("lapsed");
        assert!(restarted.signing_in("token-b", lapsed).is_some());
        assert!(restarted.signing_in("token-a", lapsed).is_none());
        let signed = restarted.signed_in(ada(), lapsed).expect("signed in");
        assert_eq!(
            signed.restart("token-c", pending(), lapsed + SESSION_IDLE),
            None
        );
    }

    #[test]
    fn a_journey_keeps_its_first_applicant() {
        let j = journey();
        let now = j.started_at;
        let j = j.signed_in(ada(), now).expect("first");
        let mallory = Applicant {
            subject: "usr_2".into(),
            ..ada()
        };
        let resumed = j.resume("token-m", pending(), now).expect("resumable");
        assert_eq!(resumed.signed_in(mallory, now), None);
        assert!(resumed.signed_in(ada(), now).is_some());
    }
}
