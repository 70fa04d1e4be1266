//! Daily reconciliation (docs/guide/src/ledger.md): what the bank's statement of
//! one of the lender's accounts shows for a day, against what the ledger
//! posted to that account. Both sides key on the end-to-end id the money
//! travelled under; the ledger records it on every transfer a rail
//! carries (`Transfer::reference`). Pure: the flow brings both sides.

use serde::{Deserialize, Serialize};
use time::{Date, OffsetDateTime};

use super::chart::{LedgerAccount, Lender};
use super::transfer::{Phase, Side, Transfer};
use crate::money::Money;
use crate::partner::credentials::Environment;

// A day as people and statements write it, `2026-11-29`.
time::serde::format_description!(day, Date, "[year]-[month]-[day]");

/// One of the lender's accounts at its bank, and its ledger account.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BankAccount {
    /// Loans are paid out of it.
    Funding,
    /// Payers' collections are paid into it.
    Collections,
}

impl BankAccount {
    pub const ALL: [BankAccount; 2] = [BankAccount::Funding, BankAccount::Collections];

    pub fn ledger(self) -> LedgerAccount {
        LedgerAccount::Lender(match self {
            BankAccount::Funding => Lender::Funding,
            BankAccount::Collections => Lender::Collections,
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            BankAccount::Funding => "funding",
            BankAccount::Collections => "collections",
        }
    }

    pub fn parse(raw: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|a| a.as_str() == raw)
    }
}

/// A movement on the lender's account as the bank's statement shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BankMovement {
    /// The bank's own id for it.
    pub transaction_id: String,
    pub end_to_end_id: String,
    /// Into the account when positive.
    pub amount: Money,
    /// Only settled movements count; one in progress or rejected moved no
    /// money.
    pub settled: bool,
    pub at: OffsetDateTime,
}

/// What the ledger posted to the bank account under one end-to-end id:
/// into the account when positive (a debit of an asset).
pub fn posted(transfer: &Transfer, account: BankAccount) -> Option<Money> {
    if !matches!(transfer.phase(), Phase::Single | Phase::Post { .. }) {
        return None;
    }
    let ledger = account.ledger();
    let mut net = Money::ZERO;
    for p in transfer.postings().iter().filter(|p| p.account == ledger) {
        net = match p.side {
            Side::Debit => net.checked_add(p.amount)?,
            Side::Credit => net.checked_sub(p.amount)?,
        };
    }
    Some(net)
}

/// A difference between the bank and the ledger.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mismatch {
    /// The bank settled it and the ledger has not posted it (a lost
    /// callback, or money nobody told lendhub about).
    NotInLedger,
    /// The ledger posted it and the bank's statement does not show it.
    NotAtBank,
    /// Both show it, for different amounts.
    AmountsDiffer,
}

impl Mismatch {
    pub fn as_str(&self) -> &'static str {
        match self {
            Mismatch::NotInLedger => "not_in_ledger",
            Mismatch::NotAtBank => "not_at_bank",
            Mismatch::AmountsDiffer => "amounts_differ",
        }
    }
}

/// One end-to-end id's comparison.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    pub end_to_end_id: String,
    pub bank: Option<Money>,
    pub ledger: Option<Money>,
    pub mismatch: Mismatch,
}

/// `so_far` and `more`; a sum past `i64` pence (which no day's statement
/// comes near) pins at the limit, and so still differs from the other side.
fn plus(so_far: Option<Money>, more: Money) -> Money {
    let so_far = so_far.unwrap_or(Money::ZERO);
    so_far
        .checked_add(more)
        .unwrap_or(Money::pence(if more > Money::ZERO {
            i64::MAX
        } else {
            i64::MIN
        }))
}

/// Each end-to-end id either side shows, compared: what the bank settled
/// (`bank`) against what the ledger posted (`ledger`, summed per id, so a
/// movement and its return net out). Matched ids make no finding.
pub fn compare(bank: &[BankMovement], ledger: &[(String, Money)]) -> Vec<Finding> {
    use std::collections::BTreeMap;
    let mut sides: BTreeMap<&str, (Option<Money>, Option<Money>)> = BTreeMap::new();
    for m in bank.iter().filter(|m| m.settled) {
        let entry = sides.entry(&m.end_to_end_id).or_default();
        entry.0 = Some(plus(entry.0, m.amount));
    }
    for (id, amount) in ledger {
        let entry = sides.entry(id).or_default();
        entry.1 = Some(plus(entry.1, *amount));
    }
    sides
        .into_iter()
        .filter_map(|(id, (bank, ledger))| {
            let mismatch = match (bank, ledger) {
                (Some(b), Some(l)) if b == l => return None,
                (Some(_), Some(_)) => Mismatch::AmountsDiffer,
                (Some(_), None) => Mismatch::NotInLedger,
                (None, Some(l)) if l == Money::ZERO => return None,
                (None, Some(_)) => Mismatch::NotAtBank,
                (None, None) => return None,
            };
            Some(Finding {
                end_to_end_id: id.to_owned(),
                bank,
                ledger,
                mismatch,
            })
        })
        .collect()
}

/// A mismatch as kept and listed: the day and account it was found on,
/// and what became of it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Item {
    /// `{date}.{environment}.{account}.{end-to-end id}`: one item per
    /// mismatch, however often the day is reconciled.
    pub id: String,
    #[serde(with = "day")]
    pub date: Date,
    pub environment: Environment,
    pub account: BankAccount,
    pub end_to_end_id: String,
    pub mismatch: Mismatch,
    pub bank_amount: Option<Money>,
    pub ledger_amount: Option<Money>,
    pub resolution: Resolution,
    #[serde(with = "time::serde::rfc3339")]
    pub found_at: OffsetDateTime,
}

/// What reconciliation did about an item.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "resolution", rename_all = "snake_case")]
pub enum Resolution {
    /// It found the payment the bank settled and posted it (a lost
    /// callback): the ledger now agrees.
    Posted { what: String },
    /// Money nobody claimed, held in suspense until someone finds whose.
    Suspense { transfer_id: String },
    /// Left for a person: the ledger and the bank disagree.
    Open,
}

impl Resolution {
    pub fn as_str(&self) -> &'static str {
        match self {
            Resolution::Posted { .. } => "posted",
            Resolution::Suspense { .. } => "suspense",
            Resolution::Open => "open",
        }
    }
}

impl Item {
    pub fn new(
        (date, environment, account): (Date, Environment, BankAccount),
        finding: &Finding,
        resolution: Resolution,
        found_at: OffsetDateTime,
    ) -> Self {
        Self {
            id: format!(
                "{date}.{}.{}.{}",
                environment.as_str(),
                account.as_str(),
                finding.end_to_end_id
            ),
            date,
            environment,
            account,
            end_to_end_id: finding.end_to_end_id.clone(),
            mismatch: finding.mismatch.clone(),
            bank_amount: finding.bank,
            ledger_amount: finding.ledger,
            resolution,
            found_at,
        }
    }
}

/// One bank account of one environment, compared for a day.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AccountReport {
    pub environment: Environment,
    pub account: BankAccount,
    /// Whether lendhub is configured to read this account's statement.
    pub read: bool,
    /// Settled movements on the bank's statement for the day.
    pub bank_movements: usize,
    /// Movements the ledger posted to the account that day.
    pub ledger_movements: usize,
    pub items: Vec<Item>,
}

/// A day's reconciliation: each bank account of each environment.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Report {
    #[serde(with = "day")]
    pub date: Date,
    pub accounts: Vec<AccountReport>,
    #[serde(with = "time::serde::rfc3339")]
    pub ran_at: OffsetDateTime,
}

impl Report {
    /// Items left for a person.
    pub fn open_items(&self) -> usize {
        self.accounts
            .iter()
            .flat_map(|a| &a.items)
            .filter(|i| i.resolution == Resolution::Open)
            .count()
    }
}

#[cfg(test)]
mod tests {
    use time::macros::datetime;

    use super::*;
    use crate::ledger::movements;

    const AT: OffsetDateTime = datetime!(2026-11-30 12:00 UTC);

    fn bank(id: &str, pence: i64, settled: bool) -> BankMovement {
        BankMovement {
            transaction_id: format!("t-{id}"),
            end_to_end_id: id.to_owned(),
            amount: Money::pence(pence),
            settled,
            at: AT,
        }
    }

    #[test]
    fn matched_movements_make_no_finding_and_each_side_alone_does() {
        let ledger = vec![
            ("a".to_owned(), Money::pence(100)),
            ("c".to_owned(), Money::pence(300)),
            ("d".to_owned(), Money::pence(400)),
        ];
        let found = compare(
            &[
                bank("a", 100, true),
                bank("b", 200, true),
                bank("d", 450, true),
                bank("e", 500, false),
            ],
            &ledger,
        );
        let kinds: Vec<_> = found
            .iter()
            .map(|f| (f.end_to_end_id.as_str(), f.mismatch.clone()))
            .collect();
        assert_eq!(
            kinds,
            vec![
                ("b", Mismatch::NotInLedger),
                ("c", Mismatch::NotAtBank),
                ("d", Mismatch::AmountsDiffer),
            ]
        );
    }

    #[test]
    fn what_the_ledger_posted_to_the_bank_account_is_signed_as_money_in() {
        let loan = <crate::ids::AccountId as crate::ids::HubId>::generate(1, 1);
        let drawdown = movements::drawdown("dsb_1", &loan, Money::pence(500), AT).unwrap();
        assert_eq!(posted(&drawdown, BankAccount::Funding), None, "pending");
        let settled = drawdown.post("dsb_1.settled", AT).unwrap();
        assert_eq!(
            posted(&settled, BankAccount::Funding),
            Some(Money::pence(-500))
        );
        assert_eq!(
            posted(&settled, BankAccount::Collections),
            Some(Money::ZERO)
        );
    }
}
