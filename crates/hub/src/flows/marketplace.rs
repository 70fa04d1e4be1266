//! What an approved marketplace app does with a partner's consent: it
//! subscribes to the partner's events, delivered through a webhook endpoint
//! of its own, and publishes signals that weigh in the partner's decisions
//! while they are unresolved.

use std::collections::BTreeMap;

use lendhub_domain::ids::{HubId, MarketplaceAppId, MarketplaceSubscriptionId, SignalId};
use lendhub_domain::lending::application::Application;
use lendhub_domain::marketplace::app_request::CheckedApp;
use lendhub_domain::marketplace::signal_request::{self, CheckedSignal};
use lendhub_domain::marketplace::{App, Review, Signal, Subscription, counts_now};
use lendhub_domain::problem::Problem;
use lendhub_domain::tenant::Tenant;
use lendhub_store::{CommercialWrite, LendingWrite, MAX_SIGNALS, WriteSet};
use time::OffsetDateTime;

use crate::flows::Context;
use crate::flows::error::FlowError;
use crate::flows::lending::find;
use crate::flows::webhook_endpoints::{Draft, new_endpoint};
use crate::views::marketplace::{AppView, SignalView, SubscriptionView};

/// A listing for a vendor `owner` works with, pending the lender's review,
/// and its write. `webhook_url` has passed the network policy.
pub fn new_app(
    owner: &Tenant,
    checked: CheckedApp,
    webhook_url: Option<String>,
    now: OffsetDateTime,
) -> (AppView, WriteSet) {
    let id: MarketplaceAppId =
        lendhub_system::new_hub_id(lendhub_domain::clock::unix_ms(now) as u64);
    let app = App {
        id,
        owner: owner.clone(),
        name: checked.name,
        category: checked.category,
        redirect_uris: checked.redirect_uris,
        webhook_url,
        review: Review::PendingReview,
        review_note: None,
        reviewed_at: None,
        created_at: now,
        version: 1,
    };
    let view = AppView::new(&app);
    let mut writes = WriteSet::default();
    writes.push(CommercialWrite::InsertApp(app));
    (view, writes)
}

/// The caller's app `raw_id`, which the lender approved; 404 for another's
/// or none, 409 for one not approved.
pub async fn approved_app(cx: &Context, owner: &Tenant, raw_id: &str) -> Result<App, FlowError> {
    let missing = FlowError::NotFound("marketplace app");
    let Some(id) = MarketplaceAppId::parse(raw_id) else {
        return Err(missing);
    };
    let app = cx
        .commercial
        .marketplace_app(owner, &id)
        .await?
        .ok_or(missing)?;
    if app.review != Review::Approved {
        return Err(FlowError::AppNotApproved(app.review.as_str()));
    }
    Ok(app)
}

/// App `app_id` subscribed to `events` of `owner`'s: the subscription with
/// its endpoint's signing secret (shown once), and the writes (the endpoint
/// takes one of the owner's slots).
pub async fn subscribe(
    cx: &Context,
    owner: &Tenant,
    (app_id, events): (String, Vec<String>),
    now: OffsetDateTime,
) -> Result<(SubscriptionView, WriteSet), FlowError> {
    let app = approved_app(cx, owner, &app_id).await?;
    let Some(url) = app.webhook_url.clone() else {
        return Err(FlowError::Validation(vec![Problem::new(
            "app_id",
            "webhook_url_required",
        )]));
    };
    let id: MarketplaceSubscriptionId =
        lendhub_system::new_hub_id(lendhub_domain::clock::unix_ms(now) as u64);
    let draft = Draft {
        url: url.clone(),
        enabled_events: events.clone(),
        description: Some(format!("Marketplace app {} ({})", app.name, app.id)),
        api_version: None,
        metadata: BTreeMap::from([
            ("marketplace_app_id".to_owned(), app.id.to_string()),
            ("marketplace_subscription_id".to_owned(), id.to_string()),
        ]),
    };
    let (endpoint, secret, insert) = new_endpoint(cx, owner, draft, now);
    let subscription = Subscription {
        id,
        owner: owner.clone(),
        app_id: app.id,
        endpoint_id: endpoint.id.as_str().to_owned(),
        enabled_events: events,
        created_at: now,
    };
    let view = SubscriptionView::new(&subscription, &url, secret);
    let mut writes = WriteSet::default();
    writes
        .push(insert)
        .push(CommercialWrite::InsertSubscription(subscription));
    Ok((view, writes))
}

/// A signal about one of `owner`'s applications, from app `app_id` when
/// named. It counts while the application's decision is unresolved, and
/// then commits over the application's version, as a decision does: it
/// either lands before the decision reads the signals, or finds the
/// application moved on and is tried again.
pub async fn publish_signal(
    cx: &Context,
    owner: &Tenant,
    checked: CheckedSignal,
    app_id: Option<&str>,
    now: OffsetDateTime,
) -> Result<(SignalView, WriteSet), FlowError> {
    let app_id = match app_id {
        None => None,
        Some(raw) => Some(approved_app(cx, owner, raw).await?.id),
    };
    let application = find(cx, owner, &checked.application_id).await?;
    let earlier = cx.commercial.signals(owner, &application.id).await?;
    signal_request::room_for_one_more(earlier.len(), MAX_SIGNALS)?;
    let accepted = counts_now(application.status);
    let signal = Signal {
        id: lendhub_system::new_hub_id::<SignalId>(lendhub_domain::clock::unix_ms(now) as u64),
        owner: owner.clone(),
        application_id: application.id.clone(),
        app_id,
        kind: checked.kind,
        score: checked.score,
        verdict: checked.verdict,
        evidence: checked.evidence,
        accepted,
        created_at: now,
    };
    let view = SignalView::new(&signal);
    let mut writes = WriteSet::default();
    writes.push(CommercialWrite::InsertSignal(signal));
    if accepted {
        writes.push(LendingWrite::UpdateApplication(Application {
            version: application.version + 1,
            ..application
        }));
    }
    Ok((view, writes))
}
