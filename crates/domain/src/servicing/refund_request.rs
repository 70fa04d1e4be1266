//! `POST /payments/{id}/refund` as received: only its reason, which goes on
//! the ledger and to the payer.

use crate::problem::{Problem, Problems};

/// A refund's reason, at most (characters).
pub const MAX_REASON: usize = 500;

/// The reason kept, if any: blank is none; at most `MAX_REASON`
/// characters (`max_length`, with the bound).
pub fn check(reason: Option<&str>) -> Result<Option<String>, Vec<Problem>> {
    let reason = reason.filter(|r| !r.trim().is_empty());
    let mut problems = Problems::new();
    problems.max_length("reason", reason, MAX_REASON);
    problems.finish(Some(reason.map(str::to_owned)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reason_is_optional_blank_is_none_and_it_is_bounded() {
        assert_eq!(check(None), Ok(None));
        assert_eq!(check(Some("  ")), Ok(None));
        assert_eq!(check(Some("paid twice")), Ok(Some("paid twice".to_owned())));
        assert_eq!(
            check(Some(&"é".repeat(MAX_REASON))).map(|r| r.is_some()),
            Ok(true)
        );
        assert_eq!(
            check(Some(&"é".repeat(MAX_REASON + 1))),
            Err(vec![Problem::bounded(
                "reason",
                "max_length",
                MAX_REASON as i64
            )])
        );
    }
}
