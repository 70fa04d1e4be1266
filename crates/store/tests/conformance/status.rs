//! The status page's storage: day tallies that add across instances, the
//! webhook lag, incidents and their updates.

use lendhub_domain::ids::{HubId, IncidentId};
use lendhub_domain::sandbox::events::EventType;
use lendhub_domain::status::{DayTally, Health};
use lendhub_store::*;

use crate::support::*;

fn day(component: &str, day: &str, health: Health) -> DayRecord {
    DayRecord {
        component: component.into(),
        day: day.into(),
        tally: DayTally::one(health),
    }
}

#[tokio::test]
async fn tallies_add_up_across_instances_and_read_back_by_day() {
    let db = Database::fresh().await;
    let (a, b) = (db.open().await, db.open().await);
    a.add_status_tallies(vec![
        day("database", "2026-11-25", Health::Operational),
        day("database", "2026-11-26", Health::Operational),
        day("sandbox", "2026-11-26", Health::DegradedPerformance),
    ])
    .await
    .unwrap();
    b.add_status_tallies(vec![
        day("database", "2026-11-26", Health::MajorOutage),
        day("database", "2026-11-26", Health::Operational),
    ])
    .await
    .unwrap();
    let days = a.status_days("2026-11-26").await.unwrap();
    assert_eq!(days.len(), 2, "{days:?}");
    assert_eq!(days[0].component, "database");
    assert_eq!(
        days[0].tally,
        DayTally {
            operational: 2,
            major: 1,
            ..DayTally::default()
        }
    );
    assert_eq!(days[1].component, "sandbox");
    assert_eq!(days[1].tally.degraded, 1);
    assert_eq!(b.status_days("2026-11-25").await.unwrap().len(), 3);
    assert!(b.status_days("2026-11-27").await.unwrap().is_empty());
}

#[tokio::test]
async fn the_delivery_lag_is_the_oldest_due_deliverys_wait() {
    let (store, _db) = store().await;
    assert_eq!(
        store.delivery_lag_ms(5_000).await.unwrap(),
        None,
        "nothing queued"
    );
    store
        .commit(set(vec![endpoint_record()], None))
        .await
        .unwrap();
    store
        .commit(set(
            vec![Write::Events(EventWrite::InsertEvent(event(
                EventType::ApplicationCreated,
                1_000,
            )))],
            None,
        ))
        .await
        .unwrap();
    assert_eq!(
        store.delivery_lag_ms(999).await.unwrap(),
        None,
        "not due yet"
    );
    assert_eq!(store.delivery_lag_ms(5_000).await.unwrap(), Some(4_000));
    // On an owner's moved clock the delivery is due sooner in service time.
    store.commit(set_clock(OWNER, 0, 2_000)).await.unwrap();
    assert_eq!(store.delivery_lag_ms(5_000).await.unwrap(), Some(6_000));
    let claimed = store.claim_deliveries(&claim_at(5_000, 0)).await.unwrap();
    store
        .finish_delivery(DeliveryResult::Delivered {
            id: claimed[0].delivery.id,
            status: 200,
            heard: Heard::default(),
            at_ms: 5_000,
            ends_failures: false,
        })
        .await
        .unwrap();
    assert_eq!(
        store.delivery_lag_ms(5_000).await.unwrap(),
        None,
        "delivered"
    );
}

/// The test's `n`th incident id, made as `lendhub status` makes them.
fn inc(n: u128) -> IncidentId {
    IncidentId::generate(1_000, n)
}

fn incident(id: &IncidentId, kind: &str, at_ms: i64) -> IncidentRecord {
    IncidentRecord {
        id: id.to_string(),
        kind: kind.into(),
        name: format!("{kind} {id}"),
        status: if kind == "incident" {
            "investigating"
        } else {
            "scheduled"
        }
        .into(),
        impact: "minor".into(),
        components: vec!["database".into(), "sandbox".into()],
        scheduled_for_ms: (kind == "maintenance").then_some(at_ms + 100),
        scheduled_until_ms: (kind == "maintenance").then_some(at_ms + 200),
        created_at_ms: at_ms,
        updated_at_ms: at_ms,
        resolved_at_ms: None,
        updates: vec![IncidentUpdateRecord {
            id: format!("{id}_u1"),
            incident_id: id.to_string(),
            status: if kind == "incident" {
                "investigating"
            } else {
                "scheduled"
            }
            .into(),
            body: "first".into(),
            created_at_ms: at_ms,
        }],
    }
}

#[tokio::test]
async fn incidents_move_only_from_the_status_their_writer_saw() {
    let (store, _db) = store().await;
    store
        .create_incident(incident(&inc(1), "incident", 1_000))
        .await
        .unwrap();
    store
        .create_incident(incident(&inc(2), "maintenance", 2_000))
        .await
        .unwrap();
    store
        .create_incident(incident(&inc(3), "incident", 3_000))
        .await
        .unwrap();
    assert!(
        store
            .create_incident(incident(&inc(1), "incident", 4_000))
            .await
            .is_err(),
        "an id is stored once"
    );
    assert_eq!(
        store.incident(&inc(2)).await.unwrap(),
        Some(incident(&inc(2), "maintenance", 2_000))
    );
    assert_eq!(store.incident(&inc(9)).await.unwrap(), None);

    let update = |n: u32, status: &str, at_ms| IncidentUpdateRecord {
        id: format!("{}_u{n}", inc(1)),
        incident_id: inc(1).to_string(),
        status: status.into(),
        body: format!("update {n}"),
        created_at_ms: at_ms,
    };
    assert!(
        store
            .add_incident_update(update(2, "identified", 5_000), "investigating", false)
            .await
            .unwrap()
    );
    assert!(
        !store
            .add_incident_update(update(3, "monitoring", 5_001), "investigating", false)
            .await
            .unwrap(),
        "a second writer who saw the old status moves nothing"
    );
    assert!(
        store
            .add_incident_update(update(4, "resolved", 6_000), "identified", true)
            .await
            .unwrap()
    );
    let one = store.incident(&inc(1)).await.unwrap().unwrap();
    assert_eq!(one.status, "resolved");
    assert_eq!(one.updated_at_ms, 6_000);
    assert_eq!(one.resolved_at_ms, Some(6_000));
    let statuses: Vec<_> = one.updates.iter().map(|u| u.status.as_str()).collect();
    assert_eq!(statuses, ["investigating", "identified", "resolved"]);

    // Open ones whatever their age, closed ones updated since the cut-off,
    // newest first.
    let ids = |list: Vec<IncidentRecord>| list.into_iter().map(|i| i.id).collect::<Vec<_>>();
    assert_eq!(
        ids(store.recent_incidents(0, 10).await.unwrap()),
        [inc(3), inc(2), inc(1)].map(|i| i.to_string())
    );
    assert_eq!(
        ids(store.recent_incidents(6_001, 10).await.unwrap()),
        [inc(3), inc(2)].map(|i| i.to_string())
    );
    assert_eq!(
        ids(store.recent_incidents(0, 1).await.unwrap()),
        [inc(3).to_string()]
    );
    let recent = store.recent_incidents(0, 10).await.unwrap();
    assert_eq!(recent[2].updates.len(), 3, "each with its updates");
}
