//! The sandbox test helpers (issue 7), through HTTP: each client's test
//! clock and everything it drives (webhook retries, endpoint disabling,
//! referral reviews, offer and idempotency-key expiry), events on demand,
//! and reset.

use serde_json::{Value, json};

use crate::support::receiver::{Receiver, stripe_verifies};
use crate::support::{App, Reply, assert_error, eventually, reply};

const DAY: i64 = 86_400;

async fn advance(app: &App, token: &str, body: Value) -> Reply {
    app.write(token, "/v1/test_helpers/clock/advance", body)
        .await
}

async fn advance_ok(app: &App, token: &str, seconds: i64) -> Value {
    let r = advance(app, token, json!({"seconds": seconds})).await;
    assert_eq!(r.status, 200, "{}", r.body);
    r.body
}

async fn clock(app: &App, token: &str) -> Value {
    let r = app.get(token, "/v1/test_helpers/clock").await;
    assert_eq!(r.status, 200, "{}", r.body);
    r.body
}

fn time_of(v: &Value) -> time::OffsetDateTime {
    time::OffsetDateTime::parse(
        v.as_str().unwrap(),
        &time::format_description::well_known::Rfc3339,
    )
    .unwrap()
}

async fn register(app: &App, token: &str, url: &str, events: Value) -> Value {
    let r = app
        .write(
            token,
            "/v1/webhook-endpoints",
            json!({"url": url, "enabled_events": events}),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.body);
    r.body
}

fn event_ids(receiver: &Receiver) -> Vec<Value> {
    receiver
        .all()
        .iter()
        .map(|r| serde_json::from_str::<Value>(&r.body).unwrap())
        .collect()
}

/// Polls the event list until it holds `n` events (work off the request path).
async fn events_eventually(app: &App, token: &str, query: &str, n: usize) -> Vec<Value> {
    for _ in 0..400 {
        let events = app.events(token, query).await;
        if events.len() == n {
            return events;
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    panic!("{query}: never {n} events");
}

async fn settle_briefly() {
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
}

#[tokio::test]
async fn each_client_has_a_clock_that_only_moves_forward() {
    let app = App::spawn().await;
    let alice = app.caller().await;
    let bob = app.caller().await;

    let start = clock(&app, &alice).await;
    assert_eq!(start["object"], "test_clock");
    assert_eq!(start["offset_ms"], 0);
    let drift = time_of(&start["now"]) - time::OffsetDateTime::now_utc();
    assert!(
        drift.abs() < time::Duration::seconds(5),
        "starts at real time"
    );

    let moved = advance_ok(&app, &alice, 3_600).await;
    assert_eq!(moved["offset_ms"], 3_600_000);
    assert_eq!(clock(&app, &alice).await["offset_ms"], 3_600_000);
    assert_eq!(
        clock(&app, &bob).await["offset_ms"],
        0,
        "another client's clock does not move"
    );

    // To an instant, on the caller's clock.
    let now = time_of(&clock(&app, &alice).await["now"]);
    let target = now + time::Duration::days(2);
    let to = target
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap();
    let r = advance(&app, &alice, json!({"to": to})).await;
    assert_eq!(r.status, 200, "{}", r.body);
    let offset = r.body["offset_ms"].as_i64().unwrap();
    assert!(
        (offset - (3_600 + 2 * DAY) * 1000).abs() < 5_000,
        "{offset}"
    );

    // What the caller creates is stamped with its clock.
    let created = app.create_application(&alice, "00000401", 5_000).await;
    let created_at = time_of(&created.body["created_at"]);
    assert!((created_at - target).abs() < time::Duration::seconds(5));
    let bobs = app.create_application(&bob, "00000401", 5_000).await;
    assert!(
        (time_of(&bobs.body["created_at"]) - time::OffsetDateTime::now_utc()).abs()
            < time::Duration::seconds(5)
    );

    // Backwards, either way, is refused and moves nothing.
    let back = advance(&app, &alice, json!({"seconds": -1})).await;
    assert_error(&back, 422, "test_clock_backwards");
    assert_eq!(
        back.body["error"]["detail"][0],
        json!({"field": "seconds", "reason": "backwards"})
    );
    let yesterday = (target - time::Duration::days(1))
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap();
    let back = advance(&app, &alice, json!({"to": yesterday})).await;
    assert_error(&back, 422, "test_clock_backwards");
    assert_eq!(back.body["error"]["detail"][0]["field"], "to");
    // At most 400 days a call.
    let far = advance(&app, &alice, json!({"seconds": 400 * DAY + 1})).await;
    assert_error(&far, 422, "test_clock_advance_too_large");
    assert_eq!(far.body["error"]["detail"][0]["bound"], 400 * DAY);
    assert_error(
        &advance(&app, &alice, json!({"seconds": 1, "to": to})).await,
        422,
        "validation_failed",
    );
    assert_error(
        &advance(&app, &alice, json!({})).await,
        422,
        "validation_failed",
    );
    assert_error(
        &advance(&app, &alice, json!({"to": "next tuesday"})).await,
        422,
        "validation_failed",
    );
    assert_eq!(clock(&app, &alice).await["offset_ms"], offset);

    // A retried advance is replayed, not applied twice.
    let once = app
        .post(
            &alice,
            "/v1/test_helpers/clock/advance",
            "advance-once-1",
            json!({"seconds": 60}),
        )
        .await;
    let twice = app
        .post(
            &alice,
            "/v1/test_helpers/clock/advance",
            "advance-once-1",
            json!({"seconds": 60}),
        )
        .await;
    assert_eq!(twice.header("idempotent-replayed"), "true");
    assert_eq!(once.body, twice.body);
    assert_eq!(clock(&app, &alice).await["offset_ms"], offset + 60_000);

    // The longest advance leaves the caller's token valid: tokens live on real time.
    advance_ok(&app, &alice, 400 * DAY).await;
    assert_eq!(app.get(&alice, "/v1/fixtures").await.status, 200);
    // And the service clock (the tests' shifted clock) still drives every
    // client (and their tokens, which live an hour on it).
    app.advance(time::Duration::minutes(30));
    let shifted = time_of(&clock(&app, &bob).await["now"]) - time::OffsetDateTime::now_utc();
    assert!((shifted - time::Duration::minutes(30)).abs() < time::Duration::seconds(5));
}

#[tokio::test]
async fn helpers_need_their_scopes_and_an_idempotency_key() {
    let app = App::spawn().await;
    let reader = app.client("sandbox:read").await;
    let reader = app.token_for(&reader).await;
    let writer = app.client("sandbox:write").await;
    let writer = app.token_for(&writer).await;
    assert_eq!(clock(&app, &reader).await["offset_ms"], 0);
    assert_error(
        &app.get(&writer, "/v1/test_helpers/clock").await,
        403,
        "insufficient_scope",
    );
    for (path, body) in [
        ("/v1/test_helpers/clock/advance", json!({"seconds": 1})),
        ("/v1/test_helpers/events", json!({"type": "payment.failed"})),
        ("/v1/test_helpers/reset", json!({})),
    ] {
        assert_error(
            &app.write(&reader, path, body.clone()).await,
            403,
            "insufficient_scope",
        );
        let keyless = reply(
            app.http
                .post(app.url(path))
                .bearer_auth(&writer)
                .json(&body)
                .send()
                .await
                .unwrap(),
        )
        .await;
        assert_error(&keyless, 400, "idempotency_key_malformed");
        let anonymous = reply(
            app.http
                .post(app.url(path))
                .header("Idempotency-Key", "anonymous-1")
                .json(&body)
                .send()
                .await
                .unwrap(),
        )
        .await;
        assert_error(&anonymous, 401, "missing_api_key");
    }
    let spec = reply(app.http.get(app.url("/openapi.json")).send().await.unwrap()).await;
    for path in [
        "/v1/test_helpers/clock",
        "/v1/test_helpers/clock/advance",
        "/v1/test_helpers/events",
        "/v1/test_helpers/reset",
        "/v1/webhook-endpoints/{id}/enable",
    ] {
        assert!(
            spec.body["paths"][path].is_object(),
            "{path} in the OpenAPI document"
        );
    }
}

/// The sandbox's helpers live on the sandbox listener only. The hub's REST
/// tier has helpers of its own (`rest_test_helpers`), which a switched-off
/// tier answers with its 503 like every other path of the tier; the hub has
/// no sandbox-style `/v1/…` helper, and the tier no reset.
#[tokio::test]
async fn the_sandbox_helpers_are_not_on_the_hub() {
    let app = App::spawn().await;
    let status = |method: reqwest::Method, path: &'static str| {
        let request = app
            .http
            .request(method, format!("{}{path}", app.hub))
            .header("Idempotency-Key", "hub-helper-1")
            .json(&json!({}));
        async move { request.send().await.unwrap().status().as_u16() }
    };
    for path in ["/v1/test_helpers/clock", "/public/v1/test_helpers/clock"] {
        assert_eq!(status(reqwest::Method::GET, path).await, 404, "{path}");
    }
    for path in ["/partner/v1/test_helpers/reset", "/v1/test_helpers/reset"] {
        assert_eq!(status(reqwest::Method::POST, path).await, 404, "{path}");
    }
    assert_eq!(
        status(reqwest::Method::GET, "/partner/v1/test_helpers/clock").await,
        503
    );
    for path in [
        "/partner/v1/test_helpers/clock/advance",
        "/partner/v1/test_helpers/events",
    ] {
        assert_eq!(status(reqwest::Method::POST, path).await, 503, "{path}");
    }
}

#[tokio::test]
async fn advancing_a_minute_retries_a_failed_delivery_at_once() {
    let app = App::spawn().await;
    let alice = app.caller().await;
    let bob = app.caller().await;
    let alices = Receiver::start(&[500]).await;
    let bobs = Receiver::start(&[500]).await;
    register(&app, &alice, &alices.url, json!(["application.created"])).await;
    register(&app, &bob, &bobs.url, json!(["application.created"])).await;
    app.create_application(&alice, "00000401", 5_000).await;
    app.create_application(&bob, "00000401", 5_000).await;
    eventually("both first attempts", || {
        alices.count() == 1 && bobs.count() == 1
    })
    .await;
    settle_briefly().await;
    assert_eq!(alices.count(), 1, "no retry before a minute on the clock");

    advance_ok(&app, &alice, 60).await;
    eventually("Alice's retry", || alices.count() == 2).await;
    let sent = event_ids(&alices);
    assert_eq!(sent[0]["id"], sent[1]["id"], "the same event, retried");
    settle_briefly().await;
    assert_eq!(
        bobs.count(),
        1,
        "Bob's clock did not move, so neither did his retry"
    );
    advance_ok(&app, &bob, 60).await;
    eventually("Bob's retry", || bobs.count() == 2).await;
}

/// One event's delivery running out its schedule does not disable an
/// endpoint that answers other events in the meantime: only ~72 h of the
/// endpoint's own continuous failure does.
#[tokio::test]
async fn an_endpoint_failing_one_event_while_answering_others_stays_enabled() {
    let app = App::spawn().await;
    let token = app.caller().await;
    let receiver = Receiver::start(&[]).await;
    receiver.refuse_bodies_containing("\"type\":\"application.created\"");
    let watcher = Receiver::start(&[]).await;
    register(
        &app,
        &token,
        &receiver.url,
        json!(["application.created", "decision.completed"]),
    )
    .await;
    register(
        &app,
        &token,
        &watcher.url,
        json!(["webhook_endpoint.disabled"]),
    )
    .await;
    app.create_application(&token, "00000401", 5_000).await;
    eventually("both first attempts", || receiver.count() == 2).await;

    // Through the first event's whole schedule; a new application at every
    // step makes a decision.completed that the endpoint answers.
    let mut steps = vec![70, 6 * 60, 35 * 60, 2 * 3_600 + 15 * 60];
    steps.extend(std::iter::repeat_n(7 * 3_600, 11));
    let mut total = 0;
    for step in steps {
        advance_ok(&app, &token, step).await;
        total += step;
        let before = receiver.count();
        app.create_application(&token, "00000401", 5_000).await;
        // Its two events, and the retry that fell due (until the schedule ends).
        eventually("this step's deliveries", || receiver.count() >= before + 2).await;
        if total >= 73 * 3_600 {
            break;
        }
    }
    assert!(total >= 73 * 3_600);
    settle_briefly().await;
    assert!(
        app.events(&token, "?type=webhook_endpoint.disabled")
            .await
            .is_empty(),
        "the endpoint answered throughout, so it stays enabled"
    );
    assert_eq!(watcher.count(), 0);
    // Its two new events get through (a retry of an earlier one may too).
    let before = receiver.count();
    app.create_application(&token, "00000401", 5_000).await;
    eventually("deliveries continue", || receiver.count() >= before + 2).await;
}

#[tokio::test]
async fn seventy_three_hours_of_failures_disable_an_endpoint_and_enable_brings_it_back() {
    let app = App::spawn().await;
    let token = app.caller().await;
    let failing = Receiver::start(&[500; 64]).await;
    let watcher = Receiver::start(&[]).await;
    let endpoint = register(&app, &token, &failing.url, json!(["application.created"])).await;
    let id = endpoint["id"].as_str().unwrap().to_owned();
    let watch = register(
        &app,
        &token,
        &watcher.url,
        json!(["webhook_endpoint.disabled", "webhook_endpoint.enabled"]),
    )
    .await;
    app.create_application(&token, "00000401", 5_000).await;
    eventually("the first attempt", || failing.count() == 1).await;

    // Through the schedule, a little past each (jittered) retry: about 1
    // min, 5 min, 30 min, 2 h, then every 6 h until 72 h.
    let mut steps = vec![70, 6 * 60, 35 * 60, 2 * 3_600 + 15 * 60];
    steps.extend(std::iter::repeat_n(7 * 3_600, 11));
    let mut total = 0;
    for step in steps {
        let before = failing.count();
        advance_ok(&app, &token, step).await;
        total += step;
        eventually("the next attempt", || failing.count() == before + 1).await;
        if total >= 72 * 3_600 {
            break;
        }
        assert!(
            app.events(&token, "?type=webhook_endpoint.disabled")
                .await
                .is_empty(),
            "disabled after {total} s, before the 72 h deadline"
        );
    }
    assert!(total >= 72 * 3_600);
    assert!(failing.count() >= 12, "{} attempts", failing.count());
    let disabled = events_eventually(&app, &token, "?type=webhook_endpoint.disabled", 1).await;
    assert_eq!(disabled[0]["data"]["object"]["id"], id.as_str());
    assert_eq!(disabled[0]["data"]["object"]["status"], "disabled");
    assert!(disabled[0]["data"]["object"].get("secret").is_none());
    eventually("the disabled event reaches the other endpoint", || {
        watcher.count() == 1
    })
    .await;
    let seen = &watcher.all()[0];
    assert_eq!(
        serde_json::from_str::<Value>(&seen.body).unwrap()["type"],
        "webhook_endpoint.disabled"
    );
    assert!(stripe_verifies(watch["secret"].as_str().unwrap(), seen));

    // Disabled: no longer attempted, whatever the clock does.
    let attempts = failing.count();
    app.create_application(&token, "00000401", 5_000).await;
    advance_ok(&app, &token, DAY).await;
    settle_briefly().await;
    assert_eq!(
        failing.count(),
        attempts,
        "a disabled endpoint is not attempted"
    );

    let enabled = app
        .write(
            &token,
            &format!("/v1/webhook-endpoints/{id}/enable"),
            json!({}),
        )
        .await;
    assert_eq!(enabled.status, 200, "{}", enabled.body);
    assert_eq!(enabled.body["status"], "enabled");
    assert!(enabled.body.get("secret").is_none());
    let events = app.events(&token, "?type=webhook_endpoint.enabled").await;
    assert_eq!(events.len(), 1);
    assert_eq!(events[0]["data"]["object"]["id"], id.as_str());
    eventually("the enabled event reaches the other endpoint", || {
        watcher.count() == 2
    })
    .await;
    app.create_application(&token, "00000401", 5_000).await;
    eventually("deliveries resume", || failing.count() == attempts + 1).await;

    // Enabling what is enabled changes nothing; others' endpoints are not ours.
    let again = app
        .write(
            &token,
            &format!("/v1/webhook-endpoints/{id}/enable"),
            json!({}),
        )
        .await;
    assert_eq!(again.status, 200);
    assert_eq!(
        app.events(&token, "?type=webhook_endpoint.enabled")
            .await
            .len(),
        1
    );
    let stranger = app.caller().await;
    assert_error(
        &app.write(
            &stranger,
            &format!("/v1/webhook-endpoints/{id}/enable"),
            json!({}),
        )
        .await,
        404,
        "not_found",
    );
    assert_error(
        &app.write(&token, "/v1/webhook-endpoints/not-an-id/enable", json!({}))
            .await,
        404,
        "not_found",
    );
}

fn referral_of(fixtures: &Value, company: &str) -> Value {
    fixtures["companies"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["company_number"] == company)
        .unwrap()["referral"]
        .clone()
}

#[tokio::test]
async fn referred_fixture_companies_resolve_after_the_advance_as_documented() {
    let app = App::spawn().await;
    let token = app.caller().await;
    let receiver = Receiver::start(&[]).await;
    register(&app, &token, &receiver.url, json!(["decision.completed"])).await;
    let fixtures = app.get(&token, "/v1/fixtures").await.body;
    assert_eq!(fixtures["version"], "2026-08-11.2");
    let approves = referral_of(&fixtures, "00000402");
    let declines = referral_of(&fixtures, "00000407");
    assert_eq!(approves["outcome"], "approved");
    assert_eq!(declines["outcome"], "declined");
    assert_eq!(declines["reasons"][0]["code"], "credit_adverse");
    assert_eq!(approves["resolves_after_seconds"], DAY);
    assert!(referral_of(&fixtures, "00000401").is_null());

    let mut ids = Vec::new();
    for company in ["00000402", "00000407"] {
        let r = app.create_application(&token, company, 1_000_000).await;
        assert_eq!(r.body["status"], "referred", "{}", r.body);
        ids.push(r.body["id"].as_str().unwrap().to_owned());
    }
    advance_ok(&app, &token, DAY - 60).await;
    for id in &ids {
        let r = app.get(&token, &format!("/v1/applications/{id}")).await;
        assert_eq!(r.body["status"], "referred", "not before the delay");
    }
    let referred_at = time_of(
        &app.get(&token, &format!("/v1/applications/{}", ids[0]))
            .await
            .body["decision"]["decided_at"],
    );
    advance_ok(&app, &token, 61).await;
    // Settled before the advance answered.
    let approved = app
        .get(&token, &format!("/v1/applications/{}", ids[0]))
        .await
        .body;
    assert_eq!(approved["status"], "approved");
    assert_eq!(approved["decision"]["outcome"], "approved");
    assert_eq!(
        approved["decision"]["reasons"],
        json!([{"code": "credit_ok", "category": "credit"}, {"code": "affordability_ok", "category": "affordability"}])
    );
    assert_eq!(
        time_of(&approved["decision"]["decided_at"]) - referred_at,
        time::Duration::days(1),
        "dated when the review fell due"
    );
    assert!(approved["decision"]["offer"]["apr"].as_f64().unwrap() > 20.0);
    let declined = app
        .get(&token, &format!("/v1/applications/{}", ids[1]))
        .await
        .body;
    assert_eq!(declined["status"], "declined");
    assert_eq!(declined["decision"]["reasons"][0]["code"], "credit_adverse");

    // A second decision.completed for each, delivered like any event.
    let decisions = app.events(&token, "?type=decision.completed").await;
    for id in &ids {
        let mine: Vec<&Value> = decisions
            .iter()
            .filter(|e| e["data"]["object"]["application_id"] == id.as_str())
            .collect();
        assert_eq!(mine.len(), 2, "{id}");
        assert_eq!(mine[1]["data"]["object"]["outcome"], "referred");
        assert_ne!(mine[0]["data"]["object"]["outcome"], "referred");
    }
    eventually("four decisions delivered", || receiver.count() == 4).await;

    // The settled offer can be taken.
    let accepted = app
        .write(
            &token,
            &format!("/v1/applications/{}/accept", ids[0]),
            json!({"bank_account": "bank_settle"}),
        )
        .await;
    assert_eq!(accepted.status, 200, "{}", accepted.body);
}

#[tokio::test]
async fn referrals_resolve_without_a_request_and_survive_a_restart() {
    let mut app = App::spawn().await;
    let client = app.client("sandbox:read sandbox:write").await;
    let token = app.token_for(&client).await;
    let r = app.create_application(&token, "00000402", 1_000_000).await;
    let id = r.body["id"].as_str().unwrap().to_owned();
    app.restart().await;
    // The service clock moves; nobody calls the sandbox: the worker settles it.
    app.advance(time::Duration::hours(25));
    // (The old token expired with the service clock; reading needs a new one.)
    let token = app.token_for(&client).await;
    let path = format!("/v1/applications/{id}");
    let mut status = Value::Null;
    for _ in 0..200 {
        status = app.get(&token, &path).await.body["status"].clone();
        if status == "approved" {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    assert_eq!(status, "approved");
    assert_eq!(
        app.events(&token, "?type=decision.completed").await.len(),
        2
    );
}

#[tokio::test]
async fn offers_and_idempotency_keys_expire_on_the_clients_clock() {
    let app = App::spawn().await;
    let alice = app.caller().await;
    let bob = app.caller().await;
    let body = json!({"business": {"company_number": "00000401"}, "amount_pence": 5_000});
    let first = app
        .post(&alice, "/v1/applications", "daily-key-001", body.clone())
        .await;
    assert_eq!(first.status, 201);
    let bobs = app.create_application(&bob, "00000401", 5_000).await;

    advance_ok(&app, &alice, 23 * 3_600).await;
    let replayed = app
        .post(&alice, "/v1/applications", "daily-key-001", body.clone())
        .await;
    assert_eq!(replayed.header("idempotent-replayed"), "true");
    assert_eq!(replayed.body["id"], first.body["id"]);
    advance_ok(&app, &alice, 3_600).await;
    let fresh = app
        .post(&alice, "/v1/applications", "daily-key-001", body.clone())
        .await;
    assert_eq!(fresh.status, 201, "{}", fresh.body);
    assert_eq!(fresh.header("idempotent-replayed"), "");
    assert_ne!(
        fresh.body["id"], first.body["id"],
        "the key expired a day after it was used"
    );

    // Offers lapse 30 days after the decision, on the owner's clock only.
    advance_ok(&app, &alice, 30 * DAY).await;
    let id = first.body["id"].as_str().unwrap();
    let late = app
        .write(
            &alice,
            &format!("/v1/applications/{id}/accept"),
            json!({"bank_account": "bank_settle"}),
        )
        .await;
    assert_error(&late, 409, "conflict");
    assert!(
        late.body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("expired")
    );
    let bob_id = bobs.body["id"].as_str().unwrap();
    let in_time = app
        .write(
            &bob,
            &format!("/v1/applications/{bob_id}/accept"),
            json!({"bank_account": "bank_settle"}),
        )
        .await;
    assert_eq!(
        in_time.status, 200,
        "Bob's clock did not move: {}",
        in_time.body
    );
}

#[tokio::test]
async fn a_custom_event_with_overrides_is_delivered_signed_and_replayable() {
    let app = App::spawn().await;
    let token = app.caller().await;
    let receiver = Receiver::start(&[]).await;
    let endpoint = register(&app, &token, &receiver.url, json!(["payment.failed"])).await;
    let secret = endpoint["secret"].as_str().unwrap();
    let r = app
        .write(
            &token,
            "/v1/test_helpers/events",
            json!({"type": "payment.failed",
                   "data": {"object": {"amount_pence": 4002, "failure_reason": "payer_cancelled"}}}),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.body);
    let event = r.body;
    assert_eq!(event["object"], "event");
    assert_eq!(event["type"], "payment.failed");
    assert_eq!(event["livemode"], false);
    let object = &event["data"]["object"];
    assert_eq!(object["amount_pence"], 4002);
    assert_eq!(object["failure_reason"], "payer_cancelled");
    assert_eq!(object["object"], "payment", "defaults fill the rest");
    assert_eq!(object["currency"], "GBP");
    assert_eq!(object["status"], "failed");

    let listed = app.events(&token, "").await;
    assert_eq!(listed[0], event, "listed like any event");
    eventually("the delivery", || receiver.count() == 1).await;
    let delivered = &receiver.all()[0];
    assert_eq!(
        serde_json::from_str::<Value>(&delivered.body).unwrap(),
        event
    );
    assert!(
        stripe_verifies(secret, delivered),
        "Stripe's verifier rejected {}",
        delivered.signature
    );

    let id = event["id"].as_str().unwrap();
    let replay = app
        .write(&token, &format!("/v1/events/{id}/replay"), json!({}))
        .await;
    assert_eq!(replay.status, 202, "{}", replay.body);
    assert_eq!(replay.body["deliveries"][0]["status"], "succeeded");
    assert_eq!(receiver.count(), 2);
    assert!(stripe_verifies(secret, &receiver.all()[1]));

    // Every type the sandbox emits has a default, owned by the caller alone.
    let fixtures = app.get(&token, "/v1/fixtures").await.body;
    let types = fixtures["event_types"].as_array().unwrap();
    assert_eq!(types.len(), 9);
    for t in types {
        let r = app
            .write(
                &token,
                "/v1/test_helpers/events",
                json!({"type": t["value"]}),
            )
            .await;
        assert_eq!(r.status, 201, "{t}: {}", r.body);
        assert_eq!(r.body["type"], t["value"]);
    }
    let stranger = app.caller().await;
    assert!(app.events(&stranger, "").await.is_empty());
}

#[tokio::test]
async fn a_bad_override_gives_422_naming_the_field() {
    let app = App::spawn().await;
    let token = app.caller().await;
    let post = |body: Value| app.write(&token, "/v1/test_helpers/events", body);
    let r =
        post(json!({"type": "payment.failed", "data": {"object": {"amount_pence": "lots"}}})).await;
    assert_error(&r, 422, "test_event_data_invalid");
    assert_eq!(
        r.body["error"]["detail"],
        json!([{"field": "data.object.amount_pence", "reason": "invalid_type"}])
    );
    assert!(
        r.body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("data.object.amount_pence")
    );
    let r = post(json!({"type": "application.created",
        "data": {"object": {"status": "pending", "decision": {"reasons": [{"code": "lucky", "category": "credit"}]}}}}))
    .await;
    assert_error(&r, 422, "test_event_data_invalid");
    assert_eq!(
        r.body["error"]["detail"],
        json!([{"field": "data.object.status", "reason": "one_of"},
               {"field": "data.object.decision.reasons[0].code", "reason": "one_of"}])
    );
    let r = post(
        json!({"type": "webhook_endpoint.disabled", "data": {"object": {"secret": "whsec_x"}}}),
    )
    .await;
    assert_eq!(
        r.body["error"]["detail"],
        json!([{"field": "data.object.secret", "reason": "unknown_field"}])
    );
    let r = post(json!({"type": "loan.exploded"})).await;
    assert_error(&r, 422, "test_event_type_unknown");
    assert_eq!(
        r.body["error"]["detail"],
        json!([{"field": "type", "reason": "unknown_event_type"}])
    );
    assert_error(&post(json!({})).await, 422, "validation_failed");
    assert_error(
        &post(json!({"type": "payment.failed", "extra": 1})).await,
        400,
        "unknown_field",
    );
    assert!(
        app.events(&token, "").await.is_empty(),
        "nothing was stored"
    );
}

#[tokio::test]
async fn reset_removes_what_the_caller_owns_and_leaves_others_intact() {
    let app = App::spawn().await;
    let alice = app.caller().await;
    let bob = app.caller().await;
    let alices = Receiver::start(&[500; 8]).await;
    let bobs = Receiver::start(&[500; 8]).await;
    register(&app, &alice, &alices.url, json!(["*"])).await;
    register(&app, &bob, &bobs.url, json!(["*"])).await;
    let mut apps = Vec::new();
    for token in [&alice, &bob] {
        let funded = app.funded_application(token).await;
        let id = funded["id"].as_str().unwrap().to_owned();
        let paid = app
            .post(
                token,
                "/v1/payments",
                "pay-before-reset",
                json!({"application_id": id, "amount_pence": 10_000}),
            )
            .await;
        assert_eq!(paid.status, 201);
        apps.push(id);
    }
    eventually("first attempts", || {
        alices.count() == 6 && bobs.count() == 6
    })
    .await;
    advance_ok(&app, &alice, 3_600).await;
    eventually("Alice's retries", || alices.count() == 12).await;
    let bobs_events = app.events(&bob, "?limit=100").await;

    let reset = app
        .post(
            &alice,
            "/v1/test_helpers/reset",
            "reset-key-0001",
            json!({}),
        )
        .await;
    assert_eq!(reset.status, 200, "{}", reset.body);
    assert_eq!(reset.body["object"], "sandbox_reset");
    assert_eq!(reset.body["clock"]["offset_ms"], 0);

    assert_error(
        &app.get(&alice, &format!("/v1/applications/{}", apps[0]))
            .await,
        404,
        "not_found",
    );
    assert!(app.events(&alice, "").await.is_empty());
    assert_eq!(clock(&app, &alice).await["offset_ms"], 0);
    // Its idempotency keys are gone: the key names a new request now.
    let again = app
        .post(
            &alice,
            "/v1/payments",
            "pay-before-reset",
            json!({"application_id": apps[0], "amount_pence": 1}),
        )
        .await;
    assert_error(&again, 404, "not_found");
    // Its pending deliveries and endpoints are gone: nothing more reaches it.
    advance_ok(&app, &alice, 2 * 3_600).await;
    app.create_application(&alice, "00000401", 5_000).await;
    settle_briefly().await;
    assert_eq!(alices.count(), 12);
    // The reset itself is replayed, not run again over what came after it.
    let replayed = app
        .post(
            &alice,
            "/v1/test_helpers/reset",
            "reset-key-0001",
            json!({}),
        )
        .await;
    assert_eq!(replayed.header("idempotent-replayed"), "true");
    assert_eq!(app.events(&alice, "").await.len(), 2);

    // Bob keeps everything, pending deliveries included.
    let r = app
        .get(&bob, &format!("/v1/applications/{}", apps[1]))
        .await;
    assert_eq!(r.status, 200);
    assert_eq!(r.body["status"], "funded");
    assert_eq!(app.events(&bob, "?limit=100").await, bobs_events);
    let replay = app
        .post(
            &bob,
            "/v1/payments",
            "pay-before-reset",
            json!({"application_id": apps[1], "amount_pence": 10_000}),
        )
        .await;
    assert_eq!(replay.header("idempotent-replayed"), "true");
    advance_ok(&app, &bob, 70).await;
    eventually("Bob's retries", || bobs.count() == 12).await;
}

/// The real binary, killed with SIGKILL: an acknowledged advance and a
/// pending review are both still there when it comes back.
#[tokio::test]
async fn the_clock_and_a_pending_review_survive_kill_9() {
    use crate::support::process::{client_token, credential, launch};
    let site = crate::support::Site::new().await;
    let http = reqwest::Client::new();
    let first = launch(&site);
    let (id, secret) = (
        credential(&first.stdout, "client_id"),
        credential(&first.stdout, "client_secret"),
    );
    let token = client_token(&http, &first.base, &id, &secret).await;
    let post = |base: &str, path: &str, key: &str, body: Value| {
        http.post(format!("{base}{path}"))
            .bearer_auth(&token)
            .header("Idempotency-Key", key.to_owned())
            .json(&body)
            .send()
    };
    let created = reply(
        post(
            &first.base,
            "/v1/applications",
            "kill-9-referred",
            json!({"business": {"company_number": "00000402"}, "amount_pence": 1_000_000}),
        )
        .await
        .unwrap(),
    )
    .await;
    assert_eq!(created.body["status"], "referred");
    let app_id = created.body["id"].as_str().unwrap().to_owned();
    let moved = reply(
        post(
            &first.base,
            "/v1/test_helpers/clock/advance",
            "kill-9-advance",
            json!({"seconds": 3_600}),
        )
        .await
        .unwrap(),
    )
    .await;
    assert_eq!(moved.status, 200);
    drop(first); // SIGKILL

    let second = launch(&site);
    let token = client_token(&http, &second.base, &id, &secret).await;
    let read = |path: String| {
        http.get(format!("{}{path}", second.base))
            .bearer_auth(&token)
            .send()
    };
    let clock = reply(read("/v1/test_helpers/clock".into()).await.unwrap()).await;
    assert_eq!(clock.body["offset_ms"], 3_600_000, "the advance was kept");
    let app = reply(read(format!("/v1/applications/{app_id}")).await.unwrap()).await;
    assert_eq!(app.body["status"], "referred");
    let settled = reply(
        http.post(format!("{}/v1/test_helpers/clock/advance", second.base))
            .bearer_auth(&token)
            .header("Idempotency-Key", "kill-9-advance-2")
            .json(&json!({"seconds": 23 * 3_600}))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(settled.status, 200, "{}", settled.body);
    let app = reply(read(format!("/v1/applications/{app_id}")).await.unwrap()).await;
    assert_eq!(
        app.body["status"], "approved",
        "the pending review survived"
    );
}
