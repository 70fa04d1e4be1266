//! Collections from a borrower by open-banking payment initiation, settling
//! by Faster Payments (hub seed, Resources → Payment; States → Payment;
//! issue #16): a payment link's payment and its state machine.
//! `docs/guide/src/state-machines.md` draws it.

use serde::{Deserialize, Serialize};
use time::{Date, Duration, OffsetDateTime};

use crate::ids::{AccountId, MandateId, PaymentId, ScheduleId};
use crate::ledger::transfer::Transfer;
use crate::money::Money;
use crate::servicing::bank_payment::{PayerAuthorisation, next_check};
use crate::servicing::refund_payout::RefundPayout;
use crate::tenant::Tenant;

/// The seed's bound on a payment's reference (Faster Payments carries 18).
pub const MAX_REFERENCE: usize = 18;
pub const MAX_DESCRIPTION: usize = 500;
/// The most one payment may collect, in pence: £500,000, twice the largest
/// loan the tier makes (`lending::MAX_AMOUNT_PENCE`), so a whole payoff with any
/// interest fits in one payment and no sum of payments a ledger can hold
/// comes near `i64`'s range (docs/decisions.md, "Payment amounts").
pub const MAX_AMOUNT_PENCE: i64 = 2 * crate::lending::application::MAX_AMOUNT_PENCE;
/// A link's life when the partner names none (the seed: 7 days).
pub const LINK_OPEN_FOR: Duration = Duration::days(7);
/// The least time an instalment created after its last day stays open.
pub const INSTALMENT_OPEN_AT_LEAST: Duration = Duration::minutes(1);

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PaymentStatus {
    Pending,
    Processing,
    Paid,
    Failed,
    Refunded,
}

impl PaymentStatus {
    pub const ALL: [PaymentStatus; 5] = [
        PaymentStatus::Pending,
        PaymentStatus::Processing,
        PaymentStatus::Paid,
        PaymentStatus::Failed,
        PaymentStatus::Refunded,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            PaymentStatus::Pending => "pending",
            PaymentStatus::Processing => "processing",
            PaymentStatus::Paid => "paid",
            PaymentStatus::Failed => "failed",
            PaymentStatus::Refunded => "refunded",
        }
    }

    pub fn parse(raw: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.as_str() == raw)
    }

    /// A status as a filter names it: the payments API's names, or the
    /// partner catalogue page's (`provisioned` is `pending`, `settled` is
    /// `paid`; docs/decisions.md, "Payment statuses").
    pub fn parse_filter(raw: &str) -> Option<Self> {
        match raw {
            "provisioned" => Some(PaymentStatus::Pending),
            "settled" => Some(PaymentStatus::Paid),
            other => Self::parse(other),
        }
    }
}

/// Why a payment failed (the seed's list).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureReason {
    InsufficientFunds,
    PayerCancelled,
    MandateRevoked,
    LinkExpired,
    /// No money moved: the partner may safely send a new link.
    BankUnavailable,
}

impl FailureReason {
    pub fn as_str(self) -> &'static str {
        match self {
            FailureReason::InsufficientFunds => "insufficient_funds",
            FailureReason::PayerCancelled => "payer_cancelled",
            FailureReason::MandateRevoked => "mandate_revoked",
            FailureReason::LinkExpired => "link_expired",
            FailureReason::BankUnavailable => "bank_unavailable",
        }
    }
}

/// A payment link's payment.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Payment {
    pub id: PaymentId,
    pub owner: Tenant,
    pub account_id: AccountId,
    pub status: PaymentStatus,
    pub amount: Money,
    pub reference: Option<String>,
    pub description: Option<String>,
    pub redirect_url: Option<String>,
    #[serde(with = "time::serde::rfc3339")]
    pub expires_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
    /// The payer's bank, once they authorised.
    pub payer_bank: Option<String>,
    #[serde(with = "time::serde::rfc3339::option")]
    pub authorised_at: Option<OffsetDateTime>,
    #[serde(with = "time::serde::rfc3339::option")]
    pub settled_at: Option<OffsetDateTime>,
    pub failure_reason: Option<FailureReason>,
    #[serde(default, with = "time::serde::rfc3339::option")]
    pub refunded_at: Option<OffsetDateTime>,
    /// Why the partner refunded it, as they said.
    #[serde(default)]
    pub refund_reason: Option<String>,
    /// The schedule whose instalment this is, and its number (from 1).
    #[serde(default)]
    pub schedule: Option<Instalment>,
    /// The standing authority it was collected under, if any.
    #[serde(default)]
    pub mandate_id: Option<MandateId>,
    /// The payer's authorisation under way at their bank, if any.
    #[serde(default)]
    pub authorisation: Option<PayerAuthorisation>,
    /// The bank's id for the payment it accepted (its `DomesticPaymentId`).
    #[serde(default)]
    pub bank_payment_id: Option<String>,
    /// When lendhub last asked the bank how the payment stands.
    #[serde(default, with = "time::serde::rfc3339::option")]
    pub checked_at: Option<OffsetDateTime>,
    /// The account that paid (sort code then account number), as the
    /// payer's bank said when it accepted the payment: where a refund goes.
    #[serde(default)]
    pub payer_account: Option<String>,
    /// The refund's money on its way back to `payer_account`, once
    /// refunded.
    #[serde(default)]
    pub refund_payout: Option<RefundPayout>,
    /// The collection's transfer in the double-entry ledger, from the
    /// moment the payer's bank accepted it (docs/guide/src/ledger.md).
    #[serde(default)]
    pub in_ledger: Option<InLedger>,
    /// Bumped by every change; a change commits only over the version it read.
    pub version: i64,
}

/// A collection's transfer: pending while the payer's bank has the
/// payment, posted once it settled. A failed payment's is voided and
/// dropped, so a later attempt allocates afresh.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct InLedger {
    pub transfer: Transfer,
    pub posted: bool,
    /// The refund's transfer once the payment is refunded: pending until
    /// the rail settles the money back to the payer.
    #[serde(default)]
    pub refund: Option<Transfer>,
}

/// Which instalment of which schedule a payment collects.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Instalment {
    pub schedule_id: ScheduleId,
    /// From 1.
    pub number: u32,
    pub due_on: Date,
}

/// The state a change needs and the payment is not in.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
#[error("the payment is {0:?}")]
pub struct NotNow(pub PaymentStatus);

impl Payment {
    #[allow(clippy::too_many_arguments)]
    pub fn link(
        id: PaymentId,
        owner: Tenant,
        account_id: AccountId,
        amount: Money,
        reference: Option<String>,
        description: Option<String>,
        redirect_url: Option<String>,
        expires_at: Option<OffsetDateTime>,
        now: OffsetDateTime,
    ) -> Self {
        Self {
            id,
            owner,
            account_id,
            status: PaymentStatus::Pending,
            amount,
            reference,
            description,
            redirect_url,
            expires_at: expires_at.unwrap_or(now + LINK_OPEN_FOR),
            created_at: now,
            payer_bank: None,
            authorised_at: None,
            settled_at: None,
            failure_reason: None,
            refunded_at: None,
            refund_reason: None,
            schedule: None,
            mandate_id: None,
            authorisation: None,
            bank_payment_id: None,
            checked_at: None,
            payer_account: None,
            refund_payout: None,
            in_ledger: None,
            version: 1,
        }
    }

    /// A schedule's instalment, pending: a link for the payer until a
    /// mandate exists; under one, due for initiation at once (the payment
    /// sweep asks the payer's bank). It stays open for `LINK_OPEN_FOR` from
    /// its due date.
    pub fn instalment(
        id: PaymentId,
        schedule: &crate::servicing::schedule::Schedule,
        instalment: Instalment,
        amount: Money,
        now: OffsetDateTime,
    ) -> Self {
        let expires_at = instalment.due_on.midnight().assume_utc() + LINK_OPEN_FOR;
        Self {
            schedule: Some(instalment),
            mandate_id: schedule.mandate_id.clone(),
            ..Self::link(
                id,
                schedule.owner.clone(),
                schedule.account_id.clone(),
                amount,
                None,
                None,
                None,
                Some(expires_at.max(now + INSTALMENT_OPEN_AT_LEAST)),
                now,
            )
        }
    }

    fn next(&self) -> Self {
        Self {
            version: self.version + 1,
            ..self.clone()
        }
    }

    /// When the payment sweep next needs it: a scheduled instalment under
    /// a mandate at once (its collection at the payer's bank; again later
    /// if the bank could not be reached), a pending link's expiry, the next
    /// question to the bank about a payment it accepted. No timer settles
    /// a payment: only the bank's answer does.
    pub fn due_at(&self) -> Option<OffsetDateTime> {
        match self.status {
            PaymentStatus::Pending if self.mandate_id.is_some() => Some(
                self.checked_at
                    .map_or(self.created_at, |c| next_check(self.created_at, c)),
            ),
            PaymentStatus::Pending => Some(self.expires_at),
            // Only a bank's payment is asked about; nothing else settles.
            PaymentStatus::Processing if self.bank_payment_id.is_some() => {
                let submitted = self.authorised_at?;
                Some(next_check(submitted, self.checked_at.unwrap_or(submitted)))
            }
            // A refund's money still to send, or to ask the rail about.
            PaymentStatus::Refunded => self.refund_payout.as_ref()?.next_at(),
            _ => None,
        }
    }

    /// An instalment the payer's bank accepted under its mandate, as
    /// `bank_payment_id`: processing until the bank says it settled.
    pub fn collected(
        &self,
        bank: &str,
        bank_payment_id: &str,
        now: OffsetDateTime,
    ) -> Result<Self, NotNow> {
        let processing = self.authorised(bank, now)?;
        Ok(Self {
            bank_payment_id: Some(bank_payment_id.to_owned()),
            checked_at: Some(now),
            ..processing
        })
    }

    /// The instalment taken under `mandate` from now on, not paid as a link.
    pub fn under_mandate(&self, mandate: &MandateId) -> Self {
        Self {
            mandate_id: Some(mandate.clone()),
            ..self.next()
        }
    }

    /// An instalment whose bank could not be reached: asked again later.
    pub fn retry_later(&self, now: OffsetDateTime) -> Result<Self, NotNow> {
        self.open(now)?;
        if self.mandate_id.is_none() {
            return Err(NotNow(self.status));
        }
        Ok(Self {
            checked_at: Some(now),
            ..self.next()
        })
    }

    /// The payer was sent to `authorisation.bank` to authorise a payment
    /// consent; it stays pending until they come back.
    pub fn authorising(
        &self,
        authorisation: PayerAuthorisation,
        now: OffsetDateTime,
    ) -> Result<Self, NotNow> {
        self.open(now)?;
        Ok(Self {
            authorisation: Some(authorisation),
            ..self.next()
        })
    }

    /// The authorisation the callback's `state` answers: the payment's
    /// latest, kept after the payer came back so a second return with the
    /// same state can be told from a forged one.
    pub fn authorised_by(&self, state: &str) -> Option<&PayerAuthorisation> {
        self.authorisation.as_ref().filter(|a| a.answered_by(state))
    }

    /// The payer authorised at their bank, which accepted the payment as
    /// `bank_payment_id`: processing until the bank says it settled.
    pub fn submitted(&self, bank_payment_id: &str, now: OffsetDateTime) -> Result<Self, NotNow> {
        let Some(authorisation) = &self.authorisation else {
            return Err(NotNow(self.status));
        };
        let processing = self.authorised(&authorisation.bank, now)?;
        Ok(Self {
            bank_payment_id: Some(bank_payment_id.to_owned()),
            checked_at: Some(now),
            ..processing
        })
    }

    /// Asked the bank, which has not settled it yet: ask again later.
    pub fn still_in_progress(&self, now: OffsetDateTime) -> Result<Self, NotNow> {
        if self.status != PaymentStatus::Processing || self.bank_payment_id.is_none() {
            return Err(NotNow(self.status));
        }
        Ok(Self {
            checked_at: Some(now),
            ..self.next()
        })
    }

    /// The payer authorised at `bank`, which accepted it (submitted to
    /// Faster Payments): processing.
    pub fn authorised(&self, bank: &str, now: OffsetDateTime) -> Result<Self, NotNow> {
        self.open(now)?;
        Ok(Self {
            status: PaymentStatus::Processing,
            payer_bank: Some(bank.to_owned()),
            authorised_at: Some(now),
            ..self.next()
        })
    }

    /// The payer's bank refused, the payer cancelled, or the link lapsed.
    pub fn failed(&self, reason: FailureReason, bank: Option<&str>) -> Result<Self, NotNow> {
        if !matches!(
            self.status,
            PaymentStatus::Pending | PaymentStatus::Processing
        ) {
            return Err(NotNow(self.status));
        }
        Ok(Self {
            status: PaymentStatus::Failed,
            failure_reason: Some(reason),
            payer_bank: bank.map(str::to_owned).or_else(|| self.payer_bank.clone()),
            ..self.next()
        })
    }

    /// `self`, paid from `account` as the payer's bank said (or not).
    pub fn paid_from(self, account: Option<String>) -> Self {
        Self {
            payer_account: account.or(self.payer_account),
            ..self
        }
    }

    /// Funds settled: paid.
    pub fn settled(&self, now: OffsetDateTime) -> Result<Self, NotNow> {
        if self.status != PaymentStatus::Processing {
            return Err(NotNow(self.status));
        }
        Ok(Self {
            status: PaymentStatus::Paid,
            settled_at: Some(now),
            ..self.next()
        })
    }

    /// Handed back in full (the seed: full refunds only): refunded. Only a
    /// paid payment can be.
    pub fn refunded(&self, reason: Option<String>, now: OffsetDateTime) -> Result<Self, NotNow> {
        if self.status != PaymentStatus::Paid {
            return Err(NotNow(self.status));
        }
        Ok(Self {
            status: PaymentStatus::Refunded,
            refunded_at: Some(now),
            refund_reason: reason,
            ..self.next()
        })
    }

    /// Refunded, with `payout` to send the money back.
    pub fn refunded_through(
        &self,
        reason: Option<String>,
        payout: RefundPayout,
        now: OffsetDateTime,
    ) -> Result<Self, NotNow> {
        let refunded = self.refunded(reason, now)?;
        Ok(Self {
            refund_payout: Some(payout),
            ..refunded
        })
    }

    /// The refund's money claimed by a worker to send (`RefundPayout::claim`).
    pub fn refund_claimed(&self, now: OffsetDateTime) -> Option<Self> {
        let payout = self.refund_payout.as_ref()?.claim(now).ok()?;
        (self.status == PaymentStatus::Refunded).then(|| Self {
            refund_payout: Some(payout),
            ..self.next()
        })
    }

    /// The rail paid the refund back to the payer.
    pub fn refund_paid(&self, rail_payment_id: &str, at: OffsetDateTime) -> Option<Self> {
        let payout = self
            .refund_payout
            .as_ref()?
            .settle(rail_payment_id, at)
            .ok()?;
        Some(Self {
            refund_payout: Some(payout),
            ..self.next()
        })
    }

    /// The payer's bank refused the refund: the money is still the
    /// lender's and the collection stands, so the payment is `paid` again
    /// (a new refund may be asked for).
    pub fn refund_failed(&self, reason: &str, at: OffsetDateTime) -> Option<Self> {
        let payout = self.refund_payout.as_ref()?.reject(reason, at).ok()?;
        Some(Self {
            status: PaymentStatus::Paid,
            refunded_at: None,
            refund_payout: Some(payout),
            ..self.next()
        })
    }

    /// A pending link past its expiry: failed, `link_expired`.
    pub fn expire(&self, now: OffsetDateTime) -> Option<Self> {
        (self.status == PaymentStatus::Pending && now >= self.expires_at)
            .then(|| self.failed(FailureReason::LinkExpired, None).ok())
            .flatten()
    }

    /// Whether the payer authorises it on the pay page: a link, not an
    /// instalment collected under a mandate.
    pub fn is_link(&self) -> bool {
        self.mandate_id.is_none()
    }

    /// Pending and not yet expired: it may still be authorised.
    pub fn open(&self, now: OffsetDateTime) -> Result<(), NotNow> {
        if self.status != PaymentStatus::Pending || now >= self.expires_at {
            return Err(NotNow(self.status));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::HubId;
    use time::macros::datetime;

    fn link() -> Payment {
        Payment::link(
            PaymentId::generate(1, 1),
            Tenant::from_stored("partner:p:test".into()),
            AccountId::generate(1, 2),
            Money::pence(46_589),
            Some("INV-0001".into()),
            None,
            None,
            None,
            datetime!(2026-11-26 10:00 UTC),
        )
    }

    #[test]
    fn a_link_is_paid_through_processing_and_settlement() {
        let p = link();
        assert_eq!(p.expires_at, p.created_at + LINK_OPEN_FOR);
        assert_eq!(p.due_at(), Some(p.expires_at));
        let now = p.created_at + Duration::hours(1);
        let processing = p.authorised("model_bank", now).expect("pending");
        assert_eq!(processing.status, PaymentStatus::Processing);
        assert_eq!(
            processing.due_at(),
            None,
            "no bank's payment to ask about: nothing settles it on a clock"
        );
        assert!(processing.authorised("again", now).is_err());
        let paid = processing
            .settled(now + Duration::minutes(1))
            .expect("processing");
        assert_eq!(paid.status, PaymentStatus::Paid);
        assert_eq!(paid.due_at(), None);
        assert_eq!(paid.version, 3);
        assert!(
            paid.failed(FailureReason::PayerCancelled, None).is_err(),
            "terminal"
        );
        let refunded = paid.refunded(Some("paid twice".into()), now).expect("paid");
        assert_eq!(refunded.status, PaymentStatus::Refunded);
        assert!(refunded.refunded(None, now).is_err(), "once");
        assert!(p.refunded(None, now).is_err(), "only a paid payment");
    }

    #[test]
    fn a_link_fails_with_its_reason_or_lapses() {
        let p = link();
        let failed = p
            .failed(FailureReason::InsufficientFunds, Some("model_bank"))
            .expect("pending");
        assert_eq!(
            failed.failure_reason,
            Some(FailureReason::InsufficientFunds)
        );
        assert!(failed.authorised("x", p.created_at).is_err());
        assert_eq!(p.expire(p.expires_at - Duration::seconds(1)), None);
        let lapsed = p.expire(p.expires_at).expect("due");
        assert_eq!(lapsed.failure_reason, Some(FailureReason::LinkExpired));
        assert!(p.authorised("x", p.expires_at).is_err(), "too late to pay");
    }

    #[test]
    fn a_link_paid_at_a_bank_is_processing_until_the_bank_settles_it() {
        use crate::servicing::bank_payment::{FIRST_CHECK_AFTER, PayerAuthorisation};
        let p = link();
        let now = p.created_at + Duration::hours(1);
        assert!(p.submitted("dp-1", now).is_err(), "not authorised");
        let sent = p
            .authorising(
                PayerAuthorisation::new("model_bank", "pdc-1", "st4te", "n0nce", now),
                now,
            )
            .expect("open");
        assert_eq!(sent.status, PaymentStatus::Pending);
        assert_eq!(sent.due_at(), Some(p.expires_at));
        assert!(sent.authorised_by("st4te").is_some());
        assert!(sent.authorised_by("forged").is_none());
        let processing = sent.submitted("dp-1", now).expect("authorising");
        assert_eq!(processing.status, PaymentStatus::Processing);
        assert_eq!(processing.payer_bank.as_deref(), Some("model_bank"));
        assert_eq!(processing.bank_payment_id.as_deref(), Some("dp-1"));
        assert!(processing.authorised_by("st4te").is_some(), "kept");
        // No timer settles it: the sweep only asks the bank, more rarely
        // each time.
        assert_eq!(processing.due_at(), Some(now + FIRST_CHECK_AFTER));
        let asked = processing
            .still_in_progress(now + FIRST_CHECK_AFTER)
            .expect("processing");
        assert_eq!(asked.status, PaymentStatus::Processing);
        assert_eq!(asked.due_at(), Some(now + FIRST_CHECK_AFTER * 2));
        assert!(p.still_in_progress(now).is_err(), "only a submitted one");
    }

    proptest::proptest! {
        /// Whatever happens in whatever order, as time goes on: the status
        /// only moves along pending → processing → paid → refunded (or to
        /// failed from pending or processing), each accepted change bumps
        /// the version once, the
        /// amount never changes, and a paid or refunded payment went through
        /// processing with its settlement after its authorisation.
        #[test]
        fn any_order_of_events_keeps_the_state_machine(
            events in proptest::collection::vec((0u8..5, 0i64..3_000), 0..12),
        ) {
            let rank = |s: PaymentStatus| match s {
                PaymentStatus::Pending => 0,
                PaymentStatus::Processing => 1,
                PaymentStatus::Paid => 2,
                PaymentStatus::Refunded => 3,
                PaymentStatus::Failed => 9,
            };
            let mut p = link();
            // The clock only moves forward between events.
            let mut now = p.created_at;
            for (event, minutes) in events {
                now += Duration::minutes(minutes);
                let next = match event {
                    0 => p.authorised("test_bank_strong", now).ok(),
                    1 => p.settled(now).ok(),
                    2 => p.failed(FailureReason::InsufficientFunds, None).ok(),
                    3 => p.refunded(None, now).ok(),
                    _ => p.expire(now),
                };
                let Some(next) = next else { continue };
                let (from, to) = (p.status, next.status);
                let allowed = to == PaymentStatus::Failed
                    && matches!(from, PaymentStatus::Pending | PaymentStatus::Processing)
                    || rank(to) == rank(from) + 1 && rank(to) < 9;
                proptest::prop_assert!(allowed, "{:?} -> {:?}", from, to);
                proptest::prop_assert_eq!(next.version, p.version + 1);
                proptest::prop_assert_eq!(next.amount, p.amount);
                p = next;
            }
            if matches!(p.status, PaymentStatus::Paid | PaymentStatus::Refunded) {
                let (authorised, settled) = (p.authorised_at.unwrap(), p.settled_at.unwrap());
                proptest::prop_assert!(authorised < p.expires_at && settled >= authorised);
            }
            if p.status == PaymentStatus::Failed {
                proptest::prop_assert!(p.failure_reason.is_some());
                proptest::prop_assert_eq!(p.due_at(), None);
            }
        }
    }
}
