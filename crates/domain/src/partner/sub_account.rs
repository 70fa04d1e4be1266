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
}

/// `POST /sub-accounts` as received.
#[derive(Clone, Debug, Default)]
pub struct Request {
    pub name: Option<String>,
    /// As sent: a whole number is read, anything else refused.
    pub revenue_share_bps: Option<Value>,
}

/// A sub-account's name (trimmed) and share, checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Checked {
    pub name: String,
    pub revenue_share_bps: u32,
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
    let checked = name.zip(share).map(|(name, revenue_share_bps)| Checked {
        name: name.to_owned(),
        revenue_share_bps,
    });
    problems.finish(checked)
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
        }
    }

    #[test]
    fn the_share_defaults_to_the_master_rate() {
        let expected = Ok(Checked {
            name: "Northern Brokers Ltd".into(),
            revenue_share_bps: MASTER_SHARE_BPS,
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

    proptest! {
        #[test]
        fn a_share_is_kept_from_zero_to_the_master_rate(bps in -100i64..2_000) {
            let checked = check(&request(Some(json!(bps))));
            let ok = (0..=i64::from(MASTER_SHARE_BPS)).contains(&bps);
            prop_assert_eq!(checked.map(|c| i64::from(c.revenue_share_bps)).ok(), ok.then_some(bps));
        }
    }
}
