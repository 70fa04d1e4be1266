//! The REST tier's test environment helpers: its own test clock and events
//! on demand, the same implementation the sandbox serves, over HTTP.

use lendhub_domain::partner::project::Tier;
use serde_json::{Value, json};

use crate::partner::assert_hub_error;
use crate::rest_tier::{api_key, rest_app, rest_get, rest_partner};
use crate::support::receiver::{Receiver, stripe_verifies};
use crate::support::*;

use crate::rest_tier::rest_post as post;

fn key_of(created: Value) -> String {
    created["key"].as_str().unwrap().to_owned()
}

fn offset_ms(clock: &Reply) -> i64 {
    clock.body["offset_ms"].as_i64().unwrap()
}

/// Events on demand in the test environment are stored, listed, delivered
/// and signed like any other; live credentials cannot make them, and bad
/// requests are refused with the sandbox's codes.
#[tokio::test]
async fn events_on_demand_are_delivered_signed_and_test_only() {
    let app = rest_app().await;
    let (client, _) = rest_partner(&app, "events.read webhooks.manage", Tier::Platform).await;
    let test = key_of(api_key(&app, &client, "test", None));
    let live = key_of(api_key(&app, &client, "live", None));
    let receiver = Receiver::start(&[]).await;
    let endpoint = post(
        &app,
        "/sandbox/v1/webhook_endpoints",
        &test,
        json!({"url": receiver.url, "enabled_events": ["payment.paid"]}),
    )
    .await;
    assert_eq!(endpoint.status, 201, "{}", endpoint.body);
    let secret = endpoint.body["secret"].as_str().unwrap().to_owned();

    let made = post(
        &app,
        "/sandbox/v1/test_helpers/events",
        &test,
        json!({"type": "payment.paid", "data": {"object": {"amount_pence": 4200, "account_id": "acc_01KQ000000000000000000000A"}}}),
    )
    .await;
    assert_eq!(made.status, 201, "{}", made.body);
    assert_eq!(made.body["type"], "payment.paid");
    assert_eq!(made.body["livemode"], false);
    assert!(made.body["id"].as_str().unwrap().starts_with("evt_"));
    let object = &made.body["data"]["object"];
    assert_eq!(object["object"], "payment");
    assert!(object["id"].as_str().unwrap().starts_with("pay_"));
    assert_eq!(object["amount_pence"], 4200, "overrides merge in");

    eventually("the event is delivered", || receiver.count() == 1).await;
    let delivered = &receiver.all()[0];
    assert_eq!(
        serde_json::from_str::<Value>(&delivered.body).unwrap(),
        made.body,
        "the delivery is the event as stored"
    );
    assert!(stripe_verifies(&secret, delivered));
    let listed = rest_get(&app, "/sandbox/v1/events?type=payment.paid", Some(&test)).await;
    assert_eq!(listed.body["data"][0]["id"], made.body["id"]);

    // Not ours to make in live; and refused with the sandbox's codes.
    assert_hub_error(
        &post(
            &app,
            "/partner/v1/test_helpers/events",
            &live,
            json!({"type": "payment.paid"}),
        )
        .await,
        403,
        "capability_denied",
    );
    assert_hub_error(
        &post(
            &app,
            "/sandbox/v1/test_helpers/events",
            &test,
            json!({"type": "payment.teleported"}),
        )
        .await,
        422,
        "test_event_type_unknown",
    );
    let wrong = post(
        &app,
        "/sandbox/v1/test_helpers/events",
        &test,
        json!({"type": "payment.paid", "data": {"object": {"object": "account", "livemode": true}}}),
    )
    .await;
    assert_hub_error(&wrong, 422, "test_event_data_invalid");
    let fields: Vec<&str> = wrong.body["error"]["detail"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["field"].as_str().unwrap())
        .collect();
    assert_eq!(fields, ["data.object.livemode", "data.object.object"]);
    assert_hub_error(
        &post(&app, "/sandbox/v1/test_helpers/events", &test, json!({})).await,
        422,
        "validation_failed",
    );
    assert_eq!(receiver.count(), 1, "nothing refused was delivered");
}

/// The test environment's clock drives its webhook schedule: an endpoint
/// failing every delivery is disabled once the *test* clock has moved 72
/// hours — while the live environment's clock, and its endpoint, stay put.
#[tokio::test]
async fn the_test_clock_moves_the_test_environment_only() {
    let app = rest_app().await;
    let (client, _) = rest_partner(&app, "events.read webhooks.manage", Tier::Platform).await;
    let test = key_of(api_key(&app, &client, "test", None));
    let live = key_of(api_key(&app, &client, "live", None));

    let clock = rest_get(&app, "/sandbox/v1/test_helpers/clock", Some(&test)).await;
    assert_eq!(clock.status, 200, "{}", clock.body);
    assert_eq!(clock.body["object"], "test_clock");
    assert_eq!(offset_ms(&clock), 0);
    assert_hub_error(
        &rest_get(&app, "/partner/v1/test_helpers/clock", Some(&live)).await,
        403,
        "capability_denied",
    );
    assert_hub_error(
        &post(
            &app,
            "/partner/v1/test_helpers/clock/advance",
            &live,
            json!({"seconds": 60}),
        )
        .await,
        403,
        "capability_denied",
    );
    assert_hub_error(
        &post(
            &app,
            "/sandbox/v1/test_helpers/clock/advance",
            &test,
            json!({"seconds": -1}),
        )
        .await,
        422,
        "test_clock_backwards",
    );
    assert_hub_error(
        &post(
            &app,
            "/sandbox/v1/test_helpers/clock/advance",
            &test,
            json!({"seconds": 400 * 86_400 + 1}),
        )
        .await,
        422,
        "test_clock_advance_too_large",
    );
    assert_hub_error(
        &post(
            &app,
            "/sandbox/v1/test_helpers/clock/advance",
            &test,
            json!({"seconds": 1, "to": "2030-01-01T00:00:00Z"}),
        )
        .await,
        422,
        "validation_failed",
    );

    // A failing endpoint in each environment, each with one event to deliver.
    let failing_test = Receiver::start(&[500; 64]).await;
    let failing_live = Receiver::start(&[500; 64]).await;
    let mut endpoints = Vec::new();
    for (prefix, key, receiver) in [
        ("/sandbox/v1", &test, &failing_test),
        ("/partner/v1", &live, &failing_live),
    ] {
        let created = post(
            &app,
            &format!("{prefix}/webhook_endpoints"),
            key,
            json!({"url": receiver.url, "enabled_events": ["webhook_endpoint.disabled"]}),
        )
        .await;
        let paused = post(
            &app,
            &format!("{prefix}/webhook_endpoints"),
            key,
            json!({"url": "https://hooks.example/other", "enabled_events": ["*"]}),
        )
        .await;
        let paused_path = format!(
            "{prefix}/webhook_endpoints/{}",
            paused.body["id"].as_str().unwrap()
        );
        post(&app, &paused_path, key, json!({"disabled": true})).await;
        endpoints.push(format!(
            "{prefix}/webhook_endpoints/{}",
            created.body["id"].as_str().unwrap()
        ));
    }
    eventually("each first attempt", || {
        failing_test.count() == 1 && failing_live.count() == 1
    })
    .await;

    // The seed's schedule, on the test clock, moved over HTTP.
    let mut steps = vec![70, 6 * 60, 35 * 60, 2 * 3_600 + 15 * 60];
    steps.extend(std::iter::repeat_n(7 * 3_600, 11));
    let mut total = 0;
    for step in steps {
        let before = failing_test.count();
        let moved = post(
            &app,
            "/sandbox/v1/test_helpers/clock/advance",
            &test,
            json!({ "seconds": step }),
        )
        .await;
        assert_eq!(moved.status, 200, "{}", moved.body);
        total += step;
        assert_eq!(offset_ms(&moved), total * 1_000);
        eventually("the next attempt", || failing_test.count() == before + 1).await;
        if total >= 72 * 3_600 {
            break;
        }
    }
    propagated("the test endpoint is disabled", || async {
        rest_get(&app, &endpoints[0], Some(&test)).await.body["status"] == "disabled"
    })
    .await;
    assert_eq!(
        failing_live.count(),
        1,
        "live deliveries wait for real time"
    );
    assert_eq!(
        rest_get(&app, &endpoints[1], Some(&live)).await.body["status"],
        "enabled"
    );
    let now = rest_get(&app, "/sandbox/v1/test_helpers/clock", Some(&test)).await;
    assert_eq!(offset_ms(&now), total * 1_000, "the clock stays moved");

    // What the test environment makes from now on is stamped on its clock.
    let made = post(
        &app,
        "/sandbox/v1/test_helpers/events",
        &test,
        json!({"type": "account.updated"}),
    )
    .await;
    let stamped = time::OffsetDateTime::parse(
        made.body["created_at"].as_str().unwrap(),
        &time::format_description::well_known::Rfc3339,
    )
    .unwrap();
    let service_now = lendhub_domain::clock::Clock::now(app.clock.as_ref());
    assert!(
        stamped - service_now >= time::Duration::hours(72),
        "{stamped} vs {service_now}"
    );
}
