//! The REST tier's foundation: the switch, its two environments, API keys
//! made by the CLI, and the rate-limit bucket every answer spends.

use lendhub_domain::partner::project::Tier;
use lendhub_domain::partner::scope::PartnerScopes;
use serde_json::Value;

use crate::partner::assert_hub_error;
use crate::support::process::cli;
use crate::support::*;

/// A server with the REST tier switched on.
pub async fn rest_app() -> App {
    let site = Site::new().await;
    let mut config = test_config(&site);
    config.rest_tier.enabled = true;
    App::spawn_with(config, site).await
}

/// The REST tier on, with mail sent through a real SMTP server on `port`.
pub async fn rest_app_mailing() -> (App, crate::support::smtp::SmtpServer) {
    let site = Site::new().await;
    let smtp = crate::support::smtp::SmtpServer::start(site.path().join("maildir"));
    let port = smtp.port;
    let mut config = test_config(&site);
    config.rest_tier.enabled = true;
    config.smtp.host = Some("127.0.0.1".into());
    config.smtp.port = port;
    config.smtp.from = "lendhub <no-reply@lendhub.test>".into();
    (App::spawn_with(config, site).await, smtp)
}

/// A partner at `tier` holding `scopes`; its client id.
pub async fn rest_partner(app: &App, scopes: &str, tier: Tier) -> (String, String) {
    let server = app.server();
    let created = lendhub_hub::partner::clients::create(
        server.store.as_ref(),
        &server.master_key,
        "acme",
        &PartnerScopes::parse(scopes).unwrap(),
        tier,
        None,
        0,
    )
    .await
    .unwrap();
    (created.client_id, created.client_secret.into_exposed())
}

/// An API key made by the CLI, as the CLI printed it.
pub fn api_key(app: &App, client_id: &str, env: &str, scopes: Option<&str>) -> Value {
    let mut args = vec![
        "partner",
        "api-keys",
        "create",
        "--client-id",
        client_id,
        "--environment",
        env,
    ];
    if let Some(s) = scopes {
        args.extend(["--scopes", s]);
    }
    serde_json::from_str(&cli(&app._site, &args)).unwrap()
}

pub async fn rest_get(app: &App, path: &str, credential: Option<&str>) -> Reply {
    let mut request = app.http.get(format!("{}{path}", app.hub));
    if let Some(c) = credential {
        request = request.bearer_auth(c);
    }
    reply(request.send().await.unwrap()).await
}

/// A JSON POST to the hub with a bearer credential.
pub async fn rest_post(app: &App, path: &str, key: &str, body: Value) -> Reply {
    reply(
        app.http
            .post(format!("{}{path}", app.hub))
            .bearer_auth(key)
            .json(&body)
            .send()
            .await
            .unwrap(),
    )
    .await
}

fn limit(r: &Reply) -> (u32, u32) {
    (
        r.header("ratelimit-limit").parse().unwrap(),
        r.header("ratelimit-remaining").parse().unwrap(),
    )
}

#[tokio::test]
async fn switched_on_every_planned_path_is_live_and_an_unknown_one_is_404() {
    let app = rest_app().await;
    for prefix in ["/partner/v1", "/sandbox/v1"] {
        let doc = rest_get(&app, &format!("{prefix}/openapi.json"), None).await;
        assert_eq!(doc.status, 200, "{prefix}: {}", doc.body);
        assert_eq!(doc.header("content-type"), "application/json");
        assert_eq!(doc.body["openapi"], "3.1.0");
        assert!(doc.body["paths"]["/oauth/token"]["post"].is_object());
        assert!(doc.body["paths"]["/openapi.json"]["get"].is_object());
        assert_eq!(
            doc.body["paths"]["/openapi.json"]["servers"][1]["url"], "/sandbox/v1",
            "REST paths are served in both environments"
        );
        assert!(!doc.header("ratelimit-limit").is_empty());

        // Every path the seed plans is built now (the last was `/payouts`):
        // each answers for itself, here that it needs credentials. With the
        // tier switched off they all answer 503 (the next test).
        let built = rest_get(&app, &format!("{prefix}/payouts"), None).await;
        assert_hub_error(&built, 401, "missing_api_key");

        let nowhere = rest_get(&app, &format!("{prefix}/nowhere"), None).await;
        assert_hub_error(&nowhere, 404, "route_not_found");
    }
    // The token plane and MCP stay on the live ring only.
    let token = reply(
        app.http
            .post(format!("{}/sandbox/v1/oauth/token", app.hub))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_hub_error(&token, 404, "route_not_found");
}

#[tokio::test]
async fn switched_off_the_document_is_503_like_every_path_of_the_tier() {
    let app = App::spawn().await;
    for prefix in ["/partner/v1", "/sandbox/v1"] {
        let doc = rest_get(&app, &format!("{prefix}/openapi.json"), None).await;
        assert_hub_error(&doc, 503, "service_unavailable");
        assert!(!doc.header("ratelimit-limit").is_empty());
    }
}

#[tokio::test]
async fn each_environment_spends_its_own_bucket_and_anonymous_callers_one_per_address() {
    let app = rest_app().await;
    // The buckets refill with time: counted within one instant.
    app.clock.freeze();
    let (client_id, _) = rest_partner(&app, "events.read", Tier::Launch).await;
    let live = api_key(&app, &client_id, "live", None);
    let test = api_key(&app, &client_id, "test", None);
    let live_key = live["key"].as_str().unwrap();
    let test_key = test["key"].as_str().unwrap();
    assert!(live_key.starts_with("sk_live_") && test_key.starts_with("sk_test_"));
    assert_eq!(
        live["scopes"], "events.read",
        "a key holds the partner's scopes"
    );

    // Launch: burst 100 live; the test environment is the build tier's 50.
    let l1 = rest_get(&app, "/partner/v1/openapi.json", Some(live_key)).await;
    let l2 = rest_get(&app, "/partner/v1/payouts", Some(live_key)).await;
    assert_eq!(limit(&l1), (100, 99));
    assert_eq!(limit(&l2), (100, 98), "a 503 spends the same bucket");
    let t1 = rest_get(&app, "/sandbox/v1/openapi.json", Some(test_key)).await;
    assert_eq!(
        limit(&t1),
        (50, 49),
        "test calls spend a bucket of their own"
    );
    let a1 = rest_get(&app, "/partner/v1/openapi.json", None).await;
    let a2 = rest_get(&app, "/sandbox/v1/openapi.json", None).await;
    assert_eq!(limit(&a1), (50, 49), "no credential: the address's bucket");
    assert_eq!(limit(&a2), (50, 48));
    let wrong = rest_get(&app, "/partner/v1/openapi.json", Some(test_key)).await;
    assert_eq!(
        limit(&wrong),
        (50, 47),
        "a credential that does not check out counts as none here"
    );
    let l3 = rest_get(&app, "/partner/v1/openapi.json", Some(live_key)).await;
    assert_eq!(limit(&l3), (100, 97));
}
