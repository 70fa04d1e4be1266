//! A partner's sub-accounts (hub seed, Resources → Sub-account (beta);
//! issue #17): the distribution partners a partner works through. An
//! application that names one in `introduction_id` is attributed to it,
//! and the loan it funds keeps that attribution (docs/decisions.md).

use serde::{Deserialize, Serialize};
use serde_json::Value;
use time::OffsetDateTime;

use crate::ids::SubAccountId;
use crate::problem::{Problem, Problems};
use crate::tenant::Tenant;

/// The master rate a sub-account's share defaults to, and may not exceed:
/// the seed's Referral tier, 10 % of net margin, until a partner's
/// commercial terms name another.
pub const MASTER_SHARE_BPS: u32 = 1_000;
pub const MAX_NAME: usize = 200;
/// Faster Payments carries a payee's name in at most 140 characters.
pub const MAX_HOLDER: usize = 140;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SubAccount {
    pub id: SubAccountId,
    /// The partner in one environment.
    pub owner: Tenant,
    pub name: String,
    /// Its share of the net margin on the loans it introduces, in basis
    /// points.
    pub revenue_share_bps: u32,
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
    /// Where its payouts are paid; without one they fail unpaid.
    #[serde(default)]
    pub payout_account: Option<PayoutAccount>,
}

/// A UK bank account a sub-account is paid at.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PayoutAccount {
    /// The account holder's name, as its bank holds it (the rail sends it
    /// for the payee's confirmation of payee).
    pub name: String,
    /// Sort code then account number, fourteen digits.
    pub sort_code_account_number: String,
}

impl PayoutAccount {
    /// The last four digits of the account number, as the API shows it.
    pub fn last4(&self) -> &str {
        let n = &self.sort_code_account_number;
        n.get(n.len().saturating_sub(4)..).unwrap_or_default()
    }

    pub fn sort_code(&self) -> &str {
        self.sort_code_account_number.get(..6).unwrap_or_default()
    }
}

/// `payout_account` as received.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AccountRequest {
    pub name: Option<String>,
    /// Six digits, with or without hyphens or spaces (`04-00-04`).
    pub sort_code: Option<String>,
    pub account_number: Option<String>,
}

/// `POST /sub-accounts` as received.
#[derive(Clone, Debug, Default)]
pub struct Request {
    pub name: Option<String>,
    /// As sent: a whole number is read, anything else refused.
    pub revenue_share_bps: Option<Value>,
    pub payout_account: Option<AccountRequest>,
}

/// A sub-account's name (trimmed) and share, checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Checked {
    pub name: String,
    pub revenue_share_bps: u32,
    pub payout_account: Option<PayoutAccount>,
}

/// A payout account's holder, then its sort code and account number: the
/// formats first (`pattern`), then the modulus check a payment to it would
/// fail (`modulus_check_failed`, on `account_number`).
fn payout_account(problems: &mut Problems, a: &AccountRequest) -> Option<PayoutAccount> {
    use crate::payout_rail::modulus::{self, ModulusError};
    let name = problems.name("payout_account.name", a.name.as_deref(), MAX_HOLDER);
    let digits = |raw: &str, n: usize| {
        let d: String = raw.chars().filter(|c| !matches!(c, '-' | ' ')).collect();
        (d.len() == n && d.bytes().all(|b| b.is_ascii_digit())).then_some(d)
    };
    let sort_code = problems.required_parsed(
        "payout_account.sort_code",
        a.sort_code.as_deref(),
        "pattern",
        |s| digits(s, 6),
    );
    let number = problems.required_parsed(
        "payout_account.account_number",
        a.account_number.as_deref(),
        "pattern",
        |s| digits(s, 8),
    );
    let (sort_code, number) = sort_code.zip(number)?;
    if let Err(ModulusError::Fails | ModulusError::Malformed) = modulus::check(&sort_code, &number)
    {
        problems.push("payout_account.account_number", "modulus_check_failed");
        return None;
    }
    Some(PayoutAccount {
        name: name?.to_owned(),
        sort_code_account_number: format!("{sort_code}{number}"),
    })
}

/// The name, then the share: 0 to `MASTER_SHARE_BPS` (paid out of the
/// partner's own share, so never more), which it defaults to.
pub fn check(request: &Request) -> Result<Checked, Vec<Problem>> {
    let mut problems = Problems::new();
    let name = problems.name("name", request.name.as_deref(), MAX_NAME);
    let share = match &request.revenue_share_bps {
        None | Some(Value::Null) => Some(MASTER_SHARE_BPS),
        Some(v) => problems
            .whole_within("revenue_share_bps", v, 0, i64::from(MASTER_SHARE_BPS))
            .and_then(|n| u32::try_from(n).ok()),
    };
    let account = request
        .payout_account
        .as_ref()
        .map(|a| payout_account(&mut problems, a));
    let checked = name
        .zip(share)
        .filter(|_| account.as_ref().is_none_or(Option::is_some))
        .map(|(name, revenue_share_bps)| Checked {
            name: name.to_owned(),
            revenue_share_bps,
            payout_account: account.flatten(),
        });
    problems.finish(checked)
}

/// `POST /sub-accounts/{id}` as received: a new payout account (required).
pub fn check_payout_account(
    request: Option<&AccountRequest>,
) -> Result<PayoutAccount, Vec<Problem>> {
    let mut problems = Problems::new();
    let account = match request {
        Some(a) => payout_account(&mut problems, a),
        None => {
            problems.push("payout_account", "required");
            None
        }
    };
    problems.finish(account)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    fn request(share: Option<Value>) -> Request {
        Request {
            name: Some(" Northern Brokers Ltd ".into()),
            revenue_share_bps: share,
            payout_account: None,
        }
    }

    #[test]
    fn the_share_defaults_to_the_master_rate() {
        let expected = Ok(Checked {
            name: "Northern Brokers Ltd".into(),
            revenue_share_bps: MASTER_SHARE_BPS,
            payout_account: None,
        });
        assert_eq!(check(&request(None)), expected);
        assert_eq!(check(&request(Some(Value::Null))), expected);
    }

    #[test]
    fn each_problem_is_named() {
        assert_eq!(
            check(&Request {
                name: Some("  ".into()),
                revenue_share_bps: Some(json!(-1)),
                payout_account: None,
            }),
            Err(vec![
                Problem::new("name", "required"),
                Problem::bounded("revenue_share_bps", "min_value", 0),
            ])
        );
        assert_eq!(
            check(&Request {
                name: Some("n".repeat(MAX_NAME + 1)),
                revenue_share_bps: Some(json!(1_001)),
                payout_account: None,
            }),
            Err(vec![
                Problem::bounded("name", "max_length", MAX_NAME as i64),
                Problem::bounded("revenue_share_bps", "max_value", 1_000),
            ])
        );
        assert_eq!(
            check(&request(Some(json!(2.5)))),
            Err(vec![Problem::new("revenue_share_bps", "integer")])
        );
    }

    fn with_account(sort_code: &str, account_number: &str) -> Request {
        Request {
            payout_account: Some(AccountRequest {
                name: Some("Northern Brokers Ltd".into()),
                sort_code: Some(sort_code.into()),
                account_number: Some(account_number.into()),
            }),
            ..request(None)
        }
    }

    #[test]
    fn a_payout_account_is_kept_as_fourteen_digits_that_pass_the_modulus_check() {
        let checked = check(&with_account("04-00-04", "10000010")).unwrap();
        let account = checked.payout_account.unwrap();
        assert_eq!(account.sort_code_account_number, "04000410000010");
        assert_eq!((account.sort_code(), account.last4()), ("040004", "0010"));
        assert_eq!(
            check(&with_account("040004", "10000011")),
            Err(vec![Problem::new(
                "payout_account.account_number",
                "modulus_check_failed"
            )])
        );
        assert_eq!(
            check(&with_account("04000", "1000001x")),
            Err(vec![
                Problem::new("payout_account.sort_code", "pattern"),
                Problem::new("payout_account.account_number", "pattern"),
            ])
        );
        let nameless = Request {
            payout_account: Some(AccountRequest::default()),
            ..request(None)
        };
        assert_eq!(
            check(&nameless),
            Err(vec![
                Problem::new("payout_account.name", "required"),
                Problem::new("payout_account.sort_code", "required"),
                Problem::new("payout_account.account_number", "required"),
            ])
        );
    }

    proptest! {
        #[test]
        fn a_share_is_kept_from_zero_to_the_master_rate(bps in -100i64..2_000) {
            let checked = check(&request(Some(json!(bps))));
            let ok = (0..=i64::from(MASTER_SHARE_BPS)).contains(&bps);
            prop_assert_eq!(checked.map(|c| i64::from(c.revenue_share_bps)).ok(), ok.then_some(bps));
        }
    }
}
