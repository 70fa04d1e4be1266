//! The filters of the servicing lists (`GET /accounts`, `GET /payments`),
//! as their query strings give them.

use crate::ids::{AccountId, HubId};
use crate::list_filter;
use crate::problem::{Problem, Problems};
use crate::servicing::account::AccountStatus;
use crate::servicing::collection::PaymentStatus;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AccountFilters {
    pub status: Option<&'static str>,
    pub sub_account_id: Option<String>,
}

/// `status` one of the account statuses (`one_of`); `sub_account_id` a
/// `sub_…` id (`pattern`), and only for a partner: a person reads their
/// company's loans, whoever introduced them (`partners_only`).
pub fn accounts(
    status: Option<&str>,
    sub_account_id: Option<&str>,
    by_person: bool,
) -> Result<AccountFilters, Vec<Problem>> {
    let mut problems = Problems::new();
    let status = problems.parsed("status", status, "one_of", |raw| {
        AccountStatus::ALL
            .into_iter()
            .map(AccountStatus::as_str)
            .find(|s| *s == raw)
    });
    let sub_account_id = list_filter::sub_account_id(&mut problems, sub_account_id);
    if sub_account_id.is_some() && by_person {
        problems.push("sub_account_id", "partners_only");
    }
    problems.finish(Some(AccountFilters {
        status,
        sub_account_id,
    }))
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PaymentFilters {
    pub status: Option<&'static str>,
    pub account_id: Option<String>,
}

/// `status` a payment status or one of the catalogue's names for one
/// (`one_of`), `account_id` an `acc_…` id (`pattern`).
pub fn payments(
    status: Option<&str>,
    account_id: Option<&str>,
) -> Result<PaymentFilters, Vec<Problem>> {
    let mut problems = Problems::new();
    let status = problems.parsed("status", status, "one_of", |raw| {
        PaymentStatus::parse_filter(raw).map(PaymentStatus::as_str)
    });
    problems.parsed("account_id", account_id, "pattern", AccountId::parse);
    problems.finish(Some(PaymentFilters {
        status,
        account_id: account_id.map(str::to_owned),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SUB: &str = "sub_01KQ3V1Y2C8WZ3R5T6Y7X819D0";

    #[test]
    fn account_filters_are_checked_together() {
        assert_eq!(accounts(None, None, true), Ok(AccountFilters::default()));
        assert_eq!(
            accounts(Some("in_arrears"), Some(SUB), false),
            Ok(AccountFilters {
                status: Some("in_arrears"),
                sub_account_id: Some(SUB.to_owned()),
            })
        );
        assert_eq!(
            accounts(Some("late"), Some("sub_x"), false),
            Err(vec![
                Problem::new("status", "one_of"),
                Problem::new("sub_account_id", "pattern"),
            ])
        );
        assert_eq!(
            accounts(None, Some(SUB), true),
            Err(vec![Problem::new("sub_account_id", "partners_only")])
        );
        assert_eq!(
            accounts(None, Some("sub_x"), true),
            Err(vec![Problem::new("sub_account_id", "pattern")])
        );
    }

    #[test]
    fn payment_filters_take_the_catalogues_names_too() {
        assert_eq!(
            payments(Some("settled"), None).map(|f| f.status),
            Ok(Some("paid"))
        );
        assert_eq!(
            payments(Some("provisioned"), Some("acc_01KQ3V1Y2C8WZ3R5T6Y7X819D0")),
            Ok(PaymentFilters {
                status: Some("pending"),
                account_id: Some("acc_01KQ3V1Y2C8WZ3R5T6Y7X819D0".to_owned()),
            })
        );
        assert_eq!(
            payments(Some("lost"), Some("acc_x")),
            Err(vec![
                Problem::new("status", "one_of"),
                Problem::new("account_id", "pattern"),
            ])
        );
    }
}
