//! Identity checks and credit reports over HTTP (issue #46 item 5): the
//! hub reaching a model identity provider and a model credit bureau, each
//! its own process (`lendhub simulate identity|bureau`), over lendhub's
//! documented JSON APIs (`lendhub_domain::lending::checks_api`). The model
//! servers refuse any body that is not the API's, so every answer here is
//! also the adapters keeping to it. Outages and a wrong key are 503s in
//! the hub's envelope, and nothing is recorded.

use lendhub_domain::partner::project::Tier;
use serde_json::{Value, json};

use crate::partner::assert_hub_error;
use crate::rest_tier::{api_key, rest_get, rest_partner};
use crate::support::process::Simulator;
use crate::support::*;

use crate::rest_tier::rest_post as post;

const KEY: &str = "model-checks-key";

/// A model server of one of lendhub's own JSON APIs, its own process.
struct Keyed {
    _process: Simulator,
    url: String,
}

impl Keyed {
    fn launch(kind: &str, banner: &str) -> Self {
        let process = Simulator::launch(
            &[kind, "--addr", "127.0.0.1:0"],
            ("LENDHUB_MODEL_API_KEY", KEY),
            banner,
        );
        Self {
            url: process.url.clone(),
            _process: process,
        }
    }

    fn service(&self, key: &str) -> lendhub::config::KeyedService {
        lendhub::config::KeyedService {
            url: Some(self.url.clone()),
            api_key: Some(key.to_owned().into()),
            timeout_ms: 2_000,
        }
    }

    /// Every answer `status` until `recover`.
    async fn outage(&self, status: u16) {
        let r = reqwest::Client::new()
            .put(format!("{}/_model/outage", self.url))
            .bearer_auth(KEY)
            .json(&json!({ "status": status }))
            .send()
            .await
            .unwrap();
        assert!(r.status().is_success(), "{}", r.status());
    }

    async fn recover(&self) {
        let r = reqwest::Client::new()
            .delete(format!("{}/_model/outage", self.url))
            .bearer_auth(KEY)
            .send()
            .await
            .unwrap();
        assert!(r.status().is_success(), "{}", r.status());
    }
}

fn person(last_name: &str) -> Value {
    json!({"person": {"first_name": "Ada", "last_name": last_name, "date_of_birth": "1985-04-12",
                      "postcode": "SW1A 1AA"},
           "company_number": "00000401"})
}

const SCOPES: &str =
    "applications.read applications.write decisions.read identity.read identity.write events.read";

#[tokio::test]
async fn identity_checks_and_credit_reports_reach_their_providers_over_http() {
    let identity = Keyed::launch("identity", "model identity provider listening on");
    let bureau = Keyed::launch("bureau", "model credit bureau listening on");
    let site = Site::new().await;
    let mut config = test_config(&site);
    config.rest_tier.enabled = true;
    config.counterparties.live.identity = identity.service(KEY);
    config.counterparties.test.credit_bureau = bureau.service(KEY);
    // The test environment's identity provider holds another key: lendhub
    // is refused, and says so.
    config.counterparties.test.identity = identity.service("not-the-key");
    let app = App::spawn_with(config, site).await;
    let (client, _) = rest_partner(&app, SCOPES, Tier::Scale).await;
    let key = |env| {
        api_key(&app, &client, env, None)["key"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    let (live, test) = (key("live"), key("test"));
    let check = |last: &'static str| {
        let (app, live) = (&app, &live);
        async move {
            app.advance(time::Duration::seconds(1));
            post(app, "/partner/v1/identity/checks", live, person(last)).await
        }
    };

    // The provider's findings, as the hub shows them.
    let verified = check("Lovelace").await;
    assert_eq!(verified.status, 201, "{}", verified.body);
    assert_eq!(verified.body["status"], "verified");
    assert_eq!(verified.body["checks"]["director"], "pass");
    let flagged = check("Sanctioned").await;
    assert_eq!(flagged.status, 201, "{}", flagged.body);
    assert_eq!(flagged.body["flags"], json!(["sanctions_match"]));

    // The provider down, for everyone or for one person: 503, retryable,
    // and no verification recorded.
    identity.outage(503).await;
    let down = check("Lovelace").await;
    assert_hub_error(&down, 503, "service_unavailable");
    assert_eq!(down.body["error"]["retryable"], true);
    identity.recover().await;
    assert_hub_error(&check("Unavailable").await, 503, "service_unavailable");
    let events = rest_get(&app, "/partner/v1/events?limit=100", Some(&live)).await;
    let kinds: Vec<&str> = events.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["type"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        ["identity.review_required", "identity.verified"],
        "only the two checks that were answered"
    );

    // A key the provider refuses is an outage too, not a failed check.
    app.advance(time::Duration::seconds(1));
    let refused = post(
        &app,
        "/sandbox/v1/identity/checks",
        &test,
        person("Lovelace"),
    )
    .await;
    assert_hub_error(&refused, 503, "service_unavailable");

    // The bureau: its report decides, and while it is down no decision is
    // made; once back, the same submission is decided.
    let created = post(
        &app,
        "/sandbox/v1/applications",
        &test,
        json!({"business": {"company_number": "00000401"}, "amount_pence": 1_000_000,
               "term_months": 24, "applicant": {"email": "ada@example.com"}}),
    )
    .await;
    assert_eq!(created.status, 201, "{}", created.body);
    let id = created.body["id"].as_str().unwrap().to_owned();
    let submit = || {
        let (app, test, id) = (&app, &test, &id);
        async move {
            app.advance(time::Duration::seconds(1));
            post(
                app,
                &format!("/sandbox/v1/applications/{id}/submit"),
                test,
                json!({"consents": {"credit_search": true, "open_banking": true, "terms": true},
                       "bank": "test_bank_strong"}),
            )
            .await
        }
    };
    bureau.outage(503).await;
    assert_hub_error(&submit().await, 503, "service_unavailable");
    bureau.recover().await;
    let decided = submit().await;
    assert_eq!(decided.status, 200, "{}", decided.body);
    assert_eq!(decided.body["status"], "approved", "{}", decided.body);
}
