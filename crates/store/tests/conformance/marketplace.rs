//! The marketplace's storage (issue #17): app listings owned by a partner
//! and reviewed once over the version read, and an application's signals
//! in the order they arrived.

use lendhub_domain::ids::{ApplicationId, HubId, MarketplaceAppId, SignalId};
use lendhub_domain::marketplace::{App, Category, Review, Signal, Verdict};
use lendhub_domain::tenant::Tenant;
use lendhub_store::*;

use crate::support::*;

fn partner(env: &str) -> Tenant {
    Tenant::partner("pk_live_conformance", env == "live", None)
}

fn app(owner: &Tenant, n: u64) -> App {
    App {
        id: MarketplaceAppId::generate(160_000 + n, u128::from(n)),
        owner: owner.clone(),
        name: format!("Vendor {n}"),
        category: Category::Fraud,
        redirect_uris: vec!["https://vendor.example/return".into()],
        webhook_url: Some("https://vendor.example/hooks".into()),
        review: Review::PendingReview,
        review_note: None,
        reviewed_at: None,
        created_at: at(160_000 + n as i64),
        version: 1,
    }
}

async fn put(store: &dyn Store, write: CommercialWrite) {
    store
        .commit(set(vec![Write::Commercial(write)], None))
        .await
        .unwrap();
}

#[tokio::test]
async fn apps_are_owned_queued_for_review_and_reviewed_once() {
    let (store, _db) = store().await;
    let owner = partner("test");
    let apps: Vec<App> = (0..3).map(|n| app(&owner, n)).collect();
    for a in &apps {
        put(store.as_ref(), CommercialWrite::InsertApp(a.clone())).await;
    }
    let id = apps[1].id.clone();
    assert_eq!(
        store.marketplace_app(&owner, &id).await.unwrap(),
        Some(apps[1].clone())
    );
    assert_eq!(
        store.marketplace_app(&partner("live"), &id).await.unwrap(),
        None,
        "another environment's"
    );
    assert_eq!(
        store.marketplace_app_any_owner(&id).await.unwrap(),
        Some(apps[1].clone())
    );
    let queue = store
        .marketplace_apps_in_review(Review::PendingReview, 2)
        .await
        .unwrap();
    assert_eq!(queue, apps[..2].to_vec(), "oldest first, bounded");

    let approved = apps[1].review(Review::Approved, "ok", at(170_000)).unwrap();
    let rejected = apps[1].review(Review::Rejected, "no", at(170_001)).unwrap();
    assert!(store.review_marketplace_app(&approved).await.unwrap());
    assert!(
        !store.review_marketplace_app(&rejected).await.unwrap(),
        "made from the version the first review replaced"
    );
    assert_eq!(
        store.marketplace_app(&owner, &id).await.unwrap(),
        Some(approved.clone())
    );
    let pending: Vec<String> = store
        .marketplace_apps_in_review(Review::PendingReview, 10)
        .await
        .unwrap()
        .into_iter()
        .map(|a| a.id.to_string())
        .collect();
    assert_eq!(pending, [apps[0].id.to_string(), apps[2].id.to_string()]);
    assert_eq!(
        store
            .marketplace_apps_in_review(Review::Approved, 10)
            .await
            .unwrap(),
        vec![approved]
    );
}

#[tokio::test]
async fn an_applications_signals_are_read_in_the_order_they_arrived() {
    let (store, _db) = store().await;
    let owner = partner("test");
    let application = ApplicationId::generate(180_000, 1);
    let other = ApplicationId::generate(180_001, 2);
    let signal = |n: u64, application_id: &ApplicationId, accepted: bool| Signal {
        id: SignalId::generate(190_000 + n, u128::from(n)),
        owner: owner.clone(),
        application_id: application_id.clone(),
        app_id: None,
        kind: Category::Identity,
        score: 500 + n as u32,
        verdict: Verdict::Review,
        evidence: serde_json::json!({"n": n}),
        accepted,
        created_at: at(190_000 + n as i64),
    };
    let signals = [
        signal(0, &application, true),
        signal(1, &other, true),
        signal(2, &application, false),
    ];
    for s in &signals {
        put(store.as_ref(), CommercialWrite::InsertSignal(s.clone())).await;
    }
    assert_eq!(
        store.signals(&owner, &application).await.unwrap(),
        vec![signals[0].clone(), signals[2].clone()]
    );
    assert!(
        store
            .signals(&partner("live"), &application)
            .await
            .unwrap()
            .is_empty(),
        "another environment's"
    );
}
