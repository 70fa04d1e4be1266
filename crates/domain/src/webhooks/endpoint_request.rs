//! What a partner may ask of a webhook endpoint (`/webhook_endpoints`): the
//! rules of a registration, a change and a secret's rotation that need no
//! network. The URL's network policy (a public address, as it resolves
//! now) is the webhooks crate's and is asked after these.
//!
//! Each rule refuses on its own, the first that fails, in the order the
//! fields are read: an answer names one rule broken, as it always has.

use std::collections::BTreeMap;

use crate::problem::Problem;
use crate::sandbox::events::{ALL_EVENTS, EventType, HUB_API_VERSIONS};
use crate::webhooks::endpoint::{EndpointStatus, WebhookEndpoint};

pub const MAX_URL: usize = 2048;
pub const MAX_DESCRIPTION: usize = 500;
/// How long deliveries also carry the old secret's signature, by default
/// and at most.
pub const DEFAULT_OVERLAP_S: i64 = 86_400;
pub const MAX_OVERLAP_S: i64 = 7 * 86_400;

/// Why a webhook request was refused: most rules are `validation_failed`;
/// naming an event type that does not exist has a code of its own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    Invalid(Vec<Problem>),
    UnknownEvents(Vec<Problem>),
}

impl From<Vec<Problem>> for Refusal {
    fn from(problems: Vec<Problem>) -> Self {
        Refusal::Invalid(problems)
    }
}

fn invalid(field: &str, reason: &'static str) -> Refusal {
    Refusal::Invalid(vec![Problem::new(field, reason)])
}

/// `enabled_events`: at least one (`min_items`), `*` alone
/// (`wildcard_alone`), and every other a type of the tier (each unknown
/// one named by its index).
pub fn check_events(events: &[String]) -> Result<(), Refusal> {
    if events.is_empty() {
        return Err(invalid("enabled_events", "min_items"));
    }
    if events.iter().any(|e| e == ALL_EVENTS) && events.len() > 1 {
        return Err(invalid("enabled_events", "wildcard_alone"));
    }
    let unknown: Vec<Problem> = events
        .iter()
        .enumerate()
        .filter(|(_, e)| e.as_str() != ALL_EVENTS && EventType::parse(e).is_none())
        .map(|(i, _)| Problem::new(format!("enabled_events[{i}]"), "unknown_event_type"))
        .collect();
    if unknown.is_empty() {
        Ok(())
    } else {
        Err(Refusal::UnknownEvents(unknown))
    }
}

/// A URL of at most `MAX_URL` bytes (`max_length`), under `field`.
pub fn check_url_length(field: &str, raw: &str) -> Result<(), Vec<Problem>> {
    if raw.len() > MAX_URL {
        return Problem::new(field, "max_length").alone();
    }
    Ok(())
}

/// The members a registration and a change share, each optional.
#[derive(Clone, Debug, Default)]
pub struct Settings {
    pub description: Option<String>,
    pub api_version: Option<String>,
    pub metadata: Option<BTreeMap<String, String>>,
}

fn check_settings(s: &Settings) -> Result<(), Refusal> {
    if s.description
        .as_ref()
        .is_some_and(|d| d.chars().count() > MAX_DESCRIPTION)
    {
        return Err(invalid("description", "max_length"));
    }
    if s.api_version
        .as_deref()
        .is_some_and(|v| !HUB_API_VERSIONS.contains(&v))
    {
        return Err(invalid("api_version", "unknown_version"));
    }
    let metadata = s
        .metadata
        .as_ref()
        .map(crate::metadata::check)
        .unwrap_or_default();
    if !metadata.is_empty() {
        return Err(Refusal::Invalid(metadata));
    }
    Ok(())
}

/// `POST /webhook_endpoints` as received.
#[derive(Clone, Debug, Default)]
pub struct Registration {
    pub url: Option<String>,
    pub enabled_events: Option<Vec<String>>,
    pub settings: Settings,
}

/// A registration whose rules hold; its URL still goes to the network
/// policy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckedRegistration {
    pub url: String,
    pub enabled_events: Vec<String>,
}

/// `url` and `enabled_events` given, then the events, the description, the
/// API version and the metadata.
pub fn check_registration(r: &Registration) -> Result<CheckedRegistration, Refusal> {
    let url = r.url.clone().ok_or_else(|| invalid("url", "required"))?;
    let enabled_events = r
        .enabled_events
        .clone()
        .ok_or_else(|| invalid("enabled_events", "required"))?;
    check_events(&enabled_events)?;
    check_settings(&r.settings)?;
    Ok(CheckedRegistration {
        url,
        enabled_events,
    })
}

/// `POST /webhook_endpoints/{id}` as received: members left out stay as
/// they are.
#[derive(Clone, Debug, Default)]
pub struct Change {
    pub url: Option<String>,
    pub enabled_events: Option<Vec<String>>,
    pub settings: Settings,
    /// `true` pauses deliveries, `false` resumes them.
    pub disabled: Option<bool>,
}

impl Change {
    /// A change's members other than its URL (whose network check comes
    /// first): the events if given, then the settings.
    pub fn check(&self) -> Result<(), Refusal> {
        if let Some(events) = &self.enabled_events {
            check_events(events)?;
        }
        check_settings(&self.settings)
    }

    /// `current` with this change made; `url` is the change's URL as the
    /// network policy accepted it.
    pub fn apply(self, current: &WebhookEndpoint, url: Option<String>) -> WebhookEndpoint {
        let Settings {
            description,
            api_version,
            metadata,
        } = self.settings;
        WebhookEndpoint {
            url: url.unwrap_or_else(|| current.url.clone()),
            enabled_events: self
                .enabled_events
                .unwrap_or_else(|| current.enabled_events.clone()),
            description: description.or_else(|| current.description.clone()),
            api_version: api_version.or_else(|| current.api_version.clone()),
            metadata: metadata.unwrap_or_else(|| current.metadata.clone()),
            status: match self.disabled {
                Some(true) => EndpointStatus::Disabled,
                Some(false) => EndpointStatus::Enabled,
                None => current.status,
            },
            ..current.clone()
        }
    }
}

/// `overlap_seconds`: 0 to `MAX_OVERLAP_S` (`range`, with the bound),
/// `DEFAULT_OVERLAP_S` when absent.
pub fn check_overlap(raw: Option<i64>) -> Result<i64, Vec<Problem>> {
    let overlap = raw.unwrap_or(DEFAULT_OVERLAP_S);
    if !(0..=MAX_OVERLAP_S).contains(&overlap) {
        return Problem::bounded("overlap_seconds", "range", MAX_OVERLAP_S).alone();
    }
    Ok(overlap)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn events(e: &[&str]) -> Vec<String> {
        e.iter().map(|s| (*s).to_owned()).collect()
    }

    fn registration() -> Registration {
        Registration {
            url: Some("https://partner.example/hooks".into()),
            enabled_events: Some(events(&["application.submitted"])),
            settings: Settings::default(),
        }
    }

    #[test]
    fn events_are_known_types_or_the_wildcard_alone() {
        assert_eq!(check_events(&events(&["*"])), Ok(()));
        assert_eq!(check_events(&events(&["decision.completed"])), Ok(()));
        assert_eq!(
            check_events(&[]),
            Err(invalid("enabled_events", "min_items"))
        );
        assert_eq!(
            check_events(&events(&["*", "decision.completed"])),
            Err(invalid("enabled_events", "wildcard_alone"))
        );
        assert_eq!(
            check_events(&events(&["nope", "decision.completed", "also.nope"])),
            Err(Refusal::UnknownEvents(vec![
                Problem::new("enabled_events[0]", "unknown_event_type"),
                Problem::new("enabled_events[2]", "unknown_event_type"),
            ]))
        );
    }

    #[test]
    fn a_registration_is_refused_by_its_first_broken_rule() {
        let ok = check_registration(&registration());
        assert_eq!(
            ok.map(|c| c.url),
            Ok("https://partner.example/hooks".to_owned())
        );
        let refused = |r: Registration| check_registration(&r).err();
        assert_eq!(
            refused(Registration {
                url: None,
                enabled_events: None,
                ..registration()
            }),
            Some(invalid("url", "required"))
        );
        assert_eq!(
            refused(Registration {
                enabled_events: None,
                ..registration()
            }),
            Some(invalid("enabled_events", "required"))
        );
        let long = Settings {
            description: Some("d".repeat(MAX_DESCRIPTION + 1)),
            api_version: Some("1999-01-01".into()),
            ..Settings::default()
        };
        assert_eq!(
            refused(Registration {
                enabled_events: Some(vec![]),
                settings: long.clone(),
                ..registration()
            }),
            Some(invalid("enabled_events", "min_items"))
        );
        assert_eq!(
            refused(Registration {
                settings: long.clone(),
                ..registration()
            }),
            Some(invalid("description", "max_length"))
        );
        assert_eq!(
            refused(Registration {
                settings: Settings {
                    description: Some("d".repeat(MAX_DESCRIPTION)),
                    ..long
                },
                ..registration()
            }),
            Some(invalid("api_version", "unknown_version"))
        );
        assert_eq!(
            refused(Registration {
                settings: Settings {
                    metadata: Some(BTreeMap::from([(String::new(), "v".into())])),
                    ..Settings::default()
                },
                ..registration()
            }),
            Some(invalid("metadata.", "key_length"))
        );
    }

    #[test]
    fn a_change_checks_only_what_it_names() {
        assert_eq!(Change::default().check(), Ok(()));
        let no_events = Change {
            enabled_events: Some(vec![]),
            ..Change::default()
        };
        assert_eq!(
            no_events.check(),
            Err(invalid("enabled_events", "min_items"))
        );
        let versioned = Change {
            settings: Settings {
                api_version: HUB_API_VERSIONS.first().map(|v| (*v).to_owned()),
                ..Settings::default()
            },
            ..Change::default()
        };
        assert_eq!(versioned.check(), Ok(()));
    }

    fn endpoint() -> WebhookEndpoint {
        WebhookEndpoint {
            id: crate::sandbox::ids::PublishedId::from_stored("whe_1".into()),
            owner: crate::tenant::Tenant::sandbox_client("cli_1"),
            url: "https://old.example/hook".into(),
            enabled_events: vec!["application.created".into()],
            description: Some("kept".into()),
            status: EndpointStatus::Enabled,
            created_at: time::OffsetDateTime::UNIX_EPOCH,
            api_version: None,
            metadata: BTreeMap::from([("k".into(), "v".into())]),
        }
    }

    #[test]
    fn a_change_keeps_what_it_leaves_out() {
        let current = endpoint();
        assert_eq!(Change::default().apply(&current, None), current);
        let changed = Change {
            enabled_events: Some(vec!["decision.made".into()]),
            settings: Settings {
                metadata: Some(BTreeMap::new()),
                ..Settings::default()
            },
            disabled: Some(true),
            ..Change::default()
        }
        .apply(&current, Some("https://new.example/hook".into()));
        assert_eq!(
            changed,
            WebhookEndpoint {
                url: "https://new.example/hook".into(),
                enabled_events: vec!["decision.made".into()],
                metadata: BTreeMap::new(),
                status: EndpointStatus::Disabled,
                ..current
            }
        );
    }

    #[test]
    fn a_url_is_at_most_2048_bytes() {
        assert_eq!(check_url_length("url", &"a".repeat(MAX_URL)), Ok(()));
        assert_eq!(
            check_url_length("webhook_url", &"a".repeat(MAX_URL + 1)),
            Err(vec![Problem::new("webhook_url", "max_length")])
        );
    }

    proptest! {
        #[test]
        fn an_overlap_is_a_week_at_most(s in -100_000i64..800_000) {
            let checked = check_overlap(Some(s));
            if (0..=MAX_OVERLAP_S).contains(&s) {
                prop_assert_eq!(checked, Ok(s));
            } else {
                prop_assert_eq!(
                    checked,
                    Err(vec![Problem::bounded("overlap_seconds", "range", MAX_OVERLAP_S)])
                );
            }
        }
    }

    #[test]
    fn an_overlap_defaults_to_a_day() {
        assert_eq!(check_overlap(None), Ok(DEFAULT_OVERLAP_S));
    }
}
