//! The REST tier's applications (hub seed, Resources → Application; States →
//! Application): the create request's rules, and the state machine.
//! `docs/guide/src/state-machines.md` draws it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use time::{Duration, OffsetDateTime};

use crate::ids::{AccountId, ApplicationId, DecisionId, DisbursementId};
use crate::lending::disbursement::Disbursement;
use crate::lending::register::{self, RegisteredEntity};
use crate::money::Money;
pub use crate::problem::Problem;
use crate::problem::Problems;
use crate::tenant::Tenant;

/// The seed's bounds on the amount asked for (Limits: 100000 to 25000000).
pub const MIN_AMOUNT_PENCE: i64 = 100_000;
pub const MAX_AMOUNT_PENCE: i64 = 25_000_000;
pub const MIN_TERM_MONTHS: i64 = 3;
pub const MAX_TERM_MONTHS: i64 = 60;
/// How long an application stays open for the applicant (the seed does not
/// say; docs/decisions.md).
pub const OPEN_FOR: Duration = Duration::days(14);
pub use crate::metadata::{MAX_METADATA, MAX_METADATA_KEY, MAX_METADATA_VALUE};
pub const MAX_REFERENCE: usize = 100;
pub const MAX_EMAIL: usize = 254;
pub const MAX_NAME: usize = 100;
pub const MAX_REASON: usize = 500;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Created,
    Submitted,
    InReview,
    Approved,
    Declined,
    Funded,
    Withdrawn,
    Expired,
}

impl Status {
    pub const ALL: [Status; 8] = [
        Status::Created,
        Status::Submitted,
        Status::InReview,
        Status::Approved,
        Status::Declined,
        Status::Funded,
        Status::Withdrawn,
        Status::Expired,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Status::Created => "created",
            Status::Submitted => "submitted",
            Status::InReview => "in_review",
            Status::Approved => "approved",
            Status::Declined => "declined",
            Status::Funded => "funded",
            Status::Withdrawn => "withdrawn",
            Status::Expired => "expired",
        }
    }

    pub fn parse(raw: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.as_str() == raw)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Purpose {
    WorkingCapital,
    AssetFinance,
    Expansion,
    Refinance,
    Stock,
}

impl Purpose {
    pub const ALL: [Purpose; 5] = [
        Purpose::WorkingCapital,
        Purpose::AssetFinance,
        Purpose::Expansion,
        Purpose::Refinance,
        Purpose::Stock,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Purpose::WorkingCapital => "working_capital",
            Purpose::AssetFinance => "asset_finance",
            Purpose::Expansion => "expansion",
            Purpose::Refinance => "refinance",
            Purpose::Stock => "stock",
        }
    }

    pub fn parse(raw: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.as_str() == raw)
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Applicant {
    pub email: Option<String>,
    pub first_name: Option<String>,
}

/// A create request as received, before its rules are checked.
#[derive(Clone, Debug, Default)]
pub struct Request {
    pub company_number: Option<String>,
    pub amount_pence: Option<i64>,
    pub term_months: Option<i64>,
    pub purpose: Option<String>,
    pub applicant: Applicant,
    pub redirect_uri: Option<String>,
    pub reference: Option<String>,
    pub introduction_id: Option<String>,
    /// The partner's own attribution of the deal (its channel, campaign or
    /// merchant), kept on the loan and its statement line.
    pub partner_ref: Option<String>,
    pub metadata: BTreeMap<String, String>,
}

/// A request whose rules hold, but whose company is not yet looked up.
#[derive(Clone, Debug, PartialEq)]
pub struct Checked {
    pub company_number: String,
    pub amount: Money,
    pub term_months: u32,
    pub purpose: Option<Purpose>,
    pub applicant: Applicant,
    pub redirect_uri: Option<String>,
    pub reference: Option<String>,
    pub introduction_id: Option<String>,
    pub partner_ref: Option<String>,
    pub metadata: BTreeMap<String, String>,
}

/// Every rule of the seed's create table that needs no lookup; all the
/// problems at once.
pub fn check(request: Request) -> Result<Checked, Vec<Problem>> {
    let mut problems = Problems::new();
    let company_number = problems.required_parsed(
        "business.company_number",
        request.company_number.as_deref(),
        "pattern",
        |n| register::well_formed(n).then_some(()),
    );
    let amount = problems.within(
        "amount_pence",
        request.amount_pence,
        MIN_AMOUNT_PENCE,
        MAX_AMOUNT_PENCE,
    );
    let term = problems.within(
        "term_months",
        request.term_months,
        MIN_TERM_MONTHS,
        MAX_TERM_MONTHS,
    );
    let purpose = problems.parsed(
        "purpose",
        request.purpose.as_deref(),
        "one_of",
        Purpose::parse,
    );
    match (&request.applicant.email, &request.redirect_uri) {
        (None, None) => problems.push("applicant.email", "required_without_redirect_uri"),
        (Some(e), _) if !plausible_email(e) => problems.push("applicant.email", "format"),
        _ => {}
    }
    problems.max_length(
        "applicant.first_name",
        request.applicant.first_name.as_deref(),
        MAX_NAME,
    );
    if let Some(uri) = &request.redirect_uri
        && !redirect_allowed(uri)
    {
        problems.push("redirect_uri", "https_required");
    }
    problems.max_length("reference", request.reference.as_deref(), MAX_REFERENCE);
    problems.parsed(
        "introduction_id",
        request.introduction_id.as_deref(),
        "pattern",
        crate::ids::SubAccountId::parse,
    );
    if problems.max_length(
        "partner_ref",
        request.partner_ref.as_deref(),
        MAX_PARTNER_REF,
    ) && request
        .partner_ref
        .as_deref()
        .is_some_and(|r| !partner_ref_allowed(r))
    {
        problems.push("partner_ref", "pattern");
    }
    problems.extend(check_metadata(&request.metadata));
    let checked = company_number
        .zip(amount)
        .zip(term)
        .map(|(((), amount), term)| Checked {
            company_number: request.company_number.unwrap_or_default(),
            amount: Money::pence(amount),
            term_months: term as u32,
            purpose,
            applicant: request.applicant,
            redirect_uri: request.redirect_uri,
            reference: request.reference,
            introduction_id: request.introduction_id,
            partner_ref: request.partner_ref,
            metadata: request.metadata,
        });
    problems.finish(checked)
}

use crate::ids::HubId;

/// HTTPS, or plain HTTP to the developer's own machine (`localhost` exactly,
/// not a host that merely starts with it).
fn redirect_allowed(uri: &str) -> bool {
    if let Some(rest) = uri.strip_prefix("https://") {
        return !rest.is_empty();
    }
    uri.strip_prefix("http://localhost")
        .is_some_and(|rest| rest.is_empty() || rest.starts_with([':', '/', '?']))
}

/// `partner_ref`: 1 to 64 of `A-Z a-z 0-9 . _ : / -`, an identifier of
/// the partner's, never free text.
pub const MAX_PARTNER_REF: usize = 64;

fn partner_ref_allowed(r: &str) -> bool {
    !r.is_empty()
        && r.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | ':' | '/' | '-'))
}

fn plausible_email(e: &str) -> bool {
    e.chars().count() <= MAX_EMAIL
        && e.split_once('@').is_some_and(|(local, domain)| {
            !local.is_empty() && domain.contains('.') && !domain.starts_with('.')
        })
        && !e.chars().any(char::is_whitespace)
}

/// The seed's 20 string pairs, with lendhub's key and value lengths.
pub fn check_metadata(m: &BTreeMap<String, String>) -> Vec<Problem> {
    crate::metadata::check(m)
}

/// An application of the REST tier.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Application {
    pub id: ApplicationId,
    pub owner: Tenant,
    pub status: Status,
    pub company_number: String,
    pub company_name: String,
    pub amount: Money,
    pub term_months: u32,
    pub purpose: Option<Purpose>,
    pub applicant: Applicant,
    pub redirect_uri: Option<String>,
    pub reference: Option<String>,
    pub introduction_id: Option<String>,
    pub metadata: BTreeMap<String, String>,
    /// Who the deal is attributed to, frozen at creation: the partner
    /// client that created it (hub seed, Commercial model).
    pub attributed_to: String,
    /// The partner's own attribution of the deal (`partner_ref`), frozen
    /// at creation and kept on the loan.
    #[serde(default)]
    pub partner_ref: Option<String>,
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    pub expires_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    pub updated_at: OffsetDateTime,
    pub decision_id: Option<DecisionId>,
    pub account_id: Option<AccountId>,
    pub withdrawal_reason: Option<String>,
    /// The bank the applicant connected at submission: where the loan is paid.
    #[serde(default)]
    pub payout_bank: Option<String>,
    /// When the offer was accepted and signed; the disbursement is due then.
    #[serde(default, with = "time::serde::rfc3339::option")]
    pub accepted_at: Option<OffsetDateTime>,
    /// Why the last disbursement failed, if it did (Faster Payments' reason).
    #[serde(default)]
    pub funding_failure: Option<String>,
    /// The payout intent committed with the signature, and what became of
    /// it; none before the first signature (or for one signed before
    /// intents were kept, 2026-11-30, which the worker gives one).
    #[serde(default)]
    pub disbursement: Option<Disbursement>,
    /// Bumped by every change; a change commits only over the version it read.
    pub version: i64,
}

/// The unguessable part of an application's handoff link: an HMAC of its id
/// under a key derived from the master key, so the link can be shown again
/// on retrieval without storing it, and cannot be made for another id.
/// Single use is the journey's to enforce (issue #15's hosted journey).
pub fn handoff_token(key: &[u8; 32], id: &ApplicationId) -> String {
    use base64::Engine;
    use hmac::{Hmac, Mac};
    let mut mac = <Hmac<sha2::Sha256> as Mac>::new_from_slice(key)
        .unwrap_or_else(|_| unreachable!("HMAC takes keys of any length"));
    mac.update(id.as_str().as_bytes());
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(mac.finalize().into_bytes())
}

/// What an approved offer stays open for (the seed names `expires_at` but
/// not its length; docs/decisions.md): as the sandbox's offers.
pub const OFFER_OPEN_FOR: Duration = Duration::days(30);

/// The engine's decision on an application (hub seed, Resources → Decision).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Decision {
    pub id: DecisionId,
    pub owner: Tenant,
    pub application_id: ApplicationId,
    pub reference: Option<String>,
    pub verdict: crate::lending::underwriting::Verdict,
    /// What the engine weighed, kept so the decision explains itself later.
    pub facts: crate::lending::underwriting::Facts,
    #[serde(with = "time::serde::rfc3339")]
    pub decided_at: OffsetDateTime,
    /// When an approved offer lapses if not accepted; `None` otherwise.
    #[serde(with = "time::serde::rfc3339::option")]
    pub expires_at: Option<OffsetDateTime>,
    /// When the applicant accepted the offer and signed the agreement: from
    /// then the decision is locked (docs/decisions.md).
    #[serde(default, with = "time::serde::rfc3339::option")]
    pub accepted_at: Option<OffsetDateTime>,
    /// Who signed, as they typed their name.
    #[serde(default)]
    pub signed_by: Option<String>,
}

impl Decision {
    /// A locked decision cannot change (hub seed: 423 `decision_locked`);
    /// only the operator's audited release unlocks it.
    pub fn locked(&self) -> bool {
        self.accepted_at.is_some()
    }
}

/// What an operator did to a decision, kept for audit (append-only).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Act {
    /// A referral approved by an underwriter.
    Approve,
    /// A referral declined by an underwriter.
    Decline,
    /// A locked decision released by the lender's owner (sudo).
    Release,
}

impl Act {
    pub fn as_str(self) -> &'static str {
        match self {
            Act::Approve => "approve",
            Act::Decline => "decline",
            Act::Release => "release",
        }
    }

    pub fn parse(raw: &str) -> Option<Self> {
        [Act::Approve, Act::Decline, Act::Release]
            .into_iter()
            .find(|a| a.as_str() == raw)
    }
}

/// One entry of the underwriting log: who did what to which decision, when
/// and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnderwritingAct {
    pub decision_id: DecisionId,
    pub owner: Tenant,
    pub act: Act,
    pub actor: String,
    pub note: String,
    pub at: OffsetDateTime,
}

/// How long the test environment's simulated underwriter takes to settle a
/// referral, on the owner's test clock (docs/guide/src/simulators.md).
pub const TEST_REVIEW_AFTER: Duration = Duration::hours(24);

/// From signature to disbursement: the lender's pre-funding checks
/// (docs/decisions.md). On the owner's clock.
pub const DISBURSE_AFTER: Duration = Duration::minutes(5);

/// How long a declined company waits before applying again (the seed names
/// a cooling-off period but not its length; docs/decisions.md).
pub const COOLING_OFF: Duration = Duration::days(30);

/// Until when a company declined at `declined_at` may not apply again.
pub fn cooling_off_until(declined_at: OffsetDateTime) -> OffsetDateTime {
    declined_at + COOLING_OFF
}

/// A company this partner saw declined at `declined_at` waits out the
/// cooling-off (`cooling_off`, bound by the moment it may apply again).
pub fn check_cooling_off(
    declined_at: OffsetDateTime,
    now: OffsetDateTime,
) -> Result<(), Vec<Problem>> {
    let until = cooling_off_until(declined_at);
    if now < until {
        return Problem::until("business.company_number", "cooling_off", until).alone();
    }
    Ok(())
}

/// A withdrawal's reason, kept on the application: at most `MAX_REASON`
/// characters (`max_length`, with the bound).
pub fn check_withdraw_reason(reason: Option<&str>) -> Result<(), Vec<Problem>> {
    let mut problems = Problems::new();
    problems.max_length("reason", reason, MAX_REASON);
    problems.finish(Some(()))
}

/// Why a decision, or the application it decides, cannot change as asked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CannotChange {
    /// The offer was accepted and signed (423 `decision_locked`).
    #[error("the decision is locked")]
    Locked,
    /// The application is past the step asked for (409 `conflict`).
    #[error("a {0:?} application cannot change this way")]
    Closed(Status),
    /// The approved offer lapsed at its `expires_at` (409 `conflict`).
    #[error("the offer has expired")]
    OfferExpired,
    /// Nothing to do: the decision is not locked (release only).
    #[error("the decision is not locked")]
    NotLocked,
    /// The principal is on its way, or its disbursement is not at the step
    /// asked for (409 `conflict`).
    #[error("the disbursement is under way")]
    Disbursing,
    /// The account the loan would be paid to fails the sort code and
    /// account number check (409 `conflict`).
    #[error("the payee's account fails the modulus check")]
    PayeeInvalid,
}

/// A submission refused: only an application still open for its applicant
/// can be submitted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("a {0:?} application cannot be submitted")]
pub struct CannotSubmit(pub Status);

/// A withdrawal refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CannotWithdraw {
    /// The loan is funded, or the application closed otherwise (declined,
    /// expired).
    #[error("a {0:?} application cannot be withdrawn")]
    Closed(Status),
    /// The principal is on its way: the worker claimed the disbursement.
    #[error("the loan is being paid out")]
    Disbursing,
}

impl Application {
    /// A new application of `owner` for the looked-up `company`.
    pub fn new(
        id: ApplicationId,
        owner: Tenant,
        attributed_to: &str,
        checked: Checked,
        company: &RegisteredEntity,
        now: OffsetDateTime,
    ) -> Self {
        Self {
            id,
            owner,
            status: Status::Created,
            company_number: checked.company_number,
            company_name: company.name.clone(),
            amount: checked.amount,
            term_months: checked.term_months,
            purpose: checked.purpose,
            applicant: checked.applicant,
            redirect_uri: checked.redirect_uri,
            reference: checked.reference,
            introduction_id: checked.introduction_id,
            partner_ref: checked.partner_ref,
            metadata: checked.metadata,
            attributed_to: attributed_to.to_owned(),
            created_at: now,
            expires_at: now + OPEN_FOR,
            updated_at: now,
            decision_id: None,
            account_id: None,
            withdrawal_reason: None,
            payout_bank: None,
            accepted_at: None,
            funding_failure: None,
            disbursement: None,
            version: 1,
        }
    }

    fn moved(&self, status: Status, now: OffsetDateTime) -> Self {
        Self {
            status,
            updated_at: now,
            version: self.version + 1,
            ..self.clone()
        }
    }

    /// The seed's withdraw rows: before funding, `withdrawn` (`Some`, to be
    /// stored with its event); already withdrawn, unchanged (`None`);
    /// funded — or closed by a decline or expiry — refused.
    pub fn withdraw(
        &self,
        reason: Option<String>,
        now: OffsetDateTime,
    ) -> Result<Option<Self>, CannotWithdraw> {
        match self.status {
            Status::Withdrawn => Ok(None),
            Status::Funded | Status::Declined | Status::Expired => {
                Err(CannotWithdraw::Closed(self.status))
            }
            Status::Created | Status::Submitted | Status::InReview | Status::Approved => {
                let mut withdrawn = self.moved(Status::Withdrawn, now);
                withdrawn.withdrawal_reason = reason;
                withdrawn.disbursement = self
                    .disbursement
                    .as_ref()
                    .map(|d| d.cancel(now))
                    .transpose()
                    .map_err(|_| CannotWithdraw::Disbursing)?;
                Ok(Some(withdrawn))
            }
        }
    }

    /// The applicant finished (`submitted`) and the engine decided at
    /// once: the application as it stands after both — `approved`,
    /// `declined`, or `in_review` for a referral — with its decision.
    pub fn submit(
        &self,
        decision_id: DecisionId,
        facts: crate::lending::underwriting::Facts,
        model: &crate::credit_model::Scorecard,
        now: OffsetDateTime,
    ) -> Result<(Self, Self, Decision), CannotSubmit> {
        if self.status != Status::Created {
            return Err(CannotSubmit(self.status));
        }
        if now >= self.expires_at {
            return Err(CannotSubmit(Status::Expired));
        }
        // Both are one change of the stored row (one version): `submitted`
        // is what the `application.submitted` event shows.
        let submitted = self.moved(Status::Submitted, now);
        let verdict = crate::lending::underwriting::decide(&facts, model);
        let status = match verdict.outcome {
            crate::sandbox::decisioning::Outcome::Approved => Status::Approved,
            crate::sandbox::decisioning::Outcome::Declined => Status::Declined,
            crate::sandbox::decisioning::Outcome::Referred => Status::InReview,
        };
        let expires_at = verdict.offer.is_some().then(|| now + OFFER_OPEN_FOR);
        let mut decided = self.moved(status, now);
        decided.decision_id = Some(decision_id.clone());
        let decision = Decision {
            id: decision_id,
            owner: self.owner.clone(),
            application_id: self.id.clone(),
            reference: self.reference.clone(),
            verdict,
            facts,
            decided_at: now,
            expires_at,
            accepted_at: None,
            signed_by: None,
        };
        Ok((submitted, decided, decision))
    }

    /// The applicant accepts the approved offer and signs the agreement (the
    /// seed's `offer.accepted` and `agreement.signed`): the offer stops being
    /// indicative and the decision locks. The application stays `approved`
    /// until the disbursement clears.
    pub fn accept(
        &self,
        decision: &Decision,
        signed_by: String,
        disbursement_id: DisbursementId,
        now: OffsetDateTime,
    ) -> Result<(Self, Decision), CannotChange> {
        if decision.locked() {
            return Err(CannotChange::Locked);
        }
        if self.status != Status::Approved {
            return Err(CannotChange::Closed(self.status));
        }
        if decision.expires_at.is_none_or(|at| now >= at) {
            return Err(CannotChange::OfferExpired);
        }
        let mut accepted = decision.clone();
        if let Some(offer) = accepted.verdict.offer.as_mut() {
            offer.is_indicative = false;
        }
        accepted.accepted_at = Some(now);
        accepted.signed_by = Some(signed_by);
        let amount = accepted
            .verdict
            .offer
            .as_ref()
            .map(|o| o.amount_pence)
            .ok_or(CannotChange::Closed(self.status))?;
        // The money is committed at signing: to an account that could
        // exist (Vocalink's modulus check), or not at all.
        let payee = self.payout_bank.as_deref().unwrap_or("");
        if crate::payout_rail::payee_account(payee).is_some_and(|a| {
            crate::payout_rail::modulus::check_sort_code_account_number(&a).is_err()
        }) {
            return Err(CannotChange::PayeeInvalid);
        }
        let mut signed = self.moved(self.status, now);
        signed.accepted_at = Some(now);
        signed.funding_failure = None;
        signed.disbursement = Some(Disbursement::intend(
            disbursement_id,
            amount,
            self.payout_bank.as_deref().unwrap_or(""),
            now,
        ));
        Ok((signed, accepted))
    }

    /// The model run again over `facts` (the seed's refresh): the same
    /// decision, decided anew, and the application following its outcome.
    /// Only an unlocked decision of an application still being decided
    /// (`approved` or `in_review`) can be refreshed: a decline is final
    /// until the cooling-off ends.
    pub fn redecide(
        &self,
        decision: &Decision,
        facts: crate::lending::underwriting::Facts,
        model: &crate::credit_model::Scorecard,
        now: OffsetDateTime,
    ) -> Result<(Self, Decision), CannotChange> {
        if decision.locked() {
            return Err(CannotChange::Locked);
        }
        if !matches!(self.status, Status::Approved | Status::InReview) {
            return Err(CannotChange::Closed(self.status));
        }
        let verdict = crate::lending::underwriting::decide(&facts, model);
        Ok(self.settle(decision, verdict, Some(facts), now))
    }

    /// A referral settled by an underwriter (the seed: a referred case
    /// "later resolves to approved or declined").
    pub fn resolve_referral(
        &self,
        decision: &Decision,
        verdict: crate::lending::underwriting::Verdict,
        now: OffsetDateTime,
    ) -> Result<(Self, Decision), CannotChange> {
        if decision.locked() {
            return Err(CannotChange::Locked);
        }
        if self.status != Status::InReview {
            return Err(CannotChange::Closed(self.status));
        }
        Ok(self.settle(decision, verdict, None, now))
    }

    fn settle(
        &self,
        decision: &Decision,
        verdict: crate::lending::underwriting::Verdict,
        facts: Option<crate::lending::underwriting::Facts>,
        now: OffsetDateTime,
    ) -> (Self, Decision) {
        let status = match verdict.outcome {
            crate::sandbox::decisioning::Outcome::Approved => Status::Approved,
            crate::sandbox::decisioning::Outcome::Declined => Status::Declined,
            crate::sandbox::decisioning::Outcome::Referred => Status::InReview,
        };
        let expires_at = verdict.offer.is_some().then(|| now + OFFER_OPEN_FOR);
        let decided = Decision {
            verdict,
            facts: facts.unwrap_or_else(|| decision.facts.clone()),
            decided_at: now,
            expires_at,
            ..decision.clone()
        };
        (self.moved(status, now), decided)
    }

    /// The operator's audited release of a locked decision: the acceptance
    /// and signature are set aside and the offer is indicative again, so the
    /// decision can be refreshed or accepted anew. A funded loan is never
    /// released.
    pub fn release(
        &self,
        decision: &Decision,
        now: OffsetDateTime,
    ) -> Result<(Self, Decision), CannotChange> {
        if !decision.locked() {
            return Err(CannotChange::NotLocked);
        }
        if self.status != Status::Approved {
            return Err(CannotChange::Closed(self.status));
        }
        let cancelled = self
            .disbursement
            .as_ref()
            .map(|d| d.cancel(now))
            .transpose()
            .map_err(|_| CannotChange::Disbursing)?;
        let mut released = decision.clone();
        if let Some(offer) = released.verdict.offer.as_mut() {
            offer.is_indicative = true;
        }
        released.accepted_at = None;
        released.signed_by = None;
        let mut unsigned = self.moved(self.status, now);
        unsigned.accepted_at = None;
        unsigned.disbursement = cancelled;
        Ok((unsigned, released))
    }

    /// A signed application whose intent predates intents (2026-11-30)
    /// given one now, due as it would have been.
    pub fn with_intent(&self, id: DisbursementId, amount: Money) -> Self {
        let mut given = self.clone();
        if given.disbursement.is_none() {
            given.disbursement = Some(Disbursement::intend(
                id,
                amount,
                self.payout_bank.as_deref().unwrap_or(""),
                self.accepted_at.unwrap_or(self.updated_at),
            ));
        }
        given
    }

    /// The worker takes the disbursement at `now`, in a commit of its own
    /// before it calls the rail: from here a withdrawal is refused.
    pub fn claim_disbursement(&self, now: OffsetDateTime) -> Result<Self, CannotChange> {
        if self.status != Status::Approved || self.accepted_at.is_none() {
            return Err(CannotChange::Closed(self.status));
        }
        let claimed = self
            .disbursement
            .as_ref()
            .ok_or(CannotChange::Disbursing)?
            .claim(now)
            .map_err(|_| CannotChange::Disbursing)?;
        let mut taken = self.moved(self.status, now);
        taken.disbursement = Some(claimed);
        Ok(taken)
    }

    /// The disbursement cleared: the application is `funded` with its
    /// servicing account.
    pub fn fund(
        &self,
        account_id: AccountId,
        rail_payment_id: &str,
        now: OffsetDateTime,
    ) -> Result<Self, CannotChange> {
        if self.status != Status::Approved || self.accepted_at.is_none() {
            return Err(CannotChange::Closed(self.status));
        }
        let settled = self
            .disbursement
            .as_ref()
            .ok_or(CannotChange::Disbursing)?
            .settle(rail_payment_id, now)
            .map_err(|_| CannotChange::Disbursing)?;
        let mut funded = self.moved(Status::Funded, now);
        funded.account_id = Some(account_id);
        funded.disbursement = Some(settled);
        Ok(funded)
    }

    /// The disbursement failed (no loan, no fee): the signature is set
    /// aside with the decision's lock, so the applicant can accept again
    /// once the account is put right; the reason stays on the application.
    pub fn disbursement_failed(
        &self,
        decision: &Decision,
        reason: &str,
        now: OffsetDateTime,
    ) -> Result<(Self, Decision), CannotChange> {
        let rejected = self
            .disbursement
            .as_ref()
            .ok_or(CannotChange::Disbursing)?
            .reject(reason, now)
            .map_err(|_| CannotChange::Disbursing)?;
        let unclaimed = Self {
            disbursement: Some(rejected),
            ..self.clone()
        };
        let (mut unsigned, released) = unclaimed.release(decision, now)?;
        unsigned.funding_failure = Some(reason.to_owned());
        Ok((unsigned, released))
    }

    /// When the application next needs the lender's worker on its owner's
    /// clock: an open one expires at `expires_at`; a referral in the test
    /// environment is settled by the simulated underwriter
    /// [`TEST_REVIEW_AFTER`] after it was referred. `None` otherwise.
    pub fn due_at(&self) -> Option<OffsetDateTime> {
        let test = matches!(
            self.owner.kind(),
            crate::tenant::TenantKind::Partner {
                livemode: false,
                ..
            }
        );
        match self.status {
            Status::Created => Some(self.expires_at),
            Status::InReview if test => Some(self.updated_at + TEST_REVIEW_AFTER),
            // Signed: the disbursement is due after the pre-funding checks,
            // and looked at again while a claim of it is unanswered.
            Status::Approved => self.accepted_at.and_then(|at| match &self.disbursement {
                Some(d) => d.next_at(at, DISBURSE_AFTER),
                None => Some(at + DISBURSE_AFTER),
            }),
            _ => None,
        }
    }

    /// Expired, if the applicant has not finished by `expires_at`.
    pub fn expire(&self, now: OffsetDateTime) -> Option<Self> {
        (self.status == Status::Created && now >= self.expires_at)
            .then(|| self.moved(Status::Expired, now))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::datetime;

    const NOW: OffsetDateTime = datetime!(2026-11-25 12:00 UTC);

    fn request() -> Request {
        Request {
            company_number: Some("00000401".into()),
            amount_pence: Some(1_000_000),
            term_months: Some(24),
            applicant: Applicant {
                email: Some("founder@example.com".into()),
                first_name: None,
            },
            ..Request::default()
        }
    }

    fn fields(r: Request) -> Vec<(String, &'static str)> {
        check(r)
            .err()
            .unwrap_or_default()
            .into_iter()
            .map(|p| (p.field, p.reason))
            .collect()
    }

    fn application() -> Application {
        let company = register::synthetic("00000401").unwrap();
        Application::new(
            ApplicationId::generate(1, 1),
            Tenant::partner("pk_live_x", false, None),
            "pk_live_x",
            check(request()).unwrap(),
            &company,
            NOW,
        )
    }

    #[test]
    fn the_seeds_bounds_hold_inclusively() {
        for (amount, ok) in [
            (99_999, false),
            (100_000, true),
            (25_000_000, true),
            (25_000_001, false),
        ] {
            let r = Request {
                amount_pence: Some(amount),
                ..request()
            };
            assert_eq!(check(r).is_ok(), ok, "{amount}");
        }
        for (term, ok) in [(2, false), (3, true), (60, true), (61, false)] {
            let r = Request {
                term_months: Some(term),
                ..request()
            };
            assert_eq!(check(r).is_ok(), ok, "{term}");
        }
    }

    #[test]
    fn every_problem_is_named_at_once() {
        let r = Request {
            company_number: Some("1234".into()),
            amount_pence: None,
            term_months: Some(61),
            purpose: Some("holiday".into()),
            applicant: Applicant::default(),
            redirect_uri: None,
            ..Request::default()
        };
        assert_eq!(
            fields(r),
            vec![
                ("business.company_number".to_owned(), "pattern"),
                ("amount_pence".to_owned(), "required"),
                ("term_months".to_owned(), "max_value"),
                ("purpose".to_owned(), "one_of"),
                (
                    "applicant.email".to_owned(),
                    "required_without_redirect_uri"
                ),
            ]
        );
    }

    #[test]
    fn an_email_is_needed_only_without_a_redirect() {
        let r = Request {
            applicant: Applicant::default(),
            redirect_uri: Some("https://partner.example/back".into()),
            ..request()
        };
        assert!(check(r).is_ok());
        let r = Request {
            applicant: Applicant::default(),
            redirect_uri: Some("http://partner.example/back".into()),
            ..request()
        };
        assert_eq!(
            fields(r),
            vec![("redirect_uri".to_owned(), "https_required")]
        );
        for (uri, ok) in [
            ("http://localhost:3000/back", true),
            ("http://localhost/back", true),
            ("http://localhost.attacker.example/back", false),
            ("https://", false),
        ] {
            assert_eq!(redirect_allowed(uri), ok, "{uri}");
        }
    }

    #[test]
    fn metadata_is_twenty_string_pairs() {
        let many: BTreeMap<String, String> =
            (0..21).map(|i| (format!("k{i}"), "v".to_owned())).collect();
        let r = Request {
            metadata: many,
            ..request()
        };
        assert_eq!(fields(r), vec![("metadata".to_owned(), "max_pairs")]);
    }

    #[test]
    fn withdrawal_follows_the_seeds_table() {
        let open = application();
        let withdrawn = open
            .withdraw(Some("changed our mind".into()), NOW)
            .unwrap()
            .unwrap();
        assert_eq!(withdrawn.status, Status::Withdrawn);
        assert_eq!(withdrawn.version, 2);
        assert_eq!(withdrawn.withdraw(None, NOW), Ok(None), "again: unchanged");
        let funded = Application {
            status: Status::Funded,
            ..open.clone()
        };
        assert_eq!(
            funded.withdraw(None, NOW),
            Err(CannotWithdraw::Closed(Status::Funded))
        );
        for status in [Status::Submitted, Status::InReview, Status::Approved] {
            let a = Application {
                status,
                ..open.clone()
            };
            assert!(a.withdraw(None, NOW).unwrap().is_some(), "{status:?}");
        }
    }

    fn model() -> &'static crate::credit_model::Scorecard {
        crate::credit_model::champion().unwrap()
    }

    fn approved() -> (Application, Decision) {
        let facts = crate::lending::underwriting::Facts::new(
            &register::synthetic("00000401").unwrap(),
            1_000_000,
            24,
            crate::lending::underwriting::CreditFile::synthetic("00000401"),
            Some(crate::lending::underwriting::Banking {
                months: 12,
                average_monthly_inflow_pence: 5_000_000,
                average_monthly_outflow_pence: 3_000_000,
                ..Default::default()
            }),
            None,
            crate::lending::underwriting::Signals::default(),
        );
        let (_, decided, decision) = application()
            .submit(DecisionId::generate(2, 2), facts, model(), NOW)
            .unwrap();
        assert_eq!(decided.status, Status::Approved);
        (decided, decision)
    }

    #[test]
    fn an_accepted_offer_is_signed_locked_and_released_only_by_the_operator() {
        let (app, decision) = approved();
        let later = NOW + Duration::hours(1);
        let (accepted_app, accepted) = app.accept(&decision, "Ada".into(), dsb(1), later).unwrap();
        assert_eq!(accepted_app.status, Status::Approved);
        assert_eq!(accepted_app.version, app.version + 1);
        assert!(accepted.locked());
        assert_eq!(
            accepted.verdict.offer.as_ref().map(|o| o.is_indicative),
            Some(false)
        );
        assert_eq!(
            accepted_app.accept(&accepted, "Ada".into(), dsb(2), later),
            Err(CannotChange::Locked)
        );
        assert_eq!(
            accepted_app
                .redecide(&accepted, accepted.facts.clone(), model(), later)
                .map(|_| ()),
            Err(CannotChange::Locked)
        );
        let (released_app, released) = accepted_app.release(&accepted, later).unwrap();
        assert!(!released.locked());
        assert_eq!(
            released.verdict.offer.as_ref().map(|o| o.is_indicative),
            Some(true)
        );
        assert_eq!(
            released_app.release(&released, later).map(|_| ()),
            Err(CannotChange::NotLocked)
        );
    }

    #[test]
    fn an_offer_is_accepted_only_while_open_and_approved() {
        let (app, decision) = approved();
        let lapsed = decision.expires_at.unwrap();
        assert_eq!(
            app.accept(&decision, "Ada".into(), dsb(1), lapsed)
                .map(|_| ()),
            Err(CannotChange::OfferExpired)
        );
        let referred = Application {
            status: Status::InReview,
            ..app
        };
        assert_eq!(
            referred
                .accept(&decision, "Ada".into(), dsb(1), NOW)
                .map(|_| ()),
            Err(CannotChange::Closed(Status::InReview))
        );
    }

    #[test]
    fn an_offer_is_not_signed_to_a_payee_that_fails_the_modulus_check() {
        let (app, decision) = approved();
        let paying = |account: &str| Application {
            payout_bank: Some(account.to_owned()),
            ..app.clone()
        };
        assert_eq!(
            paying("04000410000001")
                .accept(&decision, "Ada".into(), dsb(1), NOW)
                .map(|_| ()),
            Err(CannotChange::PayeeInvalid)
        );
        assert!(
            paying("04000410000010")
                .accept(&decision, "Ada".into(), dsb(1), NOW)
                .is_ok()
        );
    }

    #[test]
    fn a_refresh_follows_the_new_outcome_and_a_decline_is_final() {
        let (app, decision) = approved();
        let later = NOW + Duration::days(2);
        let mut thin = decision.facts.clone();
        thin.banking = None;
        let (referred_app, referred) = app.redecide(&decision, thin, model(), later).unwrap();
        assert_eq!(referred_app.status, Status::InReview);
        assert_eq!(referred.id, decision.id);
        assert_eq!(referred.decided_at, later);
        assert_eq!(referred.expires_at, None);
        let declined = Application {
            status: Status::Declined,
            ..referred_app
        };
        assert_eq!(
            declined
                .redecide(&referred, referred.facts.clone(), model(), later)
                .map(|_| ()),
            Err(CannotChange::Closed(Status::Declined))
        );
        assert_eq!(cooling_off_until(NOW), NOW + Duration::days(30));
    }

    #[test]
    fn a_declined_company_waits_out_the_cooling_off() {
        let until = NOW + COOLING_OFF;
        assert_eq!(
            check_cooling_off(NOW, until - Duration::milliseconds(1)),
            Err(vec![Problem::until(
                "business.company_number",
                "cooling_off",
                until
            )])
        );
        assert_eq!(check_cooling_off(NOW, until), Ok(()));
    }

    #[test]
    fn a_withdrawal_reason_is_bounded() {
        assert_eq!(check_withdraw_reason(None), Ok(()));
        assert_eq!(check_withdraw_reason(Some(&"r".repeat(MAX_REASON))), Ok(()));
        assert_eq!(
            check_withdraw_reason(Some(&"r".repeat(MAX_REASON + 1))),
            Err(vec![Problem::bounded(
                "reason",
                "max_length",
                MAX_REASON as i64
            )])
        );
    }

    #[test]
    fn only_open_applications_and_test_referrals_fall_due() {
        let open = application();
        assert_eq!(open.due_at(), Some(open.expires_at));
        let referred = |livemode| Application {
            status: Status::InReview,
            owner: Tenant::partner("pk_live_x", livemode, None),
            ..open.clone()
        };
        assert_eq!(
            referred(false).due_at(),
            Some(open.updated_at + TEST_REVIEW_AFTER)
        );
        assert_eq!(
            referred(true).due_at(),
            None,
            "live referrals wait for a person"
        );
        for status in [Status::Approved, Status::Declined, Status::Withdrawn] {
            let a = Application {
                status,
                ..open.clone()
            };
            assert_eq!(a.due_at(), None, "{status:?}");
        }
    }

    #[test]
    fn a_signed_offer_falls_due_for_funds_and_a_rejection_reopens_it() {
        let (app, decision) = approved();
        assert_eq!(app.due_at(), None, "approved but unsigned waits for nobody");
        assert_eq!(
            app.fund(AccountId::generate(3, 3), "rail-1", NOW),
            Err(CannotChange::Closed(Status::Approved))
        );
        let (signed, locked) = app.accept(&decision, "Ada".into(), dsb(1), NOW).unwrap();
        assert_eq!(signed.due_at(), Some(NOW + DISBURSE_AFTER));
        let intent = signed.disbursement.clone().unwrap();
        assert_eq!(
            intent.amount,
            locked.verdict.offer.as_ref().unwrap().amount_pence
        );
        assert_eq!(
            signed.fund(AccountId::generate(3, 3), "rail-1", NOW),
            Err(CannotChange::Disbursing),
            "nothing is booked that no worker sent"
        );
        let claimed = signed.claim_disbursement(NOW + DISBURSE_AFTER).unwrap();
        assert_eq!(
            claimed.due_at(),
            Some(NOW + DISBURSE_AFTER + crate::lending::disbursement::RESEND_AFTER)
        );
        let funded = claimed
            .fund(AccountId::generate(3, 3), "rail-1", NOW)
            .unwrap();
        assert_eq!(funded.status, Status::Funded);
        assert!(funded.account_id.is_some());
        assert_eq!(funded.due_at(), None);

        let (failed, released) = claimed
            .disbursement_failed(&locked, "account_closed", NOW)
            .unwrap();
        assert_eq!(failed.status, Status::Approved);
        assert_eq!(failed.funding_failure.as_deref(), Some("account_closed"));
        assert_eq!(failed.due_at(), None);
        assert!(!released.locked());
        let (again, _) = failed.accept(&released, "Ada".into(), dsb(2), NOW).unwrap();
        assert_eq!(again.funding_failure, None);
        assert_eq!(
            again.disbursement.map(|d| d.id),
            Some(dsb(2)),
            "a new intent"
        );
    }

    fn dsb(n: u128) -> DisbursementId {
        DisbursementId::generate(9, n)
    }

    #[test]
    fn a_withdrawal_cancels_an_unclaimed_payout_and_is_refused_once_the_worker_claimed_it() {
        let (app, decision) = approved();
        let (signed, locked) = app.accept(&decision, "Ada".into(), dsb(1), NOW).unwrap();
        let withdrawn = signed.withdraw(None, NOW).unwrap().unwrap();
        assert_eq!(withdrawn.status, Status::Withdrawn);
        assert!(!withdrawn.disbursement.as_ref().unwrap().open());
        assert_eq!(withdrawn.due_at(), None);
        assert_eq!(
            withdrawn.claim_disbursement(NOW).map(|_| ()),
            Err(CannotChange::Closed(Status::Withdrawn))
        );

        let claimed = signed.claim_disbursement(NOW + DISBURSE_AFTER).unwrap();
        assert_eq!(claimed.version, signed.version + 1, "the claim is a commit");
        assert_eq!(
            claimed.withdraw(None, NOW + DISBURSE_AFTER),
            Err(CannotWithdraw::Disbursing)
        );
        assert_eq!(
            claimed.release(&locked, NOW + DISBURSE_AFTER).map(|_| ()),
            Err(CannotChange::Disbursing),
            "nor can the operator release a decision whose money is committed"
        );
    }

    #[test]
    fn an_open_application_expires_at_its_expiry_and_not_before() {
        let open = application();
        assert_eq!(open.expires_at, NOW + OPEN_FOR);
        assert_eq!(
            open.expire(open.expires_at - Duration::milliseconds(1)),
            None
        );
        let expired = open.expire(open.expires_at).unwrap();
        assert_eq!(expired.status, Status::Expired);
        assert_eq!(expired.expire(expired.expires_at + Duration::days(1)), None);
    }
}
