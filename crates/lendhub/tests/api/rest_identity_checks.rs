//! Identity checks (issue #15): `POST /identity/checks` against the
//! synthetic person register, the verification object and its events.

use lendhub_domain::partner::project::Tier;
use serde_json::{Value, json};

use crate::partner::assert_hub_error;
use crate::rest_tier::{api_key, rest_app, rest_get, rest_partner};
use crate::support::*;

use crate::rest_tier::rest_post as post;

fn person(last_name: &str) -> Value {
    json!({"first_name": "Ada", "last_name": last_name, "date_of_birth": "1985-04-12", "postcode": "SW1A 1AA"})
}

const SCOPES: &str =
    "applications.read applications.write identity.read identity.write events.read";

async fn keys(app: &App, scopes: &str) -> (String, String) {
    let (client, _) = rest_partner(app, scopes, Tier::Scale).await;
    let key = |env| {
        api_key(app, &client, env, None)["key"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    (key("test"), key("live"))
}

#[tokio::test]
async fn a_director_is_verified_and_linked_to_the_application() {
    let app = rest_app().await;
    let (test, live) = keys(&app, SCOPES).await;
    let application = post(
        &app,
        "/sandbox/v1/applications",
        &test,
        json!({"business": {"company_number": "00000401"}, "amount_pence": 1_000_000,
               "term_months": 12, "applicant": {"email": "ada@example.com"}, "reference": "DEAL-9"}),
    )
    .await;
    let app_id = application.body["id"].as_str().unwrap().to_owned();
    let checked = post(
        &app,
        "/sandbox/v1/identity/checks",
        &test,
        json!({"person": person("Lovelace"), "application_id": app_id}),
    )
    .await;
    assert_eq!(checked.status, 201, "{}", checked.body);
    let v = &checked.body;
    assert!(v["id"].as_str().unwrap().starts_with("ver_"));
    assert_eq!(v["object"], "verification");
    assert_eq!(v["status"], "verified");
    assert_eq!(v["flags"], json!([]));
    assert_eq!(
        v["checks"],
        json!({"identity": "pass", "sanctions": "pass", "politically_exposed": "pass", "director": "pass"})
    );
    assert_eq!(v["company_number"], "00000401", "the application's company");
    assert_eq!(
        v["reference"], "DEAL-9",
        "the application's reference, echoed"
    );
    assert_eq!(v["person"]["date_of_birth"], "1985-04-12");
    assert_eq!(v["livemode"], false);

    let id = v["id"].as_str().unwrap();
    let read = rest_get(
        &app,
        &format!("/sandbox/v1/identity/checks/{id}"),
        Some(&test),
    )
    .await;
    assert_eq!(&read.body, v);
    assert_hub_error(
        &rest_get(
            &app,
            &format!("/partner/v1/identity/checks/{id}"),
            Some(&live),
        )
        .await,
        404,
        "not_found",
    );
    let events = rest_get(
        &app,
        "/sandbox/v1/events?type=identity.verified",
        Some(&test),
    )
    .await;
    assert_eq!(events.body["data"][0]["data"]["object"], *v);

    assert_hub_error(
        &post(
            &app,
            "/partner/v1/identity/checks",
            &live,
            json!({"person": person("Lovelace"), "application_id": app_id}),
        )
        .await,
        404,
        "not_found",
    );
}

#[tokio::test]
async fn each_magic_name_needs_review_and_bad_requests_are_named() {
    let app = rest_app().await;
    let (test, _) = keys(&app, SCOPES).await;
    for (last, flag, check) in [
        ("Mismatch", "identity_not_matched", "identity"),
        ("Sanctioned", "sanctions_match", "sanctions"),
        ("Exposed", "politically_exposed", "politically_exposed"),
        ("Outsider", "not_a_director", "director"),
    ] {
        app.advance(time::Duration::seconds(1));
        let r = post(
            &app,
            "/sandbox/v1/identity/checks",
            &test,
            json!({"person": person(last), "company_number": "00000401"}),
        )
        .await;
        assert_eq!(r.status, 201, "{last}: {}", r.body);
        assert_eq!(r.body["status"], "review_required", "{last}");
        assert_eq!(r.body["flags"], json!([flag]), "{last}");
        assert_eq!(r.body["checks"][check], "review", "{last}");
    }
    let reviews = rest_get(
        &app,
        "/sandbox/v1/events?type=identity.review_required",
        Some(&test),
    )
    .await;
    assert_eq!(reviews.body["data"].as_array().unwrap().len(), 4);
    app.advance(time::Duration::seconds(1));
    let no_company = post(
        &app,
        "/sandbox/v1/identity/checks",
        &test,
        json!({"person": person("Outsider")}),
    )
    .await;
    assert_eq!(no_company.body["status"], "verified");
    assert_eq!(no_company.body["checks"]["director"], "not_run");

    app.advance(time::Duration::seconds(1));
    let bad = post(
        &app,
        "/sandbox/v1/identity/checks",
        &test,
        json!({"person": {"first_name": "Kid", "last_name": "Young", "date_of_birth": "2015-01-01"}}),
    )
    .await;
    assert_hub_error(&bad, 422, "validation_failed");
    assert_eq!(bad.body["error"]["detail"][0]["reason"], "too_young");
    let missing = post(&app, "/sandbox/v1/identity/checks", &test, json!({})).await;
    assert_hub_error(&missing, 422, "validation_failed");
    let unknown = post(
        &app,
        "/sandbox/v1/identity/checks",
        &test,
        json!({"person": person("Lovelace"), "nationality": "GB"}),
    )
    .await;
    assert_hub_error(&unknown, 400, "unknown_field");

    let (applications_only, _) = keys(&app, "applications.write").await;
    let r = post(
        &app,
        "/sandbox/v1/identity/checks",
        &applications_only,
        json!({"person": person("Lovelace")}),
    )
    .await;
    assert_hub_error(&r, 403, "insufficient_scope");
    assert!(
        r.body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("identity.write")
    );

    // The seed's sub-limit: five a second, counted within one instant (on
    // a loaded machine six requests can take longer than a real second).
    app.advance(time::Duration::seconds(1));
    app.clock.freeze();
    let mut statuses = Vec::new();
    for _ in 0..6 {
        let r = post(
            &app,
            "/sandbox/v1/identity/checks",
            &test,
            json!({"person": person("Lovelace")}),
        )
        .await;
        statuses.push(r.status.as_u16());
    }
    assert_eq!(statuses, [201, 201, 201, 201, 201, 429]);
}
