//! The events context: newest-first pages with cursors and type filters, the log position.

use lendhub_domain::sandbox::events::EventType;
use lendhub_store::*;

use crate::support::*;

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
            .commit(set(vec![Write::Events(EventWrite::InsertEvent(e))], None))
            .await
            .unwrap();
    }
    let page = |q: EventQuery| {
        let store = store.clone();
        async move {
            match store.list_events(&tenant(OWNER), &q).await.unwrap() {
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
            page: PageQuery {
                limit: 2,
                ..Default::default()
            },

            ..Default::default()
        })
        .await,
        (vec![ids[4].clone(), ids[3].clone()], true)
    );
    assert_eq!(
        page(EventQuery {
            page: PageQuery {
                limit: 2,
                starting_after: Some(ids[3].clone()),
                ..Default::default()
            },

            ..Default::default()
        })
        .await,
        (vec![ids[2].clone(), ids[1].clone()], true)
    );
    assert_eq!(
        page(EventQuery {
            page: PageQuery {
                limit: 2,
                ending_before: Some(ids[1].clone()),
                ..Default::default()
            },

            ..Default::default()
        })
        .await,
        (vec![ids[3].clone(), ids[2].clone()], true)
    );
    assert_eq!(
        page(EventQuery {
            page: PageQuery {
                limit: 10,
                ..Default::default()
            },
            event_type: Some("decision.completed".into()),
            ..Default::default()
        })
        .await,
        (vec![ids[3].clone(), ids[1].clone()], false)
    );
    assert_eq!(
        page(EventQuery {
            page: PageQuery {
                limit: 10,
                starting_after: Some("01M80315443YA5R416G7AADFJ2".into()),
                ..Default::default()
            },

            ..Default::default()
        })
        .await
        .0,
        vec!["unknown".to_owned()]
    );
    // Created at 1000..=1004: strictly after 1002 leaves the last two,
    // paged like any other list.
    let after = |limit, starting_after: Option<String>| EventQuery {
        page: PageQuery {
            limit,
            starting_after,
            ..Default::default()
        },
        created_after_ms: Some(1_002),
        ..Default::default()
    };
    assert_eq!(
        page(after(10, None)).await,
        (vec![ids[4].clone(), ids[3].clone()], false)
    );
    assert_eq!(page(after(1, None)).await, (vec![ids[4].clone()], true));
    assert_eq!(
        page(after(1, Some(ids[4].clone()))).await,
        (vec![ids[3].clone()], false)
    );
    let before_all = EventQuery {
        page: PageQuery {
            limit: 10,
            ..Default::default()
        },
        created_after_ms: Some(0),
        event_type: Some("application.created".into()),
    };
    assert_eq!(
        page(before_all).await,
        (vec![ids[4].clone(), ids[2].clone(), ids[0].clone()], false),
        "with a type filter too"
    );
}

#[tokio::test]
async fn the_event_log_position_moves_with_every_new_event_of_its_owner() {
    let (store, _db) = store().await;
    assert_eq!(
        store.event_log_position(&tenant(OWNER)).await.unwrap(),
        None
    );
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
    let first = store.event_log_position(&tenant(OWNER)).await.unwrap();
    assert!(first.is_some());
    let mut foreign = event(EventType::ApplicationCreated, 1_001);
    foreign.owner = tenant("pk_test_other");
    store
        .commit(set(
            vec![Write::Events(EventWrite::InsertEvent(foreign))],
            None,
        ))
        .await
        .unwrap();
    assert_eq!(
        store.event_log_position(&tenant(OWNER)).await.unwrap(),
        first,
        "another owner's events do not move it"
    );
    store
        .commit(set(
            vec![Write::Events(EventWrite::InsertEvent(event(
                EventType::DecisionCompleted,
                1_002,
            )))],
            None,
        ))
        .await
        .unwrap();
    assert!(store.event_log_position(&tenant(OWNER)).await.unwrap() > first);
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
                .commit(set(vec![Write::Events(EventWrite::InsertEvent(e))], None))
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
                &tenant(OWNER),
                &EventQuery {
                    page: PageQuery {
                        limit: 7,
                        starting_after: after.clone(),
                        ..Default::default()
                    },

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

fn register(endpoint: &lendhub_domain::webhooks::endpoint::WebhookEndpoint, max: u32) -> WriteSet {
    set(
        vec![Write::Events(EventWrite::InsertEndpoint {
            record: EndpointRecord {
                endpoint: endpoint.clone(),
                sealed_secret: vec![1],
            },
            max_per_owner: max,
        })],
        None,
    )
}

/// The per-owner endpoint limit holds under concurrency (two stores racing
/// for the last slots), a deletion frees a slot, and updates, deletions and
/// secret rotations of an endpoint that is gone are conflicts.
#[tokio::test]
async fn endpoint_slots_updates_deletions_and_rotations() {
    let db = Database::fresh().await;
    let (a, b) = (db.open().await, db.open().await);
    let max = 3;
    let attempts: Vec<_> = (0..8)
        .map(|i| {
            let store = if i % 2 == 0 { a.clone() } else { b.clone() };
            let endpoint = endpoint_of(OWNER);
            tokio::spawn(async move { store.commit(register(&endpoint, max)).await })
        })
        .collect();
    let mut stored = 0;
    for attempt in attempts {
        match attempt.await.unwrap() {
            Ok(()) => stored += 1,
            Err(CommitError::Conflict) => {}
            Err(e) => panic!("{e:?}"),
        }
    }
    assert_eq!(
        stored, max,
        "exactly the limit, however the commits interleave"
    );
    let endpoints = a.endpoints(&tenant(OWNER)).await.unwrap();
    assert_eq!(endpoints.len(), 3);
    assert!(
        a.commit(register(&endpoint_of(OTHER), max)).await.is_ok(),
        "the limit is per owner"
    );

    let mut changed = endpoints[0].endpoint.clone();
    changed.description = Some("renamed".into());
    changed.enabled_events = vec!["payment.failed".into()];
    a.commit(set(
        vec![Write::Events(EventWrite::UpdateEndpoint(changed.clone()))],
        None,
    ))
    .await
    .unwrap();
    let reread = b.endpoints(&tenant(OWNER)).await.unwrap();
    let found = reread.iter().find(|r| r.endpoint.id == changed.id).unwrap();
    assert_eq!(found.endpoint, changed);
    let rotate = |id: &str| {
        set(
            vec![Write::Events(EventWrite::RotateEndpointSecret {
                id: id.to_owned(),
                owner: tenant(OWNER),
                sealed_secret: vec![9],
                previous_expires_at_ms: 5_000,
            })],
            None,
        )
    };
    a.commit(rotate(changed.id.as_str())).await.unwrap();
    let rotated = b.endpoints(&tenant(OWNER)).await.unwrap();
    assert_eq!(
        rotated
            .iter()
            .find(|r| r.endpoint.id == changed.id)
            .unwrap()
            .sealed_secret,
        vec![9]
    );

    let delete = |id: &str, owner: &str| {
        set(
            vec![Write::Events(EventWrite::DeleteEndpoint {
                id: id.to_owned(),
                owner: tenant(owner),
            })],
            None,
        )
    };
    assert!(
        matches!(
            a.commit(delete(changed.id.as_str(), OTHER)).await,
            Err(CommitError::Conflict)
        ),
        "another owner's endpoint is not found"
    );
    a.commit(delete(changed.id.as_str(), OWNER)).await.unwrap();
    assert_eq!(b.endpoints(&tenant(OWNER)).await.unwrap().len(), 2);
    for gone in [
        set(
            vec![Write::Events(EventWrite::UpdateEndpoint(changed.clone()))],
            None,
        ),
        rotate(changed.id.as_str()),
        delete(changed.id.as_str(), OWNER),
    ] {
        assert!(matches!(a.commit(gone).await, Err(CommitError::Conflict)));
    }
    b.commit(register(&endpoint_of(OWNER), max))
        .await
        .expect("the deletion freed a slot");
    assert!(matches!(
        a.commit(register(&endpoint_of(OWNER), max)).await,
        Err(CommitError::Conflict)
    ));
}

/// Events go after their retention on their owner's clock, with the
/// finished deliveries of that age; pending ones and younger events stay.
#[tokio::test]
async fn retention_prunes_old_events_and_finished_deliveries() {
    let (store, _db) = store().await;
    store
        .commit(set(vec![endpoint_record()], None))
        .await
        .unwrap();
    for at in [1_000, 2_000, 3_000] {
        store
            .commit(set(
                vec![Write::Events(EventWrite::InsertEvent(event(
                    EventType::ApplicationCreated,
                    at,
                )))],
                None,
            ))
            .await
            .unwrap();
    }
    let lease = Lease {
        holder: "w".into(),
        due_before_ms: i64::MAX,
        real_now_ms: 0,
        lease_until_ms: 60_000,
        limit: 10,
    };
    let claimed = store.claim_deliveries(&lease).await.unwrap();
    assert_eq!(claimed.len(), 3);
    // The oldest delivered; the second still pending.
    store
        .finish_delivery(DeliveryResult::Delivered {
            id: claimed[0].delivery.id,
            status: 200,
            heard: Heard::default(),
            at_ms: 1_000,
            ends_failures: true,
        })
        .await
        .unwrap();
    let before = store.event_log_position(&tenant(OWNER)).await.unwrap();
    let pruned = store
        .prune(Retention {
            idempotency_before_ms: 0,
            tokens_expired_before_ms: 0,
            events_before_ms: 2_500,
            journeys_before_ms: 0,
        })
        .await
        .unwrap();
    assert_eq!(pruned, 3, "two events and one finished delivery");
    assert_eq!(event_count(store.as_ref()).await, 1);
    let after = store.event_log_position(&tenant(OWNER)).await.unwrap();
    assert_ne!(after, before, "losing the oldest events moves the position");
    assert_eq!(after.map(|p| p.newest), before.map(|p| p.newest));
}
