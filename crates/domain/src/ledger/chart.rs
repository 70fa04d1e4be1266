//! The chart of accounts: every place money can be recorded, for the
//! lender's books and per loan. A ledger account is named by a stable
//! string (`lender:funding`, `loan:acc_…:principal`) that storage keys on
//! and an operator reads in a trial balance.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::ids::{AccountId, HubId};

/// Which side of the books increases an account's balance.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Normal {
    Debit,
    Credit,
}

/// The lender's own accounts, one of each.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Lender {
    /// The bank account loans are paid out of (asset).
    Funding,
    /// The bank account collections are paid into (asset).
    Collections,
    /// Money received into the bank that nothing matched yet, held until
    /// the reconciliation finds whose it is (liability-like clearing).
    Suspense,
    /// Interest earned (income).
    InterestIncome,
    /// Fees earned (income).
    FeeIncome,
    /// Revenue share owed to partners until paid out (liability).
    RevenueSharePayable,
    /// Revenue share as a cost of the loans (expense).
    RevenueShareExpense,
    /// Principal and interest given up as unrecoverable (expense).
    WriteOffs,
    /// What the lender put in to fund the book (equity).
    Capital,
}

/// A loan's own accounts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Loan {
    /// Principal the borrower owes (asset).
    Principal,
    /// Interest accrued and not yet paid (asset).
    Interest,
    /// Fees charged and not yet paid (asset).
    Fees,
    /// Money the borrower paid beyond what they owed: the lender holds it
    /// for them, to refund or to set against what falls due (liability).
    Credit,
}

/// One ledger account.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LedgerAccount {
    Lender(Lender),
    Loan(AccountId, Loan),
}

impl Lender {
    pub const ALL: [Lender; 9] = [
        Lender::Funding,
        Lender::Collections,
        Lender::Suspense,
        Lender::InterestIncome,
        Lender::FeeIncome,
        Lender::RevenueSharePayable,
        Lender::RevenueShareExpense,
        Lender::WriteOffs,
        Lender::Capital,
    ];

    fn name(self) -> &'static str {
        match self {
            Lender::Funding => "funding",
            Lender::Collections => "collections",
            Lender::Suspense => "suspense",
            Lender::InterestIncome => "interest_income",
            Lender::FeeIncome => "fee_income",
            Lender::RevenueSharePayable => "revenue_share_payable",
            Lender::RevenueShareExpense => "revenue_share_expense",
            Lender::WriteOffs => "write_offs",
            Lender::Capital => "capital",
        }
    }

    fn normal(self) -> Normal {
        match self {
            Lender::Funding
            | Lender::Collections
            | Lender::RevenueShareExpense
            | Lender::WriteOffs => Normal::Debit,
            Lender::Suspense
            | Lender::InterestIncome
            | Lender::FeeIncome
            | Lender::RevenueSharePayable
            | Lender::Capital => Normal::Credit,
        }
    }
}

impl Loan {
    pub const ALL: [Loan; 4] = [Loan::Principal, Loan::Interest, Loan::Fees, Loan::Credit];

    fn name(self) -> &'static str {
        match self {
            Loan::Principal => "principal",
            Loan::Interest => "interest",
            Loan::Fees => "fees",
            Loan::Credit => "credit",
        }
    }

    fn normal(self) -> Normal {
        match self {
            Loan::Principal | Loan::Interest | Loan::Fees => Normal::Debit,
            Loan::Credit => Normal::Credit,
        }
    }
}

impl LedgerAccount {
    pub fn normal(&self) -> Normal {
        match self {
            LedgerAccount::Lender(l) => l.normal(),
            LedgerAccount::Loan(_, l) => l.normal(),
        }
    }

    /// The loan this account belongs to, if it is a loan's.
    pub fn loan(&self) -> Option<&AccountId> {
        match self {
            LedgerAccount::Loan(id, _) => Some(id),
            LedgerAccount::Lender(_) => None,
        }
    }

    /// The name a trial balance shows and storage keys on.
    pub fn parse(name: &str) -> Option<Self> {
        if let Some(lender) = name.strip_prefix("lender:") {
            return Lender::ALL
                .into_iter()
                .find(|l| l.name() == lender)
                .map(LedgerAccount::Lender);
        }
        let rest = name.strip_prefix("loan:")?;
        let (id, part) = rest.rsplit_once(':')?;
        let id = AccountId::parse(id)?;
        let part = Loan::ALL.into_iter().find(|l| l.name() == part)?;
        Some(LedgerAccount::Loan(id, part))
    }
}

impl fmt::Display for LedgerAccount {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LedgerAccount::Lender(l) => write!(f, "lender:{}", l.name()),
            LedgerAccount::Loan(id, l) => write!(f, "loan:{id}:{}", l.name()),
        }
    }
}

impl Serialize for LedgerAccount {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for LedgerAccount {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = String::deserialize(d)?;
        LedgerAccount::parse(&name)
            .ok_or_else(|| serde::de::Error::custom(format!("{name} is no ledger account")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_account_is_read_back_from_its_name() {
        let loan = AccountId::generate(1, 1);
        let all = Lender::ALL
            .into_iter()
            .map(LedgerAccount::Lender)
            .chain(Loan::ALL.map(|l| LedgerAccount::Loan(loan.clone(), l)));
        for account in all {
            let name = account.to_string();
            assert_eq!(LedgerAccount::parse(&name), Some(account.clone()), "{name}");
        }
        assert_eq!(LedgerAccount::parse("lender:nowhere"), None);
        assert_eq!(LedgerAccount::parse("loan:acc_x:principal"), None);
    }
}
