//! White-label journeys' bank connections (issue #46): the applicant
//! authorises lendhub at their bank through the authorisation page a
//! connection names, comes back through lendhub's callback, which reads the
//! account and sends them on to the partner's `return_url`; the submission
//! names the connection and is decided on the account read. Here in the
//! test environment, at the model bank `serve` embeds; `open_banking.rs`
//! does it in live against a bank in its own process.

use lendhub_domain::partner::project::Tier;
use serde_json::{Value, json};

use crate::partner::assert_hub_error;
use crate::rest_tier::{api_key, rest_app, rest_get, rest_partner, rest_post as post};
use crate::support::*;

const SCOPES: &str = "applications.read applications.write decisions.read";
const RETURN: &str = "https://partner.example/apply/bank-done";

async fn test_key(app: &App) -> String {
    let (client, _) = rest_partner(app, SCOPES, Tier::Platform).await;
    api_key(app, &client, "test", None)["key"]
        .as_str()
        .unwrap()
        .to_owned()
}

pub(crate) async fn application(app: &App, prefix: &str, key: &str) -> String {
    app.advance(time::Duration::seconds(1)); // the create sub-limit
    let r = post(
        app,
        &format!("{prefix}/applications"),
        key,
        json!({"business": {"company_number": "00000401"}, "amount_pence": 1_000_000,
               "term_months": 24, "applicant": {"email": "ada@example.com"}}),
    )
    .await;
    assert_eq!(r.status, 201, "{}", r.body);
    r.body["id"].as_str().unwrap().to_owned()
}

pub(crate) async fn connect(app: &App, prefix: &str, key: &str, id: &str, body: Value) -> Reply {
    post(
        app,
        &format!("{prefix}/applications/{id}/bank_connections"),
        key,
        body,
    )
    .await
}

/// Where lendhub's callback at `url` sends the applicant: (status, Location).
pub(crate) async fn follow_callback(url: &str) -> (u16, String) {
    let r = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
        .get(url)
        .send()
        .await
        .unwrap();
    let status = r.status().as_u16();
    let location = r
        .headers()
        .get("location")
        .map(|l| l.to_str().unwrap().to_owned());
    (status, location.unwrap_or(r.text().await.unwrap()))
}

fn consents() -> Value {
    json!({"credit_search": true, "open_banking": true, "terms": true})
}

#[tokio::test]
async fn a_connected_bank_decides_the_white_label_submission() {
    let app = rest_app().await;
    let key = test_key(&app).await;
    let banks = rest_get(&app, "/sandbox/v1/banks", Some(&key)).await;
    assert_eq!(banks.status, 200, "{}", banks.body);
    assert_eq!(banks.body["object"], "list");
    let bank = banks.body["data"][0].clone();
    assert_eq!(bank["object"], "bank", "{}", banks.body);
    let bank_id = bank["id"].as_str().unwrap().to_owned();

    let id = application(&app, "/sandbox/v1", &key).await;
    let made = connect(
        &app,
        "/sandbox/v1",
        &key,
        &id,
        json!({"bank": bank_id, "return_url": RETURN}),
    )
    .await;
    assert_eq!(made.status, 201, "{}", made.body);
    let c = &made.body;
    assert_eq!(c["object"], "bank_connection");
    assert_eq!(c["status"], "awaiting_authorisation");
    assert_eq!(c["application_id"], id.as_str());
    assert_eq!(c["livemode"], false);
    assert_eq!(c["account"], Value::Null);
    let bcn = c["id"].as_str().unwrap().to_owned();
    assert!(bcn.starts_with("bcn_"), "{bcn}");

    // The applicant approves at the bank, sharing the strong account, and
    // lendhub's callback sends them on to the partner.
    let authorise = c["authorisation_url"].as_str().unwrap();
    let callback = consent_at_bank(authorise, "approve", "strong").await;
    assert!(
        callback.starts_with(&format!("{}/open-banking/callback?", app.hub)),
        "{callback}"
    );
    let (status, back) = follow_callback(&callback).await;
    assert_eq!(status, 303, "{back}");
    assert_eq!(
        back,
        format!("{RETURN}?bank_connection={bcn}&status=connected")
    );
    let path = format!("/sandbox/v1/applications/{id}/bank_connections/{bcn}");
    let read = rest_get(&app, &path, Some(&key)).await;
    assert_eq!(read.body["status"], "connected", "{}", read.body);
    assert_eq!(read.body["authorisation_url"], Value::Null);
    assert_eq!(
        read.body["account"],
        json!({"name": "Trading account – strong affordability",
               "sort_code": "04-00-04", "account_number_last4": "0010"})
    );
    assert!(read.body["connected_at"].is_string(), "{}", read.body);

    // The same answer again (a reload, a replay) changes nothing.
    let (again, back_again) = follow_callback(&callback).await;
    assert_eq!((again, back_again), (303, back));
    assert_eq!(rest_get(&app, &path, Some(&key)).await.body, read.body);

    // Submitted with the connection, decided on the account read.
    let submitted = post(
        &app,
        &format!("/sandbox/v1/applications/{id}/submit"),
        &key,
        json!({"consents": consents(), "bank_connection": bcn}),
    )
    .await;
    assert_eq!(submitted.status, 200, "{}", submitted.body);
    assert_eq!(submitted.body["status"], "approved", "{}", submitted.body);

    // The application is no longer open: no new connection.
    assert_hub_error(
        &connect(&app, "/sandbox/v1", &key, &id, json!({"bank": bank_id})).await,
        409,
        "conflict",
    );
}

#[tokio::test]
async fn a_declined_or_unfinished_connection_cannot_decide() {
    let app = rest_app().await;
    let key = test_key(&app).await;
    let id = application(&app, "/sandbox/v1", &key).await;
    let made = connect(
        &app,
        "/sandbox/v1",
        &key,
        &id,
        json!({"bank": "model_bank"}),
    )
    .await;
    assert_eq!(made.status, 201, "{}", made.body);
    let bcn = made.body["id"].as_str().unwrap().to_owned();
    let submit = |body: Value| {
        let (app, key, id) = (&app, &key, &id);
        async move {
            post(
                app,
                &format!("/sandbox/v1/applications/{id}/submit"),
                key,
                body,
            )
            .await
        }
    };
    // Not yet authorised: refused, the application unchanged.
    let early = submit(json!({"consents": consents(), "bank_connection": bcn})).await;
    assert_hub_error(&early, 422, "validation_failed");
    assert_eq!(
        early.body["error"]["detail"],
        json!([{"field": "bank_connection", "reason": "not_connected"}])
    );

    // A forged state (the right id, another secret) is not an answer.
    let authorise = made.body["authorisation_url"].as_str().unwrap().to_owned();
    let callback = consent_at_bank(&authorise, "decline", "strong").await;
    let forged = format!(
        "{}/open-banking/callback?state={bcn}.forged&code=x",
        app.hub
    );
    let (status, page) = follow_callback(&forged).await;
    assert_eq!(status, 404, "{page}");
    let path = format!("/sandbox/v1/applications/{id}/bank_connections/{bcn}");
    let read = rest_get(&app, &path, Some(&key)).await;
    assert_eq!(read.body["status"], "awaiting_authorisation");

    // Declined at the bank: with no return_url, lendhub's own page says so.
    let (status, page) = follow_callback(&callback).await;
    assert_eq!(status, 200, "{page}");
    assert!(page.contains("data-status=\"failed\""), "{page}");
    let read = rest_get(&app, &path, Some(&key)).await;
    assert_eq!(read.body["status"], "failed", "{}", read.body);
    assert_eq!(read.body["failure_reason"], "consent_refused");
    let refused = submit(json!({"consents": consents(), "bank_connection": bcn})).await;
    assert_eq!(
        refused.body["error"]["detail"],
        json!([{"field": "bank_connection", "reason": "not_connected"}])
    );

    // Never answered: expired once the authorisation's 15 minutes pass.
    let late = connect(
        &app,
        "/sandbox/v1",
        &key,
        &id,
        json!({"bank": "model_bank"}),
    )
    .await;
    let late_id = late.body["id"].as_str().unwrap();
    app.advance(time::Duration::minutes(16));
    let read = rest_get(
        &app,
        &format!("/sandbox/v1/applications/{id}/bank_connections/{late_id}"),
        Some(&key),
    )
    .await;
    assert_eq!(read.body["status"], "expired", "{}", read.body);
    assert_eq!(read.body["authorisation_url"], Value::Null);
    let moment = |field: &str| {
        time::OffsetDateTime::parse(
            read.body[field].as_str().unwrap(),
            &time::format_description::well_known::Rfc3339,
        )
        .unwrap()
    };
    assert_eq!(
        moment("expires_at") - moment("created_at"),
        time::Duration::minutes(15)
    );

    let app_read = rest_get(&app, &format!("/sandbox/v1/applications/{id}"), Some(&key)).await;
    assert_eq!(app_read.body["status"], "created", "{}", app_read.body);
}

#[tokio::test]
async fn connection_requests_are_checked_and_kept_to_their_owner() {
    let app = rest_app().await;
    let key = test_key(&app).await;
    let id = application(&app, "/sandbox/v1", &key).await;
    let refused = connect(
        &app,
        "/sandbox/v1",
        &key,
        &id,
        json!({"return_url": "http://partner.example/back"}),
    )
    .await;
    assert_hub_error(&refused, 422, "validation_failed");
    assert_eq!(
        refused.body["error"]["detail"],
        json!([{"field": "bank", "reason": "required"},
               {"field": "return_url", "reason": "https_required"}])
    );
    let unknown = connect(
        &app,
        "/sandbox/v1",
        &key,
        &id,
        json!({"bank": "test_bank_strong"}),
    )
    .await;
    assert_eq!(
        unknown.body["error"]["detail"],
        json!([{"field": "bank", "reason": "unknown_bank"}]),
        "{}",
        unknown.body
    );
    let both = post(
        &app,
        &format!("/sandbox/v1/applications/{id}/submit"),
        &key,
        json!({"consents": consents(), "bank": "test_bank_strong",
               "bank_connection": "bcn_01KQ000000000000000000000A"}),
    )
    .await;
    assert_eq!(
        both.body["error"]["detail"],
        json!([{"field": "bank_connection", "reason": "mutually_exclusive_with_bank"}])
    );

    // Another partner sees neither the connection nor may submit with it.
    let made = connect(
        &app,
        "/sandbox/v1",
        &key,
        &id,
        json!({"bank": "model_bank"}),
    )
    .await;
    let bcn = made.body["id"].as_str().unwrap().to_owned();
    let other = test_key(&app).await;
    let theirs = application(&app, "/sandbox/v1", &other).await;
    assert_hub_error(
        &rest_get(
            &app,
            &format!("/sandbox/v1/applications/{id}/bank_connections/{bcn}"),
            Some(&other),
        )
        .await,
        404,
        "not_found",
    );
    assert_hub_error(
        &post(
            &app,
            &format!("/sandbox/v1/applications/{theirs}/submit"),
            &other,
            json!({"consents": consents(), "bank_connection": bcn}),
        )
        .await,
        404,
        "not_found",
    );
}
