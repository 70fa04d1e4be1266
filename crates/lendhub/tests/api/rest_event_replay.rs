//! The hub's `POST /events/{id}/replay` in the test environment (issue #44,
//! item 16): to one named endpoint, to every enabled endpoint that receives
//! the event's type, and refused for a disabled endpoint or for ids that are
//! not the caller's.
//!
//! A replay only queues deliveries, so we can't show that an endpoint got
//! nothing just by waiting a while. Each test sends a later event after the
//! replay has arrived, and checks what came before it. This works because the
//! single delivery worker finishes a claimed pass before it claims again, and
//! rows committed together are due together and so are claimed in one pass.
//! Anything a replay queued therefore reaches its receiver before the later
//! event does.

use lendhub_domain::partner::project::Tier;
use serde_json::{Value, json};

use crate::partner::assert_hub_error;
use crate::rest_tier::{api_key, rest_app, rest_get, rest_partner, rest_post as post};
use crate::support::receiver::{Receiver, stripe_verifies};
use crate::support::*;

/// A new partner's test-environment API key.
async fn test_key(app: &App) -> String {
    let (client, _) = rest_partner(app, "events.read webhooks.manage", Tier::Platform).await;
    api_key(app, &client, "test", None)["key"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// An endpoint of `key`'s partner receiving `events` at a new local
/// receiver: its id, its signing secret, and the receiver.
async fn endpoint(app: &App, key: &str, events: Value) -> (String, String, Receiver) {
    let receiver = Receiver::start(&[]).await;
    let created = post(
        app,
        "/sandbox/v1/webhook_endpoints",
        key,
        json!({"url": receiver.url, "enabled_events": events}),
    )
    .await;
    assert_eq!(created.status, 201, "{}", created.body);
    let field = |name: &str| created.body[name].as_str().unwrap().to_owned();
    (field("id"), field("secret"), receiver)
}

/// A new event of type `kind`, made by the test environment's helper; its id.
async fn event(app: &App, key: &str, kind: &str) -> String {
    let made = post(
        app,
        "/sandbox/v1/test_helpers/events",
        key,
        json!({ "type": kind }),
    )
    .await;
    assert_eq!(made.status, 201, "{}", made.body);
    made.body["id"].as_str().unwrap().to_owned()
}

async fn replay(app: &App, key: &str, id: &str, body: Value) -> Reply {
    post(app, &format!("/sandbox/v1/events/{id}/replay"), key, body).await
}

/// The ids of the events `receiver` was sent, in the order they came.
fn ids(receiver: &Receiver) -> Vec<String> {
    let id = |body: &str| {
        let event: Value = serde_json::from_str(body).unwrap();
        event["id"].as_str().unwrap().to_owned()
    };
    receiver.all().iter().map(|r| id(&r.body)).collect()
}

/// Waits until each of `receivers` has been sent event `id`.
async fn until_received(id: &str, receivers: &[&Receiver]) {
    eventually(&format!("{id} at every receiver"), || {
        receivers
            .iter()
            .all(|r| ids(r).iter().any(|seen| seen == id))
    })
    .await;
}

/// A replay naming an endpoint goes to that endpoint only. It carries the
/// stored bytes with the original id, signed with that endpoint's secret.
#[tokio::test]
async fn a_replay_naming_one_endpoint_reaches_only_it_as_the_same_signed_bytes() {
    let app = rest_app().await;
    let key = test_key(&app).await;
    let (named, secret, at_named) = endpoint(&app, &key, json!(["payment.paid"])).await;
    let (_, other_secret, at_other) = endpoint(&app, &key, json!(["payment.paid"])).await;
    let id = event(&app, &key, "payment.paid").await;
    until_received(&id, &[&at_named, &at_other]).await;
    let original = at_named.all()[0].clone();

    let replayed = replay(&app, &key, &id, json!({ "endpoint_id": named })).await;
    assert_eq!(replayed.status, 202, "{}", replayed.body);
    assert_eq!(
        replayed.body,
        json!({"object": "event_replay", "event_id": id, "endpoint_ids": [named]})
    );
    eventually("the replayed delivery", || at_named.count() == 2).await;
    let again = at_named.all()[1].clone();
    assert_eq!(again.body, original.body, "the stored bytes, id and all");
    let listed = rest_get(&app, "/sandbox/v1/events?type=payment.paid", Some(&key)).await;
    assert_eq!(
        serde_json::from_str::<Value>(&again.body).unwrap(),
        listed.body["data"][0],
        "the event as listed"
    );
    assert!(stripe_verifies(&secret, &again), "{}", again.signature);
    assert!(
        !stripe_verifies(&other_secret, &again),
        "signed for the named endpoint, not with another's secret"
    );

    // The other endpoint is subscribed to the same type. If the replay had
    // reached it, the replay would arrive before this later event.
    let later = event(&app, &key, "payment.paid").await;
    until_received(&later, &[&at_other]).await;
    assert_eq!(ids(&at_other), [id, later]);
}

/// With no body, a replay goes to every enabled endpoint that receives the
/// event's type (by name or by `*`), and not to an endpoint subscribed only
/// to other types.
#[tokio::test]
async fn a_replay_without_a_body_reaches_every_endpoint_receiving_its_type() {
    let app = rest_app().await;
    let key = test_key(&app).await;
    // Every endpoint takes `payment.failed`, the type of the later event
    // used below to close each receiver's record.
    let by_name = json!(["payment.paid", "payment.failed"]);
    let (by_type, _, at_by_type) = endpoint(&app, &key, by_name).await;
    let (by_wildcard, _, at_wildcard) = endpoint(&app, &key, json!(["*"])).await;
    let (_, _, at_unsubscribed) = endpoint(&app, &key, json!(["payment.failed"])).await;
    let id = event(&app, &key, "payment.paid").await;
    until_received(&id, &[&at_by_type, &at_wildcard]).await;

    // No body at all, not even a content type: the body is optional.
    let replayed = reply(
        app.http
            .post(format!("{}/sandbox/v1/events/{id}/replay", app.hub))
            .bearer_auth(&key)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(replayed.status, 202, "{}", replayed.body);
    assert_eq!(replayed.body["object"], "event_replay");
    assert_eq!(replayed.body["event_id"], id.as_str());
    let mut targets: Vec<&str> = replayed.body["endpoint_ids"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    targets.sort_unstable();
    let mut expected = [by_type.as_str(), by_wildcard.as_str()];
    expected.sort_unstable();
    assert_eq!(targets, expected);
    eventually("the replays", || {
        at_by_type.count() == 2 && at_wildcard.count() == 2
    })
    .await;

    let later = event(&app, &key, "payment.failed").await;
    until_received(&later, &[&at_by_type, &at_wildcard, &at_unsubscribed]).await;
    assert_eq!(ids(&at_by_type), [id.clone(), id.clone(), later.clone()]);
    assert_eq!(ids(&at_wildcard), [id.clone(), id, later.clone()]);
    assert_eq!(
        ids(&at_unsubscribed),
        [later],
        "payment.paid is not its type"
    );
}

/// Naming a disabled endpoint is refused with 409 `conflict` ("enable it
/// first"), and a replay to all leaves that endpoint out. An unknown event,
/// an unknown endpoint, and another partner's event or endpoint are all
/// 404 `not_found`. None of these requests delivers anything.
#[tokio::test]
async fn a_disabled_endpoint_is_refused_and_ids_not_the_callers_are_404() {
    let app = rest_app().await;
    let key = test_key(&app).await;
    // It also takes `webhook_endpoint.enabled`, so that enabling it again
    // sends it an event to wait for.
    let subscribed = json!(["payment.paid", "webhook_endpoint.enabled"]);
    let (paused, _, at_paused) = endpoint(&app, &key, subscribed).await;
    let (active, _, at_active) = endpoint(&app, &key, json!(["payment.paid"])).await;
    let id = event(&app, &key, "payment.paid").await;
    until_received(&id, &[&at_paused, &at_active]).await;
    let path = format!("/sandbox/v1/webhook_endpoints/{paused}");
    let disabled = post(&app, &path, &key, json!({"disabled": true})).await;
    assert_eq!(disabled.body["status"], "disabled", "{}", disabled.body);

    assert_hub_error(
        &replay(&app, &key, &id, json!({ "endpoint_id": paused })).await,
        409,
        "conflict",
    );
    let to_all = replay(&app, &key, &id, json!({})).await;
    assert_eq!(to_all.status, 202, "{}", to_all.body);
    assert_eq!(
        to_all.body["endpoint_ids"],
        json!([active]),
        "not the disabled one"
    );
    eventually("the replay to the enabled endpoint", || {
        at_active.count() == 2
    })
    .await;

    let stranger = test_key(&app).await;
    let (theirs, _, at_stranger) = endpoint(&app, &stranger, json!(["payment.failed"])).await;
    let their_event = event(&app, &stranger, "payment.paid").await;
    let unknown_endpoint = "whe_01M80315443YA5R416G7AADFJ2";
    for (event_id, body, missing) in [
        (
            id.as_str(),
            json!({ "endpoint_id": unknown_endpoint }),
            "webhook endpoint",
        ),
        (
            id.as_str(),
            json!({ "endpoint_id": theirs }),
            "webhook endpoint",
        ),
        ("evt_01M80315443YA5R416G7AADFJ2", json!({}), "event"),
        ("evt_nope", json!({}), "event"),
        (their_event.as_str(), json!({}), "event"),
    ] {
        let r = replay(&app, &key, event_id, body).await;
        assert_hub_error(&r, 404, "not_found");
        let message = r.body["error"]["message"].as_str().unwrap();
        assert!(message.contains(missing), "{event_id}: {message}");
    }
    // The foreign event exists and its owner may replay it, so the 404
    // above is about ownership, not a missing event.
    let by_owner = replay(&app, &stranger, &their_event, json!({})).await;
    assert_eq!(by_owner.status, 202, "{}", by_owner.body);

    // A delivery queued for a disabled endpoint waits until the endpoint is
    // enabled again. So we enable it here: whatever it is sent next shows
    // whether the refused replay queued anything after all.
    let enabled = post(&app, &format!("{path}/enable"), &key, json!({})).await;
    assert_eq!(enabled.body["status"], "enabled", "{}", enabled.body);
    let enabled_events = "/sandbox/v1/events?type=webhook_endpoint.enabled";
    let listed = rest_get(&app, enabled_events, Some(&key)).await;
    let announced = listed.body["data"][0]["id"].as_str().unwrap().to_owned();
    until_received(&announced, &[&at_paused]).await;
    let later = event(&app, &key, "payment.paid").await;
    until_received(&later, &[&at_paused, &at_active]).await;
    assert_eq!(ids(&at_paused), [id.clone(), announced, later.clone()]);
    assert_eq!(ids(&at_active), [id.clone(), id, later]);
    assert_eq!(at_stranger.count(), 0, "another partner's endpoint");
}
