//! The hub's identifiers: a prefix naming the kind of object (the seed's
//! table: `app_` application, `acc_` account, …) and a ULID, so ids sort by
//! creation time and an id of one kind never parses as another.
//!
//! Each kind is its own type: a function taking an `AccountId` cannot be
//! handed an `ApplicationId`. The random part comes from the caller (the
//! domain does no I/O).

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// What every hub id type shares.
pub trait HubId: Sized {
    /// The seed's prefix, underscore included.
    const PREFIX: &'static str;

    #[doc(hidden)]
    fn from_checked(raw: String) -> Self;

    fn as_str(&self) -> &str;

    /// A new id from a millisecond timestamp and 80 random bits.
    fn generate(unix_ms: u64, random: u128) -> Self {
        let ulid = ulid::Ulid::from_parts(unix_ms, random);
        Self::from_checked(format!("{}{ulid}", Self::PREFIX))
    }

    /// The smallest id made after the millisecond `unix_ms`: since ids sort
    /// by creation time, "created after t" is "id at or above this".
    fn floor_after(unix_ms: i64) -> Self {
        Self::generate(unix_ms.saturating_add(1).max(0) as u64, 0)
    }

    /// When it was made: the millisecond it was generated with.
    fn created_ms(&self) -> u64 {
        self.as_str()
            .strip_prefix(Self::PREFIX)
            .and_then(|rest| ulid::Ulid::from_string(rest).ok())
            .map_or(0, |u| u.timestamp_ms())
    }

    /// The prefix followed by exactly 26 Crockford base32 characters.
    fn parse(raw: &str) -> Option<Self> {
        let rest = raw.strip_prefix(Self::PREFIX)?;
        let ok =
            rest.len() == 26 && ulid::Ulid::from_string(rest).is_ok_and(|u| u.to_string() == rest);
        ok.then(|| Self::from_checked(raw.to_owned()))
    }
}

macro_rules! hub_id {
    ($(#[$doc:meta])* $name:ident, $prefix:literal) => {
        $(#[$doc])*
        #[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(String);

        impl HubId for $name {
            const PREFIX: &'static str = $prefix;

            fn from_checked(raw: String) -> Self {
                Self(raw)
            }

            fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(&self.0)
            }
        }

        /// Parsing checks the prefix: an id of another kind is an error.
        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let raw = String::deserialize(d)?;
                <$name as HubId>::parse(&raw).ok_or_else(|| {
                    serde::de::Error::custom(format!("not a {} id", $prefix))
                })
            }
        }
    };
}

hub_id!(/// An application (`app_…`).
    ApplicationId, "app_");
hub_id!(/// A decision (`dec_…`).
    DecisionId, "dec_");
hub_id!(/// A servicing account (`acc_…`).
    AccountId, "acc_");
hub_id!(/// A payment (`pay_…`).
    PaymentId, "pay_");
hub_id!(/// A payment schedule (`sch_…`).
    ScheduleId, "sch_");
hub_id!(/// A payment mandate (`mnd_…`).
    MandateId, "mnd_");
hub_id!(/// A ledger entry (`txn_…`).
    LedgerEntryId, "txn_");
hub_id!(/// A partner sub-account (`sub_…`).
    SubAccountId, "sub_");
hub_id!(/// An introduction (`intro_…`).
    IntroductionId, "intro_");
hub_id!(/// A credit model's drift, as told to a partner (`mdr_…`).
    ModelDriftId, "mdr_");
hub_id!(/// A payout (`po_…`).
    PayoutId, "po_");
hub_id!(/// A webhook endpoint (`whe_…`).
    WebhookEndpointId, "whe_");
hub_id!(/// An event (`evt_…`).
    EventId, "evt_");
hub_id!(/// An enquiry (`enq_…`).
    EnquiryId, "enq_");
hub_id!(/// A marketplace signal (`sig_…`).
    SignalId, "sig_");
hub_id!(/// An identity subject (`usr_…`).
    UserId, "usr_");

// lendhub's own, for objects the seed names without a prefix.
hub_id!(/// An identity check's verification (`ver_…`).
    VerificationId, "ver_");
hub_id!(/// A marketplace app listing (`mkt_…`).
    MarketplaceAppId, "mkt_");
hub_id!(/// A marketplace app's subscription to events (`msub_…`).
    MarketplaceSubscriptionId, "msub_");
hub_id!(/// A partner statement (`pst_…`).
    StatementId, "pst_");
hub_id!(/// A correction of a finalized statement (`adj_…`).
    AdjustmentId, "adj_");
hub_id!(/// A line of a partner's dashboard audit log (`aud_…`).
    AuditId, "aud_");
hub_id!(/// An invitation to a partner's dashboard staff (`dsi_…`).
    InvitationId, "dsi_");
hub_id!(/// A status-page incident or maintenance window (`inc_…`).
    IncidentId, "inc_");
hub_id!(/// An update to a status-page incident (`incu_…`).
    IncidentUpdateId, "incu_");
hub_id!(/// A white-label journey's connection to the applicant's bank (`bcn_…`).
    BankConnectionId, "bcn_");
hub_id!(/// A loan's disbursement: the payout intent committed when the offer
    /// is signed, whose id is its idempotency key at the rail (`dsb_…`).
    DisbursementId, "dsb_");
hub_id!(/// A refund's payment back to the payer over the payout rail (`rfd_…`):
    /// its end-to-end id at the rail.
    RefundId, "rfd_");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_carry_their_prefix_and_parse_back() {
        let id = ApplicationId::generate(1_790_000_000_000, 42);
        assert!(id.as_str().starts_with("app_"));
        assert_eq!(id.as_str().len(), 4 + 26);
        assert_eq!(ApplicationId::parse(id.as_str()), Some(id.clone()));
        let later = ApplicationId::generate(1_790_000_000_001, 0);
        assert!(later > id, "ids sort by creation time");
    }

    #[test]
    fn an_id_of_another_kind_or_shape_does_not_parse() {
        let account = AccountId::generate(1_790_000_000_000, 7);
        assert_eq!(ApplicationId::parse(account.as_str()), None);
        for bad in [
            "app_",
            "app_01HZY5Q000000000000000000",   // 25 characters
            "app_01HZY5Q00000000000000000000", // 27
            "app_01HZY5Q0000000000000000O00",  // O is not Crockford
            "app_01hzy5q0000000000000000000",  // lower case is another spelling
            "APP_01HZY5Q0000000000000000000",
            "01HZY5Q0000000000000000000",
            "app_81HZY5Q0000000000000000000", // beyond 128 bits
        ] {
            assert_eq!(ApplicationId::parse(bad), None, "{bad}");
        }
        assert!(ApplicationId::parse("app_01HZY5Q0000000000000000000").is_some());
    }

    #[test]
    fn json_checks_the_prefix() {
        let id = PaymentId::generate(1_790_000_000_000, 9);
        let json = serde_json::to_string(&id).unwrap_or_default();
        assert_eq!(serde_json::from_str::<PaymentId>(&json).ok(), Some(id));
        assert!(serde_json::from_str::<ScheduleId>(&json).is_err());
    }

    #[test]
    fn every_prefix_is_the_seeds() {
        let prefixes = [
            ApplicationId::PREFIX,
            DecisionId::PREFIX,
            AccountId::PREFIX,
            PaymentId::PREFIX,
            ScheduleId::PREFIX,
            MandateId::PREFIX,
            LedgerEntryId::PREFIX,
            SubAccountId::PREFIX,
            IntroductionId::PREFIX,
            PayoutId::PREFIX,
            WebhookEndpointId::PREFIX,
            EventId::PREFIX,
            EnquiryId::PREFIX,
            SignalId::PREFIX,
            UserId::PREFIX,
        ];
        let seed = "app_ dec_ acc_ pay_ sch_ mnd_ txn_ sub_ intro_ po_ whe_ evt_ enq_ sig_ usr_";
        assert_eq!(prefixes.join(" "), seed);
    }
}
