//! The hosted application journey (issue #15) through its real pages: in
//! headless Chromium from the partner's `handoff_url` to its `redirect_uri`
//! for an approved, a referred (settled by the underwriting CLI) and a
//! declined company, with a webhook receiver checking every event; and the
//! link's single use and closed applications over plain HTTP.

use std::collections::HashMap;

use lendhub_domain::partner::project::Tier;
use serde_json::{Value, json};
use time::Duration;

use crate::rest_tier::{api_key, rest_app, rest_app_mailing, rest_get, rest_partner};
use crate::support::process::cli_with;
use crate::support::receiver::{Receiver, stripe_verifies};
use crate::support::*;

use crate::rest_tier::rest_post as post;

const SCOPES: &str =
    "applications.read applications.write decisions.read events.read webhooks.manage";
const TEST: &str = "/sandbox/v1";
pub(crate) const EMAIL: &str = "ada@healthy-widgets.example";
pub(crate) const PASSWORD: &str = "a long password";

pub(crate) async fn test_key(app: &App) -> String {
    let (client, _) = rest_partner(app, SCOPES, Tier::Platform).await;
    api_key(app, &client, "test", None)["key"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// The applicant's account at lendhub's identity provider.
pub(crate) async fn applicant(app: &App) {
    let server = app.server();
    lendhub_idp::users::create(
        server.store.as_ref(),
        lendhub_idp::users::NewUser {
            email: EMAIL,
            password: PASSWORD,
            given_name: "Ada",
            family_name: "Lovelace",
            email_verified: true,
            company_number: "00000401",
            company_name: "Healthy Widgets Ltd",
            company_role: "director",
        },
        0,
    )
    .await
    .unwrap();
}

/// A new application of the partner's with a `redirect_uri`: (id, handoff_url).
pub(crate) async fn application(app: &App, key: &str, reference: &str) -> (String, String) {
    app.advance(Duration::seconds(1)); // the create sub-limit
    let r = post(
        app,
        &format!("{TEST}/applications"),
        key,
        json!({"business": {"company_number": "00000401"}, "amount_pence": 1_000_000, "term_months": 24,
               "purpose": "working_capital", "redirect_uri": "https://partner.example/done",
               "reference": reference}),
    )
    .await;
    assert_eq!(r.status, 201, "{}", r.body);
    (
        r.body["id"].as_str().unwrap().to_owned(),
        r.body["handoff_url"].as_str().unwrap().to_owned(),
    )
}

/// The browser from `start` to the partner; `first` visits fill in the
/// company, share the model bank's test `account` at the bank, and give
/// the consents.
pub(crate) async fn browse(start: &str, account: &str, sign: bool) -> Value {
    crate::support::python_json(
        "apply_browser.py",
        vec![
            ("START_URL", start.to_owned()),
            ("EMAIL", EMAIL.to_owned()),
            ("PASSWORD", PASSWORD.to_owned()),
            ("DOB", "1985-04-12".to_owned()),
            ("ACCOUNT", account.to_owned()),
            ("SIGN", if sign { "yes" } else { "no" }.to_owned()),
        ],
    )
    .await
}

pub(crate) fn returned_to_partner(r: &Value, id: &str) {
    assert_eq!(
        r["landed"],
        json!([format!("https://partner.example/done?application_id={id}")]),
        "{r}"
    );
}

/// The application an event is about.
fn application_of(event: &Value) -> String {
    let object = &event["data"]["object"];
    match object["id"].as_str() {
        Some(id) if id.starts_with("app_") => id.to_owned(),
        _ => object["application_id"].as_str().unwrap_or("").to_owned(),
    }
}

#[tokio::test]
async fn the_hosted_journey_in_chromium_approves_refers_and_declines() {
    let (app, smtp) = rest_app_mailing().await;
    let key = test_key(&app).await;
    applicant(&app).await;
    let receiver = Receiver::start(&[]).await;
    let endpoint = post(
        &app,
        &format!("{TEST}/webhook_endpoints"),
        &key,
        json!({"url": receiver.url, "enabled_events": ["*"]}),
    )
    .await;
    assert_eq!(endpoint.status, 201, "{}", endpoint.body);
    let secret = endpoint.body["secret"].as_str().unwrap().to_owned();
    // Created before the decline, whose cooling-off would refuse them.
    let (approved, approved_link) = application(&app, &key, "HJ-APPROVED").await;
    let (referred, referred_link) = application(&app, &key, "HJ-REFERRED").await;
    let (declined, declined_link) = application(&app, &key, "HJ-DECLINED").await;

    // Approved: the offer as stored, signed, back to the partner.
    let r = browse(&approved_link, "strong", true).await;
    assert_eq!(r["applicant"], "Ada Lovelace", "{r}");
    assert!(
        r["company_error"]
            .as_str()
            .unwrap()
            .contains("Choose your role")
    );
    assert_eq!(r["outcome"], "approved", "{r}");
    assert_eq!(
        r["pages"],
        json!([
            "Sign in",
            "Allow lendhub business loan application to use your lendhub account?",
            "Your company and your role",
            "Connect the company's bank account",
            "Model Bank",
            "Before we decide",
            "Your offer"
        ])
    );
    // The bank step went to the bank, over the standard's redirect.
    assert!(
        r["bank_url"].as_str().unwrap().ends_with("/authorize"),
        "{r}"
    );
    let stored = rest_get(&app, &format!("{TEST}/applications/{approved}"), Some(&key)).await;
    let offer = &stored.body["decision"]["offer"];
    assert_eq!(r["offer"]["offer-amount"], "£10,000.00");
    assert_eq!(r["offer"]["offer-term"], "24 months");
    assert_eq!(
        r["offer"]["offer-monthly"],
        format!(
            "£{}.{:02}",
            offer["monthly_repayment_pence"].as_i64().unwrap() / 100,
            offer["monthly_repayment_pence"].as_i64().unwrap() % 100
        )
    );
    assert_eq!(r["offer"]["offer-apr"], format!("{}%", offer["apr"]));
    returned_to_partner(&r, &approved);
    assert_eq!(stored.body["decision"]["offer"]["is_indicative"], false);
    assert!(stored.body["decision"]["accepted_at"].is_string());

    // Referred: told so, back to the partner; the underwriter approves; the
    // applicant returns in a new browser, signs in again, and signs.
    let r = browse(&referred_link, "thin", false).await;
    assert_eq!(r["outcome"], "referred", "{r}");
    // How long a review takes, and how the applicant hears of it.
    assert_eq!(
        r["next"][0], "An underwriter usually decides within one working day.",
        "{r}"
    );
    assert!(
        r["next"][1].as_str().unwrap().starts_with(&format!(
            "We will e-mail you at {EMAIL} as soon as they have decided"
        )),
        "{r}"
    );
    returned_to_partner(&r, &referred);
    let decision = rest_get(&app, &format!("{TEST}/applications/{referred}"), Some(&key))
        .await
        .body["decision_id"]
        .as_str()
        .unwrap()
        .to_owned();
    // Knowing the application id is not enough: a browser that starts
    // resuming holds nothing until it has signed in as the applicant.
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let resumed = http
        .get(format!("{}/apply/{referred}/resume", app.hub))
        .send()
        .await
        .unwrap();
    assert_eq!(resumed.status(), 303);
    let cookie = resumed.headers()["set-cookie"].to_str().unwrap();
    let cookie = cookie.split(';').next().unwrap().to_owned();
    let (status, _, body) = page(
        &http,
        &format!("{}/apply/{referred}", app.hub),
        Some(&cookie),
    )
    .await;
    assert_eq!(status, 403, "{body}");
    assert!(body.contains("Sign in to continue"), "{body}");
    // The operator's CLI knows the hub's public address from its
    // configuration, as in production; the e-mail links to it.
    cli_with(
        &app._site,
        &[("LENDHUB_HUB__PUBLIC_URL", app.hub.as_str())],
        &[
            "underwriting",
            "approve",
            &decision,
            "--underwriter",
            "grace@lender.example",
            "--note",
            "bank statements seen",
        ],
    );
    // The e-mail the referred page promised: the offer, and the way back.
    let approved_mail = || {
        smtp.texts()
            .into_iter()
            .find(|m| m.contains(&format!("To: {EMAIL}")) && m.contains("is approved"))
    };
    eventually("the applicant's e-mail", || approved_mail().is_some()).await;
    let told = approved_mail().unwrap();
    assert!(
        told.contains("Subject: [TEST] Your loan for Healthy Widgets Ltd is approved")
            && told.contains("Dear Ada,")
            && told.contains("10,000.00 over 24 months")
            && told.contains(&format!("{}/apply/{referred}", app.hub)),
        "{told}"
    );
    let r = browse(&format!("{}/apply/{referred}", app.hub), "", true).await;
    assert_eq!(r["pages"][0], "Sign in to continue", "{r}");
    assert_eq!(r["outcome"], "approved", "{r}");
    returned_to_partner(&r, &referred);

    // Declined: the reasons in plain words, back to the partner.
    let r = browse(&declined_link, "low", false).await;
    assert_eq!(r["outcome"], "declined", "{r}");
    let reasons = r["reasons"].as_array().unwrap();
    assert!(
        reasons
            .iter()
            .any(|t| t.as_str().unwrap().contains("not show enough room")),
        "{r}"
    );
    // Then what weighed most in the model's score, as the dashboard and
    // MCP word it.
    assert!(
        reasons.iter().any(|t| {
            let t = t.as_str().unwrap();
            t.starts_with("The monthly repayment against the free cash")
                && t.ends_with("raised the risk.")
        }),
        "{r}"
    );
    // When the company may apply again, and where else to turn.
    let again = r["next"][0].as_str().unwrap();
    assert!(
        again.starts_with("The company can apply again from ")
            && again.contains(" 202")
            && !again.contains('-'),
        "{r}"
    );
    assert_eq!(r["elsewhere"].as_array().unwrap().len(), 3, "{r}");
    returned_to_partner(&r, &declined);

    // The signed loans are paid out five minutes later on the clock.
    app.advance(Duration::minutes(6));
    for id in [&approved, &referred] {
        let funded = || async {
            rest_get(&app, &format!("{TEST}/applications/{id}"), Some(&key))
                .await
                .body["status"]
                == "funded"
        };
        eventually_async("the signed loan is funded", funded).await;
    }

    // Every event, each delivered once, verified, in the log's order.
    let log = rest_get(&app, &format!("{TEST}/events?limit=100"), Some(&key)).await;
    let log: Vec<Value> = log.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .cloned()
        .collect();
    let expected = log.len();
    eventually("every event is delivered", || receiver.count() >= expected).await;
    let position: HashMap<String, usize> = log
        .iter()
        .enumerate()
        .map(|(i, e)| (e["id"].as_str().unwrap().to_owned(), i))
        .collect();
    let mut received: Vec<(usize, Value)> = receiver
        .all()
        .iter()
        .map(|d| {
            assert!(stripe_verifies(&secret, d), "{}", d.body);
            let event: Value = serde_json::from_str(&d.body).unwrap();
            (position[event["id"].as_str().unwrap()], event)
        })
        .collect();
    received.sort_by_key(|(p, _)| *p);
    let positions: Vec<usize> = received.iter().map(|(p, _)| *p).collect();
    assert_eq!(
        positions,
        (0..expected).collect::<Vec<_>>(),
        "each event once"
    );
    let types_of = |id: &str| -> Vec<String> {
        received
            .iter()
            .filter(|(_, e)| application_of(e) == id)
            .map(|(_, e)| e["type"].as_str().unwrap().to_owned())
            .collect()
    };
    let funded_tail = ["application.funded", "account.activated", "loan.funded"];
    let signed = [
        "application.created",
        "identity.verified",
        "application.submitted",
        "decision.completed",
        "offer.accepted",
        "agreement.signed",
    ];
    assert_eq!(
        types_of(&approved),
        [&signed[..], &funded_tail[..]].concat()
    );
    assert_eq!(
        types_of(&referred),
        [
            &signed[..4],
            &["decision.completed"],
            &signed[4..],
            &funded_tail[..]
        ]
        .concat()
    );
    assert_eq!(types_of(&declined), signed[..4].to_vec());
    for (_, e) in &received {
        assert_eq!(e["livemode"], false);
    }
}

/// A page of the journey: status, whether it is HTML, its text.
async fn page(http: &reqwest::Client, url: &str, cookie: Option<&str>) -> (u16, String, String) {
    let mut request = http.get(url);
    if let Some(c) = cookie {
        request = request.header("cookie", c);
    }
    let r = request.send().await.unwrap();
    let status = r.status().as_u16();
    let location = r
        .headers()
        .get("location")
        .map(|v| v.to_str().unwrap().to_owned())
        .unwrap_or_default();
    let html = r
        .headers()
        .get("content-type")
        .is_some_and(|v| v.to_str().unwrap().starts_with("text/html"));
    let body = r.text().await.unwrap();
    if (300..400).contains(&status) {
        return (status, location, String::new());
    }
    assert!(html, "{status}: {body}");
    (status, String::new(), body)
}

#[tokio::test]
async fn a_handoff_link_works_once_and_closed_applications_say_so() {
    let app = rest_app().await;
    let key = test_key(&app).await;
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let (id, link) = application(&app, &key, "HJ-ONCE").await;

    let first = http.get(&link).send().await.unwrap();
    assert_eq!(first.status(), 303);
    let to = first.headers()["location"].to_str().unwrap().to_owned();
    assert!(to.starts_with(&format!("{}/authorize?", app.sso)), "{to}");
    for part in [
        "client_id=rp_lendhub_apply",
        "code_challenge_method=S256",
        "response_type=code",
    ] {
        assert!(to.contains(part), "{to}");
    }
    let cookie = first.headers()["set-cookie"].to_str().unwrap().to_owned();
    assert!(
        cookie.contains("HttpOnly") && cookie.contains("Path=/apply"),
        "{cookie}"
    );
    let cookie = cookie.split(';').next().unwrap().to_owned();

    // The browser that holds the journey goes on signing in; any other is
    // refused with a page that offers to sign in again.
    let (status, again, _) = page(&http, &link, Some(&cookie)).await;
    assert_eq!((status, again.as_str()), (303, to.as_str()));
    let (status, _, body) = page(&http, &link, None).await;
    assert_eq!(status, 409);
    assert!(body.contains("This link has already been used"), "{body}");
    assert!(
        !body.contains("/resume"),
        "nobody has signed in yet: nothing to resume"
    );
    let (status, _, body) = page(&http, &format!("{}/apply/{id}/resume", app.hub), None).await;
    assert_eq!(status, 409);
    assert!(
        body.contains("Finish signing in where you started"),
        "{body}"
    );
    // Pages of the journey need its session.
    let (status, _, body) = page(&http, &format!("{}/apply/{id}/company", app.hub), None).await;
    assert_eq!(status, 403);
    assert!(body.contains("Sign in to continue"), "{body}");

    // A link altered or made up.
    let forged = format!("{}x", &link[..link.len() - 1]);
    let (status, _, body) = page(&http, &forged, None).await;
    assert_eq!(status, 404);
    assert!(body.contains("This link does not work"), "{body}");
    let (status, _, _) = page(&http, &format!("{}/apply/start/nonsense", app.hub), None).await;
    assert_eq!(status, 404);

    // A sign-in left unfinished lapses after two hours; the link then
    // starts one afresh in whichever browser opens it.
    app.advance(Duration::hours(3));
    let (status, to, _) = page(&http, &link, None).await;
    assert_eq!(status, 303);
    assert!(to.starts_with(&format!("{}/authorize?", app.sso)), "{to}");

    // An application left to expire: its link says so.
    let (_, unused) = application(&app, &key, "HJ-EXPIRES").await;
    app.advance(Duration::days(15));
    let (status, _, body) = page(&http, &unused, None).await;
    assert_eq!(status, 410);
    assert!(body.contains("expired"), "{body}");
    // So does the started one's, even to the browser that holds it.
    let (status, _, _) = page(&http, &link, Some(&cookie)).await;
    assert_eq!(status, 410, "expired as well by now");
}
