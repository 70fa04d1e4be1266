//! Account and Transaction API (AIS): the account-access consent lendhub
//! asks for, and the accounts, balances and transactions it reads, as far
//! as it reads them; members lendhub does not read are ignored. From the
//! transactions comes the cash flow the decision engine reads
//! ([`cash_flow`]).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use super::amount::Amount;
use crate::lending::underwriting::Banking;

/// What lendhub asks to read: the account's details (for the payout), its
/// balances and its transactions in detail.
pub const PERMISSIONS: [&str; 3] = [
    "ReadAccountsDetail",
    "ReadBalances",
    "ReadTransactionsDetail",
];

/// `OBReadConsent1`: `POST /account-access-consents`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConsentRequest {
    #[serde(rename = "Data")]
    pub data: ConsentRequestData,
    /// `OBRisk2`: nothing lendhub states.
    #[serde(rename = "Risk")]
    pub risk: serde_json::Map<String, serde_json::Value>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConsentRequestData {
    #[serde(rename = "Permissions")]
    pub permissions: Vec<String>,
    #[serde(rename = "ExpirationDateTime", with = "time::serde::rfc3339")]
    pub expiration: OffsetDateTime,
}

impl ConsentRequest {
    /// lendhub's consent, expiring at `expires`.
    pub fn new(expires: OffsetDateTime) -> Self {
        Self {
            data: ConsentRequestData {
                permissions: PERMISSIONS.iter().map(|p| (*p).to_owned()).collect(),
                expiration: expires,
            },
            risk: serde_json::Map::new(),
        }
    }
}

/// `OBReadConsentResponse1`'s `Data`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Consent {
    #[serde(rename = "ConsentId")]
    pub consent_id: String,
    #[serde(rename = "Status")]
    pub status: String,
    #[serde(rename = "CreationDateTime", with = "time::serde::rfc3339")]
    pub created: OffsetDateTime,
    #[serde(rename = "StatusUpdateDateTime", with = "time::serde::rfc3339")]
    pub status_updated: OffsetDateTime,
    #[serde(rename = "Permissions")]
    pub permissions: Vec<String>,
    #[serde(
        rename = "ExpirationDateTime",
        with = "time::serde::rfc3339::option",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub expiration: Option<OffsetDateTime>,
}

/// A response document: `Data`, `Links` and `Meta`, as every AIS
/// resource answers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Document<D> {
    #[serde(rename = "Data")]
    pub data: D,
    #[serde(rename = "Risk", default, skip_serializing_if = "Option::is_none")]
    pub risk: Option<serde_json::Map<String, serde_json::Value>>,
    #[serde(rename = "Links", default, skip_serializing_if = "Option::is_none")]
    pub links: Option<Links>,
    #[serde(rename = "Meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Links {
    #[serde(rename = "Self")]
    pub this: String,
    #[serde(rename = "Next", default, skip_serializing_if = "Option::is_none")]
    pub next: Option<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Meta {
    #[serde(
        rename = "TotalPages",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub total_pages: Option<i32>,
}

/// `OBReadAccount6`'s `Data`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Accounts {
    #[serde(rename = "Account", default)]
    pub account: Vec<Account>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Account {
    #[serde(rename = "AccountId")]
    pub account_id: String,
    #[serde(rename = "Status", default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    #[serde(rename = "Currency", default, skip_serializing_if = "Option::is_none")]
    pub currency: Option<String>,
    #[serde(
        rename = "AccountType",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub account_type: Option<String>,
    #[serde(
        rename = "AccountSubType",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub account_sub_type: Option<String>,
    #[serde(rename = "Nickname", default, skip_serializing_if = "Option::is_none")]
    pub nickname: Option<String>,
    #[serde(rename = "Account", default)]
    pub identifications: Vec<Identification>,
}

/// `OBCashAccount5`: how the account is addressed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Identification {
    #[serde(rename = "SchemeName")]
    pub scheme_name: String,
    #[serde(rename = "Identification")]
    pub identification: String,
    #[serde(rename = "Name", default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// The scheme a UK account is paid by Faster Payments under: the six-digit
/// sort code followed by the eight-digit account number.
pub const SORT_CODE_ACCOUNT_NUMBER: &str = "UK.OBIE.SortCodeAccountNumber";

impl Account {
    /// The account's sort code and account number (14 digits), if it has
    /// them: where a loan to it is paid.
    pub fn sort_code_account_number(&self) -> Option<&str> {
        self.identifications
            .iter()
            .find(|i| i.scheme_name == SORT_CODE_ACCOUNT_NUMBER)
            .map(|i| i.identification.as_str())
            .filter(|n| n.len() == 14 && n.bytes().all(|b| b.is_ascii_digit()))
    }

    /// Open and in pounds: an account lendhub can read and pay into.
    pub fn usable(&self) -> bool {
        self.status.as_deref().is_none_or(|s| s == "Enabled")
            && self.currency.as_deref().is_none_or(|c| c == "GBP")
    }
}

/// `OBReadBalance1`'s `Data`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Balances {
    #[serde(rename = "Balance", default)]
    pub balance: Vec<Balance>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Balance {
    #[serde(rename = "AccountId")]
    pub account_id: String,
    #[serde(rename = "CreditDebitIndicator")]
    pub credit_debit: String,
    #[serde(rename = "Type")]
    pub kind: String,
    #[serde(rename = "DateTime", with = "time::serde::rfc3339")]
    pub at: OffsetDateTime,
    #[serde(rename = "Amount")]
    pub amount: Amount,
}

/// `OBReadDataTransaction6`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Transactions {
    #[serde(rename = "Transaction", default)]
    pub transaction: Vec<Transaction>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Transaction {
    #[serde(rename = "AccountId")]
    pub account_id: String,
    #[serde(
        rename = "TransactionId",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub transaction_id: Option<String>,
    #[serde(rename = "CreditDebitIndicator")]
    pub credit_debit: String,
    #[serde(rename = "Status")]
    pub status: String,
    #[serde(rename = "BookingDateTime", with = "time::serde::rfc3339")]
    pub booked: OffsetDateTime,
    #[serde(
        rename = "TransactionInformation",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub information: Option<String>,
    #[serde(rename = "Amount")]
    pub amount: Amount,
    /// `OBBankTransactionCodeStructure1`: the ISO 20022 family and
    /// sub-family, when the bank gives them.
    #[serde(
        rename = "BankTransactionCode",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub code: Option<TransactionCode>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TransactionCode {
    #[serde(rename = "Code")]
    pub code: String,
    #[serde(rename = "SubCode")]
    pub sub_code: String,
}

/// ISO 20022 sub-families of a payment returned unpaid: a direct debit
/// unpaid (`UPDD`), a transfer returned (`RRTN`), an automated clearing
/// return (`ARET`).
pub const RETURNED_SUB_CODES: [&str; 3] = ["UPDD", "RRTN", "ARET"];

impl Transaction {
    /// Whether the bank marks it as a payment returned unpaid.
    pub fn returned(&self) -> bool {
        self.code
            .as_ref()
            .is_some_and(|c| RETURNED_SUB_CODES.contains(&c.sub_code.as_str()))
    }
}

/// Why the transactions read do not make a cash flow.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Unreadable {
    #[error("a transaction's amount is not whole pounds and pence in GBP")]
    Amount,
    #[error("a transaction is neither a credit nor a debit")]
    Indicator,
    #[error("the totals overflow")]
    Overflow,
}

/// The most recent months the decision engine averages over.
pub const MONTHS_READ: usize = 12;

/// The cash flow `transactions` show: the booked ones, in the most recent
/// `MONTHS_READ` calendar months that have any, averaged per month, with
/// how much the monthly inflow varies and how many payments came back
/// unpaid. Months are the bank's calendar months of booking, not counted
/// back from a clock, so a moved test clock reads the same account the
/// same way. With the account's balance now (`balance_pence`), the days it
/// ended overdrawn are counted too, its end-of-day balances walked back
/// from that balance through the transactions.
pub fn cash_flow(
    transactions: &[Transaction],
    balance_pence: Option<i64>,
) -> Result<Banking, Unreadable> {
    let mut booked: Vec<(&Transaction, i64)> = Vec::new();
    for t in transactions.iter().filter(|t| t.status == "Booked") {
        let pence = t.amount.pence().ok_or(Unreadable::Amount)?;
        let signed = match t.credit_debit.as_str() {
            "Credit" => pence,
            "Debit" => pence.checked_neg().ok_or(Unreadable::Overflow)?,
            _ => return Err(Unreadable::Indicator),
        };
        booked.push((t, signed));
    }
    let mut months: BTreeMap<(i32, u8), (i64, i64)> = BTreeMap::new();
    for (t, signed) in &booked {
        let month = months
            .entry((t.booked.year(), u8::from(t.booked.month())))
            .or_default();
        let total = if *signed >= 0 {
            &mut month.0
        } else {
            &mut month.1
        };
        *total = total
            .checked_add(signed.checked_abs().ok_or(Unreadable::Overflow)?)
            .ok_or(Unreadable::Overflow)?;
    }
    let recent: Vec<((i32, u8), (i64, i64))> = months.into_iter().rev().take(MONTHS_READ).collect();
    let count = recent.len() as i64;
    let (inflow, outflow) = recent
        .iter()
        .try_fold((0i64, 0i64), |(i, o), (_, (ci, co))| {
            Some((i.checked_add(*ci)?, o.checked_add(*co)?))
        })
        .ok_or(Unreadable::Overflow)?;
    let oldest = recent.last().map(|(month, _)| *month);
    let in_window = |t: &Transaction| {
        oldest.is_some_and(|m| (t.booked.year(), u8::from(t.booked.month())) >= m)
    };
    let inflows: Vec<i64> = recent.iter().map(|(_, (i, _))| *i).collect();
    let returned = booked
        .iter()
        .filter(|(t, _)| in_window(t) && t.returned())
        .count();
    Ok(Banking {
        months: recent.len() as u32,
        average_monthly_inflow_pence: if count == 0 { 0 } else { inflow / count },
        average_monthly_outflow_pence: if count == 0 { 0 } else { outflow / count },
        inflow_volatility_pct: volatility_pct(&inflows),
        days_overdrawn: balance_pence.map(|now| {
            let window: Vec<&(&Transaction, i64)> =
                booked.iter().filter(|(t, _)| in_window(t)).collect();
            days_overdrawn(&window, now)
        }),
        returned_payments: Some(u32::try_from(returned).unwrap_or(u32::MAX)),
    })
}

/// The standard deviation of `monthly` over its mean, in percent, floored
/// (`None` for fewer than two months, or no inflow).
fn volatility_pct(monthly: &[i64]) -> Option<u32> {
    let n = monthly.len();
    if n < 2 {
        return None;
    }
    let mean = monthly.iter().map(|&x| x as f64).sum::<f64>() / n as f64;
    if mean <= 0.0 {
        return None;
    }
    let variance = monthly
        .iter()
        .map(|&x| (x as f64 - mean).powi(2))
        .sum::<f64>()
        / n as f64;
    Some(
        (variance.sqrt() / mean * 100.0)
            .floor()
            .min(f64::from(u32::MAX)) as u32,
    )
}

/// The days from the oldest transaction's to the newest's whose end-of-day
/// balance was below zero, walking back from `balance_now` (the balance
/// after the newest).
fn days_overdrawn(booked: &[&(&Transaction, i64)], balance_now: i64) -> u32 {
    let mut by_day: BTreeMap<time::Date, i64> = BTreeMap::new();
    for (t, signed) in booked {
        let day = by_day.entry(t.booked.date()).or_default();
        *day = day.saturating_add(*signed);
    }
    let (Some(first), Some(last)) = (
        by_day.keys().next().copied(),
        by_day.keys().next_back().copied(),
    ) else {
        return 0;
    };
    let mut end_of_day = balance_now;
    let mut overdrawn = 0u32;
    let mut day = last;
    loop {
        if end_of_day < 0 {
            overdrawn += 1;
        }
        // The balance the day began with is the previous day's end.
        end_of_day = end_of_day.saturating_sub(by_day.get(&day).copied().unwrap_or(0));
        match day.previous_day() {
            Some(before) if before >= first => day = before,
            _ => break,
        }
    }
    overdrawn
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::datetime;

    fn t(booked: OffsetDateTime, credit: bool, pence: u64) -> Transaction {
        Transaction {
            account_id: "a1".into(),
            transaction_id: None,
            credit_debit: if credit { "Credit" } else { "Debit" }.into(),
            status: "Booked".into(),
            booked,
            information: None,
            amount: Amount::gbp(pence),
            code: None,
        }
    }

    #[test]
    fn the_cash_flow_averages_the_months_booked() {
        let flow = cash_flow(
            &[
                t(datetime!(2026-01-03 10:00 UTC), true, 300_000),
                t(datetime!(2026-01-20 10:00 UTC), false, 100_000),
                t(datetime!(2026-02-03 10:00 UTC), true, 500_000),
                t(datetime!(2026-02-28 23:59 UTC), false, 300_000),
            ],
            None,
        );
        assert_eq!(
            flow,
            Ok(Banking {
                months: 2,
                average_monthly_inflow_pence: 400_000,
                average_monthly_outflow_pence: 200_000,
                // Inflows of 3,000 and 5,000: 1,000 either side of 4,000.
                inflow_volatility_pct: Some(25),
                days_overdrawn: None,
                returned_payments: Some(0),
            })
        );
    }

    /// Walked back from today's balance of £100: £500 went out on the 10th
    /// (so the 9th ended at £600), £700 came in on the 5th (the 4th ended
    /// at −£100, as did the 1st to the 3rd, £50 having gone out on the
    /// 1st): overdrawn at the end of four days.
    #[test]
    fn the_days_overdrawn_are_walked_back_from_the_balance() {
        let flow = cash_flow(
            &[
                t(datetime!(2026-03-01 09:00 UTC), false, 5_000),
                t(datetime!(2026-03-05 09:00 UTC), true, 70_000),
                t(datetime!(2026-03-10 09:00 UTC), false, 50_000),
            ],
            Some(10_000),
        )
        .unwrap();
        assert_eq!(flow.days_overdrawn, Some(4));
        assert_eq!(
            flow.inflow_volatility_pct, None,
            "one month varies by nothing known"
        );
    }

    #[test]
    fn payments_returned_unpaid_are_counted_by_their_iso_code() {
        let mut unpaid = t(datetime!(2026-03-02 09:00 UTC), true, 12_000);
        unpaid.code = Some(TransactionCode {
            code: "IDDT".into(),
            sub_code: "UPDD".into(),
        });
        let mut paid = t(datetime!(2026-03-03 09:00 UTC), false, 12_000);
        paid.code = Some(TransactionCode {
            code: "IDDT".into(),
            sub_code: "ESDD".into(),
        });
        let flow = cash_flow(&[unpaid, paid], None).unwrap();
        assert_eq!(flow.returned_payments, Some(1));
    }

    #[test]
    fn only_booked_transactions_of_the_last_twelve_months_count() {
        let mut all: Vec<Transaction> = (1..=14u8)
            .map(|m| {
                let year = if m > 12 { 2026 } else { 2025 };
                let month = time::Month::try_from((m - 1) % 12 + 1).unwrap_or(time::Month::January);
                let at = time::Date::from_calendar_date(year, month, 5)
                    .unwrap_or(time::Date::MIN)
                    .midnight()
                    .assume_utc();
                t(at, true, u64::from(m) * 100)
            })
            .collect();
        let mut pending = t(datetime!(2026-02-06 00:00 UTC), true, 100_000_000);
        pending.status = "Pending".into();
        all.push(pending);
        let flow = cash_flow(&all, None).ok();
        // Months 3..=14 count: (3 + … + 14) × 100 / 12.
        assert_eq!(
            flow.map(|f| (f.months, f.average_monthly_inflow_pence)),
            Some((12, 850))
        );
    }

    #[test]
    fn a_malformed_transaction_is_refused() {
        let mut odd = t(datetime!(2026-01-03 10:00 UTC), true, 1);
        odd.credit_debit = "Sideways".into();
        assert_eq!(cash_flow(&[odd], None), Err(Unreadable::Indicator));
        let mut euros = t(datetime!(2026-01-03 10:00 UTC), true, 1);
        euros.amount.currency = "EUR".into();
        assert_eq!(cash_flow(&[euros], None), Err(Unreadable::Amount));
        assert_eq!(cash_flow(&[], None).map(|f| f.months), Ok(0));
    }

    #[test]
    fn the_payout_account_is_a_sort_code_and_account_number() {
        let account = Account {
            account_id: "a1".into(),
            status: Some("Enabled".into()),
            currency: Some("GBP".into()),
            account_type: None,
            account_sub_type: None,
            nickname: None,
            identifications: vec![Identification {
                scheme_name: SORT_CODE_ACCOUNT_NUMBER.into(),
                identification: "04000410000010".into(),
                name: None,
            }],
        };
        assert_eq!(account.sort_code_account_number(), Some("04000410000010"));
        assert!(account.usable());
    }
}
