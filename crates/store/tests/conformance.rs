//! What every storage backend must do, tested through the `Store` trait only.
//! A new backend runs this same suite.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use lendhub_domain::application::Application;
use lendhub_domain::decisioning::decide;
use lendhub_domain::events::{Event, EventType};
use lendhub_domain::ids::SandboxId;
use lendhub_domain::webhook::{EndpointStatus, WebhookEndpoint};
use lendhub_store::*;
use time::OffsetDateTime;

const OWNER: &str = "pk_test_owner";

mod common;
use common::Database;

async fn store() -> (Arc<dyn Store>, Database) {
    let db = Database::fresh().await;
    (db.open().await, db)
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
        clock_offset_ms: 0,
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
    let (store, _db) = store().await;
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
    let (store, _db) = store().await;
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
    let (store, _db) = store().await;
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
    let (store, _db) = store().await;
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
    let (store, _db) = store().await;
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
    let (store, _db) = store().await;
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
    let (store, _db) = store().await;
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

fn endpoint_record() -> Write {
    Write::InsertEndpoint(EndpointRecord {
        endpoint: WebhookEndpoint {
            id: SandboxId::new_random(0),
            owner: OWNER.into(),
            url: "https://example.com/h".into(),
            enabled_events: vec!["*".into()],
            description: None,
            status: EndpointStatus::Enabled,
            created_at: at(0),
        },
        sealed_secret: vec![1, 2, 3],
    })
}

/// Many write sets committed at once share group commits; the ones that fail
/// fail alone, and the rest land whole.
#[tokio::test]
async fn concurrent_write_sets_fail_alone() {
    let (store, _db) = store().await;
    store
        .commit(set(
            vec![Write::InsertApplication(record(&application(1)))],
            Some("taken"),
        ))
        .await
        .unwrap();
    let stale = application(2);
    store
        .commit(set(vec![Write::InsertApplication(record(&stale))], None))
        .await
        .unwrap();
    let mut tasks = Vec::new();
    for n in 0..60i64 {
        let store = store.clone();
        let stale = stale.clone();
        tasks.push(tokio::spawn(async move {
            let app = application(10 + n);
            let mut writes = vec![
                Write::InsertApplication(record(&app)),
                Write::InsertEvent(event(EventType::ApplicationCreated, 10 + n)),
            ];
            let key = match n % 10 {
                3 => "taken".to_owned(),
                7 => {
                    // Claims to follow version 5: stale.
                    let mut next = stale.clone();
                    next.version = 6;
                    writes.push(Write::UpdateApplication(record(&next)));
                    format!("key-{n}")
                }
                _ => format!("key-{n}"),
            };
            (n, app, store.commit(set(writes, Some(&key))).await)
        }));
    }
    let mut landed = 0;
    for task in tasks {
        let (n, app, result) = task.await.unwrap();
        let stored = store.application(OWNER, app.id.as_str()).await.unwrap();
        match n % 10 {
            3 => assert!(
                matches!(result, Err(CommitError::IdempotencyKeyTaken)),
                "{n}: {result:?}"
            ),
            7 => assert!(
                matches!(result, Err(CommitError::Conflict)),
                "{n}: {result:?}"
            ),
            _ => {
                assert!(result.is_ok(), "{n}: {result:?}");
                landed += 1;
            }
        }
        assert_eq!(stored.is_some(), result.is_ok(), "{n}: all or nothing");
    }
    assert_eq!(landed, 48);
    assert_eq!(event_count(store.as_ref()).await, 48);
}

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
                    Write::InsertApplication(record(&app)),
                    Write::InsertEvent(event(EventType::ApplicationCreated, 100 + n)),
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

    let claim = |real: i64| DeliveryClaim {
        due_before_ms: i64::MAX,
        real_now_ms: real,
        lease_until_ms: real + 60_000,
        limit: 100,
    };
    let (by_a, by_b) = tokio::join!(a.claim_deliveries(claim(0)), b.claim_deliveries(claim(0)));
    let (by_a, by_b) = (by_a.unwrap(), by_b.unwrap());
    assert_eq!(by_a.len() + by_b.len(), 20, "each delivery claimed once");
    assert!(b.claim_deliveries(claim(1)).await.unwrap().is_empty());
    let taken_over = b.claim_deliveries(claim(60_001)).await.unwrap();
    assert_eq!(taken_over.len(), 20, "lapsed leases are claimable again");

    let first = a.bind_setting("check", b"one").await.unwrap();
    let second = b.bind_setting("check", b"two").await.unwrap();
    assert_eq!(
        (first.as_slice(), second.as_slice()),
        (&b"one"[..], &b"one"[..])
    );
}

/// Events written concurrently through two stores page back complete, newest
/// first, each exactly once.
#[tokio::test]
async fn concurrent_events_page_back_complete() {
    let db = Database::fresh().await;
    let (a, b) = (db.open().await, db.open().await);
    let mut writers = Vec::new();
    for n in 0..100i64 {
        let store = if n % 2 == 0 { a.clone() } else { b.clone() };
        writers.push(tokio::spawn(async move {
            let e = event(EventType::ApplicationCreated, 1_000 + n);
            let id = e.id.as_str().to_owned();
            store
                .commit(set(vec![Write::InsertEvent(e)], None))
                .await
                .unwrap();
            id
        }));
    }
    let mut written = std::collections::HashSet::new();
    for w in writers {
        written.insert(w.await.unwrap());
    }
    let mut seen = Vec::new();
    let mut after = None;
    loop {
        let page = b
            .list_events(
                OWNER,
                &EventQuery {
                    limit: 7,
                    starting_after: after.clone(),
                    ..Default::default()
                },
            )
            .await
            .unwrap();
        let EventPage::Page { events, has_more } = page else {
            panic!("cursor unknown")
        };
        after = events.last().map(|e| e.id.as_str().to_owned());
        seen.extend(events.into_iter().map(|e| e.id.as_str().to_owned()));
        if !has_more {
            break;
        }
    }
    assert_eq!(seen.len(), 100);
    assert_eq!(
        seen.iter()
            .cloned()
            .collect::<std::collections::HashSet<_>>(),
        written
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
        vec![Write::InsertApplication(record(&application(5)))],
        Some("k-after-migrate"),
    ))
    .await
    .unwrap();
    assert!(
        d.idempotency(OWNER, "k-after-migrate")
            .await
            .unwrap()
            .is_some()
    );
}

fn signing_key(kid: &str, at: i64) -> SigningKeyRecord {
    SigningKeyRecord {
        kid: kid.into(),
        purpose: "partner".into(),
        state: KeyState::Current,
        sealed_private: vec![1],
        public_key: vec![2],
        created_at_ms: at,
    }
}

/// Partner projects, the signing-key ring and revoked token ids.
#[tokio::test]
async fn partner_clients_signing_keys_and_revocations() {
    use lendhub_domain::partner::{PartnerStatus, Tier};
    let db = Database::fresh().await;
    let (a, b) = (db.open().await, db.open().await);
    let mut epoch = b.partner_epoch().await.unwrap();
    // Every partner change, made through either handle, moves the epoch
    // both see.
    let mut moved = async |why: &str| {
        let now = a.partner_epoch().await.unwrap();
        assert!(now > epoch, "{why} moves the partner epoch");
        assert_eq!(b.partner_epoch().await.unwrap(), now);
        epoch = now;
    };
    a.insert_partner_client(PartnerClientRecord {
        client_id: "pk_live_a".into(),
        name: "acme".into(),
        secret_hash: vec![9; 32],
        scopes: "mcp.read".into(),
        tier: Tier::Launch,
        status: PartnerStatus::Active,
        sandbox_client_id: None,
        created_at_ms: 1,
    })
    .await
    .unwrap();
    moved("a new client").await;
    let change = PartnerClientChange::Status(PartnerStatus::Suspended);
    assert!(
        b.update_partner_client("pk_live_a", change, 2)
            .await
            .unwrap()
    );
    moved("a suspension").await;
    assert!(
        !b.update_partner_client("pk_live_none", PartnerClientChange::SecretHash(vec![1]), 2)
            .await
            .unwrap()
    );
    let stored = a.partner_client("pk_live_a").await.unwrap().unwrap();
    assert_eq!(
        (stored.tier, stored.status),
        (Tier::Launch, PartnerStatus::Suspended)
    );
    assert_eq!(b.list_partner_clients().await.unwrap().len(), 1);

    // Two instances racing to create the first key agree on one.
    let (x, y) = tokio::join!(
        a.ensure_signing_key(signing_key("k1", 10)),
        b.ensure_signing_key(signing_key("k1b", 10))
    );
    x.unwrap();
    y.unwrap();
    let ring = a.signing_keys("partner").await.unwrap();
    assert_eq!(ring.len(), 1);
    let first = ring[0].kid.clone();
    b.rotate_signing_key(signing_key("k2", 20)).await.unwrap();
    let ring = a.signing_keys("partner").await.unwrap();
    let kids: Vec<(&str, KeyState)> = ring.iter().map(|k| (k.kid.as_str(), k.state)).collect();
    assert_eq!(
        kids,
        vec![
            ("k2", KeyState::Current),
            (first.as_str(), KeyState::Previous)
        ]
    );
    a.rotate_signing_key(signing_key("k3", 30)).await.unwrap();
    let kids: Vec<String> = b
        .signing_keys("partner")
        .await
        .unwrap()
        .into_iter()
        .map(|k| k.kid)
        .collect();
    assert_eq!(kids, vec!["k3", "k2"], "only one previous key is kept");

    assert!(
        !b.partner_client_and_revocation("pk_live_a", "jti-1")
            .await
            .unwrap()
            .1
    );
    let revoked = RevokedToken {
        jti: "jti-1".into(),
        client_id: "pk_live_a".into(),
        expires_at_ms: 1_000,
        revoked_at_ms: 500,
    };
    a.revoke_jwt(revoked.clone()).await.unwrap();
    moved("a revocation").await;
    a.revoke_jwt(revoked).await.unwrap();
    assert!(
        b.partner_client_and_revocation("pk_live_a", "jti-1")
            .await
            .unwrap()
            .1,
        "seen by every instance"
    );
    b.prune(0, 1_001).await.unwrap();
    assert!(
        !a.partner_client_and_revocation("pk_live_a", "jti-1")
            .await
            .unwrap()
            .1,
        "pruned once it would have expired"
    );
}

/// Enquiries with their queued notification, the mail outbox's claim, lease,
/// retry and give-up, and CMS pages.
#[tokio::test]
async fn enquiries_mail_outbox_and_cms_pages() {
    let db = Database::fresh().await;
    let (a, b) = (db.open().await, db.open().await);
    let enquiry = |n: u32| EnquiryRecord {
        id: format!("enq_{n}"),
        form: "contact".into(),
        dept: n.is_multiple_of(2).then(|| "support".into()),
        fields: r#"{"consent":"yes"}"#.into(),
        status: "new".into(),
        created_at_ms: 100,
    };
    let mail = |n: u32, due_ms| MailRecord {
        id: format!("mail_{n}"),
        enquiry_id: format!("enq_{n}"),
        recipient: "support@example.test".into(),
        subject: "New enquiry".into(),
        body: "hello".into(),
        due_ms,
    };
    a.insert_enquiry(enquiry(1), mail(1, 100)).await.unwrap();
    a.insert_enquiry(enquiry(2), mail(2, 5_000)).await.unwrap();
    assert_eq!(b.enquiry("enq_1").await.unwrap(), Some(enquiry(1)));
    assert_eq!(
        b.enquiry("enq_2").await.unwrap().unwrap().dept.as_deref(),
        Some("support")
    );
    assert_eq!(b.enquiry("enq_9").await.unwrap(), None);
    assert!(
        a.insert_enquiry(enquiry(1), mail(3, 100)).await.is_err(),
        "an id is stored once"
    );
    assert_eq!(
        a.mail_status("enq_3").await.unwrap(),
        None,
        "a failed insert leaves no mail behind"
    );

    let claim = |due_before_ms, real_now_ms| MailClaim {
        due_before_ms,
        real_now_ms,
        lease_until_ms: real_now_ms + 60_000,
        limit: 10,
    };
    let claimed = a.claim_mail(claim(1_000, 0)).await.unwrap();
    assert_eq!(claimed.len(), 1, "only what is due");
    assert_eq!(claimed[0].mail, mail(1, 100));
    assert_eq!((claimed[0].attempts, claimed[0].first_due_ms), (0, 100));
    assert!(
        b.claim_mail(claim(1_000, 1)).await.unwrap().is_empty(),
        "leased to the first worker"
    );
    b.finish_mail(MailResult::Failed {
        id: "mail_1".into(),
        error: "connection refused".into(),
        retry_at_ms: Some(2_000),
    })
    .await
    .unwrap();
    let status = a.mail_status("enq_1").await.unwrap().unwrap();
    assert_eq!(
        (
            status.state.as_str(),
            status.attempts,
            status.last_error.as_deref()
        ),
        ("pending", 1, Some("connection refused"))
    );
    assert!(a.claim_mail(claim(1_999, 2)).await.unwrap().is_empty());
    let again = b.claim_mail(claim(2_000, 2)).await.unwrap();
    assert_eq!((again.len(), again[0].attempts), (1, 1));
    a.finish_mail(MailResult::Sent {
        id: "mail_1".into(),
        at_ms: 2_001,
    })
    .await
    .unwrap();
    assert_eq!(b.mail_status("enq_1").await.unwrap().unwrap().state, "sent");
    // A lease that lapsed (the worker died) is claimed again.
    assert_eq!(a.claim_mail(claim(5_000, 10)).await.unwrap().len(), 1);
    assert_eq!(b.claim_mail(claim(5_000, 70_011)).await.unwrap().len(), 1);
    b.finish_mail(MailResult::Failed {
        id: "mail_2".into(),
        error: "gave up".into(),
        retry_at_ms: None,
    })
    .await
    .unwrap();
    assert_eq!(
        a.mail_status("enq_2").await.unwrap().unwrap().state,
        "failed"
    );
    assert!(
        a.claim_mail(claim(i64::MAX, i64::MAX - 60_000))
            .await
            .unwrap()
            .is_empty()
    );

    assert_eq!(
        a.put_cms_page("about", "About", "# About", false, 1)
            .await
            .unwrap(),
        1
    );
    assert_eq!(
        b.put_cms_page("about", "About us", "# Us", true, 2)
            .await
            .unwrap(),
        2
    );
    a.put_cms_page("faq", "FAQ", "q?", true, 3).await.unwrap();
    let page = a.cms_page("about").await.unwrap().unwrap();
    assert_eq!(
        (
            page.title.as_str(),
            page.body.as_str(),
            page.published,
            page.version,
            page.updated_at_ms
        ),
        ("About us", "# Us", true, 2, 2)
    );
    assert_eq!(b.cms_page("none").await.unwrap(), None);
    let keys: Vec<String> = b
        .list_cms_pages()
        .await
        .unwrap()
        .into_iter()
        .map(|p| p.key)
        .collect();
    assert_eq!(keys, ["about", "faq"]);
}

// Sandbox test helpers (issue 7): per-client clocks, referral reviews,
// endpoint disabling, expiring idempotency keys and resets.

const OTHER: &str = "pk_test_other";

fn client_named(id: &str) -> ClientRecord {
    ClientRecord {
        client_id: id.into(),
        ..active_client()
    }
}

fn set_clock(owner: &str, from: i64, to: i64) -> WriteSet {
    set(
        vec![Write::SetClock {
            owner: owner.into(),
            from_offset_ms: from,
            to_offset_ms: to,
        }],
        None,
    )
}

fn endpoint_of(owner: &str) -> WebhookEndpoint {
    WebhookEndpoint {
        id: SandboxId::new_random(0),
        owner: owner.into(),
        url: "https://example.com/h".into(),
        enabled_events: vec!["*".into()],
        description: None,
        status: EndpointStatus::Enabled,
        created_at: at(0),
    }
}

fn event_of(owner: &str, kind: EventType, now_ms: i64) -> Event {
    Event {
        owner: owner.into(),
        ..event(kind, now_ms)
    }
}

fn claim_at(service_now_ms: i64, real: i64) -> DeliveryClaim {
    DeliveryClaim {
        due_before_ms: service_now_ms,
        real_now_ms: real,
        lease_until_ms: real + 60_000,
        limit: 100,
    }
}

/// A client's clock is an offset kept with it: read with its tokens, moved
/// only from the offset it was read at, and applied to its deliveries' due
/// times and no one else's.
#[tokio::test]
async fn each_clients_clock_times_its_own_deliveries() {
    let (store, _db) = store().await;
    store.insert_client(active_client()).await.unwrap();
    store.insert_client(client_named(OTHER)).await.unwrap();
    store
        .commit(set(vec![Write::InsertToken(token(1, i64::MAX))], None))
        .await
        .unwrap();
    assert_eq!(
        store
            .token(&[1; 16])
            .await
            .unwrap()
            .unwrap()
            .clock_offset_ms,
        0
    );
    store.commit(set_clock(OWNER, 0, 3_600_000)).await.unwrap();
    assert_eq!(
        store
            .token(&[1; 16])
            .await
            .unwrap()
            .unwrap()
            .clock_offset_ms,
        3_600_000
    );
    assert!(
        matches!(
            store.commit(set_clock(OWNER, 0, 7_200_000)).await,
            Err(CommitError::Conflict)
        ),
        "an advance computed from a stale clock loses"
    );

    // Both owners have a delivery due at 10 h on their own clocks.
    for owner in [OWNER, OTHER] {
        let mut writes = vec![Write::InsertEndpoint(EndpointRecord {
            endpoint: endpoint_of(owner),
            sealed_secret: vec![1],
        })];
        writes.push(Write::InsertEvent(event_of(
            owner,
            EventType::ApplicationCreated,
            36_000_000,
        )));
        store.commit(set(writes, None)).await.unwrap();
    }
    let due_for = |claimed: &[ClaimedDelivery]| {
        claimed
            .iter()
            .map(|c| (c.delivery.owner.clone(), c.clock_offset_ms))
            .collect::<Vec<_>>()
    };
    let early = store
        .claim_deliveries(claim_at(36_000_000 - 3_600_000, 0))
        .await
        .unwrap();
    assert_eq!(
        due_for(&early),
        vec![(OWNER.to_owned(), 3_600_000)],
        "the owner an hour ahead is due an hour sooner"
    );
    assert_eq!(early[0].endpoint.owner, OWNER);
    let later = store
        .claim_deliveries(claim_at(36_000_000, 0))
        .await
        .unwrap();
    assert_eq!(due_for(&later), vec![(OTHER.to_owned(), 0)]);
}

/// A key expires a day after it was recorded, on its owner's clock: after
/// that a new request may record it again; before, it is taken.
#[tokio::test]
async fn idempotency_keys_expire_on_their_owners_clock() {
    let (store, _db) = store().await;
    store.insert_client(active_client()).await.unwrap();
    let day = 86_400_000;
    let keyed = |created_at_ms: i64, status: u16| {
        let mut s = set(vec![], None);
        s.idempotency = Some(IdempotencyRecord {
            status,
            ..idempotency("daily-key", created_at_ms)
        });
        s
    };
    store.commit(keyed(1_000, 201)).await.unwrap();
    assert!(matches!(
        store.commit(keyed(1_000 + day - 1, 202)).await,
        Err(CommitError::IdempotencyKeyTaken)
    ));
    store.commit(keyed(1_000 + day, 202)).await.unwrap();
    let stored = store
        .idempotency(OWNER, "daily-key")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (stored.status, stored.created_at_ms),
        (202, 1_000 + day),
        "the expired record was replaced"
    );

    // Pruning: the owner's clock runs 10 days ahead, so its day-old record
    // goes although the service clock's cut-off has not reached it.
    store.commit(set_clock(OWNER, 0, 10 * day)).await.unwrap();
    let mut other = set(vec![], None);
    other.idempotency = Some(IdempotencyRecord {
        owner: OTHER.into(),
        ..idempotency("daily-key", 1_000 + day)
    });
    store.commit(other).await.unwrap();
    store.prune(day, 0).await.unwrap();
    assert!(
        store
            .idempotency(OWNER, "daily-key")
            .await
            .unwrap()
            .is_none()
    );
    assert!(
        store
            .idempotency(OTHER, "daily-key")
            .await
            .unwrap()
            .is_some(),
        "another owner's clock did not move"
    );
}

/// A referred application is due for review a day after its decision on its
/// owner's clock, and is no longer due once settled.
#[tokio::test]
async fn referral_reviews_fall_due_on_their_owners_clock() {
    let (store, _db) = store().await;
    store.insert_client(active_client()).await.unwrap();
    let referred = Application::new(
        SandboxId::new_random(1_000),
        OWNER.into(),
        "00000402".into(),
        1_000_000,
        decide("00000402", 1_000_000),
        at(1_000),
    );
    let approved = application(1_000);
    store
        .commit(set(
            vec![
                Write::InsertApplication(record(&referred)),
                Write::InsertApplication(record(&approved)),
            ],
            None,
        ))
        .await
        .unwrap();
    let due_ms = 1_000 + 86_400_000;
    assert!(
        store
            .due_referrals(None, due_ms - 1, 10)
            .await
            .unwrap()
            .is_empty()
    );
    store.commit(set_clock(OWNER, 0, 1)).await.unwrap();
    let due = store.due_referrals(None, due_ms - 1, 10).await.unwrap();
    assert_eq!(due.len(), 1, "one millisecond ahead, it is due");
    assert_eq!(due[0].application.id, referred.id);
    assert_eq!(due[0].clock_offset_ms, 1);
    assert_eq!(
        store
            .due_referrals(Some(OWNER), due_ms, 10)
            .await
            .unwrap()
            .len(),
        1
    );
    assert!(
        store
            .due_referrals(Some(OTHER), due_ms, 10)
            .await
            .unwrap()
            .is_empty()
    );
    let settled = referred.settle_referral(at(due_ms)).unwrap();
    store
        .commit(set(vec![Write::UpdateApplication(record(&settled))], None))
        .await
        .unwrap();
    assert!(
        store
            .due_referrals(None, i64::MAX, 10)
            .await
            .unwrap()
            .is_empty()
    );
    assert!(
        matches!(
            store
                .commit(set(vec![Write::UpdateApplication(record(&settled))], None))
                .await,
            Err(CommitError::Conflict)
        ),
        "a review is settled once"
    );
}

/// Disabling an endpoint ends its pending deliveries; it takes no new ones
/// until enabled again. Each change applies only from the status it expects.
#[tokio::test]
async fn a_disabled_endpoint_is_not_attempted_until_enabled() {
    let (store, _db) = store().await;
    let endpoint = endpoint_of(OWNER);
    store
        .commit(set(
            vec![
                Write::InsertEndpoint(EndpointRecord {
                    endpoint: endpoint.clone(),
                    sealed_secret: vec![1],
                }),
                Write::InsertEvent(event(EventType::ApplicationCreated, 1_000)),
            ],
            None,
        ))
        .await
        .unwrap();
    let disabled = WebhookEndpoint {
        status: EndpointStatus::Disabled,
        ..endpoint.clone()
    };
    let change = |e: &WebhookEndpoint, from| {
        set(
            vec![Write::SetEndpointStatus {
                endpoint: e.clone(),
                from,
            }],
            None,
        )
    };
    store
        .commit(change(&disabled, EndpointStatus::Enabled))
        .await
        .unwrap();
    assert!(matches!(
        store
            .commit(change(&disabled, EndpointStatus::Enabled))
            .await,
        Err(CommitError::Conflict)
    ));
    assert_eq!(
        store.endpoints(OWNER).await.unwrap()[0].endpoint.status,
        EndpointStatus::Disabled
    );
    store
        .commit(set(
            vec![Write::InsertEvent(event(
                EventType::DecisionCompleted,
                2_000,
            ))],
            None,
        ))
        .await
        .unwrap();
    assert!(
        store
            .claim_deliveries(claim_at(i64::MAX, 0))
            .await
            .unwrap()
            .is_empty(),
        "neither the pending delivery nor a new event reaches it"
    );
    store
        .commit(change(&endpoint, EndpointStatus::Disabled))
        .await
        .unwrap();
    assert!(
        store
            .claim_deliveries(claim_at(i64::MAX, 0))
            .await
            .unwrap()
            .is_empty(),
        "the deliveries it missed stay ended"
    );
    store
        .commit(set(
            vec![Write::InsertEvent(event(EventType::OfferAccepted, 3_000))],
            None,
        ))
        .await
        .unwrap();
    let claimed = store.claim_deliveries(claim_at(i64::MAX, 0)).await.unwrap();
    assert_eq!(claimed.len(), 1, "enabled again, it takes new events");
    assert_eq!(claimed[0].endpoint.status, EndpointStatus::Enabled);
}

/// A reset removes everything one owner has and puts its clock back; the
/// other owner keeps everything, and the owner's event log still moves on.
#[tokio::test]
async fn a_reset_removes_one_owners_rows_only() {
    let (store, _db) = store().await;
    store.insert_client(active_client()).await.unwrap();
    store.insert_client(client_named(OTHER)).await.unwrap();
    store.commit(set_clock(OWNER, 0, 5_000)).await.unwrap();
    let mut apps = Vec::new();
    for owner in [OWNER, OTHER] {
        let mut app = application(1_000);
        app.owner = owner.into();
        let funded = app
            .accept(
                lendhub_domain::payment::BankAccount::BankSettle,
                SandboxId::new_random(1_000),
                at(1_000),
            )
            .unwrap();
        let payment = funded.funding.clone().unwrap();
        let mut writes = set(
            vec![
                Write::InsertEndpoint(EndpointRecord {
                    endpoint: endpoint_of(owner),
                    sealed_secret: vec![1],
                }),
                Write::InsertApplication(record(&app)),
                Write::InsertPayment(payment),
                Write::InsertEvent(event_of(owner, EventType::ApplicationCreated, 1_000)),
            ],
            None,
        );
        writes.idempotency = Some(IdempotencyRecord {
            owner: owner.into(),
            ..idempotency("made-it", 1_000)
        });
        store.commit(writes).await.unwrap();
        apps.push(app);
    }
    let before = store.event_log_position(OWNER).await.unwrap();
    let mut reset = set(
        vec![Write::ResetOwner {
            owner: OWNER.into(),
            keep_key: Some("reset-key".into()),
        }],
        None,
    );
    reset.idempotency = Some(idempotency("reset-key", 2_000));
    store.commit(reset).await.unwrap();

    assert!(
        store
            .application(OWNER, apps[0].id.as_str())
            .await
            .unwrap()
            .is_none()
    );
    assert_eq!(event_count(store.as_ref()).await, 0);
    assert_eq!(store.event_log_position(OWNER).await.unwrap(), None);
    assert!(store.endpoints(OWNER).await.unwrap().is_empty());
    assert!(store.idempotency(OWNER, "made-it").await.unwrap().is_none());
    assert!(
        store
            .idempotency(OWNER, "reset-key")
            .await
            .unwrap()
            .is_some(),
        "the reset's own key stays, so a retry replays it"
    );
    assert!(
        matches!(
            store.commit(set_clock(OWNER, 5_000, 6_000)).await,
            Err(CommitError::Conflict)
        ),
        "the clock is back at zero"
    );
    store.commit(set_clock(OWNER, 0, 0)).await.unwrap();
    assert!(
        store
            .claim_deliveries(claim_at(i64::MAX, 0))
            .await
            .unwrap()
            .iter()
            .all(|c| c.delivery.owner == OTHER),
        "the owner's deliveries are gone"
    );

    assert!(
        store
            .application(OTHER, apps[1].id.as_str())
            .await
            .unwrap()
            .is_some()
    );
    assert_eq!(store.endpoints(OTHER).await.unwrap().len(), 1);
    assert!(store.idempotency(OTHER, "made-it").await.unwrap().is_some());
    assert!(store.event_log_position(OTHER).await.unwrap().is_some());

    store
        .commit(set(
            vec![Write::InsertEvent(event(
                EventType::ApplicationCreated,
                3_000,
            ))],
            None,
        ))
        .await
        .unwrap();
    assert!(
        store.event_log_position(OWNER).await.unwrap() > before,
        "positions are never reused, so a page kept from before is never served"
    );
}
