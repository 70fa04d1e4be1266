//! The partner dashboard (issue #18): staff added with the CLI sign in
//! through lendhub's own identity provider (code + PKCE) and see their own
//! partner's applications, one environment at a time; another partner's ids
//! and the other environment's are not found; sign-out and leaving the
//! staff end the session.

use lendhub_domain::ids::{HubId, WebhookEndpointId};
use lendhub_domain::partner::project::Tier;
use lendhub_domain::sandbox::ids::PublishedId;
use serde_json::{Value, json};

use crate::rest_tier::{api_key, rest_app, rest_partner, rest_post};
use crate::support::App;
use crate::support::oidc::{self, Browser, Page, Person};
use crate::support::process::cli;

pub(crate) async fn partner_with_applications(app: &App) -> (String, String, String) {
    let (client, _) = rest_partner(
        app,
        "applications.read applications.write webhooks.manage events.read",
        Tier::Scale,
    )
    .await;
    let key = |env| {
        api_key(app, &client, env, None)["key"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    let create = async |prefix: &str, key: String, reference: &str| -> String {
        let r = rest_post(
            app,
            &format!("{prefix}/applications"),
            &key,
            json!({
                "business": {"company_number": "00000401"},
                "amount_pence": 1_000_000,
                "term_months": 24,
                "applicant": {"email": "founder@healthy-widgets.example"},
                "reference": reference,
            }),
        )
        .await;
        assert_eq!(r.status, 201, "{}", r.body);
        r.body["id"].as_str().unwrap().to_owned()
    };
    let live = create("/partner/v1", key("live"), "DASH-LIVE").await;
    let test = create("/sandbox/v1", key("test"), "DASH-TEST").await;
    (client, live, test)
}

/// A webhook endpoint's id as the REST tier published it (`whe_…`).
fn published_endpoint(id: &str) -> PublishedId {
    PublishedId::from(WebhookEndpointId::parse(id).unwrap())
}

pub(crate) fn staff(app: &App, client: &str, person: &Person, role: &str) -> Value {
    serde_json::from_str(&cli(
        &app._site,
        &[
            "partner",
            "staff",
            "add",
            client,
            "--email",
            &person.email,
            "--role",
            role,
        ],
    ))
    .unwrap()
}

/// Signs in from a fresh browser: the dashboard sends it to the provider,
/// whose sign-in (and, the first time, consent) sends it back with a code.
pub(crate) async fn sign_in(app: &App, person: &Person) -> (Browser, Page) {
    let hub = Browser::at(&app.hub);
    let first = hub.get("/dashboard").await;
    assert_eq!(first.status, 303, "{}", first.body);
    assert_eq!(first.location(), "/dashboard/sign-in");
    let start = hub.get("/dashboard/sign-in").await;
    assert_eq!(start.status, 303);
    let authorize = start.location().to_owned();
    assert!(
        authorize.starts_with(&format!("{}/authorize?", app.server().sso_url)),
        "{authorize}"
    );
    assert_eq!(
        oidc::query_param(&authorize, "code_challenge_method").as_deref(),
        Some("S256")
    );
    let sso = Browser::at(&app.sso);
    let started = sso.get(&authorize).await;
    let mut answer = oidc::sign_in(&sso, &started, person).await;
    if answer.location().starts_with("/consent") {
        answer = oidc::decide(&sso, answer.location(), true).await;
    }
    let callback = answer.location().to_owned();
    assert!(
        callback.starts_with(&format!("{}/dashboard/callback?", app.server().hub_url)),
        "{callback}: {}",
        answer.body
    );
    let back = hub.get(&callback).await;
    (hub, back)
}

#[tokio::test]
async fn staff_see_their_own_partner_one_environment_at_a_time() {
    let app = rest_app().await;
    let (client, live, test) = partner_with_applications(&app).await;
    let (_, other_live, _) = partner_with_applications(&app).await;
    let person = oidc::person(&app).await;
    let added = staff(&app, &client, &person, "read_only");
    assert_eq!(added["role"], "read_only", "{added}");
    assert_eq!(added["email"], person.email.as_str());

    let (hub, back) = sign_in(&app, &person).await;
    assert_eq!(back.status, 303, "{}", back.body);
    assert_eq!(back.location(), "/dashboard");
    let cookie = back
        .set_cookies()
        .into_iter()
        .find(|c| c.starts_with("lendhub_dash="))
        .unwrap();
    assert!(
        cookie.contains("HttpOnly")
            && cookie.contains("SameSite=Lax")
            && cookie.contains("Path=/dashboard"),
        "{cookie}"
    );

    let home = hub.get("/dashboard").await;
    assert_eq!(home.status, 200, "{}", home.body);
    assert!(home.body.contains("data-env=\"live\""));
    assert!(home.body.contains(&person.email) && home.body.contains("Read-only"));
    assert!(home.body.contains(&live), "live data on a live screen");
    assert!(
        !home.body.contains(&test),
        "never test data on a live screen"
    );
    let test_home = hub.get("/dashboard?env=test").await;
    assert!(test_home.body.contains("data-env=\"test\""));
    assert!(test_home.body.contains(&test) && !test_home.body.contains(&live));
    assert!(test_home.body.contains("Test environment"));
    // Every page says what the environment reaches instead of the real
    // services: nothing is configured here, so both run on model servers;
    // only the test environment takes the made-up test banks.
    for page in [&home, &test_home] {
        assert!(
            page.body.contains(
                "<span id=\"model-servers\">Model servers: company register, bank, identity checks, credit bureau, payout rail.</span>"
            ),
            "{}",
            page.body
        );
    }
    assert!(!home.body.contains("Simulated in process"));
    assert!(
        test_home
            .body
            .contains("Simulated in process: white-label test banks.")
    );

    let list = hub
        .get("/dashboard/applications?env=live&status=created")
        .await;
    assert_eq!(list.status, 200);
    assert!(list.body.contains(&live), "{}", list.body);
    let none = hub
        .get("/dashboard/applications?env=live&status=declined")
        .await;
    assert!(!none.body.contains(&live));
    assert!(none.body.contains("No applications match."));
    let by_reference = hub
        .get("/dashboard/applications?env=live&q=dash-live")
        .await;
    assert!(by_reference.body.contains(&live), "{}", by_reference.body);
    // The list shows each application's reference, as the README says.
    assert!(
        list.body.contains("<td class=\"reference\">DASH-LIVE</td>"),
        "{}",
        list.body
    );
    let other_reference = hub.get("/dashboard/applications?env=live&q=NOT-THIS").await;
    assert!(!other_reference.body.contains(&live));
    let one = hub
        .get(&format!("/dashboard/applications/{live}?env=live"))
        .await;
    assert_eq!(one.status, 200);
    assert!(
        one.body.contains("DASH-LIVE") && one.body.contains("£10,000.00"),
        "{}",
        one.body
    );

    // The other environment's id, another partner's, and nonsense: 404.
    for path in [
        format!("/dashboard/applications/{live}?env=test"),
        format!("/dashboard/applications/{other_live}?env=live"),
        "/dashboard/applications/app_nope".to_owned(),
        "/dashboard/ledger".to_owned(),
    ] {
        let page = hub.get(&path).await;
        assert_eq!(page.status, 404, "{path}: {}", page.body);
    }

    // Sign-out is a form with the session's CSRF token.
    let csrf = home.hidden("csrf_token").unwrap();
    let forged = hub
        .post("/dashboard/sign-out", &[("csrf_token", "forged")])
        .await;
    assert_eq!(forged.status, 403);
    // No token at all: the same page, not a raw JSON error.
    let missing = hub.post("/dashboard/sign-out", &[("env", "live")]).await;
    assert_eq!(missing.status, 403, "{}", missing.body);
    assert!(
        missing.body.contains("This form has expired"),
        "{}",
        missing.body
    );
    assert_eq!(
        hub.get("/dashboard").await.status,
        200,
        "a refused form changes nothing"
    );
    let out = hub
        .post("/dashboard/sign-out", &[("csrf_token", &csrf)])
        .await;
    assert_eq!(out.status, 303);
    let signed_out = format!("{}/dashboard/signed-out", app.hub);
    assert_eq!(
        out.location(),
        format!(
            "{}/end-session?client_id=rp_lendhub_dashboard&post_logout_redirect_uri={}",
            app.server().sso_url,
            url::form_urlencoded::byte_serialize(signed_out.as_bytes()).collect::<String>()
        ),
        "then out of the identity provider"
    );
    // The provider sends the browser back to a page that offers signing
    // in again: not a dead end.
    let ended = Browser::at(&app.sso).get(out.location()).await;
    assert_eq!(ended.status, 303, "{}", ended.body);
    assert_eq!(ended.location(), signed_out);
    let page = hub.get(&signed_out).await;
    assert_eq!(page.status, 200, "{}", page.body);
    assert!(
        page.body.contains("You have signed out")
            && page
                .body
                .contains("<a id=\"sign-in\" href=\"/dashboard/sign-in\">Sign in again</a>"),
        "{}",
        page.body
    );
    assert!(
        out.set_cookies()
            .iter()
            .any(|c| c.starts_with("lendhub_dash=;"))
    );
    assert_eq!(hub.get("/dashboard").await.status, 303);

    // Leaving the staff ends a session at once.
    let (hub, _) = sign_in(&app, &person).await;
    assert_eq!(hub.get("/dashboard").await.status, 200);
    cli(
        &app._site,
        &[
            "partner",
            "staff",
            "remove",
            &client,
            "--email",
            &person.email,
        ],
    );
    assert_eq!(hub.get("/dashboard").await.status, 303);
}

#[tokio::test]
async fn a_person_on_no_staff_or_a_forged_callback_gets_no_session() {
    let app = rest_app().await;
    let person = oidc::person(&app).await;
    let (hub, back) = sign_in(&app, &person).await;
    assert_eq!(back.status, 403, "{}", back.body);
    assert!(back.body.contains("No dashboard for this account"));
    assert!(
        back.set_cookies()
            .iter()
            .all(|c| !c.starts_with("lendhub_dash="))
    );
    assert_eq!(hub.get("/dashboard").await.status, 303);

    // A callback this browser did not start.
    let stranger = Browser::at(&app.hub);
    let forged = stranger
        .get("/dashboard/callback?code=whatever&state=whatever")
        .await;
    assert_eq!(forged.status, 400, "{}", forged.body);
    // A started sign-in whose state was swapped.
    stranger.get("/dashboard/sign-in").await;
    let swapped = stranger
        .get("/dashboard/callback?code=whatever&state=not-the-one")
        .await;
    assert_eq!(swapped.status, 400, "{}", swapped.body);
}

/// The same in headless Chromium, through the provider's real pages.
#[tokio::test]
async fn in_chromium_staff_sign_in_switch_to_test_and_sign_out() {
    let app = rest_app().await;
    let (client, _live, test) = partner_with_applications(&app).await;
    let person = oidc::person(&app).await;
    staff(&app, &client, &person, "developer");
    let r = crate::support::python_json(
        "dashboard_browser.py",
        vec![
            ("BASE", app.hub.clone()),
            ("EMAIL", person.email.clone()),
            ("PASSWORD", oidc::PASSWORD.to_owned()),
            ("APPLICATION", test.clone()),
        ],
    )
    .await;
    assert_eq!(r["signed_in_env"], "live", "{r}");
    assert!(r["who"].as_str().unwrap().contains("Developer"), "{r}");
    assert_eq!(r["switched_env"], "test", "{r}");
    assert_eq!(r["listed"], json!([test]), "{r}");
    assert_eq!(r["application_status"], "created", "{r}");
    assert_eq!(r["application_env"], "test", "{r}");
    assert_eq!(r["signed_out"], "You have signed out", "{r}");
    assert!(
        r["signed_out_url"]
            .as_str()
            .unwrap()
            .ends_with("/dashboard/signed-out"),
        "{r}"
    );
    assert_eq!(r["sign_in_again"], "/dashboard/sign-in", "{r}");
    assert!(
        r["after_sign_out"].as_str().unwrap().contains("/sign-in"),
        "signed out, the dashboard sends the browser to sign in again: {r}"
    );
}

/// A disabled endpoint, re-enabled from the dashboard by a role that manages
/// webhooks: the endpoint, its `webhook_endpoint.enabled` event and the audit
/// line commit together; a read-only member sees no button and is refused
/// the form; only owners read the audit log.
#[tokio::test]
async fn a_disabled_endpoint_is_re_enabled_by_a_developer_and_audited() {
    use lendhub_domain::tenant::Tenant;
    use lendhub_domain::webhooks::endpoint::{EndpointStatus, WebhookEndpoint};
    use lendhub_store::{EventWrite, WriteSet};

    let app = rest_app().await;
    let (client, _, _) = partner_with_applications(&app).await;
    let test_key = api_key(&app, &client, "test", None)["key"]
        .as_str()
        .unwrap()
        .to_owned();
    let created = rest_post(
        &app,
        "/sandbox/v1/webhook_endpoints",
        &test_key,
        json!({"url": "https://hooks.example/lendhub", "enabled_events": ["*"]}),
    )
    .await;
    assert_eq!(created.status, 201, "{}", created.body);
    let id = created.body["id"].as_str().unwrap().to_owned();
    // As the delivery worker leaves it after ~72 h of failures.
    let store = &app.server().store;
    let owner = Tenant::partner(&client, false, None);
    let current = store.endpoints(&owner).await.unwrap().remove(0).endpoint;
    let mut disable = WriteSet::default();
    disable.push(EventWrite::SetEndpointStatus {
        endpoint: WebhookEndpoint {
            status: EndpointStatus::Disabled,
            ..current
        },
        from: EndpointStatus::Enabled,
    });
    store.commit(disable).await.unwrap();

    let reader = oidc::person(&app).await;
    staff(&app, &client, &reader, "read_only");
    let (reading, _) = sign_in(&app, &reader).await;
    let page = reading.get("/dashboard/webhooks?env=test").await;
    assert_eq!(page.status, 200);
    assert!(
        page.body
            .contains(&format!("data-id=\"{id}\" data-status=\"disabled\"")),
        "{}",
        page.body
    );
    assert!(!page.body.contains("Re-enable"), "no button for read-only");
    let csrf = page.hidden("csrf_token").unwrap();
    let refused = reading
        .post(
            &format!("/dashboard/webhooks/{id}/enable"),
            &[("csrf_token", &csrf), ("env", "test")],
        )
        .await;
    assert_eq!(refused.status, 403, "{}", refused.body);
    assert_eq!(
        reading.get("/dashboard/audit").await.status,
        403,
        "owners only"
    );

    let developer = oidc::person(&app).await;
    staff(&app, &client, &developer, "developer");
    let (dev, _) = sign_in(&app, &developer).await;
    let page = dev.get("/dashboard/webhooks?env=test").await;
    assert!(page.body.contains("Re-enable"), "{}", page.body);
    let csrf = page.hidden("csrf_token").unwrap();
    let forged = dev
        .post(
            &format!("/dashboard/webhooks/{id}/enable"),
            &[("csrf_token", "nope"), ("env", "test")],
        )
        .await;
    assert_eq!(forged.status, 403);
    let elsewhere = dev
        .post(
            &format!("/dashboard/webhooks/{id}/enable"),
            &[("csrf_token", &csrf), ("env", "live")],
        )
        .await;
    assert_eq!(
        elsewhere.status, 404,
        "the endpoint is the test environment's"
    );
    for _ in 0..2 {
        let done = dev
            .post(
                &format!("/dashboard/webhooks/{id}/enable"),
                &[("csrf_token", &csrf), ("env", "test")],
            )
            .await;
        assert_eq!(done.status, 303, "{}", done.body);
        assert_eq!(done.location(), "/dashboard/webhooks?env=test");
    }
    let through_api = crate::rest_tier::rest_get(
        &app,
        &format!("/sandbox/v1/webhook_endpoints/{id}"),
        Some(&test_key),
    )
    .await;
    assert_eq!(
        through_api.body["status"], "enabled",
        "{}",
        through_api.body
    );
    let events = crate::rest_tier::rest_get(
        &app,
        "/sandbox/v1/events?type=webhook_endpoint.enabled",
        Some(&test_key),
    )
    .await;
    assert_eq!(
        events.body["data"].as_array().unwrap().len(),
        1,
        "{}",
        events.body
    );

    // Rolling the secret: shown once; the same form again rolls nothing.
    let page = dev.get("/dashboard/webhooks?env=test").await;
    let csrf = page.hidden("csrf_token").unwrap();
    let form_id = page.hidden("form_id").unwrap();
    let form = [
        ("csrf_token", csrf.as_str()),
        ("env", "test"),
        ("form_id", form_id.as_str()),
    ];
    let refused = reading
        .post(&format!("/dashboard/webhooks/{id}/roll-secret"), &form)
        .await;
    assert_eq!(refused.status, 403, "another session's CSRF token");
    let shown = dev
        .post(&format!("/dashboard/webhooks/{id}/roll-secret"), &form)
        .await;
    assert_eq!(shown.status, 200, "{}", shown.body);
    assert_eq!(shown.headers["cache-control"], "no-store");
    let start = shown.body.find("<code id=\"secret\">").unwrap() + "<code id=\"secret\">".len();
    let secret = &shown.body[start..start + shown.body[start..].find('<').unwrap()];
    assert!(secret.starts_with("whsec_"), "{secret}");
    let sealed = store
        .endpoints(&owner)
        .await
        .unwrap()
        .remove(0)
        .sealed_secret;
    let stored = app
        .server()
        .master_key
        .open(lendhub_webhooks::SECRET_PURPOSE, &sealed)
        .unwrap();
    assert_eq!(
        stored,
        secret.as_bytes(),
        "the secret shown is the one that signs"
    );
    let again = dev
        .post(&format!("/dashboard/webhooks/{id}/roll-secret"), &form)
        .await;
    assert_eq!(again.status, 409, "{}", again.body);
    assert!(!again.body.contains("whsec_"));
    let sealed_after = store
        .endpoints(&owner)
        .await
        .unwrap()
        .remove(0)
        .sealed_secret;
    assert_eq!(sealed_after, sealed, "the second submission rolled nothing");

    let owner_person = oidc::person(&app).await;
    staff(&app, &client, &owner_person, "owner");
    let (owning, _) = sign_in(&app, &owner_person).await;
    let audit = owning.get("/dashboard/audit").await;
    assert_eq!(audit.status, 200, "{}", audit.body);
    assert_eq!(
        audit.body.matches("webhook_endpoint.enable").count(),
        1,
        "the second post changed nothing and is not audited: {}",
        audit.body
    );
    assert!(audit.body.contains(&id) && audit.body.contains(&developer.email));
    assert_eq!(
        audit.body.matches("webhook_endpoint.roll_secret").count(),
        1
    );
}

/// The issue's own path: a delivery that failed until its endpoint was
/// disabled is found on the endpoint's deliveries page, the endpoint
/// re-enabled and the delivery retried from the dashboard; it arrives.
#[tokio::test]
async fn a_failed_delivery_is_found_retried_and_delivered() {
    use crate::support::{eventually, eventually_async};

    use lendhub_domain::tenant::Tenant;

    let app = rest_app().await;
    let (client, _, _) = partner_with_applications(&app).await;
    let test_key = api_key(&app, &client, "test", None)["key"]
        .as_str()
        .unwrap()
        .to_owned();
    let (receiver, id, failed) = failing_delivery(&app, &client, &test_key).await;
    let owner = Tenant::partner(&client, false, None);
    let store = app.server().store.clone();
    let delivery = || {
        let (store, owner, id) = (store.clone(), owner.clone(), id.clone());
        async move {
            store
                .endpoint_deliveries(&owner, &published_endpoint(&id), 10)
                .await
                .unwrap()
                .into_iter()
                .find(|d| d.event_type == "application.created")
        }
    };

    let developer = oidc::person(&app).await;
    staff(&app, &client, &developer, "developer");
    let (dev, _) = sign_in(&app, &developer).await;
    let page = dev
        .get(&format!("/dashboard/webhooks/{id}/deliveries?env=test"))
        .await;
    assert_eq!(page.status, 200, "{}", page.body);
    assert!(
        page.body
            .contains(&format!("data-id=\"{}\" data-state=\"failed\"", failed.id)),
        "{}",
        page.body
    );
    assert!(
        page.body
            .contains(&format!("<td class=\"attempt\">{}</td>", failed.attempt))
    );
    assert!(page.body.contains("Retry"));
    // What the receiver answered, escaped and without its escape sequence,
    // and how long it took.
    assert!(
        page.body.contains(
            "<td class=\"response\"><code>{&#34;error&#34;:&#34;refused by the test receiver [31m&#34;}</code></td>"
        ),
        "{}",
        page.body
    );
    assert!(!page.body.contains('\u{1b}'));
    let latency = page.body.split("<td class=\"latency\">").nth(1).unwrap();
    let ms: u64 = latency[..latency.find(" ms</td>").unwrap()]
        .parse()
        .unwrap();
    assert!(ms < 10_000, "{ms} ms");
    let csrf = page.hidden("csrf_token").unwrap();
    let form = [("csrf_token", csrf.as_str()), ("env", "test")];

    receiver.accept_everything();
    let webhooks = dev.get("/dashboard/webhooks?env=test").await;
    if webhooks.body.contains("data-status=\"disabled\"") {
        let enabled = dev
            .post(&format!("/dashboard/webhooks/{id}/enable"), &form)
            .await;
        assert_eq!(enabled.status, 303);
    }
    let before = receiver.count();
    let retried = dev
        .post(
            &format!("/dashboard/webhooks/{id}/deliveries/{}/retry", failed.id),
            &form,
        )
        .await;
    assert_eq!(retried.status, 303, "{}", retried.body);
    assert_eq!(
        retried.location(),
        format!("/dashboard/webhooks/{id}/deliveries?env=test")
    );
    eventually("the retried delivery", || receiver.count() > before).await;
    eventually_async("delivered", || async {
        delivery().await.is_some_and(|d| d.state == "delivered")
    })
    .await;
    let again = dev
        .post(
            &format!("/dashboard/webhooks/{id}/deliveries/{}/retry", failed.id),
            &form,
        )
        .await;
    assert_eq!(again.status, 303, "a delivered delivery is left as it is");

    // Replaying the delivered event queues a new delivery; the same form
    // again queues nothing.
    let page = dev
        .get(&format!("/dashboard/webhooks/{id}/deliveries?env=test"))
        .await;
    assert!(page.body.contains("Replay"), "{}", page.body);
    assert!(
        page.body
            .contains("<td class=\"response\"><code>ok</code></td>"),
        "the delivered attempt's answer replaces the failure's"
    );
    let form_id = page.hidden("form_id").unwrap();
    let replay_form = [
        ("csrf_token", csrf.as_str()),
        ("env", "test"),
        ("form_id", form_id.as_str()),
    ];
    let before = receiver.count();
    let path = format!("/dashboard/webhooks/{id}/events/{}/replay", failed.event_id);
    assert_eq!(dev.post(&path, &replay_form).await.status, 303);
    let rows = |store: std::sync::Arc<dyn lendhub_store::Store>| {
        let (owner, id) = (owner.clone(), id.clone());
        async move {
            store
                .endpoint_deliveries(&owner, &published_endpoint(&id), 10)
                .await
                .unwrap()
                .len()
        }
    };
    assert_eq!(
        rows(store.clone()).await,
        2,
        "the replay is a delivery of its own"
    );
    assert_eq!(dev.post(&path, &replay_form).await.status, 303);
    assert_eq!(rows(store.clone()).await, 2, "the same form queued nothing");
    eventually("the replayed delivery", || receiver.count() == before + 1).await;

    let owner_person = oidc::person(&app).await;
    staff(&app, &client, &owner_person, "owner");
    let (owning, _) = sign_in(&app, &owner_person).await;
    let audit = owning.get("/dashboard/audit").await;
    assert_eq!(
        audit.body.matches("event.replay").count(),
        1,
        "{}",
        audit.body
    );
    assert_eq!(
        audit.body.matches("webhook_delivery.retry").count(),
        1,
        "{}",
        audit.body
    );
}

/// A test-environment endpoint at a receiver that refuses
/// `application.created`, and an application whose delivery there failed
/// until its schedule ended (the clock moved on by hours at a time): the
/// receiver, the endpoint's id and the failed delivery.
pub(crate) async fn failing_delivery(
    app: &App,
    client: &str,
    test_key: &str,
) -> (
    crate::support::receiver::Receiver,
    String,
    lendhub_store::DeliveryView,
) {
    use crate::support::eventually;
    use crate::support::receiver::Receiver;
    use lendhub_domain::tenant::Tenant;
    let receiver = Receiver::start(&[]).await;
    receiver.refuse_bodies_containing("application.created");
    let endpoint = rest_post(
        app,
        "/sandbox/v1/webhook_endpoints",
        test_key,
        json!({"url": receiver.url, "enabled_events": ["application.created"]}),
    )
    .await;
    assert_eq!(endpoint.status, 201, "{}", endpoint.body);
    let id = endpoint.body["id"].as_str().unwrap().to_owned();
    let created = rest_post(
        app,
        "/sandbox/v1/applications",
        test_key,
        json!({
            "business": {"company_number": "00000401"},
            "amount_pence": 1_000_000,
            "term_months": 24,
            "applicant": {"email": "founder@healthy-widgets.example"},
        }),
    )
    .await;
    assert_eq!(created.status, 201, "{}", created.body);
    let event_of = |d: &lendhub_store::DeliveryView| d.event_type == "application.created";
    let owner = Tenant::partner(client, false, None);
    let store = app.server().store.clone();
    let delivery = || {
        let (store, owner, id) = (store.clone(), owner.clone(), id.clone());
        async move {
            store
                .endpoint_deliveries(&owner, &published_endpoint(&id), 10)
                .await
                .unwrap()
                .into_iter()
                .find(event_of)
        }
    };
    eventually("the first attempt", || receiver.count() == 1).await;
    // Every retry fails until the schedule ends (and the endpoint, failing
    // for 72 h, is disabled).
    // Each step moves the clock past the next retry or not (later retries
    // are hours apart); the worker is given a moment after each.
    for _ in 0..60 {
        if delivery().await.is_some_and(|d| d.state == "failed") {
            break;
        }
        let seen = receiver.count();
        app.advance(time::Duration::hours(3));
        for _ in 0..40 {
            if receiver.count() > seen {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
    }
    let failed = delivery().await.unwrap();
    assert_eq!(failed.state, "failed", "{failed:?}");
    assert!(failed.attempt > 1);
    (receiver, id, failed)
}
