//! The partner MCP tier over the REST tier (issue #15): read-only tools for
//! applications and decisions behind their REST scopes, and
//! `decisioning_explanation` of a REST-tier decision by application id or
//! the partner's own reference, from the facts stored with it.

use lendhub_domain::partner::project::Tier;
use serde_json::{Value, json};

use crate::mcp::tool_names;
use crate::partner::{Partner, assert_hub_error, token};
use crate::rest_tier::{api_key, rest_app, rest_partner};
use crate::support::{App, Reply, reply};

use crate::rest_tier::rest_post as post;

async fn rpc(app: &App, token: &str, id: i64, method: &str, params: Value) -> Reply {
    let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
    reply(
        app.http
            .post(format!("{}/partner/v1/mcp", app.hub))
            .bearer_auth(token)
            .json(&body)
            .send()
            .await
            .unwrap(),
    )
    .await
}

async fn tool(app: &App, token: &str, name: &str, arguments: Value) -> Value {
    let r = rpc(
        app,
        token,
        1,
        "tools/call",
        json!({"name": name, "arguments": arguments}),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    r.body["result"].clone()
}

#[tokio::test]
async fn applications_and_decisions_are_read_and_explained_through_mcp() {
    let app = rest_app().await;
    let scopes = "mcp.read applications.read applications.write decisions.read";
    let (id, secret) = rest_partner(&app, scopes, Tier::Platform).await;
    let key = api_key(&app, &id, "test", None)["key"]
        .as_str()
        .unwrap()
        .to_owned();
    let r = post(
        &app,
        "/sandbox/v1/applications",
        &key,
        json!({"business": {"company_number": "00000401"}, "amount_pence": 1_000_000, "term_months": 24,
               "applicant": {"email": "ada@example.com"}, "reference": "MCP-7"}),
    )
    .await;
    assert_eq!(r.status, 201, "{}", r.body);
    let application = r.body["id"].as_str().unwrap().to_owned();
    let r = post(
        &app,
        &format!("/sandbox/v1/applications/{application}/submit"),
        &key,
        json!({"consents": {"credit_search": true, "open_banking": true, "terms": true}, "bank": "test_bank_strong"}),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    let decision = r.body["decision"].clone();

    let p = Partner { id, secret };
    let full = token(&app, &p, None).await.body["access_token"]
        .as_str()
        .unwrap()
        .to_owned();
    let listed = rpc(&app, &full, 1, "tools/list", json!({})).await;
    let listed = tool_names(&listed);
    for name in [
        "decisioning_explanation",
        "list_applications",
        "get_application",
        "list_decisions",
        "get_decision",
    ] {
        assert!(listed.iter().any(|n| n == name), "{name} in {listed:?}");
    }

    // Explained by the partner's reference and by the id, from stored facts.
    for reference in ["MCP-7", application.as_str()] {
        let explained = tool(
            &app,
            &full,
            "decisioning_explanation",
            json!({"reference": reference}),
        )
        .await;
        assert_eq!(explained["isError"], false, "{explained}");
        let e = &explained["structuredContent"];
        assert_eq!(e["application_id"], application.as_str());
        assert_eq!(e["decision_id"], decision["id"]);
        assert_eq!(e["livemode"], false);
        assert_eq!(e["outcome"], "approved");
        assert_eq!(e["reasons"][0]["code"], "credit_ok");
        assert!(
            e["reasons"][1]["explanation"]
                .as_str()
                .unwrap()
                .contains("bank account")
        );
        assert_eq!(e["facts"]["banking"]["months"], 12);
        assert_eq!(e["offer"], decision["offer"]);
        // The model's part, from the contributions stored with it.
        assert_eq!(e["model"]["id"], "pd-scorecard");
        assert!(e["model"]["probability_of_default"].as_f64().unwrap() < 0.05);
        let factors = e["factors"].as_array().unwrap();
        assert!(!factors.is_empty());
        let weights: Vec<f64> = factors
            .iter()
            .map(|f| f["weight"].as_f64().unwrap().abs())
            .collect();
        assert!(weights.windows(2).all(|w| w[0] >= w[1]), "{weights:?}");
        assert!(
            factors.iter().any(|f| f["feature"] == "bureau_score"
                && f["effect"] == "lowered"
                && f["explanation"]
                    .as_str()
                    .unwrap()
                    .starts_with("The company's credit score at the bureau")),
            "{factors:?}"
        );
    }
    let unknown = tool(
        &app,
        &full,
        "decisioning_explanation",
        json!({"reference": "NO-SUCH"}),
    )
    .await;
    assert_eq!(unknown["isError"], true);
    assert!(
        unknown["content"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with("not_found")
    );

    // The test environment's objects, rendered as the REST tier renders them.
    let got = tool(
        &app,
        &full,
        "get_application",
        json!({"environment": "test", "id": application}),
    )
    .await;
    assert_eq!(got["structuredContent"]["reference"], "MCP-7");
    assert_eq!(got["structuredContent"]["decision"], decision);
    let live = tool(&app, &full, "get_application", json!({"id": application})).await;
    assert_eq!(live["isError"], true, "live is the default and holds none");
    let page = tool(
        &app,
        &full,
        "list_applications",
        json!({"environment": "test", "reference": "MCP-7"}),
    )
    .await;
    assert_eq!(
        page["structuredContent"]["data"][0]["id"],
        application.as_str()
    );
    assert_eq!(page["structuredContent"]["has_more"], false);
    let decisions = tool(
        &app,
        &full,
        "list_decisions",
        json!({"environment": "test", "outcome": "approved"}),
    )
    .await;
    assert_eq!(decisions["structuredContent"]["data"], json!([decision]));
    let one = tool(
        &app,
        &full,
        "get_decision",
        json!({"environment": "test", "id": decision["id"]}),
    )
    .await;
    assert_eq!(one["structuredContent"], decision);
    let bad = rpc(
        &app,
        &full,
        2,
        "tools/call",
        json!({"name": "list_decisions", "arguments": {"environment": "staging"}}),
    )
    .await;
    assert_hub_error(&bad, 422, "mcp_invalid_params");
    assert_eq!(
        bad.body["error"]["detail"][0]["field"],
        "arguments.environment"
    );

    // A token without the REST scopes sees none of the REST tools.
    let narrow = token(&app, &p, Some("mcp.read")).await.body["access_token"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(
        tool_names(&rpc(&app, &narrow, 3, "tools/list", json!({})).await),
        ["decisioning_explanation"]
    );
    let hidden = rpc(
        &app,
        &narrow,
        4,
        "tools/call",
        json!({"name": "get_decision", "arguments": {"id": decision["id"]}}),
    )
    .await;
    assert_hub_error(&hidden, 404, "mcp_tool_not_found");
}
