//! The fields several servicing requests share (payment links, schedules),
//! each read the same way with the same reasons.

use serde_json::Value;

use crate::ids::{AccountId, HubId};
use crate::money::Money;
use crate::problem::Problems;
use crate::servicing::collection::MAX_AMOUNT_PENCE;

/// `account_id`: required, an `acc_…` id (`pattern`).
pub fn account_id(problems: &mut Problems, raw: Option<&str>) -> Option<AccountId> {
    problems.required_parsed("account_id", raw, "pattern", AccountId::parse)
}

/// `amount_pence`: required, whole pence from 1 to `MAX_AMOUNT_PENCE` (a
/// decimal, a string or a number written with a fraction or an exponent is
/// `integer_pence`: pence are whole). A number too large for `i64` is over
/// the bound, not of the wrong type.
pub fn amount(problems: &mut Problems, raw: Option<&Value>) -> Option<Money> {
    let field = "amount_pence";
    match raw.map(|v| (v.as_i64(), v.is_u64())) {
        None => problems.push(field, "required"),
        Some((Some(p), _)) if (1..=MAX_AMOUNT_PENCE).contains(&p) => return Some(Money::pence(p)),
        Some((Some(p), _)) if p > MAX_AMOUNT_PENCE => {
            problems.push_bounded(field, "max_value", MAX_AMOUNT_PENCE)
        }
        Some((None, true)) => problems.push_bounded(field, "max_value", MAX_AMOUNT_PENCE),
        Some((Some(_), _)) => problems.push_bounded(field, "min_value", 1),
        Some((None, false)) => problems.push(field, "integer_pence"),
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::problem::{Bound, Problem};
    use proptest::prelude::*;
    use serde_json::json;

    fn amount_of(v: Option<Value>) -> (Option<Money>, Vec<Problem>) {
        let mut p = Problems::new();
        let a = amount(&mut p, v.as_ref());
        (a, p.into_vec())
    }

    #[test]
    fn an_account_id_is_required_and_an_acc_id() {
        let mut p = Problems::new();
        assert_eq!(account_id(&mut p, None), None);
        assert_eq!(
            account_id(&mut p, Some("pay_01KQ3V1Y2C8WZ3R5T6Y7X819D0")),
            None
        );
        let id = "acc_01KQ3V1Y2C8WZ3R5T6Y7X819D0";
        assert_eq!(
            account_id(&mut p, Some(id)).map(|a| a.to_string()),
            Some(id.to_owned())
        );
        assert_eq!(
            p.into_vec(),
            vec![
                Problem::new("account_id", "required"),
                Problem::new("account_id", "pattern")
            ]
        );
    }

    #[test]
    fn an_amount_is_whole_pence_within_its_bounds() {
        assert_eq!(amount_of(Some(json!(1))).0, Some(Money::pence(1)));
        assert_eq!(
            amount_of(Some(json!(MAX_AMOUNT_PENCE))).0,
            Some(Money::pence(MAX_AMOUNT_PENCE))
        );
        let reason = |v: Value| {
            let (_, p) = amount_of(Some(v));
            p.into_iter()
                .map(|p| (p.reason, p.bound))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            amount_of(None).1,
            vec![Problem::new("amount_pence", "required")]
        );
        assert_eq!(reason(json!(0)), [("min_value", Some(Bound::Int(1)))]);
        assert_eq!(reason(json!(-5)), [("min_value", Some(Bound::Int(1)))]);
        let max = Some(Bound::Int(MAX_AMOUNT_PENCE));
        assert_eq!(
            reason(json!(MAX_AMOUNT_PENCE + 1)),
            [("max_value", max.clone())]
        );
        assert_eq!(reason(json!(u64::MAX)), [("max_value", max)]);
        assert_eq!(reason(json!(10.5)), [("integer_pence", None)]);
        assert_eq!(reason(json!(1e3)), [("integer_pence", None)]);
        assert_eq!(reason(json!("100")), [("integer_pence", None)]);
    }

    proptest! {
        #[test]
        fn every_whole_amount_in_range_is_kept_exactly(p in i64::MIN..i64::MAX) {
            let (kept, problems) = amount_of(Some(json!(p)));
            prop_assert_eq!(kept.is_some(), (1..=MAX_AMOUNT_PENCE).contains(&p));
            prop_assert_eq!(kept.map(Money::as_pence), (1..=MAX_AMOUNT_PENCE).contains(&p).then_some(p));
            prop_assert_eq!(problems.len(), usize::from(kept.is_none()));
        }
    }
}
