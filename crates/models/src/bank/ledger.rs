//! What a test account's books show: its details, its balance and a year
//! (or less) of transactions whose monthly totals are the account's cash
//! flow exactly, so what lendhub derives from them is what
//! `lendhub_domain::open_banking::test_accounts` documents.

use lendhub_domain::open_banking::ais::{
    Account, Balance, Identification, SORT_CODE_ACCOUNT_NUMBER, Transaction,
};
use lendhub_domain::open_banking::amount::Amount;
use lendhub_domain::open_banking::test_accounts::TestAccount;
use time::{Date, Month, OffsetDateTime, Time};

/// The account's id at the bank: its key, which the consent names.
pub(super) fn account(a: &TestAccount) -> Account {
    Account {
        account_id: a.key.to_owned(),
        status: Some("Enabled".to_owned()),
        currency: Some("GBP".to_owned()),
        account_type: Some("Business".to_owned()),
        account_sub_type: Some("CurrentAccount".to_owned()),
        nickname: Some(a.name.to_owned()),
        identifications: vec![Identification {
            scheme_name: SORT_CODE_ACCOUNT_NUMBER.to_owned(),
            identification: a.sort_code_account_number.to_owned(),
            name: Some("Test Trading Ltd".to_owned()),
        }],
    }
}

/// Credits and debits per month, and the days of the month they fall on.
const CREDIT_DAYS: [u8; 4] = [3, 10, 17, 24];
const DEBIT_DAYS: [u8; 6] = [2, 6, 12, 16, 22, 26];

/// `total` in `parts` shares, the first taking the remainder.
fn shares(total: i64, parts: usize) -> impl Iterator<Item = i64> {
    let n = parts as i64;
    let share = total / n;
    (0..parts).map(move |i| {
        if i == 0 {
            total - share * (n - 1)
        } else {
            share
        }
    })
}

/// The first day of the month `back` months before `date`'s.
fn month_before(date: Date, back: u32) -> Date {
    let index = date.year() * 12 + i32::from(u8::from(date.month())) - 1 - back as i32;
    let month = Month::try_from((index.rem_euclid(12) + 1) as u8).unwrap_or(Month::January);
    Date::from_calendar_date(index.div_euclid(12), month, 1).unwrap_or(date)
}

/// The account's transactions in the whole months before `now`, newest
/// first, as the standard lists them.
pub(super) fn transactions(a: &TestAccount, now: OffsetDateTime) -> Vec<Transaction> {
    let mut all = Vec::new();
    for back in 1..=a.banking.months {
        let first = month_before(now.date(), back);
        let on = |day: u8| {
            first
                .replace_day(day)
                .unwrap_or(first)
                .with_time(Time::from_hms(10, 0, 0).unwrap_or(Time::MIDNIGHT))
                .assume_utc()
        };
        let month = format!("{}{:02}", first.year(), u8::from(first.month()));
        let credits = shares(a.banking.average_monthly_inflow_pence, CREDIT_DAYS.len())
            .zip(CREDIT_DAYS)
            .map(|(pence, day)| (true, pence, day));
        let debits = shares(a.banking.average_monthly_outflow_pence, DEBIT_DAYS.len())
            .zip(DEBIT_DAYS)
            .map(|(pence, day)| (false, pence, day));
        for (i, (credit, pence, day)) in credits.chain(debits).enumerate() {
            all.push(Transaction {
                account_id: a.key.to_owned(),
                transaction_id: Some(format!("{}-{month}-{i:02}", a.key)),
                credit_debit: if credit { "Credit" } else { "Debit" }.to_owned(),
                status: "Booked".to_owned(),
                booked: on(day),
                information: Some(
                    if credit {
                        "Customer receipts"
                    } else {
                        "Supplier payment"
                    }
                    .to_owned(),
                ),
                amount: Amount::gbp(pence.unsigned_abs()),
                code: None,
            });
        }
    }
    all.sort_by_key(|t| std::cmp::Reverse(t.booked));
    all
}

/// The account's available balance: what its months of transactions left
/// on top of an opening month's outflow, so that walked back through them
/// it never ends a day overdrawn (as its `days_overdrawn` of 0 says).
pub(super) fn balance(a: &TestAccount, now: OffsetDateTime) -> Balance {
    let b = &a.banking;
    let net = b.average_monthly_outflow_pence
        + (b.average_monthly_inflow_pence - b.average_monthly_outflow_pence) * i64::from(b.months);
    Balance {
        account_id: a.key.to_owned(),
        credit_debit: if net >= 0 { "Credit" } else { "Debit" }.to_owned(),
        kind: "InterimAvailable".to_owned(),
        at: now,
        amount: Amount::gbp(net.unsigned_abs()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lendhub_domain::open_banking::ais::cash_flow;
    use lendhub_domain::open_banking::test_accounts::TEST_ACCOUNTS;
    use time::macros::datetime;

    #[test]
    fn each_test_accounts_transactions_show_its_documented_cash_flow() {
        let now = datetime!(2026-03-15 12:00 UTC);
        for a in &TEST_ACCOUNTS {
            let held = balance(a, now);
            let pence = held.amount.pence().unwrap();
            let signed = if held.credit_debit == "Debit" {
                -pence
            } else {
                pence
            };
            assert_eq!(
                cash_flow(&transactions(a, now), Some(signed)),
                Ok(a.banking),
                "{}",
                a.key
            );
        }
    }

    #[test]
    fn months_count_back_across_years() {
        let d = time::macros::date!(2026 - 02 - 20);
        assert_eq!(month_before(d, 1), time::macros::date!(2026 - 01 - 01));
        assert_eq!(month_before(d, 2), time::macros::date!(2025 - 12 - 01));
        assert_eq!(month_before(d, 14), time::macros::date!(2024 - 12 - 01));
    }
}
