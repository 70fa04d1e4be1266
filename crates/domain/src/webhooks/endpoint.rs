//! Webhook endpoints and the delivery retry schedule from the hub document:
//! immediately, ~1 min, ~5 min, ~30 min, ~2 h, then every ~6 h until ~72 h after
//! the first attempt, with jitter.

use serde::{Deserialize, Serialize};
use time::{Duration, OffsetDateTime};

use crate::clock::{from_unix_ms, unix_ms};
use crate::retry::{Attempted, Backoff};
use crate::sandbox::events::ALL_EVENTS;
use crate::sandbox::ids::PublishedId;
use crate::tenant::Tenant;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EndpointStatus {
    Enabled,
    Disabled,
}

impl EndpointStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            EndpointStatus::Enabled => "enabled",
            EndpointStatus::Disabled => "disabled",
        }
    }

    pub fn parse(raw: &str) -> Option<Self> {
        match raw {
            "enabled" => Some(EndpointStatus::Enabled),
            "disabled" => Some(EndpointStatus::Disabled),
            _ => None,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WebhookEndpoint {
    pub id: PublishedId,
    pub owner: Tenant,
    pub url: String,
    pub enabled_events: Vec<String>,
    pub description: Option<String>,
    pub status: EndpointStatus,
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
    /// The API version its payloads are pinned to (hub); `None`: the
    /// account's version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_version: Option<String>,
    /// Up to 20 string pairs the owner attached, returned verbatim (hub).
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub metadata: std::collections::BTreeMap<String, String>,
}

impl WebhookEndpoint {
    /// What the endpoint receives, as the stores keep it beside the row.
    pub fn subscription(&self) -> Subscription {
        Subscription {
            endpoint_id: self.id.as_str().to_owned(),
            status: self.status,
            enabled_events: self.enabled_events.clone(),
        }
    }

    /// Whether an event of `event_type` is delivered to this endpoint.
    pub fn receives(&self, event_type: &str) -> bool {
        receives(self.status, &self.enabled_events, event_type)
    }
}

/// An endpoint's subscription: the facts that decide which of an owner's
/// endpoints an event is delivered to. Both stores load these for the
/// event's owner and ask [`Subscription::receives`]; the rule lives only here.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Subscription {
    pub endpoint_id: String,
    pub status: EndpointStatus,
    /// Event types, or [`ALL_EVENTS`].
    pub enabled_events: Vec<String>,
}

impl Subscription {
    pub fn receives(&self, event_type: &str) -> bool {
        receives(self.status, &self.enabled_events, event_type)
    }
}

/// The endpoints among `subscriptions` that an event of `event_type` is
/// delivered to, in the order given.
pub fn recipients<'a>(
    subscriptions: &'a [Subscription],
    event_type: &'a str,
) -> impl Iterator<Item = &'a str> + 'a {
    subscriptions
        .iter()
        .filter(move |s| s.receives(event_type))
        .map(|s| s.endpoint_id.as_str())
}

/// An enabled endpoint receives the types it names, or every type through
/// the wildcard; a disabled one receives nothing.
fn receives(status: EndpointStatus, enabled_events: &[String], event_type: &str) -> bool {
    status == EndpointStatus::Enabled
        && enabled_events
            .iter()
            .any(|e| e == ALL_EVENTS || e == event_type)
}

/// The signing secret: `whsec_` + 256 random bits.
pub fn secret_text(random: [u8; 32]) -> String {
    format!("whsec_{}", crate::partner::credentials::token_text(&random))
}

pub const DELIVERY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);
pub const GIVE_UP_AFTER: Duration = Duration::hours(72);
const EARLY_DELAYS: [Duration; 4] = [
    Duration::minutes(1),
    Duration::minutes(5),
    Duration::minutes(30),
    Duration::hours(2),
];
const LATE_DELAY: Duration = Duration::hours(6);

/// When to try again after attempt number `attempt` (1-based) failed, given when
/// the first attempt was due. `jitter` in [-1, 1] spreads retries by up to ±10 %.
/// `None` means the schedule is exhausted: the attempt at 72 h was the last.
pub fn next_attempt_at(
    first_due: OffsetDateTime,
    previous_due: OffsetDateTime,
    attempt: u32,
    jitter: f64,
) -> Option<OffsetDateTime> {
    let deadline = first_due + GIVE_UP_AFTER;
    if previous_due >= deadline {
        return None;
    }
    let base = EARLY_DELAYS
        .get(attempt as usize - 1)
        .copied()
        .unwrap_or(LATE_DELAY);
    let spread = base * (jitter.clamp(-1.0, 1.0) * 0.1);
    Some((previous_due + base + spread).min(deadline))
}

/// The hub document's delivery schedule as a [`Backoff`]: a retry is timed
/// from when the failed attempt was due, or from when it ran if it ran late.
#[derive(Clone, Copy, Debug, Default)]
pub struct DeliverySchedule;

impl Backoff for DeliverySchedule {
    fn next_attempt_ms(&self, failed: Attempted) -> Option<i64> {
        let previous = failed.due_ms.max(failed.now_ms).max(failed.first_due_ms);
        next_attempt_at(
            from_unix_ms(failed.first_due_ms),
            from_unix_ms(previous),
            failed.attempt,
            failed.jitter,
        )
        .map(unix_ms)
    }
}

/// An endpoint is disabled once every attempt to reach it has failed for
/// this long (hub seed: "after roughly 72 hours of continuous delivery
/// failure"): the failures of the endpoint, not of one event's schedule.
pub const DISABLE_AFTER: Duration = Duration::hours(72);

/// A run of failures starts when its first failure is recorded, a moment
/// after that attempt was due; a schedule's last attempt is due exactly 72 h
/// after its first. This much tolerance keeps that last attempt from
/// falling just short of the mark.
const DISABLE_TOLERANCE: Duration = Duration::minutes(1);

/// Whether a failed attempt at `now` disables its endpoint, which has been
/// failing since `failing_since` (`None`: this failure starts the run).
pub fn failure_disables(failing_since: Option<OffsetDateTime>, now: OffsetDateTime) -> bool {
    failing_since.is_some_and(|since| now - since >= DISABLE_AFTER - DISABLE_TOLERANCE)
}

/// A unit of outbox work: one event to one endpoint.
#[derive(Clone, Debug, PartialEq)]
pub struct Delivery {
    pub id: i64,
    pub event_id: PublishedId,
    pub endpoint_id: PublishedId,
    pub owner: Tenant,
    pub attempt: u32,
    pub first_due: OffsetDateTime,
    pub due: OffsetDateTime,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_72_hours_of_the_endpoints_own_failures_disable_it() {
        let t0 = OffsetDateTime::UNIX_EPOCH;
        assert!(
            !failure_disables(None, t0 + Duration::days(30)),
            "a first failure never does"
        );
        assert!(!failure_disables(Some(t0), t0 + Duration::hours(71)));
        assert!(failure_disables(Some(t0), t0 + Duration::hours(72)));
        assert!(
            failure_disables(Some(t0 + Duration::seconds(2)), t0 + Duration::hours(72)),
            "the last attempt of a schedule counts, recorded a moment late or not"
        );
    }

    fn subscription(id: &str, status: EndpointStatus, events: &[&str]) -> Subscription {
        Subscription {
            endpoint_id: id.into(),
            status,
            enabled_events: events.iter().map(|e| e.to_string()).collect(),
        }
    }

    #[test]
    fn an_enabled_endpoint_receives_what_it_names_or_everything_by_wildcard() {
        use EndpointStatus::*;
        let subs = [
            subscription("all", Enabled, &["*"]),
            subscription("failed", Enabled, &["payment.failed"]),
            subscription("settled", Enabled, &["payment.settled"]),
            subscription("none", Enabled, &[]),
            subscription("off", Disabled, &["*"]),
        ];
        let got: Vec<&str> = recipients(&subs, "payment.failed").collect();
        assert_eq!(got, ["all", "failed"]);
        assert!(
            !subs[4].receives("payment.failed"),
            "a disabled endpoint receives nothing"
        );
    }

    #[test]
    fn schedule_without_jitter_matches_the_hub_table_and_ends_at_72_hours() {
        let t0 = OffsetDateTime::UNIX_EPOCH;
        let mut due = t0;
        let mut offsets = vec![];
        let mut attempt = 1;
        while let Some(next) = next_attempt_at(t0, due, attempt, 0.0) {
            due = next;
            attempt += 1;
            offsets.push((due - t0).whole_minutes());
        }
        assert_eq!(&offsets[..5], &[1, 6, 36, 156, 516]);
        assert_eq!(*offsets.last().unwrap_or(&0), 72 * 60);
        assert_eq!(attempt, 17, "17 attempts in all");
    }

    #[test]
    fn jitter_stays_within_ten_percent() {
        let t0 = OffsetDateTime::UNIX_EPOCH;
        let hi = next_attempt_at(t0, t0, 2, 1.0).unwrap();
        let lo = next_attempt_at(t0, t0, 2, -1.0).unwrap();
        assert_eq!(hi - t0, Duration::minutes(5) + Duration::seconds(30));
        assert_eq!(lo - t0, Duration::minutes(5) - Duration::seconds(30));
    }
}
