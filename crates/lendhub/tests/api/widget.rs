//! The support widget: served with the right types and validators, and
//! working in a real browser on a partner's page.

use crate::support::smtp::free_port;
use crate::support::{App, Site, test_config};

#[tokio::test]
async fn the_assets_have_types_and_validators() {
    let app = App::spawn().await;
    for (path, content_type) in [
        ("widget.js", "text/javascript; charset=utf-8"),
        ("widget.css", "text/css; charset=utf-8"),
    ] {
        let url = format!("{}/public/v1/support/{path}", app.hub);
        let r = app.http.get(&url).send().await.unwrap();
        assert_eq!(r.status(), 200);
        assert_eq!(r.headers()["content-type"], content_type);
        assert!(
            r.headers()["cache-control"]
                .to_str()
                .unwrap()
                .contains("max-age")
        );
        let etag = r.headers()["etag"].to_str().unwrap().to_owned();
        assert!(etag.starts_with('"') && etag.len() > 10, "{etag}");
        assert!(!r.text().await.unwrap().is_empty());
        let again = app
            .http
            .get(&url)
            .header("if-none-match", &etag)
            .send()
            .await
            .unwrap();
        assert_eq!(again.status(), 304);
        assert_eq!(again.headers()["etag"], etag.as_str());
        assert!(again.text().await.unwrap().is_empty());
    }
}

/// Headless Chromium fills in and submits the widget embedded on a page of
/// another origin; the enquiry is stored.
#[tokio::test]
async fn a_visitor_sends_an_enquiry_through_the_widget_in_chromium() {
    let site = Site::new().await;
    let page_port = free_port();
    let mut config = test_config(&site);
    config.public.enquiry_origins = vec![format!("http://127.0.0.1:{page_port}")];
    let app = App::spawn_with(config, site).await;
    let r = crate::support::python_json(
        "widget_browser.py",
        vec![
            ("HUB_URL", app.hub.clone()),
            ("PAGE_PORT", page_port.to_string()),
        ],
    )
    .await;
    assert_eq!(r["without_consent"]["code"], "consent_required", "{r}");
    assert!(
        r["without_consent"]["text"]
            .as_str()
            .unwrap()
            .contains("tick the box")
    );
    assert_eq!(
        r["stylesheet_applied"], "fixed",
        "the stylesheet loaded into the shadow root"
    );
    let text = r["with_consent"].as_str().unwrap();
    let reference = text
        .split_whitespace()
        .find(|w| w.starts_with("enq_"))
        .map(|w| w.trim_end_matches(|c: char| !c.is_ascii_alphanumeric()))
        .unwrap_or_else(|| panic!("no reference in {text:?}"));
    let stored = app
        .server()
        .store
        .enquiry(reference)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (stored.form.as_str(), stored.dept.as_deref()),
        ("support-widget", Some("support"))
    );
    let fields: serde_json::Value = serde_json::from_str(&stored.fields).unwrap();
    assert_eq!(fields["email"], "ada@example.test");
    assert_eq!(fields["consent"], "yes");
}
