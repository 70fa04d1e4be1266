use serde_json::{Value, json};

use crate::support::receiver::{Receiver, stripe_verifies};
use crate::support::{App, Site, assert_error, eventually, test_config, uuidish};

async fn register(app: &App, token: &str, url: &str, events: Value) -> Value {
    let r = app
        .post(
            token,
            "/v1/webhook-endpoints",
            &format!("whe-{}", uuidish()),
            json!({"url": url, "enabled_events": events, "description": "test"}),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.body);
    r.body
}

#[tokio::test]
async fn registration_returns_a_one_time_secret_and_validates_input() {
    let app = App::spawn().await;
    let token = app.caller().await;
    let r = app
        .post(
            &token,
            "/v1/webhook-endpoints",
            "whe-key-0001",
            json!({"url": "http://127.0.0.1:9/hook"}),
        )
        .await;
    assert_eq!(r.status, 201);
    assert!(r.body["secret"].as_str().unwrap().starts_with("whsec_"));
    assert_eq!(r.body["enabled_events"], json!(["*"]));
    assert_eq!(r.body["status"], "enabled");
    assert_eq!(r.body["object"], "webhook_endpoint");
    let unknown = app.post(&token, "/v1/webhook-endpoints", &format!("whe-{}", uuidish()), json!({"url": "http://127.0.0.1:9/h", "enabled_events": ["application.created", "loan.exploded"]})).await;
    assert_error(&unknown, 422, "webhook_event_unknown");
    assert_eq!(
        unknown.body["error"]["detail"][0]["field"],
        "enabled_events[1]"
    );
    assert_error(
        &app.post(
            &token,
            "/v1/webhook-endpoints",
            &format!("whe-{}", uuidish()),
            json!({}),
        )
        .await,
        422,
        "validation_failed",
    );
    let private = app
        .post(
            &token,
            "/v1/webhook-endpoints",
            &format!("whe-{}", uuidish()),
            json!({"url": "http://10.0.0.1/h"}),
        )
        .await;
    assert_error(&private, 422, "webhook_endpoint_url_invalid");
}

#[tokio::test]
async fn default_policy_refuses_plain_http_and_private_targets() {
    let site = Site::new().await;
    let mut config = test_config(&site);
    config.webhooks = lendhub::config::Config::default().webhooks;
    let app = App::spawn_with(config, site).await;
    let token = app.caller().await;
    let attempt =
        |url: &'static str| app.write(&token, "/v1/webhook-endpoints", json!({"url": url}));
    let r = attempt("http://hooks.example.com/h").await;
    assert_error(&r, 422, "webhook_endpoint_url_invalid");
    assert_eq!(
        r.body["error"]["detail"][0],
        json!({"field": "url", "reason": "must_be_https"})
    );
    for url in [
        "https://127.0.0.1/h",
        "https://localhost/h",
        "https://192.168.1.1/h",
        "https://[::1]/h",
        "https://169.254.169.254/h",
        // IPv6 forms that carry a private IPv4 (issue #44, item 9).
        "https://[2002:7f00:1::]/h",
        "https://[2002:a9fe:a9fe::]/h",
        "https://[64:ff9b::a9fe:a9fe]/h",
        "https://[::ffff:169.254.169.254]/h",
        "https://[::127.0.0.1]/h",
        "https://[2001:0:4136:e378:8000:63bf:80ff:fffe]/h",
    ] {
        let r = attempt(url).await;
        assert_error(&r, 422, "webhook_endpoint_url_invalid");
        assert_eq!(
            r.body["error"]["detail"][0]["reason"], "private_network",
            "{url}"
        );
    }
    assert_eq!(attempt("https://hooks.example.com/h").await.status, 201);
}

#[tokio::test]
async fn events_are_delivered_signed_and_stripe_accepts_the_signature() {
    let app = App::spawn().await;
    let token = app.caller().await;
    let stranger = app.caller().await;
    let receiver = Receiver::start(&[]).await;
    let endpoint = register(&app, &token, &receiver.url, json!(["application.created"])).await;
    let secret = endpoint["secret"].as_str().unwrap();
    let created = app.create_application(&token, "00000401", 5_000).await.body;
    app.create_application(&stranger, "00000401", 5_000).await;
    eventually("the delivery", || receiver.count() == 1).await;
    let delivery = &receiver.all()[0];
    let body: Value = serde_json::from_str(&delivery.body).unwrap();
    assert_eq!(body["type"], "application.created");
    assert_eq!(body["data"]["object"]["id"], created["id"]);
    assert_eq!(
        body,
        app.events(&token, "?type=application.created").await[0],
        "delivered bytes are the stored event"
    );
    assert!(
        stripe_verifies(secret, delivery),
        "Stripe's verifier rejected {}",
        delivery.signature
    );
    assert!(!stripe_verifies("whsec_wrong", delivery));
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert_eq!(
        receiver.count(),
        1,
        "decision.completed is not subscribed; the stranger's events are not ours"
    );
}

#[tokio::test]
async fn failed_deliveries_retry_on_the_clock() {
    let app = App::spawn().await;
    let token = app.caller().await;
    let receiver = Receiver::start(&[500, 503]).await;
    register(&app, &token, &receiver.url, json!(["decision.completed"])).await;
    // Approved: one decision. (A referred one would be settled within the
    // 80 h this test moves the clock, with a second decision.)
    app.create_application(&token, "00000401", 5_000).await;
    eventually("the first attempt", || receiver.count() == 1).await;
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert_eq!(
        receiver.count(),
        1,
        "no retry before ~1 minute has passed on the clock"
    );
    app.advance(time::Duration::seconds(70));
    eventually("the second attempt", || receiver.count() == 2).await;
    app.advance(time::Duration::minutes(6));
    eventually("the third attempt", || receiver.count() == 3).await;
    app.advance(time::Duration::hours(80));
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert_eq!(
        receiver.count(),
        3,
        "the third attempt succeeded; nothing more is sent"
    );
    let ids: Vec<String> = receiver
        .all()
        .iter()
        .map(|r| {
            serde_json::from_str::<Value>(&r.body).unwrap()["id"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    assert!(
        ids.windows(2).all(|w| w[0] == w[1]),
        "every attempt carries the same event id"
    );
}

#[tokio::test]
async fn deliveries_survive_a_restart() {
    let mut app = App::spawn().await;
    let token = app.caller().await;
    let receiver = Receiver::start(&[500]).await;
    register(&app, &token, &receiver.url, json!(["application.created"])).await;
    app.create_application(&token, "00000401", 5_000).await;
    eventually("the first attempt", || receiver.count() == 1).await;
    app.restart().await;
    app.advance(time::Duration::minutes(2));
    eventually("the retry after restart", || receiver.count() == 2).await;
}

#[tokio::test]
async fn replay_delivers_synchronously_and_reports_each_endpoint() {
    let app = App::spawn().await;
    let token = app.caller().await;
    let ok = Receiver::start(&[]).await;
    let failing = Receiver::start(&[500, 500, 500, 500, 500]).await;
    let endpoint = register(&app, &token, &ok.url, json!(["*"])).await;
    register(&app, &token, &failing.url, json!(["application.created"])).await;
    app.create_application(&token, "00000401", 5_000).await;
    eventually("original deliveries", || {
        ok.count() == 2 && failing.count() == 1
    })
    .await;
    let event = app.events(&token, "?type=application.created").await[0].clone();
    let id = event["id"].as_str().unwrap();
    let r = app
        .post(
            &token,
            &format!("/v1/events/{id}/replay"),
            "replay-key-01",
            json!({}),
        )
        .await;
    assert_eq!(r.status, 202, "{}", r.body);
    let deliveries = r.body["deliveries"].as_array().unwrap();
    assert_eq!(deliveries.len(), 2);
    let by_url = |url: &str| deliveries.iter().find(|d| d["url"] == url).unwrap().clone();
    assert_eq!(by_url(&ok.url)["status"], "succeeded");
    assert_eq!(by_url(&ok.url)["http_status"], 200);
    assert_eq!(by_url(&failing.url)["status"], "failed");
    assert_eq!(by_url(&failing.url)["http_status"], 500);
    assert_eq!(ok.count(), 3, "the replay happened before the 202");
    let replayed = ok.all().last().unwrap().clone();
    assert_eq!(
        serde_json::from_str::<Value>(&replayed.body).unwrap()["id"],
        id
    );
    assert!(stripe_verifies(
        endpoint["secret"].as_str().unwrap(),
        &replayed
    ));
    // Replaying again with the same key answers from the record without re-sending.
    let again = app
        .post(
            &token,
            &format!("/v1/events/{id}/replay"),
            "replay-key-01",
            json!({}),
        )
        .await;
    assert_eq!(again.headers["idempotent-replayed"], "true");
    assert_eq!(ok.count(), 3);
}

#[tokio::test]
async fn replay_to_another_clients_endpoint_is_404() {
    let app = App::spawn().await;
    let alice = app.caller().await;
    let bob = app.caller().await;
    let receiver = Receiver::start(&[]).await;
    let bobs = register(&app, &bob, &receiver.url, json!(["*"])).await;
    app.create_application(&alice, "00000401", 5_000).await;
    let id = app.events(&alice, "").await[0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let r = app
        .write(
            &alice,
            &format!("/v1/events/{id}/replay"),
            json!({"endpoint_id": bobs["id"]}),
        )
        .await;
    assert_error(&r, 404, "not_found");
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    assert_eq!(
        receiver.count(),
        0,
        "Bob's endpoint never sees Alice's events"
    );
}

#[tokio::test]
async fn the_network_policy_is_enforced_again_at_delivery_time() {
    let mut app = App::spawn().await;
    let token = app.caller().await;
    let receiver = Receiver::start(&[]).await;
    // Registered while loopback was allowed, by name so only resolution reveals the target.
    let by_name = receiver.url.replace("127.0.0.1", "localhost");
    register(&app, &token, &by_name, json!(["*"])).await;
    app.config.webhooks.allow_private_networks.clear();
    app.restart().await;
    app.create_application(&token, "00000401", 5_000).await;
    let id = app.events(&token, "?type=application.created").await[0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let replay = app
        .write(&token, &format!("/v1/events/{id}/replay"), json!({}))
        .await;
    assert_eq!(replay.status, 202);
    assert_eq!(replay.body["deliveries"][0]["status"], "failed");
    let error = replay.body["deliveries"][0]["error"].as_str().unwrap();
    assert!(
        error.contains("non-public") || error.contains("may not reach"),
        "{error}"
    );
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert_eq!(
        receiver.count(),
        0,
        "nothing reaches a private address once the policy forbids it"
    );
}
