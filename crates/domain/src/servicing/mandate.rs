//! A payer's standing authority for a schedule's collections: a variable
//! recurring payment (VRP) consent at their bank, which they authorise on
//! the pay page with the schedule's first instalment (hub seed: `mnd_…`,
//! "the first collection establishes one"; issue #16). Revoked by the payer
//! at any time, with lendhub or at their bank; a collection under a revoked
//! mandate fails with `mandate_revoked`.

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use crate::ids::{AccountId, MandateId, PaymentId};
use crate::money::Money;
use crate::servicing::schedule::{Cadence, Schedule};
use crate::tenant::Tenant;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MandateStatus {
    Active,
    Revoked,
}

impl MandateStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            MandateStatus::Active => "active",
            MandateStatus::Revoked => "revoked",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Mandate {
    pub id: MandateId,
    pub owner: Tenant,
    pub account_id: AccountId,
    /// The payer's bank, which holds the consent.
    pub payer_bank: String,
    pub status: MandateStatus,
    /// The payment whose authorisation established it.
    pub established_by: PaymentId,
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339::option")]
    pub revoked_at: Option<OffsetDateTime>,
    /// The payer's bank's VRP consent the mandate is.
    #[serde(default)]
    pub consent_id: Option<String>,
    /// What every payment under it shows on the payer's statement (the
    /// consent's, which each payment repeats).
    #[serde(default)]
    pub reference: Option<String>,
    /// The payer's tokens for the consent, sealed with the master key
    /// (base64): the bank's credential to take the instalments.
    #[serde(default)]
    pub sealed_tokens: Option<String>,
    /// What its consent lets the lender take; none for a mandate made
    /// before they were kept (2026-11-30), which no new schedule may name.
    #[serde(default)]
    pub limits: Option<Limits>,
    pub version: i64,
}

impl Mandate {
    pub fn establish(
        id: MandateId,
        owner: Tenant,
        account_id: AccountId,
        payer_bank: &str,
        established_by: PaymentId,
        now: OffsetDateTime,
    ) -> Self {
        Self {
            id,
            owner,
            account_id,
            payer_bank: payer_bank.to_owned(),
            status: MandateStatus::Active,
            established_by,
            created_at: now,
            revoked_at: None,
            consent_id: None,
            reference: None,
            sealed_tokens: None,
            limits: None,
            version: 1,
        }
    }

    /// Its consent's limits, as asked of the bank.
    pub fn limited_to(self, limits: Limits) -> Self {
        Self {
            limits: Some(limits),
            ..self
        }
    }

    /// Whether a schedule of `schedule`'s instalments and cadence may be
    /// taken under it: its consent's limits are known and cover them.
    pub fn covers(&self, schedule: &Schedule) -> bool {
        self.limits
            .is_some_and(|l| l.cover(&Limits::for_schedule(schedule)))
    }

    /// As the payer's bank holds it: its VRP consent, the reference its
    /// payments repeat, and the payer's tokens, sealed.
    pub fn at_bank(self, consent_id: &str, reference: &str, sealed_tokens: String) -> Self {
        Self {
            consent_id: Some(consent_id.to_owned()),
            reference: Some(reference.to_owned()),
            sealed_tokens: Some(sealed_tokens),
            ..self
        }
    }

    /// The payer's tokens renewed by the bank.
    pub fn with_tokens(&self, sealed_tokens: String) -> Self {
        Self {
            sealed_tokens: Some(sealed_tokens),
            version: self.version + 1,
            ..self.clone()
        }
    }

    /// The payer withdrew it; `None` if it already was.
    pub fn revoked(&self, now: OffsetDateTime) -> Option<Self> {
        (self.status == MandateStatus::Active).then(|| Self {
            status: MandateStatus::Revoked,
            revoked_at: Some(now),
            version: self.version + 1,
            ..self.clone()
        })
    }

    pub fn is_active(&self) -> bool {
        self.status == MandateStatus::Active
    }
}

/// What a mandate's consent lets the lender take, as the payer's bank
/// holds it to (the VRP consent's `MaximumIndividualAmount` and its one
/// `PeriodicLimits` entry).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Limits {
    pub most_per_payment: Money,
    pub most_per_period: Money,
    /// A week or a month, counted from the consent's day.
    pub period: Cadence,
}

impl Limits {
    /// What `schedule`'s mandate asks for: its largest instalment (a
    /// final one may sweep up a little more), at most twice in a period of
    /// its cadence (a late instalment and the next may fall in one).
    pub fn for_schedule(schedule: &Schedule) -> Self {
        let most = schedule.largest_instalment();
        Self {
            most_per_payment: most,
            most_per_period: Money::pence(most.as_pence().saturating_mul(2)),
            period: schedule.cadence,
        }
    }

    /// Whether a consent with these limits lets through every payment a
    /// mandate asking for `needed` would take.
    pub fn cover(&self, needed: &Limits) -> bool {
        self.period == needed.period
            && needed.most_per_payment <= self.most_per_payment
            && needed.most_per_period <= self.most_per_period
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::HubId;
    use time::macros::datetime;

    #[test]
    fn a_mandate_is_revoked_once() {
        let now = datetime!(2026-11-26 10:00 UTC);
        let m = Mandate::establish(
            MandateId::generate(1, 1),
            Tenant::from_stored("partner:p:test".into()),
            AccountId::generate(1, 2),
            "model_bank",
            PaymentId::generate(1, 3),
            now,
        );
        assert!(m.is_active());
        let gone = m.revoked(now).expect("active");
        assert_eq!(
            (gone.status, gone.revoked_at, gone.version),
            (MandateStatus::Revoked, Some(now), 2)
        );
        assert_eq!(gone.revoked(now), None);
    }

    #[test]
    fn limits_cover_a_schedule_only_within_their_amounts_and_period() {
        let asked = Limits {
            most_per_payment: Money::pence(11_000),
            most_per_period: Money::pence(22_000),
            period: Cadence::Monthly,
        };
        assert!(asked.cover(&asked));
        let smaller = Limits {
            most_per_payment: Money::pence(5_000),
            most_per_period: Money::pence(10_000),
            ..asked
        };
        assert!(asked.cover(&smaller));
        assert!(!smaller.cover(&asked), "a larger instalment");
        let weekly = Limits {
            period: Cadence::Weekly,
            ..smaller
        };
        assert!(!asked.cover(&weekly), "another period");
    }
}
