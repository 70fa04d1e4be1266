//! The dated API version (issue #49 item 4): pinned per request with
//! `Lendhub-Version`, named on every answer, refused when it never was; and
//! the changelog names the newest version the code has.

use lendhub_domain::partner::project::Tier;
use lendhub_domain::sandbox::events::{HUB_API_VERSION, HUB_API_VERSIONS};

use crate::partner::assert_hub_error;
use crate::rest_tier::{api_key, rest_app, rest_partner};
use crate::support::{Reply, reply};

#[tokio::test]
async fn a_request_pins_its_version_and_every_answer_names_it() {
    let app = rest_app().await;
    let (client, _) = rest_partner(&app, "applications.read", Tier::Scale).await;
    let key = api_key(&app, &client, "test", None)["key"]
        .as_str()
        .unwrap()
        .to_owned();
    let get = async |path: &str, version: Option<&str>| -> Reply {
        let mut request = app.http.get(format!("{}{path}", app.hub)).bearer_auth(&key);
        if let Some(v) = version {
            request = request.header("Lendhub-Version", v);
        }
        reply(request.send().await.unwrap()).await
    };

    let unpinned = get("/sandbox/v1/applications", None).await;
    assert_eq!(unpinned.status, 200, "{}", unpinned.body);
    assert_eq!(
        unpinned.header("lendhub-version"),
        HUB_API_VERSION,
        "the newest"
    );
    let pinned = get("/sandbox/v1/applications", Some(HUB_API_VERSION)).await;
    assert_eq!(pinned.status, 200);
    assert_eq!(pinned.header("lendhub-version"), HUB_API_VERSION);
    // An error is answered in a version too.
    let missing = get("/sandbox/v1/applications/app_nope", Some(HUB_API_VERSION)).await;
    assert_eq!(missing.status, 404);
    assert_eq!(missing.header("lendhub-version"), HUB_API_VERSION);

    // A version that never was is refused before anything is read, with
    // the field and reason a webhook endpoint's `api_version` gets.
    let unknown = get("/sandbox/v1/applications", Some("2020-01-01")).await;
    assert_hub_error(&unknown, 422, "validation_failed");
    let issue = &unknown.body["error"]["detail"][0];
    assert_eq!(issue["field"], "Lendhub-Version", "{}", unknown.body);
    assert_eq!(issue["reason"], "unknown_version");
    let live = app
        .http
        .get(format!("{}/partner/v1/applications", app.hub))
        .header("Lendhub-Version", "latest")
        .send()
        .await
        .unwrap();
    assert_eq!(live.status(), 422, "refused before the credential is read");

    // The document offers exactly the versions there are.
    let doc = get("/sandbox/v1/openapi.json", None).await;
    let parameters = doc.body["paths"]["/applications"]["get"]["parameters"]
        .as_array()
        .unwrap()
        .clone();
    let header = parameters
        .iter()
        .find(|p| p["name"] == "Lendhub-Version")
        .unwrap();
    assert_eq!(header["in"], "header");
    assert_eq!(
        header["schema"]["enum"],
        serde_json::json!(HUB_API_VERSIONS)
    );
}

#[test]
fn the_changelog_has_an_entry_for_the_newest_version() {
    let changelog = include_str!("../../../../CHANGELOG.md");
    assert!(
        changelog.contains(&format!("\n## [{HUB_API_VERSION}]")),
        "CHANGELOG.md has no `## [{HUB_API_VERSION}]` section"
    );
    assert!(
        changelog.contains(&format!("\n## [{}]", lendhub_sandbox::API_VERSION)),
        "CHANGELOG.md has no section for the sandbox API's version"
    );
}
