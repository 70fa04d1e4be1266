//! The filter of `GET /statements`: one month's statement.

use crate::billing::statement::Period;
use crate::problem::{Problem, Problems};

/// `period`: `YYYY-MM` (`pattern`), written back as the statements keep it.
pub fn check(period: Option<&str>) -> Result<Option<String>, Vec<Problem>> {
    let mut problems = Problems::new();
    let period = problems.parsed("period", period, "pattern", Period::parse);
    problems.finish(Some(period.map(|p| p.to_string())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_period_is_a_calendar_month() {
        assert_eq!(check(None), Ok(None));
        assert_eq!(check(Some("2026-11")), Ok(Some("2026-11".to_owned())));
        for bad in ["2026-13", "26-11", "2026-1", "1999-12"] {
            assert_eq!(
                check(Some(bad)),
                Err(vec![Problem::new("period", "pattern")]),
                "{bad}"
            );
        }
    }
}
