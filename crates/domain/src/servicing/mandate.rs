//! A payer's standing authority for a schedule's collections (a variable
//! recurring payment consent at their bank; hub seed: `mnd_…`, "the first
//! collection establishes one"; issue #16). Revoked by the payer at any
//! time; a collection under a revoked mandate fails with `mandate_revoked`.

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
            version: 1,
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
