//! What every storage backend must do, tested through the `Store` trait only.
//! A new backend runs this same suite.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use lendhub_domain::application::Application;
use lendhub_domain::decisioning::decide;
use lendhub_domain::events::{Event, EventType};
use lendhub_domain::ids::SandboxId;
use lendhub_domain::webhook::{EndpointStatus, WebhookEndpoint};
use lendhub_store::sqlite::SqliteStore;
use lendhub_store::*;
use time::OffsetDateTime;

const OWNER: &str = "pk_test_owner";

fn sqlite() -> (Arc<dyn Store>, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    (
        Arc::new(SqliteStore::open(&dir.path().join("t.db")).unwrap()),
        dir,
    )
}

fn at(ms: i64) -> OffsetDateTime {
    lendhub_domain::clock::from_unix_ms(ms)
}

fn application(now_ms: i64) -> Application {
    let id = SandboxId::new_random(now_ms as u64);
    Application::new(
        id,
        OWNER.into(),
        "00000401".into(),
        5_000,
        decide("00000401", 5_000),
        at(now_ms),
    )
}

fn record(app: &Application) -> ApplicationRecord {
    ApplicationRecord {
        application: app.clone(),
        rendered: format!("{{\"id\":\"{}\"}}", app.id),
    }
}

fn event(kind: EventType, now_ms: i64) -> Event {
    let id = SandboxId::new_random(now_ms as u64);
    Event {
        body: format!("{{\"id\":\"{id}\"}}"),
        id,
        owner: OWNER.into(),
        event_type: kind,
        created_at: at(now_ms),
    }
}

fn idempotency(key: &str, now_ms: i64) -> IdempotencyRecord {
    IdempotencyRecord {
        owner: OWNER.into(),
        key: key.into(),
        fingerprint: [1; 32],
        status: 201,
        body: b"{}".to_vec(),
        created_at_ms: now_ms,
    }
}

fn set(writes: Vec<Write>, key: Option<&str>) -> WriteSet {
    WriteSet {
        writes,
        idempotency: key.map(|k| idempotency(k, 1_000)),
    }
}

fn active_client() -> ClientRecord {
    ClientRecord {
        client_id: OWNER.into(),
        name: "t".into(),
        secret_hash: vec![0; 32],
        scopes: "sandbox:read".into(),
        status: ClientStatus::Active,
        created_at_ms: 0,
    }
}

fn token(selector: u8, expires_at_ms: i64) -> TokenRecord {
    TokenRecord {
        selector: [selector; 16],
        verifier_hash: [9; 32],
        client_id: OWNER.into(),
        scopes: "sandbox:read".into(),
        expires_at_ms,
        created_at_ms: 0,
    }
}

async fn event_count(store: &dyn Store) -> usize {
    match store
        .list_events(
            OWNER,
            &EventQuery {
                limit: 100,
                ..Default::default()
            },
        )
        .await
        .unwrap()
    {
        EventPage::Page { events, .. } => events.len(),
        EventPage::UnknownCursor => panic!("no cursor was given"),
    }
}

#[tokio::test]
async fn a_taken_idempotency_key_fails_the_whole_write_set() {
    let (store, _dir) = sqlite();
    let first = application(1_000);
    store
        .commit(set(
            vec![
                Write::InsertApplication(record(&first)),
                Write::InsertEvent(event(EventType::ApplicationCreated, 1_000)),
            ],
            Some("key-1"),
        ))
        .await
        .unwrap();
    let second = application(1_001);
    let err = store
        .commit(set(
            vec![
                Write::InsertApplication(record(&second)),
                Write::InsertEvent(event(EventType::ApplicationCreated, 1_001)),
            ],
            Some("key-1"),
        ))
        .await;
    assert!(matches!(err, Err(CommitError::IdempotencyKeyTaken)));
    assert!(
        store
            .application(OWNER, second.id.as_str())
            .await
            .unwrap()
            .is_none()
    );
    assert_eq!(event_count(store.as_ref()).await, 1);
    assert_eq!(
        store
            .idempotency(OWNER, "key-1")
            .await
            .unwrap()
            .unwrap()
            .status,
        201
    );
    assert!(
        store
            .idempotency("pk_test_other", "key-1")
            .await
            .unwrap()
            .is_none(),
        "keys are per owner"
    );
}

#[tokio::test]
async fn a_stale_version_fails_the_whole_write_set() {
    let (store, _dir) = sqlite();
    let app = application(1_000);
    store
        .commit(set(vec![Write::InsertApplication(record(&app))], None))
        .await
        .unwrap();
    let mut next = app.clone();
    next.version = 2;
    store
        .commit(set(vec![Write::UpdateApplication(record(&next))], None))
        .await
        .unwrap();
    // A second writer that read version 1 too.
    let err = store
        .commit(set(
            vec![
                Write::UpdateApplication(record(&next)),
                Write::InsertEvent(event(EventType::OfferAccepted, 2_000)),
            ],
            None,
        ))
        .await;
    assert!(matches!(err, Err(CommitError::Conflict)));
    assert_eq!(event_count(store.as_ref()).await, 0);
    assert_eq!(
        store
            .application(OWNER, app.id.as_str())
            .await
            .unwrap()
            .unwrap()
            .version,
        2
    );
    assert_eq!(
        store
            .rendered_application(OWNER, app.id.as_str())
            .await
            .unwrap()
            .unwrap(),
        record(&next).rendered
    );
    assert!(
        store
            .application("pk_test_other", app.id.as_str())
            .await
            .unwrap()
            .is_none(),
        "rows are owner-scoped"
    );
}

#[tokio::test]
async fn the_outbox_leases_retries_and_finishes_deliveries() {
    let (store, _dir) = sqlite();
    let endpoint = WebhookEndpoint {
        id: SandboxId::new_random(0),
        owner: OWNER.into(),
        url: "https://example.com/h".into(),
        enabled_events: vec!["application.created".into()],
        description: None,
        status: EndpointStatus::Enabled,
        created_at: at(0),
    };
    store
        .commit(set(
            vec![Write::InsertEndpoint(EndpointRecord {
                endpoint,
                sealed_secret: vec![1, 2, 3],
            })],
            None,
        ))
        .await
        .unwrap();
    store
        .commit(set(
            vec![
                Write::InsertEvent(event(EventType::ApplicationCreated, 1_000)),
                Write::InsertEvent(event(EventType::DecisionCompleted, 1_000)),
            ],
            None,
        ))
        .await
        .unwrap();
    let claim = |due: i64, real: i64| DeliveryClaim {
        due_before_ms: due,
        real_now_ms: real,
        lease_until_ms: real + 60_000,
        limit: 10,
    };
    assert!(
        store
            .claim_deliveries(claim(999, 0))
            .await
            .unwrap()
            .is_empty(),
        "not yet due"
    );
    let claimed = store.claim_deliveries(claim(1_000, 0)).await.unwrap();
    assert_eq!(claimed.len(), 1, "only the subscribed type is queued");
    assert_eq!(claimed[0].delivery.attempt, 1);
    assert!(
        store
            .claim_deliveries(claim(1_000, 1))
            .await
            .unwrap()
            .is_empty(),
        "leased"
    );
    assert_eq!(
        store
            .claim_deliveries(claim(1_000, 60_001))
            .await
            .unwrap()
            .len(),
        1,
        "a lapsed lease is claimable again"
    );
    let id = claimed[0].delivery.id;
    store
        .finish_delivery(DeliveryResult::Failed {
            id,
            status: Some(500),
            error: "boom".into(),
            retry_at_ms: Some(61_000),
            at_ms: 1_000,
        })
        .await
        .unwrap();
    assert!(
        store
            .claim_deliveries(claim(60_999, 70_000))
            .await
            .unwrap()
            .is_empty(),
        "waits for its retry time"
    );
    let retried = store.claim_deliveries(claim(61_000, 70_000)).await.unwrap();
    assert_eq!(retried[0].delivery.attempt, 2);
    store
        .finish_delivery(DeliveryResult::Delivered {
            id,
            status: 200,
            at_ms: 61_000,
        })
        .await
        .unwrap();
    assert!(
        store
            .claim_deliveries(claim(i64::MAX, 200_000))
            .await
            .unwrap()
            .is_empty(),
        "delivered is final"
    );
}

#[tokio::test]
async fn prune_drops_old_keys_and_expired_tokens_and_revocation_hides_tokens() {
    let (store, _dir) = sqlite();
    store.insert_client(active_client()).await.unwrap();
    store
        .commit(set(
            vec![
                Write::InsertToken(token(1, 1_000)),
                Write::InsertToken(token(2, 100_000)),
            ],
            Some("old-key"),
        ))
        .await
        .unwrap();
    let mut fresh = set(vec![], None);
    fresh.idempotency = Some(idempotency("new-key", 50_000));
    store.commit(fresh).await.unwrap();
    assert_eq!(store.prune(10_000, 10_000).await.unwrap(), 2);
    assert!(store.idempotency(OWNER, "old-key").await.unwrap().is_none());
    assert!(store.idempotency(OWNER, "new-key").await.unwrap().is_some());
    assert!(store.token(&[1; 16]).await.unwrap().is_none());
    assert_eq!(
        store.token(&[2; 16]).await.unwrap().unwrap().verifier_hash,
        [9; 32]
    );
    assert!(store.revoke_client(OWNER, 1).await.unwrap());
    assert!(
        store.token(&[2; 16]).await.unwrap().is_none(),
        "a revoked client's tokens are gone"
    );
    assert!(
        !store.revoke_client(OWNER, 2).await.unwrap(),
        "already revoked"
    );
}

#[tokio::test]
async fn events_page_newest_first_with_cursors_and_type_filter() {
    let (store, _dir) = sqlite();
    let mut ids = Vec::new();
    for i in 0..5 {
        let kind = if i % 2 == 0 {
            EventType::ApplicationCreated
        } else {
            EventType::DecisionCompleted
        };
        let e = event(kind, 1_000 + i);
        ids.push(e.id.to_string());
        store
            .commit(set(vec![Write::InsertEvent(e)], None))
            .await
            .unwrap();
    }
    let page = |q: EventQuery| {
        let store = store.clone();
        async move {
            match store.list_events(OWNER, &q).await.unwrap() {
                EventPage::Page { events, has_more } => (
                    events.iter().map(|e| e.id.to_string()).collect::<Vec<_>>(),
                    has_more,
                ),
                EventPage::UnknownCursor => (vec!["unknown".to_owned()], false),
            }
        }
    };
    assert_eq!(
        page(EventQuery {
            limit: 2,
            ..Default::default()
        })
        .await,
        (vec![ids[4].clone(), ids[3].clone()], true)
    );
    assert_eq!(
        page(EventQuery {
            limit: 2,
            starting_after: Some(ids[3].clone()),
            ..Default::default()
        })
        .await,
        (vec![ids[2].clone(), ids[1].clone()], true)
    );
    assert_eq!(
        page(EventQuery {
            limit: 2,
            ending_before: Some(ids[1].clone()),
            ..Default::default()
        })
        .await,
        (vec![ids[3].clone(), ids[2].clone()], true)
    );
    assert_eq!(
        page(EventQuery {
            limit: 10,
            event_type: Some("decision.completed".into()),
            ..Default::default()
        })
        .await,
        (vec![ids[3].clone(), ids[1].clone()], false)
    );
    assert_eq!(
        page(EventQuery {
            limit: 10,
            starting_after: Some("01M80315443YA5R416G7AADFJ2".into()),
            ..Default::default()
        })
        .await
        .0,
        vec!["unknown".to_owned()]
    );
}

#[tokio::test]
async fn the_event_log_position_moves_with_every_new_event_of_its_owner() {
    let (store, _dir) = sqlite();
    assert_eq!(store.event_log_position(OWNER).await.unwrap(), None);
    store
        .commit(set(
            vec![Write::InsertEvent(event(
                EventType::ApplicationCreated,
                1_000,
            ))],
            None,
        ))
        .await
        .unwrap();
    let first = store.event_log_position(OWNER).await.unwrap();
    assert!(first.is_some());
    let mut foreign = event(EventType::ApplicationCreated, 1_001);
    foreign.owner = "pk_test_other".into();
    store
        .commit(set(vec![Write::InsertEvent(foreign)], None))
        .await
        .unwrap();
    assert_eq!(
        store.event_log_position(OWNER).await.unwrap(),
        first,
        "another owner's events do not move it"
    );
    store
        .commit(set(
            vec![Write::InsertEvent(event(
                EventType::DecisionCompleted,
                1_002,
            ))],
            None,
        ))
        .await
        .unwrap();
    assert!(store.event_log_position(OWNER).await.unwrap() > first);
}

#[tokio::test]
async fn a_token_commits_only_while_its_client_is_active() {
    let (store, _dir) = sqlite();
    store.insert_client(active_client()).await.unwrap();
    store
        .commit(set(vec![Write::InsertToken(token(1, i64::MAX))], None))
        .await
        .unwrap();
    store.revoke_client(OWNER, 1).await.unwrap();
    let refused = store
        .commit(set(vec![Write::InsertToken(token(2, i64::MAX))], None))
        .await;
    assert!(matches!(refused, Err(CommitError::Conflict)));
    assert!(store.token(&[2; 16]).await.unwrap().is_none());
    let mut unknown = token(3, i64::MAX);
    unknown.client_id = "pk_test_nobody".into();
    assert!(matches!(
        store
            .commit(set(vec![Write::InsertToken(unknown)], None))
            .await,
        Err(CommitError::Conflict)
    ));
}
