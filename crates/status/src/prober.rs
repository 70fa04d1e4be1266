//! The probe round: every component's listener asked over HTTP, the
//! database pinged, the delivery lag measured; the results judged, counted
//! into the day's history and published as the page's snapshot.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

use lendhub_domain::clock::from_unix_ms;
use lendhub_domain::status::{self, Component, DayTally, Health, Kind, Probe};
use lendhub_store::DayRecord;
use tokio_util::sync::CancellationToken;

use crate::state::{ComponentState, Snapshot, StatusState, Target};

/// The history the page shows.
pub const HISTORY_DAYS: i64 = 90;
/// Incidents read per round: open ones and the most recent closed ones.
const INCIDENTS: u32 = 50;

/// Runs rounds until `stop`: one at once, then one per interval, or sooner
/// when woken. Without an interval, only when woken.
pub async fn run(state: StatusState, stop: CancellationToken) {
    let mut pending = BTreeMap::new();
    let Some(interval) = state.settings().interval else {
        loop {
            tokio::select! {
                () = state.inner.wake.notified() => round(&state, &mut pending).await,
                () = stop.cancelled() => return,
            }
        }
    };
    loop {
        round(&state, &mut pending).await;
        tokio::select! {
            () = tokio::time::sleep(interval) => {}
            () = state.inner.wake.notified() => {}
            () = stop.cancelled() => return,
        }
    }
}

/// The UTC date of `ms`.
pub fn day_of(ms: i64) -> String {
    let d = from_unix_ms(ms).date();
    format!("{:04}-{:02}-{:02}", d.year(), u8::from(d.month()), d.day())
}

struct Answer {
    answered: bool,
    latency_ms: u64,
    detail: String,
}

async fn ask(state: &StatusState, target: &Target) -> Answer {
    let started = Instant::now();
    let result = state.inner.http.get(&target.url).send().await;
    let latency_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    match result {
        Ok(r) if r.status().as_u16() == target.expect => Answer {
            answered: true,
            latency_ms,
            detail: format!("answered {} in {latency_ms} ms", r.status().as_u16()),
        },
        Ok(r) => Answer {
            answered: false,
            latency_ms,
            detail: format!(
                "answered {} (expected {})",
                r.status().as_u16(),
                target.expect
            ),
        },
        Err(e) if e.is_timeout() => Answer {
            answered: false,
            latency_ms,
            detail: "did not answer in time".into(),
        },
        Err(_) => Answer {
            answered: false,
            latency_ms,
            detail: "refused the connection".into(),
        },
    }
}

/// One round. `pending` holds the tallies not yet written (the database was
/// down): they are written with the next round that can.
pub async fn round(state: &StatusState, pending: &mut BTreeMap<(Component, String), DayTally>) {
    let inner = &state.inner;
    let now_ms = inner.clock.now_ms();
    let timeout = state.settings().timeout;

    let ping = async {
        let started = Instant::now();
        let up = matches!(
            tokio::time::timeout(timeout, inner.database.ping()).await,
            Ok(Ok(()))
        );
        (
            up,
            u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
        )
    };
    // `Some(None)`: the queue was read and nothing is due.
    let lag = async {
        match tokio::time::timeout(timeout, inner.store.delivery_lag_ms(now_ms)).await {
            Ok(Ok(lag)) => Some(lag.map(|ms| u64::try_from(ms).unwrap_or(0))),
            _ => None,
        }
    };
    let answers = futures_join(state);
    let ((database_up, ping_ms), lag, answers) = tokio::join!(ping, lag, answers);

    let previous = state.snapshot();
    let (incidents, history, read_at_ms) = if database_up {
        write_tallies(state, pending).await;
        read_back(state, now_ms, &previous).await
    } else {
        (
            previous.incidents.clone(),
            previous.history.clone(),
            previous.read_at_ms,
        )
    };

    let mut components = Vec::with_capacity(Component::ALL.len());
    let mut push = |component: Component, probe: Probe, detail: String| {
        let mut health = status::judge(component, probe);
        if under_maintenance(&incidents, component, now_ms) {
            health = Health::UnderMaintenance;
        }
        let since_ms = previous
            .components
            .iter()
            .find(|c| c.component == component && c.health == health)
            .map_or(now_ms, |c| c.since_ms);
        components.push(ComponentState {
            component,
            health,
            since_ms,
            latency_ms: Some(probe.latency_ms),
            lag_ms: probe.lag_ms,
            detail,
        });
    };
    for (target, answer) in inner.targets.iter().zip(answers) {
        let detail = if answer.answered && !database_up && target.component != Component::Database {
            format!("{}; the database does not answer", answer.detail)
        } else {
            answer.detail
        };
        push(
            target.component,
            Probe {
                answered: answer.answered,
                latency_ms: answer.latency_ms,
                database_up,
                lag_ms: None,
            },
            detail,
        );
    }
    push(
        Component::WebhookDelivery,
        Probe {
            answered: lag.is_some(),
            latency_ms: 0,
            database_up,
            lag_ms: lag.map(|l| l.unwrap_or(0)),
        },
        match lag {
            Some(Some(ms)) => format!("oldest due delivery waiting {}", human(ms)),
            Some(None) => "no delivery waiting".into(),
            None => "the delivery queue cannot be read".into(),
        },
    );
    push(
        Component::Database,
        Probe {
            answered: database_up,
            latency_ms: ping_ms,
            database_up,
            lag_ms: None,
        },
        if database_up {
            format!("answered in {ping_ms} ms")
        } else {
            "does not answer".into()
        },
    );
    components.sort_by_key(|c| c.component);

    let today = day_of(now_ms);
    let mut shown = history;
    for c in &components {
        let key = (c.component, today.clone());
        pending.entry(key.clone()).or_default().add(c.health);
        shown.entry(key).or_default().add(c.health);
    }
    if database_up {
        write_tallies(state, pending).await;
    }
    let cut = day_of(now_ms - (HISTORY_DAYS - 1) * 86_400_000);
    shown.retain(|(_, day), _| *day >= cut);
    pending.retain(|(_, day), _| *day >= cut);

    *inner.snapshot.write() = Arc::new(Snapshot {
        checked_at_ms: Some(now_ms),
        components,
        incidents,
        read_at_ms,
        history: shown,
    });
}

async fn futures_join(state: &StatusState) -> Vec<Answer> {
    let mut tasks = Vec::with_capacity(state.inner.targets.len());
    for target in &state.inner.targets {
        let state = state.clone();
        let target = target.clone();
        tasks.push(tokio::spawn(async move { ask(&state, &target).await }));
    }
    let mut answers = Vec::with_capacity(tasks.len());
    for task in tasks {
        answers.push(task.await.unwrap_or(Answer {
            answered: false,
            latency_ms: 0,
            detail: "the probe failed".into(),
        }));
    }
    answers
}

/// Writes what is pending; keeps it for the next round if that fails.
async fn write_tallies(state: &StatusState, pending: &mut BTreeMap<(Component, String), DayTally>) {
    if pending.is_empty() {
        return;
    }
    let records = pending
        .iter()
        .map(|((component, day), tally)| DayRecord {
            component: component.key().to_owned(),
            day: day.clone(),
            tally: *tally,
        })
        .collect();
    match state.inner.store.add_status_tallies(records).await {
        Ok(()) => pending.clear(),
        Err(e) => {
            tracing::warn!(error = %e, "recording the status history failed; kept for the next round")
        }
    }
}

type Read = (
    Vec<lendhub_store::IncidentRecord>,
    BTreeMap<(Component, String), DayTally>,
    Option<i64>,
);

/// Incidents and history as stored; what was shown before if a read fails.
async fn read_back(state: &StatusState, now_ms: i64, previous: &Snapshot) -> Read {
    let store = &state.inner.store;
    let since_ms = now_ms - HISTORY_DAYS * 86_400_000;
    let since_day = day_of(since_ms + 86_400_000);
    match tokio::join!(
        store.recent_incidents(since_ms, INCIDENTS),
        store.status_days(&since_day)
    ) {
        (Ok(incidents), Ok(days)) => {
            let history = days
                .into_iter()
                .filter_map(|d| Some(((Component::parse(&d.component)?, d.day), d.tally)))
                .collect();
            (incidents, history, Some(now_ms))
        }
        _ => (
            previous.incidents.clone(),
            previous.history.clone(),
            previous.read_at_ms,
        ),
    }
}

fn under_maintenance(
    incidents: &[lendhub_store::IncidentRecord],
    component: Component,
    now_ms: i64,
) -> bool {
    incidents.iter().any(|i| {
        Kind::parse(&i.kind) == Some(Kind::Maintenance)
            && i.components.iter().any(|c| c == component.key())
            && status::in_maintenance(
                &i.status,
                (
                    i.scheduled_for_ms.unwrap_or(i.created_at_ms),
                    i.scheduled_until_ms.unwrap_or(i64::MAX),
                ),
                now_ms,
            )
    })
}

/// "3 s", "4 min", "2 h 5 min".
pub fn human(ms: u64) -> String {
    let s = ms / 1000;
    match s {
        0..60 => format!("{s} s"),
        60..3600 => format!("{} min", s / 60),
        _ => format!("{} h {} min", s / 3600, (s % 3600) / 60),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn days_are_utc_dates() {
        assert_eq!(day_of(0), "1970-01-01");
        assert_eq!(day_of(1_795_000_000_000), "2026-11-18");
    }

    #[test]
    fn waits_read_in_the_largest_unit() {
        assert_eq!(human(4_000), "4 s");
        assert_eq!(human(240_000), "4 min");
        assert_eq!(human(7_500_000), "2 h 5 min");
    }
}
