//! The model bank's test accounts (`docs/guide/src/simulators.md`): what a test
//! payer may share on the model bank's consent page, each with the cash
//! flow its transactions show. They are the test banks of earlier
//! releases, now accounts at one bank read over the standard.

use crate::lending::underwriting::Banking;

/// A test account: its key (the consent page's choice), the name shown,
/// its sort code and account number, and its cash flow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TestAccount {
    pub key: &'static str,
    pub name: &'static str,
    pub sort_code_account_number: &'static str,
    pub banking: Banking,
}

/// The account the payout rail answers `account_closed` for: a test
/// account that was closed after it was connected.
pub const CLOSED: &str = "04000499999997";

pub const TEST_ACCOUNTS: [TestAccount; 4] = [
    TestAccount {
        key: "strong",
        name: "Trading account – strong affordability",
        sort_code_account_number: "04000410000010",
        banking: Banking::steady(12, 8_000_000, 5_000_000),
    },
    TestAccount {
        key: "low",
        name: "Trading account – low affordability",
        sort_code_account_number: "04000410000002",
        banking: Banking::steady(12, 2_000_000, 1_950_000),
    },
    TestAccount {
        key: "thin",
        name: "New account – two months of history",
        sort_code_account_number: "04000410000036",
        banking: Banking::steady(2, 3_000_000, 2_000_000),
    },
    TestAccount {
        key: "closed",
        name: "Trading account – since closed",
        sort_code_account_number: CLOSED,
        banking: Banking::steady(12, 8_000_000, 5_000_000),
    },
];

pub fn find(key: &str) -> Option<&'static TestAccount> {
    TEST_ACCOUNTS.iter().find(|a| a.key == key)
}
