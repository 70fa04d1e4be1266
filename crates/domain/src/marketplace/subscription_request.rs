//! `POST /marketplace/subscriptions` as received: the app and the events it
//! subscribes to, which keep a webhook endpoint's rules.

use crate::problem::Problems;
use crate::webhooks::endpoint_request::{Refusal, check_events};

#[derive(Clone, Debug, Default)]
pub struct SubscriptionRequest {
    pub app_id: Option<String>,
    pub enabled_events: Option<Vec<String>>,
}

/// Both members given (each `required`, together), then the events.
pub fn check(request: &SubscriptionRequest) -> Result<(String, Vec<String>), Refusal> {
    let mut problems = Problems::new();
    let app_id = problems.required("app_id", request.app_id.clone());
    let events = problems.required("enabled_events", request.enabled_events.clone());
    let (app_id, events) = problems.finish(app_id.zip(events))?;
    check_events(&events)?;
    Ok((app_id, events))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::problem::Problem;

    #[test]
    fn the_app_and_its_events_are_required_then_the_events_known() {
        assert_eq!(
            check(&SubscriptionRequest::default()),
            Err(Refusal::Invalid(vec![
                Problem::new("app_id", "required"),
                Problem::new("enabled_events", "required"),
            ]))
        );
        let with = |events: &[&str]| SubscriptionRequest {
            app_id: Some("mkt_x".into()),
            enabled_events: Some(events.iter().map(|e| (*e).to_owned()).collect()),
        };
        assert_eq!(
            check(&with(&["*"])),
            Ok(("mkt_x".to_owned(), vec!["*".to_owned()]))
        );
        assert_eq!(
            check(&with(&[])),
            Err(Refusal::Invalid(vec![Problem::new(
                "enabled_events",
                "min_items"
            )]))
        );
        assert!(matches!(
            check(&with(&["nope"])),
            Err(Refusal::UnknownEvents(_))
        ));
    }
}
