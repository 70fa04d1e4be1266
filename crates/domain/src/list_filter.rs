//! The filters several lists share, as a query string gives them, each
//! read the same way with the same reason.

use crate::ids::{HubId, SubAccountId};
use crate::problem::Problems;

/// An RFC 3339 moment a list filters by (`created_after`,
/// `decided_after`), as Unix milliseconds (`rfc3339` when it is not one).
pub fn moment(problems: &mut Problems, field: &str, raw: Option<&str>) -> Option<i64> {
    problems.parsed(field, raw, "rfc3339", crate::clock::parse_rfc3339_ms)
}

/// `sub_account_id`: a `sub_…` id (`pattern`), kept as given.
pub fn sub_account_id(problems: &mut Problems, raw: Option<&str>) -> Option<String> {
    problems.parsed("sub_account_id", raw, "pattern", |raw| {
        SubAccountId::parse(raw).map(|_| raw.to_owned())
    })
}

/// A list whose only filter is `sub_account_id` (payouts, introductions).
pub fn by_sub_account(raw: Option<&str>) -> Result<Option<String>, Vec<crate::problem::Problem>> {
    let mut problems = Problems::new();
    let id = sub_account_id(&mut problems, raw);
    problems.finish(Some(id))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::problem::Problem;

    #[test]
    fn a_moment_is_rfc3339() {
        let mut p = Problems::new();
        assert_eq!(moment(&mut p, "t", None), None);
        assert_eq!(
            moment(&mut p, "t", Some("2026-01-01T00:00:00Z")),
            Some(1_767_225_600_000)
        );
        assert_eq!(moment(&mut p, "t", Some("yesterday")), None);
        assert_eq!(p.into_vec(), vec![Problem::new("t", "rfc3339")]);
    }

    #[test]
    fn a_sub_account_is_a_sub_id() {
        let id = "sub_01KQ3V1Y2C8WZ3R5T6Y7X819D0";
        assert_eq!(by_sub_account(None), Ok(None));
        assert_eq!(by_sub_account(Some(id)), Ok(Some(id.to_owned())));
        assert_eq!(
            by_sub_account(Some("acc_01KQ3V1Y2C8WZ3R5T6Y7X819D0")),
            Err(vec![Problem::new("sub_account_id", "pattern")])
        );
    }
}
