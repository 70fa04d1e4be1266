//! The job queues: leases, retries, owners' clocks, disabled endpoints.

use lendhub_domain::sandbox::events::EventType;
use lendhub_domain::webhooks::endpoint::{EndpointStatus, WebhookEndpoint};
use lendhub_store::*;

use crate::support::*;
use lendhub_system::NewRandom;

#[tokio::test]
async fn the_outbox_leases_retries_and_finishes_deliveries() {
    let (store, _db) = store().await;
    let endpoint = WebhookEndpoint {
        id: lendhub_domain::sandbox::ids::EndpointId::new_random(0).into(),
        owner: tenant(OWNER),
        url: "https://example.com/h".into(),
        enabled_events: vec!["application.created".into()],
        description: None,
        status: EndpointStatus::Enabled,
        created_at: at(0),
        api_version: None,
        metadata: Default::default(),
    };
    store
        .commit(set(
            vec![Write::Events(EventWrite::InsertEndpoint {
                record: EndpointRecord {
                    endpoint,
                    sealed_secret: vec![1, 2, 3],
                },
                max_per_owner: 16,
            })],
            None,
        ))
        .await
        .unwrap();
    store
        .commit(set(
            vec![
                Write::Events(EventWrite::InsertEvent(event(
                    EventType::ApplicationCreated,
                    1_000,
                ))),
                Write::Events(EventWrite::InsertEvent(event(
                    EventType::DecisionCompleted,
                    1_000,
                ))),
            ],
            None,
        ))
        .await
        .unwrap();
    let claim = |due: i64, real: i64| Lease {
        holder: "worker".into(),
        due_before_ms: due,
        real_now_ms: real,
        lease_until_ms: real + 60_000,
        limit: 10,
    };
    assert!(
        store
            .claim_deliveries(&claim(999, 0))
            .await
            .unwrap()
            .is_empty(),
        "not yet due"
    );
    let claimed = store.claim_deliveries(&claim(1_000, 0)).await.unwrap();
    assert_eq!(claimed.len(), 1, "only the subscribed type is queued");
    assert_eq!(claimed[0].delivery.attempt, 1);
    assert_eq!(
        claimed[0].failing_since_ms, None,
        "a fresh endpoint is healthy"
    );
    assert!(
        store
            .claim_deliveries(&claim(1_000, 1))
            .await
            .unwrap()
            .is_empty(),
        "leased"
    );
    assert_eq!(
        store
            .claim_deliveries(&claim(1_000, 60_001))
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
            heard: Heard::default(),
            error: "boom".into(),
            retry_at_ms: Some(61_000),
            at_ms: 1_000,
        })
        .await
        .unwrap();
    assert!(
        store
            .claim_deliveries(&claim(60_999, 70_000))
            .await
            .unwrap()
            .is_empty(),
        "waits for its retry time"
    );
    let retried = store
        .claim_deliveries(&claim(61_000, 70_000))
        .await
        .unwrap();
    assert_eq!(retried[0].delivery.attempt, 2);
    assert_eq!(
        retried[0].failing_since_ms,
        Some(1_000),
        "the failure started the endpoint's run of failures"
    );
    // Still failing: disabling is allowed for a run since 1 000 or earlier…
    let disabled = WebhookEndpoint {
        status: EndpointStatus::Disabled,
        ..retried[0].endpoint.clone()
    };
    let disable = |since: i64| {
        set(
            vec![Write::Events(EventWrite::DisableFailingEndpoint {
                endpoint: disabled.clone(),
                failing_since_ms: since,
            })],
            None,
        )
    };
    assert!(
        matches!(store.commit(disable(999)).await, Err(CommitError::Conflict)),
        "not for a run that started later than asked"
    );
    store
        .finish_delivery(DeliveryResult::Delivered {
            id,
            status: 200,
            heard: Heard::default(),
            at_ms: 61_000,
            ends_failures: true,
        })
        .await
        .unwrap();
    assert!(
        store
            .claim_deliveries(&claim(i64::MAX, 200_000))
            .await
            .unwrap()
            .is_empty(),
        "delivered is final"
    );
    // …and an answer ends the run, so a disable decided before it loses.
    assert!(matches!(
        store.commit(disable(1_000)).await,
        Err(CommitError::Conflict)
    ));
}

/// A client's clock is an offset kept with it: moved only from the offset
/// it was read at, and applied to its deliveries' due times and no one
/// else's.
#[tokio::test]
async fn each_clients_clock_times_its_own_deliveries() {
    let (store, _db) = store().await;
    store.insert_client(active_client()).await.unwrap();
    store.insert_client(client_named(OTHER)).await.unwrap();
    assert_eq!(store.clock_offset(&tenant(OWNER)).await.unwrap(), 0);
    store.commit(set_clock(OWNER, 0, 3_600_000)).await.unwrap();
    assert_eq!(store.clock_offset(&tenant(OWNER)).await.unwrap(), 3_600_000);
    assert!(
        matches!(
            store.commit(set_clock(OWNER, 0, 7_200_000)).await,
            Err(CommitError::Conflict)
        ),
        "an advance computed from a stale clock loses"
    );

    // Both owners have a delivery due at 10 h on their own clocks.
    for owner in [OWNER, OTHER] {
        let mut writes = vec![Write::Events(EventWrite::InsertEndpoint {
            record: EndpointRecord {
                endpoint: endpoint_of(owner),
                sealed_secret: vec![1],
            },
            max_per_owner: 16,
        })];
        writes.push(Write::Events(EventWrite::InsertEvent(event_of(
            owner,
            EventType::ApplicationCreated,
            36_000_000,
        ))));
        store.commit(set(writes, None)).await.unwrap();
    }
    let due_for = |claimed: &[ClaimedDelivery]| {
        claimed
            .iter()
            .map(|c| (c.delivery.owner.clone(), c.clock_offset_ms))
            .collect::<Vec<_>>()
    };
    let early = store
        .claim_deliveries(&claim_at(36_000_000 - 3_600_000, 0))
        .await
        .unwrap();
    assert_eq!(
        due_for(&early),
        vec![(tenant(OWNER), 3_600_000)],
        "the owner an hour ahead is due an hour sooner"
    );
    assert_eq!(early[0].endpoint.owner, tenant(OWNER));
    let later = store
        .claim_deliveries(&claim_at(36_000_000, 0))
        .await
        .unwrap();
    assert_eq!(due_for(&later), vec![(tenant(OTHER), 0)]);
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
                Write::Events(EventWrite::InsertEndpoint {
                    record: EndpointRecord {
                        endpoint: endpoint.clone(),
                        sealed_secret: vec![1],
                    },
                    max_per_owner: 16,
                }),
                Write::Events(EventWrite::InsertEvent(event(
                    EventType::ApplicationCreated,
                    1_000,
                ))),
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
            vec![Write::Events(EventWrite::SetEndpointStatus {
                endpoint: e.clone(),
                from,
            })],
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
        store.endpoints(&tenant(OWNER)).await.unwrap()[0]
            .endpoint
            .status,
        EndpointStatus::Disabled
    );
    store
        .commit(set(
            vec![Write::Events(EventWrite::InsertEvent(event(
                EventType::DecisionCompleted,
                2_000,
            )))],
            None,
        ))
        .await
        .unwrap();
    assert!(
        store
            .claim_deliveries(&claim_at(i64::MAX, 0))
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
            .claim_deliveries(&claim_at(i64::MAX, 0))
            .await
            .unwrap()
            .is_empty(),
        "the deliveries it missed stay ended"
    );
    store
        .commit(set(
            vec![Write::Events(EventWrite::InsertEvent(event(
                EventType::OfferAccepted,
                3_000,
            )))],
            None,
        ))
        .await
        .unwrap();
    let claimed = store
        .claim_deliveries(&claim_at(i64::MAX, 0))
        .await
        .unwrap();
    assert_eq!(claimed.len(), 1, "enabled again, it takes new events");
    assert_eq!(claimed[0].endpoint.status, EndpointStatus::Enabled);
}

/// A lease names its holder. Giving back one holder's leases in one queue
/// makes those jobs claimable at once (a restarted instance takes back what
/// it was attempting), and leaves every other lease, and finished jobs, alone.
#[tokio::test]
async fn a_holder_gives_back_only_its_own_leases_in_one_queue() {
    let (store, _db) = store().await;
    store.insert_client(active_client()).await.unwrap();
    store
        .commit(set(vec![endpoint_record()], None))
        .await
        .unwrap();
    for i in 0..2 {
        let event = event(EventType::DecisionCompleted, 1_000 + i);
        store
            .commit(set(
                vec![Write::Events(EventWrite::InsertEvent(event))],
                None,
            ))
            .await
            .unwrap();
    }
    let lease = |holder: &str, limit| Lease {
        holder: holder.into(),
        due_before_ms: 10_000,
        real_now_ms: 0,
        lease_until_ms: 60_000,
        limit,
    };
    assert_eq!(
        store.claim_deliveries(&lease("a", 1)).await.unwrap().len(),
        1
    );
    assert_eq!(
        store.claim_deliveries(&lease("b", 1)).await.unwrap().len(),
        1
    );
    assert!(
        store
            .claim_deliveries(&lease("c", 10))
            .await
            .unwrap()
            .is_empty(),
        "both deliveries are leased"
    );

    assert_eq!(store.release_leases(JobQueue::Mail, "a").await.unwrap(), 0);
    assert_eq!(
        store
            .release_leases(JobQueue::Deliveries, "a")
            .await
            .unwrap(),
        1
    );
    let again = store.claim_deliveries(&lease("c", 10)).await.unwrap();
    assert_eq!(
        again.len(),
        1,
        "a's delivery is free again, b's still leased"
    );

    store
        .finish_delivery(DeliveryResult::Delivered {
            id: again[0].delivery.id,
            status: 200,
            heard: Heard::default(),
            at_ms: 2_000,
            ends_failures: true,
        })
        .await
        .unwrap();
    assert_eq!(
        store
            .release_leases(JobQueue::Deliveries, "c")
            .await
            .unwrap(),
        0,
        "a finished delivery holds no lease"
    );
}

/// The dashboard's view of an endpoint's deliveries, and its retry of a
/// failed one: due again at once, claimable, with its attempt number kept;
/// a retry of one that is not failed changes nothing.
#[tokio::test]
async fn a_failed_delivery_is_listed_and_made_due_again() {
    let (store, _db) = store().await;
    store
        .commit(set(vec![endpoint_record()], None))
        .await
        .unwrap();
    let endpoint = store
        .endpoints(&tenant(OWNER))
        .await
        .unwrap()
        .remove(0)
        .endpoint;
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
    let listed = |store: std::sync::Arc<dyn Store>| {
        let id = endpoint.id.clone();
        async move {
            store
                .endpoint_deliveries(&tenant(OWNER), &id, 10)
                .await
                .unwrap()
        }
    };
    let pending = listed(store.clone()).await;
    assert_eq!(pending.len(), 1);
    assert_eq!(
        (
            pending[0].state.as_str(),
            pending[0].attempt,
            pending[0].event_type.as_str()
        ),
        ("pending", 1, "application.created")
    );
    assert!(
        store
            .endpoint_deliveries(&tenant(OTHER), &endpoint.id, 10)
            .await
            .unwrap()
            .is_empty(),
        "another owner sees none"
    );
    let claimed = store.claim_deliveries(&claim_at(1_000, 0)).await.unwrap();
    store
        .finish_delivery(DeliveryResult::Failed {
            id: claimed[0].delivery.id,
            status: Some(500),
            heard: Heard {
                latency_ms: Some(87),
                excerpt: Some("{\"error\":\"database is down\"}".into()),
            },
            error: "boom".into(),
            retry_at_ms: None,
            at_ms: 2_000,
        })
        .await
        .unwrap();
    let failed = listed(store.clone()).await.remove(0);
    assert_eq!(
        (failed.state.as_str(), failed.last_status),
        ("failed", Some(500))
    );
    assert_eq!(failed.last_error.as_deref(), Some("boom"));
    let counted = store.usage_since(OWNER, "1970-01-01").await.unwrap();
    assert_eq!(
        counted,
        [UsageCount {
            owner: OWNER.into(),
            day: "1970-01-01".into(),
            metric: "deliveries_failed".into(),
            count: 1,
        }],
        "each recorded attempt is counted for the charts"
    );
    assert_eq!(
        (failed.last_latency_ms, failed.last_response.as_deref()),
        (Some(87), Some("{\"error\":\"database is down\"}")),
        "what the receiver answered, and how fast"
    );
    let retry = |owner: &str| {
        set(
            vec![Write::Events(EventWrite::RetryDelivery {
                id: failed.id,
                owner: tenant(owner),
                due_ms: 5_000,
                at_ms: 5_000,
            })],
            None,
        )
    };
    store.commit(retry(OTHER)).await.unwrap();
    assert_eq!(
        listed(store.clone()).await[0].state,
        "failed",
        "not another owner's to retry"
    );
    store.commit(retry(OWNER)).await.unwrap();
    let again = listed(store.clone()).await.remove(0);
    assert_eq!((again.state.as_str(), again.attempt), ("pending", 1));
    assert!(
        store
            .claim_deliveries(&claim_at(4_999, 0))
            .await
            .unwrap()
            .is_empty()
    );
    assert_eq!(
        store
            .claim_deliveries(&claim_at(5_000, 0))
            .await
            .unwrap()
            .len(),
        1
    );
}
