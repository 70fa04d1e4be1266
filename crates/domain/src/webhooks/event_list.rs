//! The filters of `GET /events`: an event type of the tier, and a moment
//! the events were created after.

use crate::list_filter;
use crate::problem::{Problem, Problems};
use crate::sandbox::events::EventType;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EventFilters {
    pub event_type: Option<String>,
    pub created_after_ms: Option<i64>,
}

/// `type` a known event type (`unknown_event_type`), `created_after` RFC
/// 3339 (`rfc3339`); both reported at once.
pub fn check(
    event_type: Option<&str>,
    created_after: Option<&str>,
) -> Result<EventFilters, Vec<Problem>> {
    let mut problems = Problems::new();
    problems.parsed("type", event_type, "unknown_event_type", EventType::parse);
    let created_after_ms = list_filter::moment(&mut problems, "created_after", created_after);
    problems.finish(Some(EventFilters {
        event_type: event_type.map(str::to_owned),
        created_after_ms,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_filters_are_checked_together() {
        assert_eq!(check(None, None), Ok(EventFilters::default()));
        assert_eq!(
            check(Some("payment.paid"), Some("1970-01-01T00:00:01Z")),
            Ok(EventFilters {
                event_type: Some("payment.paid".into()),
                created_after_ms: Some(1000),
            })
        );
        assert_eq!(
            check(Some("payment.nope"), Some("soon")),
            Err(vec![
                Problem::new("type", "unknown_event_type"),
                Problem::new("created_after", "rfc3339"),
            ])
        );
    }
}
