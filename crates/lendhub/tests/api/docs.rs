//! The API reference at `{base_url}/docs`: the documents lendhub serves,
//! rendered by Redoc from the binary in headless Chromium with every
//! operation shown and no response from another origin; the README's
//! walk-throughs as guides.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::support::{App, Site, python_json, test_config};

fn operation_ids(document: &Value) -> BTreeSet<String> {
    document["paths"]
        .as_object()
        .unwrap()
        .values()
        .flat_map(|item| item.as_object().unwrap().values())
        .filter_map(|op| op["operationId"].as_str().map(str::to_owned))
        .collect()
}

async fn json(app: &App, url: String) -> Value {
    let r = app.http.get(&url).send().await.unwrap();
    assert_eq!(r.status(), 200, "{url}");
    r.json().await.unwrap()
}

#[tokio::test]
async fn every_document_is_rendered_from_the_binary_with_every_operation() {
    let site = Site::new().await;
    let mut config = test_config(&site);
    config.rest_tier.enabled = true;
    let app = App::spawn_with(config, site).await;

    // The documents are the ones each surface serves.
    let docs = |key: &str| json(&app, format!("{}/docs/openapi/{key}.json", app.hub));
    assert_eq!(
        docs("sandbox").await,
        json(&app, app.url("/openapi.json")).await
    );
    assert_eq!(
        docs("partner").await,
        json(&app, format!("{}/partner/v1/openapi.json", app.hub)).await
    );
    assert_eq!(
        docs("public").await,
        json(&app, format!("{}/public/v1/openapi.json", app.hub)).await
    );

    let index = app
        .http
        .get(format!("{}/docs", app.hub))
        .send()
        .await
        .unwrap();
    assert_eq!(index.status(), 200);
    assert!(
        index.headers()["content-security-policy"]
            .to_str()
            .unwrap()
            .starts_with("default-src 'none'")
    );
    let index = index.text().await.unwrap();
    for link in [
        "/docs/reference/sandbox",
        "/docs/reference/partner",
        "/docs/reference/public",
        "/docs/guides/sandbox-walk-through",
        "/docs/guides/rest-tier",
        "/docs/guides/status-page",
    ] {
        assert!(
            index.contains(&format!("href=\"{link}\"")),
            "{link}: {index}"
        );
    }
    let missing = app
        .http
        .get(format!("{}/docs/reference/ledger", app.hub))
        .send()
        .await
        .unwrap();
    assert_eq!(missing.status(), 404);
    let body: Value = missing.json().await.unwrap();
    assert_eq!(body["error"]["code"], "resource_not_found", "{body}");

    let browser = python_json("docs_browser.py", vec![("BASE", app.hub.clone())]).await;
    for key in ["sandbox", "partner", "public"] {
        let rendered = &browser[key];
        let shown: BTreeSet<String> = rendered["operations"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap().to_owned())
            .collect();
        let documented = operation_ids(&docs(key).await);
        assert!(!documented.is_empty());
        assert_eq!(shown, documented, "{key}: every operation is rendered");
        assert_eq!(
            rendered["foreign_responses"],
            serde_json::json!([]),
            "{key}: {rendered}"
        );
        assert_eq!(
            rendered["errors"],
            serde_json::json!([]),
            "{key}: {rendered}"
        );
        for url in rendered["refused"].as_array().unwrap() {
            assert!(
                url.as_str().unwrap().starts_with("https://cdn.redoc.ly/"),
                "only Redoc's own logo is refused: {rendered}"
            );
        }
    }
    let partner = docs("partner").await;
    let title = format!(
        "{} ({})",
        partner["info"]["title"].as_str().unwrap(),
        partner["info"]["version"].as_str().unwrap()
    );
    assert_eq!(browser["partner"]["title"], title.as_str());
    assert_eq!(
        browser["guide"]["heading"],
        "Walk-through: the seven-step sandbox flow"
    );
    assert!(browser["guide"]["code_blocks"].as_u64().unwrap() >= 7);
}
