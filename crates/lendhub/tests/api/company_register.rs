//! The company register over the Companies House Public Data API (issue
//! #46): the live environment reaching a model register that runs as its
//! own process, configured by `counterparties.live.company_register.*`;
//! the embedded model register every environment uses by default; and the
//! register's failures, which never lose an application or answer 5xx for
//! a company that is not there.

use lendhub_domain::partner::project::Tier;
use serde_json::{Value, json};

use crate::partner::assert_hub_error;
use crate::rest_tier::{api_key, rest_partner, rest_post as post};
use crate::support::process::Simulator;
use crate::support::*;

/// `lendhub simulate register`, its own process.
struct ModelRegister {
    // Runs as long as this lives.
    _process: Simulator,
    url: String,
    api_key: String,
}

impl ModelRegister {
    fn launch() -> Self {
        let api_key = "model-register-key".to_owned();
        let process = Simulator::launch(
            &["register", "--addr", "127.0.0.1:0"],
            ("LENDHUB_MODEL_API_KEY", &api_key),
            "model company register listening on",
        );
        Self {
            url: process.url.clone(),
            _process: process,
            api_key,
        }
    }

    /// Every profile answers `status` until `recover`.
    async fn outage(&self, status: u16) {
        let r = reqwest::Client::new()
            .put(format!("{}/_model/outage", self.url))
            .basic_auth(&self.api_key, Some(""))
            .json(&json!({ "status": status }))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 204);
    }

    async fn recover(&self) {
        let r = reqwest::Client::new()
            .delete(format!("{}/_model/outage", self.url))
            .basic_auth(&self.api_key, Some(""))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 204);
    }
}

fn application(company: &str) -> Value {
    json!({
        "business": { "company_number": company },
        "amount_pence": 1_000_000,
        "term_months": 12,
        "applicant": { "email": "founder@example.com" }
    })
}

async fn spawn(configure: impl FnOnce(&mut lendhub::config::Config)) -> App {
    let site = Site::new().await;
    let mut config = test_config(&site);
    config.rest_tier.enabled = true;
    configure(&mut config);
    App::spawn_with(config, site).await
}

/// `POST {path}/applications` for `company`, a second after the last
/// request: the seed's sub-limit on creation is 5 a second.
async fn create(app: &App, path: &str, key: &str, company: &str) -> Reply {
    app.advance(time::Duration::seconds(1));
    post(
        app,
        &format!("{path}/applications"),
        key,
        application(company),
    )
    .await
}

async fn keys(app: &App) -> (String, String) {
    let (client, _) = rest_partner(app, "applications.read applications.write", Tier::Scale).await;
    let key = |env| {
        api_key(app, &client, env, None)["key"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    (key("test"), key("live"))
}

#[tokio::test]
async fn the_live_environment_reads_companies_house_from_a_separate_process() {
    let register = ModelRegister::launch();
    let app = spawn(|c| {
        let live = &mut c.counterparties.live.company_register;
        live.url = Some(register.url.clone());
        live.api_key = Some(register.api_key.clone().into());
    })
    .await;
    let (test, live) = keys(&app).await;

    let created = create(&app, "/partner/v1", &live, "00000401").await;
    assert_eq!(created.status, 201, "{}", created.body);
    assert_eq!(
        created.body["business"],
        json!({"company_number": "00000401", "name": "Healthy Widgets Ltd"}),
        "the name is the register's company_name"
    );
    // The register's own words for bodies the service does not lend to,
    // and for a number it has no company for.
    for (number, reason) in [
        ("00000408", "not_eligible"), // dissolved
        ("00000409", "not_eligible"), // limited-partnership
        ("00000405", "not_eligible"), // not a body corporate
        ("00000000", "not_found"),
    ] {
        let r = create(&app, "/partner/v1", &live, number).await;
        assert_hub_error(&r, 422, "validation_failed");
        assert_eq!(
            r.body["error"]["detail"][0],
            json!({"field": "business.company_number", "reason": reason}),
            "{number}"
        );
    }

    // The register goes down: a company not asked about lately cannot be
    // checked, so the application is not made and the partner may retry.
    register.outage(503).await;
    let down = create(&app, "/partner/v1", &live, "00000402").await;
    assert_hub_error(&down, 503, "service_unavailable");
    assert_eq!(down.body["error"]["retryable"], true);
    assert!(!down.header("retry-after").is_empty());
    // A profile read within the last minute is still known.
    let kept = create(&app, "/partner/v1", &live, "00000401").await;
    assert_eq!(kept.status, 201, "{}", kept.body);
    app.advance(time::Duration::minutes(2));
    let stale = create(&app, "/partner/v1", &live, "00000401").await;
    assert_hub_error(&stale, 503, "service_unavailable");
    // The test environment has its own register (the embedded model).
    let test_env = create(&app, "/sandbox/v1", &test, "00000402").await;
    assert_eq!(test_env.status, 201, "{}", test_env.body);

    register.recover().await;
    let back = create(&app, "/partner/v1", &live, "00000402").await;
    assert_eq!(back.status, 201, "{}", back.body);
    let listed = crate::rest_tier::rest_get(&app, "/partner/v1/applications", Some(&live)).await;
    assert_eq!(
        listed.body["data"].as_array().unwrap().len(),
        3,
        "what was refused made nothing: {}",
        listed.body
    );
}

#[tokio::test]
async fn the_embedded_model_register_answers_by_default_with_its_injected_failures() {
    let app = spawn(|_| {}).await;
    let (test, live) = keys(&app).await;
    for (path, key) in [("/partner/v1", &live), ("/sandbox/v1", &test)] {
        let ok = create(&app, path, key, "SC000401").await;
        assert_eq!(ok.status, 201, "{}", ok.body);
        assert_eq!(ok.body["business"]["name"], "Highland Widgets Ltd");
        // 00000429: the register's rate limit; 00000503: its outage.
        for number in ["00000429", "00000503"] {
            let r = create(&app, path, key, number).await;
            assert_hub_error(&r, 503, "service_unavailable");
            assert_eq!(r.body["error"]["retryable"], true);
        }
    }
}

#[tokio::test]
async fn a_refused_key_or_a_register_too_slow_to_answer_is_an_outage() {
    let key = "the-right-key";
    let addr = lendhub_models::spawn(
        "127.0.0.1:0".parse().unwrap(),
        lendhub_models::register::router(key),
    )
    .await
    .unwrap();
    let url = format!("http://{addr}");
    let app = spawn(|c| {
        c.counterparties.live.company_register.url = Some(url.clone());
        c.counterparties.live.company_register.api_key = Some("a-wrong-key".to_owned().into());
        c.counterparties.test.company_register.url = Some(url.clone());
        c.counterparties.test.company_register.api_key = Some(key.to_owned().into());
        c.counterparties.test.company_register.timeout_ms = 300;
    })
    .await;
    let (test, live) = keys(&app).await;
    let refused = create(&app, "/partner/v1", &live, "00000401").await;
    assert_hub_error(&refused, 503, "service_unavailable");

    let slow = reqwest::Client::new()
        .put(format!("{url}/_model/delay"))
        .basic_auth(key, Some(""))
        .json(&json!({ "ms": 3_000 }))
        .send()
        .await
        .unwrap();
    assert_eq!(slow.status(), 204);
    let timed_out = create(&app, "/sandbox/v1", &test, "00000401").await;
    assert_hub_error(&timed_out, 503, "service_unavailable");
}
