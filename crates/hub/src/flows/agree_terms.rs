//! Agreeing a partner's terms from a month on (`lendhub billing terms
//! set`): refused without the notice a price rise needs
//! (`lendhub_domain::billing::statement::agreement`), and announced in writing to
//! the partner's contact address in the same commit as the agreement, so
//! neither exists without the other.

use lendhub_domain::billing::economics::FeeTier;
use lendhub_domain::billing::statement::agreement::{self, Agreement, TooSoon};
use lendhub_domain::billing::statement::{Period, STRATEGIC_MIN_BPS, Terms};
use lendhub_domain::clock::unix_ms;
use lendhub_domain::money::Money;
use lendhub_domain::public::quote::gbp;

use lendhub_store::{
    CommercialStore, CommercialWrite, CommitError, PublicWrite, StoreError, UnitOfWork, WriteSet,
};
use time::OffsetDateTime;

#[derive(Debug, thiserror::Error)]
pub enum AgreeError {
    #[error(
        "a price rise needs 60 days' notice: agreed today, it may take effect from {} at the earliest",
        .0.earliest.first_day()
    )]
    TooSoon(TooSoon),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("the agreement was not recorded: {0}")]
    Commit(String),
}

/// What was agreed, and what it replaces from its first month.
#[derive(Debug)]
pub struct Agreed {
    pub agreement: Agreement,
    pub replaces: Terms,
    pub rise: bool,
}

/// Agrees `terms` for the partner `client_id` from `effective_from` (the
/// earliest month allowed when `None`), on `now`'s calendar.
pub async fn agree(
    commercial: &dyn CommercialStore,
    units: &dyn UnitOfWork,
    client_id: &str,
    terms: Terms,
    effective_from: Option<Period>,
    now: OffsetDateTime,
) -> Result<Agreed, AgreeError> {
    let today = now.date();
    let agreements = commercial.partner_agreements(client_id).await?;
    let effective_from =
        effective_from.unwrap_or_else(|| agreement::earliest(&agreements, &terms, today));
    let change = Agreement {
        effective_from,
        terms,
    };
    agreement::check(&agreements, &change, today).map_err(AgreeError::TooSoon)?;
    let replaces = agreement::in_effect(&agreements, effective_from);
    let rise = change.terms.dearer_than(&replaces);
    let at_ms = unix_ms(now);
    let mut writes = WriteSet::default();
    writes
        .push(CommercialWrite::AgreeTerms {
            client_id: client_id.to_owned(),
            agreement: change.clone(),
            agreed_at_ms: at_ms,
        })
        .push(notice(client_id, &change, &replaces, rise, at_ms));
    units.commit(writes).await.map_err(|e| match e {
        CommitError::Conflict => AgreeError::Commit("another change was made at once".into()),
        e => AgreeError::Commit(e.to_string()),
    })?;
    Ok(Agreed {
        agreement: change,
        replaces,
        rise,
    })
}

/// The written notice: both sets of terms, the month the change rates
/// from, and whether it is a rise.
fn notice(
    client_id: &str,
    change: &Agreement,
    replaces: &Terms,
    rise: bool,
    at_ms: i64,
) -> PublicWrite {
    let from = change.effective_from.first_day();
    let from = lendhub_domain::people::date(from);
    let kind = if rise {
        "This change raises your price. Your partner agreement gives you 60 days' written \
         notice of a price rise; this is that notice."
    } else {
        "This change does not raise your price."
    };
    PublicWrite::MailPartner {
        id: format!("mail_terms_{client_id}_{}_{at_ms}", change.effective_from),
        client_id: client_id.to_owned(),
        subject: format!("Your lendhub terms from {from}"),
        body: format!(
            "Your commercial terms with lendhub change from {from}.\n\n\
             Until then: {before}\nFrom {from}: {after}\n\n{kind}\n\n\
             Statements are rated month by month under the terms in effect on each month's \
             first day: months before {from} are not re-rated, and a finalized statement \
             never changes.\n",
            before = describe(replaces),
            after = describe(&change.terms),
        ),
        due_ms: at_ms,
    }
}

/// Terms in words, as the seed's commercial model names them.
fn describe(terms: &Terms) -> String {
    match terms {
        Terms::IntegrationFee { custom_fee_pence } => format!(
            "the integration fee per funded origination, by trailing 30-day volume: \
             GBP 45 up to 500k, GBP 32 to 2m, GBP 24 to 10m, GBP {} above 10m.",
            gbp(FeeTier::Above10m
                .fee(custom_fee_pence.map(Money::pence))
                .as_pence())
        ),
        Terms::RevenueShare {
            strategic_share_bps,
        } => format!(
            "the revenue share of net margin: 10% (Referral), 18% (Embedded), {}% (Strategic).",
            percent(*strategic_share_bps.max(&STRATEGIC_MIN_BPS))
        ),
    }
}

fn percent(bps: u32) -> String {
    if bps.is_multiple_of(100) {
        (bps / 100).to_string()
    } else {
        format!("{}.{:02}", bps / 100, bps % 100)
            .trim_end_matches('0')
            .to_owned()
    }
}
