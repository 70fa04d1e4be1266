//! VRP consents a payer authorised before the bank started, written into
//! its books file: a load test of the scheduler needs ten thousand
//! mandates the bank already holds, and walking ten thousand payers
//! through the consent page would measure the page, not the scheduler.
//! Each consent is what lendhub's own request would have made (its
//! collection account, the mandate's reference, the schedule's limits),
//! authorised from the `strong` test account, with the tokens the code
//! exchange would have issued.

use std::path::Path;

use lendhub_domain::money::Money;
use lendhub_domain::open_banking::ais::{Identification, SORT_CODE_ACCOUNT_NUMBER};
use lendhub_domain::open_banking::amount::Amount;
use lendhub_domain::open_banking::pis::{MAX_REFERENCE, RemittanceInformation};
use lendhub_domain::open_banking::vrp::{
    Consent as ConsentData, ConsentStatus, ControlParameters, Initiation, PeriodAlignment,
    PeriodType, PeriodicLimit, SCA_NOT_REQUIRED, VRP_TYPE_OTHER,
};
use time::OffsetDateTime;

use super::oidc::Grant;
use super::vrp::VrpConsent;
use super::{AccountKey, kept};

/// The account payments to the embedded model bank go to, as lendhub
/// names it: the payee's name, and sort code followed by account number.
pub const COLLECTION_ACCOUNT: (&str, &str) = ("Lendhub Collections (model)", "60161331926819");

/// A mandate's terms, as lendhub asks for them.
pub struct StandingTerms {
    pub reference: String,
    pub most_per_payment: Money,
    pub most_per_period: Money,
    pub period: PeriodType,
}

/// The consent made for one [`StandingTerms`], and the payer's tokens for
/// it.
pub struct Standing {
    pub consent_id: String,
    pub access_token: String,
    pub refresh_token: String,
    pub access_expires_at: OffsetDateTime,
}

/// Adds an authorised VRP consent per `terms` to the books in `file` (or
/// to new books), as of `now`, and writes them back.
pub fn authorise(
    file: &Path,
    terms: &[StandingTerms],
    now: OffsetDateTime,
) -> std::io::Result<Vec<Standing>> {
    let mut books = kept::load(file)?;
    let amount = |m: Money| {
        Amount::of(m).ok_or_else(|| {
            std::io::Error::new(std::io::ErrorKind::InvalidInput, format!("{m}: no amount"))
        })
    };
    let expires = now + super::oidc::TOKEN_LIFE;
    let mut made = Vec::with_capacity(terms.len());
    for t in terms {
        let consent_id = format!("vrp-{}", lendhub_system::random_token(12));
        let data = ConsentData {
            consent_id: consent_id.clone(),
            status: ConsentStatus::Authorised,
            created: now,
            status_updated: now,
            control_parameters: ControlParameters {
                valid_from: None,
                valid_to: None,
                maximum_individual_amount: amount(t.most_per_payment)?,
                periodic_limits: vec![PeriodicLimit {
                    period_type: t.period,
                    period_alignment: PeriodAlignment::Consent,
                    amount: amount(t.most_per_period)?,
                }],
                vrp_type: vec![VRP_TYPE_OTHER.to_owned()],
                psu_authentication_methods: vec![SCA_NOT_REQUIRED.to_owned()],
            },
            initiation: Initiation {
                creditor_account: Identification {
                    scheme_name: SORT_CODE_ACCOUNT_NUMBER.to_owned(),
                    identification: COLLECTION_ACCOUNT.1.to_owned(),
                    name: Some(COLLECTION_ACCOUNT.0.to_owned()),
                },
                remittance_information: Some(RemittanceInformation {
                    reference: Some(t.reference.chars().take(MAX_REFERENCE).collect()),
                    unstructured: None,
                }),
            },
            read_refund_account: Some(
                lendhub_domain::open_banking::pis::READ_REFUND_ACCOUNT.to_owned(),
            ),
        };
        books.vrp_consents.insert(
            consent_id.clone(),
            VrpConsent {
                data,
                account: Some(AccountKey("strong")),
                revoked: false,
            },
        );
        let access_token = lendhub_system::random_token(32);
        let refresh_token = lendhub_system::random_token(32);
        books.tokens.insert(
            access_token.clone(),
            Grant::Consent {
                consent_id: consent_id.clone(),
                expires,
            },
        );
        books
            .refresh_tokens
            .insert(refresh_token.clone(), consent_id.clone());
        made.push(Standing {
            consent_id,
            access_token,
            refresh_token,
            access_expires_at: expires,
        });
    }
    let books = parking_lot::Mutex::new(books);
    kept::write(file, &books)?;
    Ok(made)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_consents_written_are_read_back_authorised_with_their_tokens() {
        let dir = std::env::temp_dir().join(format!(
            "lendhub-standing-{}",
            lendhub_system::random_token(8)
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("model-bank.json");
        let now = OffsetDateTime::now_utc();
        let made = authorise(
            &file,
            &[StandingTerms {
                reference: "a reference longer than eighteen".to_owned(),
                most_per_payment: Money::pence(10_000),
                most_per_period: Money::pence(20_000),
                period: PeriodType::Month,
            }],
            now,
        )
        .unwrap();
        let books = kept::load(&file).unwrap();
        let consent = &books.vrp_consents[&made[0].consent_id];
        assert_eq!(consent.data.status, ConsentStatus::Authorised);
        assert_eq!(consent.account, Some(AccountKey("strong")));
        let reference = consent.data.initiation.remittance_information.as_ref();
        assert_eq!(
            reference.and_then(|r| r.reference.as_deref()),
            Some("a reference longer")
        );
        assert!(books.tokens.contains_key(&made[0].access_token));
        assert_eq!(
            books.refresh_tokens.get(&made[0].refresh_token),
            Some(&made[0].consent_id)
        );
        std::fs::remove_dir_all(dir).unwrap();
    }
}
