//! The partner ring's document states what the server refuses (issue #44
//! item 13): each rule read from the document the running server serves,
//! then broken in a request the server refuses with the same rule's
//! reason; and every operation names the 429 and 503 any answer may be.

use lendhub_domain::partner::project::Tier;
use serde_json::{Value, json};

use crate::partner::assert_hub_error;
use crate::rest_tier::{api_key, rest_app, rest_get, rest_partner};
use crate::support::*;

const SCOPES: &str = "applications.read applications.write decisions.read accounts.read \
                      accounts.manage webhooks.manage";
const TEST: &str = "/sandbox/v1";

async fn post(app: &App, key: &str, path: &str, body: Value) -> Reply {
    reply(
        app.http
            .post(format!("{}{TEST}{path}", app.hub))
            .bearer_auth(key)
            .header("idempotency-key", uuidish())
            .json(&body)
            .send()
            .await
            .unwrap(),
    )
    .await
}

fn reasons(r: &Reply) -> Vec<(String, String)> {
    r.body["error"]["detail"]
        .as_array()
        .map(|d| {
            d.iter()
                .map(|p| {
                    (
                        p["field"].as_str().unwrap_or("").to_owned(),
                        p["reason"].as_str().unwrap_or("").to_owned(),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test]
async fn the_document_states_the_rules_the_server_enforces() {
    let app = rest_app().await;
    let (client, _) = rest_partner(&app, SCOPES, Tier::Platform).await;
    let key = api_key(&app, &client, "test", None)["key"]
        .as_str()
        .unwrap()
        .to_owned();
    let doc = rest_get(&app, "/partner/v1/openapi.json", Some(&key)).await;
    assert_eq!(doc.status, 200, "{}", doc.body);
    let doc = doc.body;
    let schema = |name: &str| doc["components"]["schemas"][name].clone();

    // Any answer may be the rate limit or an outage: every operation says so.
    let mut operations = 0;
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            if !["get", "post", "put", "patch", "delete"].contains(&method.as_str()) {
                continue;
            }
            operations += 1;
            for status in ["429", "503"] {
                assert!(
                    op["responses"][status].is_object(),
                    "{method} {path} does not declare {status}"
                );
            }
        }
    }
    assert!(operations >= 55, "{operations}");
    for path in ["/oauth/introspect", "/oauth/revoke"] {
        assert!(
            doc["paths"][path]["post"]["responses"]["422"].is_object(),
            "{path}"
        );
    }

    // Consents and acceptance: only `true`.
    let consents = schema("Consents");
    for consent in ["credit_search", "open_banking", "terms"] {
        assert_eq!(consents["properties"][consent]["enum"], json!([true]));
    }
    assert_eq!(
        schema("AcceptOffer")["properties"]["accept_terms"]["enum"],
        json!([true])
    );
    // Closed sets, ids and bounds.
    assert_eq!(
        schema("CreateApp")["properties"]["category"]["enum"],
        json!(["open_banking", "identity", "e_sign", "accounting", "fraud"])
    );
    let signal = schema("PublishSignal");
    assert_eq!(
        signal["properties"]["kind"]["enum"]
            .as_array()
            .unwrap()
            .len(),
        5
    );
    assert_eq!(
        signal["properties"]["verdict"]["enum"],
        json!(["pass", "review", "fail"])
    );
    assert!(
        signal["properties"]["application_id"]["pattern"]
            .as_str()
            .unwrap()
            .starts_with("^app_")
    );
    let subscribe = schema("Subscribe");
    assert_eq!(subscribe["properties"]["enabled_events"]["minItems"], 1);
    assert!(
        subscribe["properties"]["app_id"]["pattern"]
            .as_str()
            .unwrap()
            .starts_with("^mkt_")
    );
    assert_eq!(schema("CreateApp")["properties"]["name"]["maxLength"], 200);

    // The same rules, broken in requests: refused with their reasons.
    let sub = schema("CreateSubAccount");
    assert_eq!(sub["properties"]["revenue_share_bps"]["maximum"], 1000);
    assert_eq!(sub["properties"]["name"]["maxLength"], 200);
    assert_eq!(sub["properties"]["name"]["minLength"], 1);
    let over = post(
        &app,
        &key,
        "/sub-accounts",
        json!({"name": "Brokers", "revenue_share_bps": 1001}),
    )
    .await;
    assert_hub_error(&over, 422, "validation_failed");
    assert_eq!(
        reasons(&over),
        [("revenue_share_bps".to_owned(), "max_value".to_owned())]
    );
    let long = post(
        &app,
        &key,
        "/sub-accounts",
        json!({"name": "x".repeat(201)}),
    )
    .await;
    assert_eq!(
        reasons(&long),
        [("name".to_owned(), "max_length".to_owned())]
    );

    let hooks = schema("CreateWebhookEndpoint");
    let wildcard = &hooks["allOf"][0];
    assert_eq!(
        wildcard["if"]["properties"]["enabled_events"]["contains"]["const"],
        "*"
    );
    assert_eq!(
        wildcard["then"]["properties"]["enabled_events"]["maxItems"],
        1
    );
    let both = post(
        &app,
        &key,
        "/webhook_endpoints",
        json!({"url": "https://hooks.partner.example/x", "enabled_events": ["*", "application.created"]}),
    )
    .await;
    assert_eq!(
        reasons(&both),
        [("enabled_events".to_owned(), "wildcard_alone".to_owned())]
    );

    let application = schema("CreateApplication");
    assert_eq!(
        application["allOf"][0]["anyOf"][1]["properties"]["applicant"]["required"],
        json!(["email"])
    );
    let nobody = post(
        &app,
        &key,
        "/applications",
        json!({"business": {"company_number": "00000401"}, "amount_pence": 1_000_000, "term_months": 24}),
    )
    .await;
    assert_eq!(
        reasons(&nobody),
        [(
            "applicant.email".to_owned(),
            "required_without_redirect_uri".to_owned()
        )]
    );
    let number = &schema("BusinessInput")["properties"]["company_number"]["pattern"];
    assert_eq!(number, "^([0-9]{2}|[A-Z]{2})[0-9]{6}$");
    let short = post(
        &app,
        &key,
        "/applications",
        json!({"business": {"company_number": "0401"}, "amount_pence": 1_000_000, "term_months": 24,
               "redirect_uri": "https://partner.example/done"}),
    )
    .await;
    assert_eq!(
        reasons(&short),
        [("business.company_number".to_owned(), "pattern".to_owned())]
    );
}
