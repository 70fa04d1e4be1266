//! The filters of the lending lists (`GET /applications`,
//! `GET /decisions`), as their query strings give them; MCP's tools read
//! the same values.

use crate::lending::application::Status;
use crate::list_filter;
use crate::problem::{Problem, Problems};
use crate::sandbox::decisioning::Outcome;

/// A decision's outcome, by the name its view gives it.
pub fn outcome(raw: &str) -> Option<&'static str> {
    [Outcome::Approved, Outcome::Referred, Outcome::Declined]
        .into_iter()
        .map(Outcome::as_str)
        .find(|o| *o == raw)
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ApplicationFilters {
    pub status: Option<Status>,
    pub created_after_ms: Option<i64>,
}

/// `status` an application status (`one_of`), `created_after` RFC 3339.
pub fn applications(
    status: Option<&str>,
    created_after: Option<&str>,
) -> Result<ApplicationFilters, Vec<Problem>> {
    let mut problems = Problems::new();
    let status = problems.parsed("status", status, "one_of", Status::parse);
    let created_after_ms = list_filter::moment(&mut problems, "created_after", created_after);
    problems.finish(Some(ApplicationFilters {
        status,
        created_after_ms,
    }))
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DecisionFilters {
    pub outcome: Option<&'static str>,
    pub decided_after_ms: Option<i64>,
}

/// `outcome` one of the three (`one_of`), `decided_after` RFC 3339.
pub fn decisions(
    outcome: Option<&str>,
    decided_after: Option<&str>,
) -> Result<DecisionFilters, Vec<Problem>> {
    let mut problems = Problems::new();
    let outcome = problems.parsed("outcome", outcome, "one_of", self::outcome);
    let decided_after_ms = list_filter::moment(&mut problems, "decided_after", decided_after);
    problems.finish(Some(DecisionFilters {
        outcome,
        decided_after_ms,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn application_filters_are_checked_together() {
        assert_eq!(applications(None, None), Ok(ApplicationFilters::default()));
        assert_eq!(
            applications(Some("in_review"), Some("1970-01-01T00:00:01Z")),
            Ok(ApplicationFilters {
                status: Some(Status::InReview),
                created_after_ms: Some(1_000),
            })
        );
        assert_eq!(
            applications(Some("pending"), Some("today")),
            Err(vec![
                Problem::new("status", "one_of"),
                Problem::new("created_after", "rfc3339"),
            ])
        );
    }

    #[test]
    fn decision_filters_are_checked_together() {
        for o in ["approved", "referred", "declined"] {
            assert_eq!(outcome(o), Some(o));
        }
        assert_eq!(outcome("pending"), None);
        assert_eq!(
            decisions(Some("declined"), None),
            Ok(DecisionFilters {
                outcome: Some("declined"),
                decided_after_ms: None,
            })
        );
        assert_eq!(
            decisions(Some("maybe"), Some("today")),
            Err(vec![
                Problem::new("outcome", "one_of"),
                Problem::new("decided_after", "rfc3339"),
            ])
        );
    }
}
