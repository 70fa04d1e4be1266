//! Several stores on one database act as one.

use lendhub_domain::sandbox::events::EventType;
use lendhub_store::*;

use crate::support::*;

/// Two stores on one database behave as one: a key is recorded once however
/// the race falls, and a delivery claimed by one is not claimed by the other
/// until its lease lapses.
#[tokio::test]
async fn two_stores_on_one_database_act_as_one() {
    let db = Database::fresh().await;
    let (a, b) = (db.open().await, db.open().await);
    a.commit(set(vec![endpoint_record()], None)).await.unwrap();
    let mut races = Vec::new();
    for n in 0..20i64 {
        for store in [a.clone(), b.clone()] {
            races.push(tokio::spawn(async move {
                let app = application(100 + n);
                let writes = vec![
                    Write::Sandbox(SandboxWrite::InsertApplication(record(&app))),
                    Write::Events(EventWrite::InsertEvent(event(
                        EventType::ApplicationCreated,
                        100 + n,
                    ))),
                ];
                (
                    n,
                    store.commit(set(writes, Some(&format!("race-{n}")))).await,
                )
            }));
        }
    }
    let mut winners = std::collections::HashMap::new();
    for race in races {
        let (n, result) = race.await.unwrap();
        match result {
            Ok(()) => *winners.entry(n).or_insert(0) += 1,
            Err(CommitError::IdempotencyKeyTaken) => {}
            Err(e) => panic!("race {n}: {e}"),
        }
    }
    assert_eq!(winners.len(), 20);
    assert!(winners.values().all(|&w| w == 1), "{winners:?}");
    assert_eq!(event_count(a.as_ref()).await, 20);
    assert_eq!(event_count(b.as_ref()).await, 20);

    let claim = |real: i64| Lease {
        holder: "worker".into(),
        due_before_ms: i64::MAX,
        real_now_ms: real,
        lease_until_ms: real + 60_000,
        limit: 100,
    };
    let lease = claim(0);
    let (by_a, by_b) = tokio::join!(a.claim_deliveries(&lease), b.claim_deliveries(&lease));
    let (by_a, by_b) = (by_a.unwrap(), by_b.unwrap());
    assert_eq!(by_a.len() + by_b.len(), 20, "each delivery claimed once");
    assert!(b.claim_deliveries(&claim(1)).await.unwrap().is_empty());
    let taken_over = b.claim_deliveries(&claim(60_001)).await.unwrap();
    assert_eq!(taken_over.len(), 20, "lapsed leases are claimable again");

    let first = a.bind_setting("check", b"one").await.unwrap();
    let second = b.bind_setting("check", b"two").await.unwrap();
    assert_eq!(
        (first.as_slice(), second.as_slice()),
        (&b"one"[..], &b"one"[..])
    );
}

/// Instances starting together on a new database: each migration runs once
/// (a second run would fail on tables that already exist) and all come up.
#[tokio::test]
async fn instances_starting_at_once_migrate_once() {
    let db = Database::fresh().await;
    let (a, b, c, d) = tokio::join!(db.open(), db.open(), db.open(), db.open());
    for store in [&a, &b, &c, &d] {
        store.ping().await.unwrap();
    }
    a.commit(set(
        vec![Write::Sandbox(SandboxWrite::InsertApplication(record(
            &application(5),
        )))],
        Some("k-after-migrate"),
    ))
    .await
    .unwrap();
    assert!(
        d.idempotency(&tenant(OWNER), "k-after-migrate")
            .await
            .unwrap()
            .is_some()
    );
}
