//! The documents an applicant agrees to (issue #51 item 1), as figures:
//! who the parties are, what is lent and how it is repaid. The wording is
//! a versioned template outside the core; what is signed is the template's
//! name and version, these figures, and the text they rendered, kept
//! unchanged for ever.

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use crate::lending::application::{Application, Decision};
use crate::loan;
use crate::money::Money;

/// Who lends, as the documents and every page's footer name it
/// (`[lender]` in the configuration).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lender {
    pub legal_name: String,
    pub address: String,
    /// "Registered in England and Wales, company number …".
    pub registration: String,
    /// Where a complaint goes: an e-mail address.
    pub complaints: String,
}

impl Default for Lender {
    /// An evidently made-up lender: a deployment names its own.
    fn default() -> Self {
        Self {
            legal_name: "Example Lender Ltd".into(),
            address: "1 Example Street, London EC1A 1AA".into(),
            registration: "Registered in England and Wales, company number 00000000".into(),
            complaints: "complaints@lender.example".into(),
        }
    }
}

/// One instalment of the repayment schedule, as the agreement lists it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Instalment {
    pub number: u32,
    pub amount: Money,
    pub interest: Money,
    pub principal: Money,
    /// What remains of the principal once it is paid.
    pub balance: Money,
}

/// Everything a loan agreement states that is not its wording.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Figures {
    pub lender: Lender,
    pub borrower_name: String,
    pub borrower_number: String,
    /// Who signs for the borrower, once signed.
    pub signer: Option<String>,
    pub application_id: String,
    pub decision_id: String,
    pub reference: Option<String>,
    pub amount: Money,
    pub term_months: u32,
    /// Nominal annual rate in basis points.
    pub annual_rate_bps: u32,
    /// Representative APR, percent to one place.
    pub apr: f64,
    pub monthly: Money,
    pub total_repayable: Money,
    pub total_interest: Money,
    pub schedule: Vec<Instalment>,
}

impl Figures {
    /// The figures of `decision`'s offer to `application`'s company; `None`
    /// if the decision offers nothing.
    pub fn of(
        lender: &Lender,
        application: &Application,
        decision: &Decision,
        signer: Option<&str>,
    ) -> Option<Figures> {
        let offer = decision.verdict.offer.as_ref()?;
        let principal = offer.amount_pence.as_pence();
        let schedule = instalments(principal, offer.annual_rate_bps, offer.term_months)?;
        Some(Figures {
            lender: lender.clone(),
            borrower_name: application.company_name.clone(),
            borrower_number: application.company_number.clone(),
            signer: signer.map(str::to_owned),
            application_id: application.id.to_string(),
            decision_id: decision.id.to_string(),
            reference: application.reference.clone(),
            amount: offer.amount_pence,
            term_months: offer.term_months,
            annual_rate_bps: offer.annual_rate_bps,
            apr: offer.apr,
            monthly: offer.monthly_repayment_pence,
            total_repayable: offer.total_repayable_pence,
            total_interest: offer
                .total_repayable_pence
                .checked_sub(offer.amount_pence)?,
            schedule,
        })
    }

    /// The nominal rate as the agreement writes it: "9.90".
    pub fn rate_percent(&self) -> String {
        format!(
            "{}.{:02}",
            self.annual_rate_bps / 100,
            self.annual_rate_bps % 100
        )
    }
}

/// The loan's schedule (`loan::schedule`) split into interest and
/// principal, month by month, as the servicing ledger charges them.
fn instalments(principal: i64, annual_rate_bps: u32, term_months: u32) -> Option<Vec<Instalment>> {
    let mut balance = principal;
    let mut out = Vec::new();
    for (k, due) in loan::schedule(principal, annual_rate_bps, term_months)
        .into_iter()
        .enumerate()
    {
        let interest = loan::monthly_interest_pence(balance, annual_rate_bps)?;
        let repaid = due.checked_sub(interest)?;
        balance = balance.checked_sub(repaid)?;
        out.push(Instalment {
            number: u32::try_from(k + 1).ok()?,
            amount: Money::pence(due),
            interest: Money::pence(interest),
            principal: Money::pence(repaid),
            balance: Money::pence(balance),
        });
    }
    Some(out)
}

/// A signed agreement, kept as signed: the text the template rendered
/// from the figures, its SHA-256, and who signed it, when and from where.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Signed {
    /// `agr_…`: the `agreement.signed` event's object id.
    pub id: String,
    pub application_id: String,
    pub decision_id: String,
    /// The template, `name/version` (`loan-agreement/1`).
    pub template: String,
    pub figures: Figures,
    /// The rendered text, byte for byte.
    pub content: String,
    /// SHA-256 of `content`, lowercase hex.
    pub content_sha256: String,
    pub signed_by: String,
    #[serde(with = "time::serde::rfc3339")]
    pub signed_at: OffsetDateTime,
    /// The address the signature came from, as the service saw it.
    pub ip_address: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::instalments;

    /// The agreement's schedule repays exactly the principal, and its
    /// instalments add up to the offer's total repayable.
    #[test]
    fn the_schedule_repays_the_principal_to_the_penny() {
        for (principal, bps, term) in [(1_000_000, 990, 24), (2_500_000, 1_450, 36), (77_777, 0, 7)]
        {
            let rows = instalments(principal, bps, term).unwrap();
            assert_eq!(rows.len(), term as usize);
            let repaid: i64 = rows.iter().map(|r| r.principal.as_pence()).sum();
            let paid: i64 = rows.iter().map(|r| r.amount.as_pence()).sum();
            let offer = crate::loan::offer(principal, bps, term);
            assert_eq!(repaid, principal);
            assert_eq!(paid, offer.total_repayable_pence.as_pence());
            assert_eq!(rows.last().unwrap().balance.as_pence(), 0);
            assert!(rows.iter().all(|r| r.interest.as_pence() >= 0));
        }
    }
}
