//! A payer's standing authority for a schedule's collections: a variable
//! recurring payment (VRP) consent at their bank, which they authorise on
//! the pay page with the schedule's first instalment (hub seed: `mnd_…`,
//! "the first collection establishes one"; issue #16). Revoked by the payer
//! at any time, with lendhub or at their bank; a collection under a revoked
//! mandate fails with `mandate_revoked`.

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use crate::ids::{AccountId, MandateId, PaymentId};
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
            version: 1,
        }
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
}
