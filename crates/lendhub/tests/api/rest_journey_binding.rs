//! The hosted journey belongs to the person the application is for (issue
//! #44 items 6, 19 and 20): the applicant the partner named gets the link by
//! e-mail when there is no `redirect_uri`, finds their address already on
//! the sign-in form, and is the only one who may carry on; with nobody
//! named, only a person of the application's company may. Journeys of
//! applications that ended without a loan are erased after 90 days.

use lendhub_domain::ids::{ApplicationId, HubId};
use lendhub_domain::partner::project::Tier;
use serde_json::{Value, json};
use time::Duration;

use crate::rest_tier::{api_key, rest_app_mailing, rest_get, rest_partner, rest_post};
use crate::support::{App, eventually};

const SCOPES: &str = "applications.read applications.write decisions.read";
const PASSWORD: &str = "a long password";
const ADA: &str = "ada@healthy-widgets.example";
const EVE: &str = "eve@evil.example";

async fn test_key(app: &App) -> String {
    let (client, _) = rest_partner(app, SCOPES, Tier::Platform).await;
    api_key(app, &client, "test", None)["key"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// A person at the identity provider, a director of `company_number`.
async fn person(app: &App, email: &str, company_number: &str) {
    lendhub_idp::users::create(
        app.server().store.as_ref(),
        lendhub_idp::users::NewUser {
            email,
            password: PASSWORD,
            given_name: "Someone",
            family_name: "Director",
            email_verified: true,
            company_number,
            company_name: "A Company Ltd",
            company_role: "director",
        },
        0,
    )
    .await
    .unwrap();
}

async fn sign_in(start: &str, email: &str) -> Value {
    crate::support::python_json(
        "apply_sign_in_browser.py",
        vec![
            ("START_URL", start.to_owned()),
            ("EMAIL", email.to_owned()),
            ("PASSWORD", PASSWORD.to_owned()),
        ],
    )
    .await
}

#[tokio::test]
async fn the_named_applicant_is_mailed_the_link_and_only_they_may_carry_on() {
    let (app, smtp) = rest_app_mailing().await;
    let key = test_key(&app).await;
    person(&app, ADA, "00000401").await;
    // Eve is a director of the very company, but not the person named.
    person(&app, EVE, "00000401").await;

    let created = rest_post(
        &app,
        "/sandbox/v1/applications",
        &key,
        json!({"business": {"company_number": "00000401"}, "amount_pence": 1_000_000,
               "term_months": 24, "applicant": {"email": ADA, "first_name": "Ada"}}),
    )
    .await;
    assert_eq!(created.status, 201, "{}", created.body);
    let handoff = created.body["handoff_url"].as_str().unwrap().to_owned();

    // No redirect_uri: lendhub sends the link, greeting Ada by name.
    eventually("the handoff mail", || {
        smtp.texts().iter().any(|m| m.contains(ADA))
    })
    .await;
    let mails: Vec<String> = smtp
        .texts()
        .into_iter()
        .filter(|m| m.contains(ADA))
        .collect();
    assert_eq!(mails.len(), 1, "{mails:?}");
    let mail = &mails[0];
    assert!(mail.contains("Dear Ada"), "{mail}");
    assert!(
        mail.contains("[TEST]"),
        "a test application says so: {mail}"
    );
    assert!(mail.contains(&handoff), "{mail}");

    // Eve opens the forwarded link: the form offers Ada's address, and once
    // she signs in as herself she is refused, having changed nothing.
    let eve = sign_in(&handoff, EVE).await;
    assert_eq!(eve["offered_email"], ADA, "{eve}");
    assert_eq!(eve["status"], 403, "{eve}");
    assert_eq!(
        eve["title"], "This application is for someone else",
        "{eve}"
    );
    assert!(eve["text"].as_str().unwrap().contains(EVE), "{eve}");
    assert_eq!(eve["company_form"], false, "{eve}");

    // The link is still Ada's to use, in her own browser.
    let ada = sign_in(&handoff, ADA).await;
    assert_eq!(ada["status"], 200, "{ada}");
    assert_eq!(ada["company_form"], true, "{ada}");

    // The one who signed in is Ada; Eve left no trace on the journey.
    let journey = app
        .server()
        .store
        .journey(&ApplicationId::parse(created.body["id"].as_str().unwrap()).unwrap())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(journey.applicant.unwrap().email, ADA);
}

#[tokio::test]
async fn with_nobody_named_only_a_person_of_the_company_may_carry_on() {
    let (app, smtp) = rest_app_mailing().await;
    let key = test_key(&app).await;
    person(&app, ADA, "00000401").await;
    person(&app, EVE, "00000402").await;
    let created = rest_post(
        &app,
        "/sandbox/v1/applications",
        &key,
        json!({"business": {"company_number": "00000401"}, "amount_pence": 1_000_000,
               "term_months": 24, "redirect_uri": "https://partner.example/done"}),
    )
    .await;
    assert_eq!(created.status, 201, "{}", created.body);
    let handoff = created.body["handoff_url"].as_str().unwrap().to_owned();

    let eve = sign_in(&handoff, EVE).await;
    assert_eq!(eve["offered_email"], "", "nobody named: {eve}");
    assert_eq!(eve["status"], 403, "{eve}");
    assert!(
        eve["text"].as_str().unwrap().contains("another company"),
        "{eve}"
    );
    let ada = sign_in(&handoff, ADA).await;
    assert_eq!(ada["company_form"], true, "{ada}");
    // The partner returns the applicant itself: no mail.
    assert!(smtp.texts().is_empty(), "{:?}", smtp.texts());
}

#[tokio::test]
async fn a_journey_of_an_application_that_ended_without_a_loan_is_erased_after_90_days() {
    let app = crate::rest_tier::rest_app().await;
    let key = test_key(&app).await;
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let mut started = Vec::new();
    for reference in ["KEPT-OPEN", "WITHDRAWN"] {
        app.advance(Duration::seconds(1));
        let created = rest_post(
            &app,
            "/sandbox/v1/applications",
            &key,
            json!({"business": {"company_number": "00000401"}, "amount_pence": 1_000_000,
                   "term_months": 24, "redirect_uri": "https://partner.example/done",
                   "reference": reference}),
        )
        .await;
        assert_eq!(created.status, 201, "{}", created.body);
        // Opening the link starts the journey.
        let opened = http
            .get(created.body["handoff_url"].as_str().unwrap())
            .send()
            .await
            .unwrap();
        assert_eq!(opened.status(), 303);
        started.push(created.body["id"].as_str().unwrap().to_owned());
    }
    let (open, withdrawn) = (&started[0], &started[1]);
    let w = rest_post(
        &app,
        &format!("/sandbox/v1/applications/{withdrawn}/withdraw"),
        &key,
        json!({}),
    )
    .await;
    assert_eq!(w.status, 200, "{}", w.body);
    let store = app.server().store.clone();
    let has_journey = |id: String| {
        let store = store.clone();
        let id = ApplicationId::parse(&id).unwrap();
        async move { store.journey(&id).await.unwrap().is_some() }
    };

    // 89 days on, both are kept (the open one has expired meanwhile).
    app.advance(Duration::days(89));
    let w = rest_post(
        &app,
        "/sandbox/v1/applications",
        &key,
        json!({"business": {"company_number": "00000401"}, "amount_pence": 1_000_000,
               "term_months": 24, "redirect_uri": "https://partner.example/done"}),
    )
    .await;
    assert_eq!(w.status, 201, "the service runs on: {}", w.body);
    assert!(has_journey(withdrawn.clone()).await);
    assert!(has_journey(open.clone()).await);
    // The sweep that expires the open one runs beside the test; the journey
    // is erased once it has ended, so wait for that before moving on.
    crate::support::propagated("the open application expires", || async {
        let read = rest_get(
            &app,
            &format!("/sandbox/v1/applications/{open}"),
            Some(&key),
        )
        .await;
        read.body["status"] == "expired"
    })
    .await;

    // Past 90 days the retention job erases both: each ended unfunded.
    app.advance(Duration::days(2));
    crate::support::propagated("the journeys are erased", || async {
        !has_journey(withdrawn.clone()).await && !has_journey(open.clone()).await
    })
    .await;
}
