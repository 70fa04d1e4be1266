//! The REST tier's webhook endpoints and events, in both environments, and
//! the credentials and scopes every REST call is checked against.

use lendhub_domain::partner::project::Tier;
use serde_json::{Value, json};

use crate::partner::assert_hub_error;
use crate::rest_tier::{api_key, rest_app, rest_get, rest_partner};
use crate::support::receiver::{Receiver, stripe_verifies};
use crate::support::*;

async fn send(
    app: &App,
    method: reqwest::Method,
    path: &str,
    key: &str,
    body: Option<Value>,
) -> Reply {
    let mut request = app
        .http
        .request(method, format!("{}{path}", app.hub))
        .bearer_auth(key);
    if let Some(b) = body {
        request = request.json(&b);
    }
    reply(request.send().await.unwrap()).await
}

async fn post(app: &App, path: &str, key: &str, body: Value) -> Reply {
    send(app, reqwest::Method::POST, path, key, Some(body)).await
}

async fn token(app: &App, id: &str, secret: &str, form: &[(&str, &str)]) -> Reply {
    let mut fields = vec![("grant_type", "client_credentials")];
    fields.extend_from_slice(form);
    reply(
        app.http
            .post(format!("{}/partner/v1/oauth/token", app.hub))
            .basic_auth(id, Some(secret))
            .form(&fields)
            .send()
            .await
            .unwrap(),
    )
    .await
}

#[tokio::test]
async fn every_rest_call_checks_its_credential_environment_and_scope() {
    let app = rest_app().await;
    let hub_url = app.server().hub_url.clone();
    let (client, secret) = rest_partner(&app, "events.read webhooks.manage", Tier::Launch).await;
    let live = api_key(&app, &client, "live", None)["key"]
        .as_str()
        .unwrap()
        .to_owned();
    let test = api_key(&app, &client, "test", None)["key"]
        .as_str()
        .unwrap()
        .to_owned();
    let narrow = api_key(&app, &client, "live", Some("webhooks.manage"))["key"]
        .as_str()
        .unwrap()
        .to_owned();

    assert_eq!(
        rest_get(&app, "/partner/v1/events", Some(&live))
            .await
            .status,
        200
    );
    assert_eq!(
        rest_get(&app, "/sandbox/v1/events", Some(&test))
            .await
            .status,
        200
    );
    assert_hub_error(
        &rest_get(&app, "/partner/v1/events", None).await,
        401,
        "missing_api_key",
    );
    for (path, key) in [("/partner/v1/events", &test), ("/sandbox/v1/events", &live)] {
        assert_hub_error(
            &rest_get(&app, path, Some(key)).await,
            401,
            "invalid_api_key",
        );
    }
    assert_hub_error(
        &rest_get(&app, "/partner/v1/events", Some(&client)).await,
        401,
        "secret_key_required",
    );
    // One character of the verifier changed (never to itself: a key that
    // happened to end in the replacement made this check flaky).
    let at = live.len() - 5;
    let swapped = if &live[at..=at] == "A" { "B" } else { "A" };
    let forged = format!("{}{swapped}{}", &live[..at], &live[at + 1..]);
    assert_hub_error(
        &rest_get(&app, "/partner/v1/events", Some(&forged)).await,
        401,
        "invalid_api_key",
    );
    let refused = rest_get(&app, "/partner/v1/events", Some(&narrow)).await;
    assert_hub_error(&refused, 403, "insufficient_scope");
    assert!(
        refused.body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("events.read"),
        "names the scope needed: {}",
        refused.body
    );

    // Access tokens: the audience is the environment.
    let live_token = token(&app, &client, &secret, &[]).await.body["access_token"]
        .as_str()
        .unwrap()
        .to_owned();
    let sandbox_resource = format!("{hub_url}/sandbox/v1");
    let test_token = token(&app, &client, &secret, &[("resource", &sandbox_resource)]).await;
    assert_eq!(test_token.status, 200, "{}", test_token.body);
    let test_token = test_token.body["access_token"].as_str().unwrap().to_owned();
    assert_eq!(
        rest_get(&app, "/partner/v1/events", Some(&live_token))
            .await
            .status,
        200
    );
    assert_eq!(
        rest_get(&app, "/sandbox/v1/events", Some(&test_token))
            .await
            .status,
        200
    );
    assert_hub_error(
        &rest_get(&app, "/sandbox/v1/events", Some(&live_token)).await,
        401,
        "audience_mismatch",
    );
    assert_hub_error(
        &rest_get(&app, "/partner/v1/events", Some(&test_token)).await,
        401,
        "audience_mismatch",
    );
    assert_hub_error(
        &token(
            &app,
            &client,
            &secret,
            &[("resource", "https://elsewhere.example")],
        )
        .await,
        422,
        "validation_failed",
    );

    // The seed's other spellings are aliases of one canonical scope.
    let (aliased, aliased_secret) =
        rest_partner(&app, "applications.write payments.read", Tier::Build).await;
    let granted = token(
        &app,
        &aliased,
        &aliased_secret,
        &[("scope", "apply.write payments:read")],
    )
    .await;
    assert_eq!(granted.status, 200, "{}", granted.body);
    assert_eq!(granted.body["scope"], "applications.write payments.read");
}

#[tokio::test]
async fn keys_are_rolled_with_an_overlap_and_revoked_from_the_cli() {
    let app = rest_app().await;
    let (client, _) = rest_partner(&app, "events.read", Tier::Build).await;
    let first = api_key(&app, &client, "live", None);
    let first_key = first["key"].as_str().unwrap().to_owned();
    let first_id = first["id"].as_str().unwrap().to_owned();
    let cli = |args: &[&str]| -> Value {
        serde_json::from_str(&crate::support::process::cli(&app._site, args)).unwrap()
    };
    let rolled = cli(&[
        "partner",
        "api-keys",
        "roll",
        &first_id,
        "--overlap-hours",
        "1",
    ]);
    let second_key = rolled["key"].as_str().unwrap().to_owned();
    assert_eq!(rolled["replaces"], first_id.as_str());
    assert_eq!(rolled["environment"], "live");
    for key in [&first_key, &second_key] {
        assert_eq!(
            rest_get(&app, "/partner/v1/events", Some(key)).await.status,
            200,
            "both work during the overlap"
        );
    }
    let listed =
        crate::support::process::cli(&app._site, &["partner", "api-keys", "list", &client]);
    assert_eq!(listed.lines().count(), 2);
    assert!(
        !listed.contains(&second_key),
        "listings never show a secret"
    );

    let second_id = rolled["id"].as_str().unwrap().to_owned();
    cli(&["partner", "api-keys", "revoke", &second_id]);
    propagated("the revocation", || async {
        rest_get(&app, "/partner/v1/events", Some(&second_key))
            .await
            .status
            == 401
    })
    .await;
    assert_eq!(
        rest_get(&app, "/partner/v1/events", Some(&first_key))
            .await
            .status,
        200
    );
    let third = cli(&[
        "partner",
        "api-keys",
        "roll",
        &first_id,
        "--overlap-hours",
        "0",
    ]);
    propagated("a roll without overlap", || async {
        rest_get(&app, "/partner/v1/events", Some(&first_key))
            .await
            .status
            == 401
    })
    .await;
    assert_eq!(
        rest_get(
            &app,
            "/partner/v1/events",
            Some(third["key"].as_str().unwrap())
        )
        .await
        .status,
        200
    );
}

#[tokio::test]
async fn webhook_endpoints_are_managed_per_environment_within_a_limit() {
    let app = rest_app().await;
    let (client, _) = rest_partner(&app, "events.read webhooks.manage", Tier::Platform).await;
    let live = api_key(&app, &client, "live", None)["key"]
        .as_str()
        .unwrap()
        .to_owned();
    let test = api_key(&app, &client, "test", None)["key"]
        .as_str()
        .unwrap()
        .to_owned();
    let body = |n: usize| {
        json!({"url": format!("https://hooks.example/{n}"), "enabled_events": ["*"],
               "description": format!("hook {n}"), "metadata": {"team": "risk"}})
    };
    let created = post(&app, "/partner/v1/webhook_endpoints", &live, body(0)).await;
    assert_eq!(created.status, 201, "{}", created.body);
    let id = created.body["id"].as_str().unwrap().to_owned();
    assert!(id.starts_with("whe_"), "{id}");
    assert!(
        created.body["secret"]
            .as_str()
            .unwrap()
            .starts_with("whsec_")
    );
    assert_eq!(created.body["object"], "webhook_endpoint");
    assert_eq!(created.body["livemode"], true);
    assert_eq!(created.body["status"], "enabled");
    assert_eq!(created.body["metadata"], json!({"team": "risk"}));
    assert_eq!(created.body["api_version"], "2026-11-25");

    let fetched = rest_get(
        &app,
        &format!("/partner/v1/webhook_endpoints/{id}"),
        Some(&live),
    )
    .await;
    assert_eq!(fetched.status, 200);
    assert!(
        fetched.body.get("secret").is_none(),
        "the secret is shown once"
    );
    assert_hub_error(
        &rest_get(
            &app,
            &format!("/sandbox/v1/webhook_endpoints/{id}"),
            Some(&test),
        )
        .await,
        404,
        "not_found",
    );

    // Bad input: each its own code, nothing stored.
    for (bad, status, code) in [
        (
            json!({"url": "https://h.example", "enabled_events": ["*"], "colour": "red"}),
            400,
            "unknown_field",
        ),
        (
            json!({"url": "https://h.example", "enabled_events": ["payment.nope"]}),
            422,
            "webhook_event_unknown",
        ),
        (
            json!({"url": "ftp://h.example", "enabled_events": ["*"]}),
            422,
            "webhook_endpoint_url_invalid",
        ),
        (json!({"enabled_events": ["*"]}), 422, "validation_failed"),
        (
            json!({"url": "https://h.example", "enabled_events": ["*"], "api_version": "1999-01-01"}),
            422,
            "validation_failed",
        ),
        (
            json!({"url": "https://h.example", "enabled_events": ["*"],
                "metadata": (0..21).map(|i| (format!("k{i}"), json!("v"))).collect::<serde_json::Map<_, _>>()}),
            422,
            "validation_failed",
        ),
        (
            json!({"url": "https://h.example", "enabled_events": ["*"], "metadata": {"n": 1.5}}),
            422,
            "validation_failed",
        ),
    ] {
        assert_hub_error(
            &post(&app, "/partner/v1/webhook_endpoints", &live, bad).await,
            status,
            code,
        );
    }
    let typed = reply(
        app.http
            .post(format!("{}/partner/v1/webhook_endpoints", app.hub))
            .bearer_auth(&live)
            .header("content-type", "text/plain")
            .body("url=x")
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_hub_error(&typed, 415, "unsupported_media_type");
    let huge = json!({"url": "https://h.example", "enabled_events": ["*"], "description": "x".repeat(70_000)});
    assert_hub_error(
        &post(&app, "/partner/v1/webhook_endpoints", &live, huge).await,
        413,
        "payload_too_large",
    );

    // Update, then the list pages newest first with its cursor.
    let updated = post(
        &app,
        &format!("/partner/v1/webhook_endpoints/{id}"),
        &live,
        json!({"description": "renamed", "enabled_events": ["decision.completed"]}),
    )
    .await;
    assert_eq!(updated.status, 200, "{}", updated.body);
    assert_eq!(updated.body["description"], "renamed");
    assert_eq!(updated.body["metadata"], json!({"team": "risk"}), "kept");
    for n in 1..16 {
        let r = post(&app, "/partner/v1/webhook_endpoints", &live, body(n)).await;
        assert_eq!(r.status, 201, "{n}: {}", r.body);
    }
    assert_hub_error(
        &post(&app, "/partner/v1/webhook_endpoints", &live, body(16)).await,
        422,
        "webhook_endpoint_limit",
    );
    assert_eq!(
        post(&app, "/sandbox/v1/webhook_endpoints", &test, body(16))
            .await
            .status,
        201,
        "the test environment has its own limit"
    );
    let page = rest_get(&app, "/partner/v1/webhook_endpoints?limit=10", Some(&live)).await;
    assert_eq!(page.body["object"], "list");
    assert_eq!(page.body["url"], "/partner/v1/webhook_endpoints");
    assert_eq!(page.body["data"].as_array().unwrap().len(), 10);
    assert_eq!(page.body["has_more"], true);
    assert_eq!(
        page.body["data"][0]["description"], "hook 15",
        "newest first"
    );
    let cursor = page.body["next_cursor"].as_str().unwrap();
    let rest = rest_get(
        &app,
        &format!("/partner/v1/webhook_endpoints?starting_after={cursor}"),
        Some(&live),
    )
    .await;
    assert_eq!(rest.body["data"].as_array().unwrap().len(), 6);
    assert_eq!(rest.body["has_more"], false);
    assert_hub_error(
        &rest_get(
            &app,
            "/partner/v1/webhook_endpoints?starting_after=evt_01JD3M5T7YV0000000000000",
            Some(&live),
        )
        .await,
        404,
        "not_found",
    );
    assert_hub_error(
        &rest_get(
            &app,
            &format!("/partner/v1/webhook_endpoints?starting_after={id}&ending_before={id}"),
            Some(&live),
        )
        .await,
        422,
        "validation_failed",
    );

    // Deleting frees a place under the limit.
    let deleted = send(
        &app,
        reqwest::Method::DELETE,
        &format!("/partner/v1/webhook_endpoints/{id}"),
        &live,
        None,
    )
    .await;
    assert_eq!(deleted.status, 200);
    assert_eq!(
        deleted.body,
        json!({"id": id, "object": "webhook_endpoint", "deleted": true})
    );
    assert_hub_error(
        &rest_get(
            &app,
            &format!("/partner/v1/webhook_endpoints/{id}"),
            Some(&live),
        )
        .await,
        404,
        "not_found",
    );
    assert_eq!(
        post(&app, "/partner/v1/webhook_endpoints", &live, body(17))
            .await
            .status,
        201
    );
}

#[tokio::test]
async fn writes_replay_under_their_idempotency_key() {
    let app = rest_app().await;
    let (client, _) = rest_partner(&app, "webhooks.manage", Tier::Platform).await;
    let live = api_key(&app, &client, "live", None)["key"]
        .as_str()
        .unwrap()
        .to_owned();
    let create = |key: &'static str, url: &'static str| {
        let app = &app;
        let live = live.clone();
        async move {
            let r = app
                .http
                .post(format!("{}/partner/v1/webhook_endpoints", app.hub))
                .bearer_auth(&live)
                .header("Idempotency-Key", key)
                .json(&json!({"url": url, "enabled_events": ["*"]}))
                .send()
                .await
                .unwrap();
            let replayed = r.headers().contains_key("idempotent-replayed");
            (r.status().as_u16(), replayed, r.text().await.unwrap())
        }
    };
    let first = create("idem-key-0001", "https://h.example/a").await;
    let again = create("idem-key-0001", "https://h.example/a").await;
    assert_eq!(first.0, 201);
    assert_eq!(
        (again.0, &again.2),
        (201, &first.2),
        "byte for byte, secret included"
    );
    assert!(!first.1 && again.1);
    let other = create("idem-key-0001", "https://h.example/b").await;
    assert_eq!(other.0, 409);
    assert!(other.2.contains("idempotency_key_reused"), "{}", other.2);
    let listed = rest_get(&app, "/partner/v1/webhook_endpoints", Some(&live)).await;
    assert_eq!(
        listed.body["data"].as_array().unwrap().len(),
        1,
        "one endpoint made"
    );
}

#[tokio::test]
async fn endpoint_events_are_listed_and_delivered_signed_through_a_secret_rotation() {
    let app = rest_app().await;
    let (client, _) = rest_partner(&app, "events.read webhooks.manage", Tier::Platform).await;
    let test = api_key(&app, &client, "test", None)["key"]
        .as_str()
        .unwrap()
        .to_owned();
    let watcher = Receiver::start(&[]).await;
    let watch = post(
        &app,
        "/sandbox/v1/webhook_endpoints",
        &test,
        json!({"url": watcher.url, "enabled_events": ["webhook_endpoint.disabled", "webhook_endpoint.enabled"]}),
    )
    .await;
    assert_eq!(watch.status, 201, "{}", watch.body);
    let watch_id = watch.body["id"].as_str().unwrap().to_owned();
    let old_secret = watch.body["secret"].as_str().unwrap().to_owned();
    let other = post(
        &app,
        "/sandbox/v1/webhook_endpoints",
        &test,
        json!({"url": "https://hooks.example/other", "enabled_events": ["*"]}),
    )
    .await;
    let other_id = other.body["id"].as_str().unwrap().to_owned();

    let other_path = format!("/sandbox/v1/webhook_endpoints/{other_id}");
    let pause = |disabled: bool| post(&app, &other_path, &test, json!({ "disabled": disabled }));
    assert_eq!(pause(true).await.body["status"], "disabled");
    eventually("the disabled event is delivered", || watcher.count() == 1).await;
    let first = &watcher.all()[0];
    let delivered: Value = serde_json::from_str(&first.body).unwrap();
    assert_eq!(delivered["type"], "webhook_endpoint.disabled");
    assert_eq!(delivered["livemode"], false, "a test-environment event");
    assert_eq!(delivered["api_version"], "2026-11-25");
    assert!(delivered["id"].as_str().unwrap().starts_with("evt_"));
    assert_eq!(delivered["data"]["object"]["id"], other_id.as_str());
    assert!(stripe_verifies(&old_secret, first));

    // Rotated with an overlap: the next delivery is signed by both secrets.
    let rotated = post(
        &app,
        &format!("/sandbox/v1/webhook_endpoints/{watch_id}/rotate_secret"),
        &test,
        json!({"overlap_seconds": 3600}),
    )
    .await;
    assert_eq!(rotated.status, 200, "{}", rotated.body);
    let new_secret = rotated.body["secret"].as_str().unwrap().to_owned();
    assert_ne!(new_secret, old_secret);
    assert!(rotated.body["previous_secret_expires_at"].is_string());
    let enabled = post(
        &app,
        &format!("/sandbox/v1/webhook_endpoints/{other_id}/enable"),
        &test,
        json!({}),
    )
    .await;
    assert_eq!(enabled.body["status"], "enabled");
    eventually("the enabled event is delivered", || watcher.count() == 2).await;
    let second = &watcher.all()[1];
    assert_eq!(
        second.signature.matches("v1=").count(),
        2,
        "{}",
        second.signature
    );
    assert!(stripe_verifies(&new_secret, second));
    assert!(stripe_verifies(&old_secret, second));

    // Without an overlap, only the newest secret signs.
    let rotated_now = post(
        &app,
        &format!("/sandbox/v1/webhook_endpoints/{watch_id}/rotate_secret"),
        &test,
        json!({"overlap_seconds": 0}),
    )
    .await;
    let newest = rotated_now.body["secret"].as_str().unwrap().to_owned();
    pause(true).await;
    eventually("the third delivery", || watcher.count() == 3).await;
    let third = &watcher.all()[2];
    assert_eq!(third.signature.matches("v1=").count(), 1);
    assert!(stripe_verifies(&newest, third));
    assert!(!stripe_verifies(&new_secret, third));

    // The events list: newest first, filtered by type, and only this
    // environment's.
    let listed = rest_get(&app, "/sandbox/v1/events", Some(&test)).await;
    assert_eq!(listed.status, 200, "{}", listed.body);
    let types: Vec<&str> = listed.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["type"].as_str().unwrap())
        .collect();
    assert_eq!(
        types,
        [
            "webhook_endpoint.disabled",
            "webhook_endpoint.enabled",
            "webhook_endpoint.disabled"
        ]
    );
    assert_eq!(listed.body["url"], "/sandbox/v1/events");
    let only = rest_get(
        &app,
        "/sandbox/v1/events?type=webhook_endpoint.enabled",
        Some(&test),
    )
    .await;
    assert_eq!(only.body["data"].as_array().unwrap().len(), 1);
    assert_hub_error(
        &rest_get(&app, "/sandbox/v1/events?type=nope.nope", Some(&test)).await,
        422,
        "validation_failed",
    );
    assert_hub_error(
        &rest_get(
            &app,
            &format!("/sandbox/v1/events?starting_after={watch_id}"),
            Some(&test),
        )
        .await,
        404,
        "not_found",
    );
    let live = api_key(&app, &client, "live", None)["key"]
        .as_str()
        .unwrap()
        .to_owned();
    let live_events = rest_get(&app, "/partner/v1/events", Some(&live)).await;
    assert_eq!(
        live_events.body["data"],
        json!([]),
        "test events stay in test"
    );
}

/// A hub endpoint failing every delivery for 72 hours is disabled, an
/// e-mail reaches the partner's contact address through a real SMTP server,
/// and enabling it resumes delivery.
#[tokio::test]
async fn seventy_two_hours_of_failures_disable_a_hub_endpoint_and_mail_the_partner() {
    use crate::support::smtp::SmtpServer;
    let site = Site::new().await;
    let smtp = SmtpServer::start(site.path().join("maildir"));
    let port = smtp.port;
    let mut config = test_config(&site);
    config.rest_tier.enabled = true;
    config.smtp.host = Some("127.0.0.1".into());
    config.smtp.port = port;
    config.smtp.from = "lendhub <no-reply@lendhub.test>".into();
    let app = App::spawn_with(config, site).await;
    let (client, _) = rest_partner(&app, "events.read webhooks.manage", Tier::Platform).await;
    let set = crate::support::process::cli(
        &app._site,
        &[
            "partner",
            "clients",
            "set-contact",
            &client,
            "ops@partner.example",
        ],
    );
    assert!(set.contains("ops@partner.example"), "{set}");
    let key = api_key(&app, &client, "live", None)["key"]
        .as_str()
        .unwrap()
        .to_owned();
    let failing = Receiver::start(&[500; 64]).await;
    let endpoint = post(
        &app,
        "/partner/v1/webhook_endpoints",
        &key,
        json!({"url": failing.url, "enabled_events": ["webhook_endpoint.disabled", "webhook_endpoint.enabled"]}),
    )
    .await;
    let id = endpoint.body["id"].as_str().unwrap().to_owned();
    let other = post(
        &app,
        "/partner/v1/webhook_endpoints",
        &key,
        json!({"url": "https://hooks.example/other", "enabled_events": ["*"]}),
    )
    .await;
    let other_path = format!(
        "/partner/v1/webhook_endpoints/{}",
        other.body["id"].as_str().unwrap()
    );
    // One event (another endpoint paused) that the failing endpoint refuses.
    post(&app, &other_path, &key, json!({"disabled": true})).await;
    eventually("the first attempt", || failing.count() == 1).await;

    let mut steps = vec![70, 6 * 60, 35 * 60, 2 * 3_600 + 15 * 60];
    steps.extend(std::iter::repeat_n(7 * 3_600, 11));
    let mut total = 0;
    for step in steps {
        let before = failing.count();
        app.advance(time::Duration::seconds(step));
        total += step;
        eventually("the next attempt", || failing.count() == before + 1).await;
        if total >= 72 * 3_600 {
            break;
        }
        let status = rest_get(
            &app,
            &format!("/partner/v1/webhook_endpoints/{id}"),
            Some(&key),
        )
        .await;
        assert_eq!(
            status.body["status"], "enabled",
            "still enabled after {total} s"
        );
    }
    propagated("the endpoint is disabled", || async {
        rest_get(
            &app,
            &format!("/partner/v1/webhook_endpoints/{id}"),
            Some(&key),
        )
        .await
        .body["status"]
            == "disabled"
    })
    .await;
    eventually("the notice e-mail", || smtp.messages().len() == 1).await;
    let mail = &smtp.messages()[0];
    assert!(mail.contains("To: ops@partner.example"), "{mail}");
    assert!(mail.contains(&id), "{mail}");
    assert!(mail.contains("72 hours"), "{mail}");
    let disabled = rest_get(
        &app,
        "/partner/v1/events?type=webhook_endpoint.disabled",
        Some(&key),
    )
    .await;
    let ids: Vec<&str> = disabled.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["data"]["object"]["id"].as_str().unwrap())
        .collect();
    assert!(ids.contains(&id.as_str()), "{ids:?}");
    assert_eq!(disabled.body["data"][0]["livemode"], true);

    // Enabled again: the enabled event reaches it (and it answers now).
    let attempts = failing.count();
    let enabled = post(
        &app,
        &format!("/partner/v1/webhook_endpoints/{id}/enable"),
        &key,
        json!({}),
    )
    .await;
    assert_eq!(enabled.body["status"], "enabled");
    eventually("delivery resumes", || failing.count() > attempts).await;
}

/// An Ed25519 key pair made by Python's `cryptography` (an implementation
/// independent of ours), its public half registered for `client` with the
/// partner CLI: ({private_pem, public_pem}, the `rsk_` key id).
pub async fn request_key(app: &App, client: &str) -> (Value, String) {
    let keys = python_json("request_sign.py", vec![("MODE", "keygen".into())]).await;
    let registered: Value = serde_json::from_str(&crate::support::process::cli(
        &app._site,
        &[
            "partner",
            "request-keys",
            "add",
            "--client-id",
            client,
            "--public-key",
            keys["public_pem"].as_str().unwrap(),
        ],
    ))
    .unwrap();
    let kid = registered["key_id"].as_str().unwrap().to_owned();
    (keys, kid)
}

/// Request signing checked against an independent signer (Python's
/// `cryptography`): a registered Ed25519 key's signature verifies; another
/// body, another Idempotency-Key, a stale timestamp, an unknown or revoked
/// key do not; live credentials cannot use the test helper.
#[tokio::test]
async fn request_signatures_from_an_independent_signer_verify() {
    let app = rest_app().await;
    let (client, _) = rest_partner(&app, "events.read", Tier::Platform).await;
    let test = api_key(&app, &client, "test", None)["key"]
        .as_str()
        .unwrap()
        .to_owned();
    let (keys, kid) = request_key(&app, &client).await;
    assert!(kid.starts_with("rsk_"), "{kid}");
    let path = "/sandbox/v1/test_helpers/request_signature";
    let sign = |t: i64, idem: &str, body: &str, kid: &str| {
        python_json(
            "request_sign.py",
            vec![
                ("MODE", "sign".into()),
                (
                    "PRIVATE_PEM",
                    keys["private_pem"].as_str().unwrap().to_owned(),
                ),
                ("T", t.to_string()),
                ("METHOD", "POST".into()),
                ("PATH", path.into()),
                ("IDEMPOTENCY_KEY", idem.into()),
                ("BODY", body.into()),
                ("KID", kid.into()),
            ],
        )
    };
    let send = |key: String, idem: &'static str, body: &'static str, header: String| {
        let app = &app;
        async move {
            reply(
                app.http
                    .post(format!("{}{path}", app.hub))
                    .bearer_auth(key)
                    .header("Idempotency-Key", idem)
                    .header("Service-Request-Signature", header)
                    .header("content-type", "application/json")
                    .body(body)
                    .send()
                    .await
                    .unwrap(),
            )
            .await
        }
    };
    let now = time::OffsetDateTime::now_utc().unix_timestamp();
    let body = r#"{"amount_pence":2500,"reference":"INV-1"}"#;
    let good = sign(now, "sign-0001", body, &kid).await;
    let header = good["header"].as_str().unwrap().to_owned();
    let ok = send(test.clone(), "sign-0001", body, header.clone()).await;
    assert_eq!(ok.status, 200, "{}", ok.body);
    assert_eq!(
        ok.body,
        json!({"object": "request_signature", "valid": true, "key_id": kid})
    );

    let refused = |r: &Reply| assert_hub_error(r, 400, "signature_invalid");
    refused(
        &send(
            test.clone(),
            "sign-0001",
            r#"{"amount_pence":9999,"reference":"INV-1"}"#,
            header.clone(),
        )
        .await,
    );
    refused(&send(test.clone(), "sign-0002", body, header.clone()).await);
    let stale = sign(now - 600, "sign-0001", body, &kid).await;
    refused(
        &send(
            test.clone(),
            "sign-0001",
            body,
            stale["header"].as_str().unwrap().to_owned(),
        )
        .await,
    );
    let unknown = sign(now, "sign-0001", body, "rsk_unknownkey0000").await;
    refused(
        &send(
            test.clone(),
            "sign-0001",
            body,
            unknown["header"].as_str().unwrap().to_owned(),
        )
        .await,
    );
    let missing = reply(
        app.http
            .post(format!("{}{path}", app.hub))
            .bearer_auth(&test)
            .header("Idempotency-Key", "sign-0001")
            .json(&json!({}))
            .send()
            .await
            .unwrap(),
    )
    .await;
    refused(&missing);

    let live = api_key(&app, &client, "live", None)["key"]
        .as_str()
        .unwrap()
        .to_owned();
    let live_call = reply(
        app.http
            .post(format!(
                "{}/partner/v1/test_helpers/request_signature",
                app.hub
            ))
            .bearer_auth(&live)
            .header("Idempotency-Key", "sign-0001")
            .header("Service-Request-Signature", header.clone())
            .body(body)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_hub_error(&live_call, 403, "capability_denied");

    crate::support::process::cli(&app._site, &["partner", "request-keys", "revoke", &kid]);
    refused(&send(test.clone(), "sign-0001", body, header).await);
}
