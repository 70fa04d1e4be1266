//! The API reference at `{base_url}/docs`: the documents lendhub serves,
//! rendered by Redoc from the binary in headless Chromium with every
//! operation shown and no response from another origin; the guide at
//! `/docs/guide/`, and the old walk-through addresses, deprecated.

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
        "/docs/guide/",
        "/docs/guide/getting-started.html",
        "/docs/guide/lending-flow.html",
        "/docs/guide/configuration.html",
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
    assert_eq!(browser["guide"]["heading"], "The sandbox API");
    assert!(browser["guide"]["code_blocks"].as_u64().unwrap() >= 7);
    let images = browser["guide_images"].as_array().unwrap();
    assert!(!images.is_empty(), "{browser}");
    for image in images {
        assert_eq!(image["loaded"], true, "{image}");
    }
    assert_eq!(browser["guide_next"], "The status page");
}

#[tokio::test]
async fn the_guide_is_served_beside_the_reference_and_the_old_guides_say_where_they_went() {
    let app = App::spawn().await;
    let get = |path: &str| app.http.get(format!("{}{path}", app.hub)).send();

    let once = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let folder = once
        .get(format!("{}/docs/guide", app.hub))
        .send()
        .await
        .unwrap();
    assert_eq!(folder.status(), 308);
    assert_eq!(folder.headers()["location"], "/docs/guide/");

    let first = get("/docs/guide/").await.unwrap();
    assert_eq!(first.status(), 200);
    let policy = first.headers()["content-security-policy"]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(policy.starts_with("default-src 'none'"), "{policy}");
    assert!(
        !policy.contains("script-src"),
        "the guide runs no script: {policy}"
    );
    assert_eq!(first.headers()["x-content-type-options"], "nosniff");
    let body = first.text().await.unwrap();
    assert!(
        body.contains("<h1 id=\"introduction\">Introduction</h1>"),
        "{body}"
    );
    assert!(
        body.contains(r#"<a rel="next" href="getting-started.html">"#),
        "{body}"
    );

    // Chapters link to each other's pages and headings, as mdBook builds them.
    let flow = get("/docs/guide/lending-flow.html").await.unwrap();
    assert_eq!(flow.status(), 200);
    let flow = flow.text().await.unwrap();
    assert!(flow.contains(r#"href="simulators.html""#), "{flow}");
    assert!(
        flow.contains(r#"aria-current="page">The lending flow</a>"#),
        "{flow}"
    );

    let image = get("/docs/guide/screenshots/dashboard-home-1280.png")
        .await
        .unwrap();
    assert_eq!(image.status(), 200);
    assert_eq!(image.headers()["content-type"], "image/png");
    assert!(image.bytes().await.unwrap().starts_with(b"\x89PNG"));

    for missing in [
        "/docs/guide/no-such-chapter.html",
        "/docs/guide/SUMMARY.md",
        "/docs/guide/screenshots/none.png",
    ] {
        let r = get(missing).await.unwrap();
        assert_eq!(r.status(), 404, "{missing}");
        let body: Value = r.json().await.unwrap();
        assert_eq!(
            body["error"]["code"], "resource_not_found",
            "{missing}: {body}"
        );
    }

    // The README walk-throughs moved into the guide: the old addresses still
    // answer, with the chapter, until their sunset, and say so.
    let old = get("/docs/guides/rest-tier").await.unwrap();
    assert_eq!(old.status(), 200);
    assert_eq!(old.headers()["deprecation"], "@1796169600");
    assert_eq!(old.headers()["sunset"], "Wed, 02 Jun 2027 00:00:00 GMT");
    let link = old.headers()["link"].to_str().unwrap().to_owned();
    assert!(
        link.contains(r#"</docs/guide/lending-flow.html>; rel="successor-version""#),
        "{link}"
    );
    assert!(
        link.contains(r#"</docs/guide/versioning.html>; rel="deprecation""#),
        "{link}"
    );
    assert!(
        old.text()
            .await
            .unwrap()
            .contains("<h1 id=\"the-lending-flow\">The lending flow</h1>")
    );
    let current = get("/docs/guide/lending-flow.html").await.unwrap();
    assert!(current.headers().get("deprecation").is_none());
    assert_eq!(
        get("/docs/guides/no-such-guide").await.unwrap().status(),
        404
    );
}
