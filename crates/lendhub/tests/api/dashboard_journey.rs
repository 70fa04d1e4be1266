//! The dashboard journey in headless Chromium (issue #18): an owner
//! signs in, switches to test, re-enables a disabled endpoint, finds a
//! failed delivery and retries it, rolls an API key and downloads a
//! statement — each checked in the page and then through the API.

use lendhub_domain::partner::project::Tier;

use crate::dashboard::{failing_delivery, staff};
use crate::rest_accounts::fund;
use crate::rest_statements::{clock_to, statement_in};
use crate::rest_tier::{api_key, rest_app, rest_get, rest_partner};
use crate::support::{eventually, oidc};

const SCOPES: &str = "applications.read applications.write decisions.read accounts.read \
                      events.read webhooks.manage billing.read";

#[tokio::test]
async fn in_chromium_an_owner_fixes_webhooks_rolls_a_key_and_downloads_a_statement() {
    use lendhub_domain::tenant::Tenant;
    use lendhub_domain::webhooks::endpoint::{EndpointStatus, WebhookEndpoint};
    use lendhub_store::{EventWrite, WriteSet};

    let app = rest_app().await;
    let (client, _) = rest_partner(&app, SCOPES, Tier::Platform).await;
    let made = api_key(&app, &client, "test", None);
    let (key_id, key) = (
        made["id"].as_str().unwrap().to_owned(),
        made["key"].as_str().unwrap().to_owned(),
    );
    // Funded late in its month: the month then ends on the partner's clock
    // within the 30 days the dashboard shows deliveries for, so the
    // delivery that fails now is still listed when the statement exists.
    let today = time::OffsetDateTime::now_utc().date();
    if today.day() < 25 {
        let late = today.replace_day(25).unwrap();
        clock_to(&app, &key, &format!("{late}T09:00:00Z")).await;
    }
    let account = fund(&app, &key).await;
    let (receiver, endpoint, failed) = failing_delivery(&app, &client, &key).await;
    // Disabled, as 72 h of failures leave it (if the schedule's end did
    // not already).
    let store = &app.server().store;
    let owner = Tenant::partner(&client, false, None);
    let current = store.endpoints(&owner).await.unwrap().remove(0).endpoint;
    if current.status != EndpointStatus::Disabled {
        let mut disable = WriteSet::default();
        disable.push(EventWrite::SetEndpointStatus {
            endpoint: WebhookEndpoint {
                status: EndpointStatus::Disabled,
                ..current.clone()
            },
            from: current.status,
        });
        store.commit(disable).await.unwrap();
    }

    // The month the loan funded in ends on the partner's clock.
    let a = rest_get(&app, &format!("/sandbox/v1/accounts/{account}"), Some(&key)).await;
    let opened = time::OffsetDateTime::parse(
        a.body["disbursed_at"].as_str().unwrap(),
        &time::format_description::well_known::Rfc3339,
    )
    .unwrap();
    let period = format!("{}-{:02}", opened.year(), u8::from(opened.month()));
    let clock = rest_get(&app, "/sandbox/v1/test_helpers/clock", Some(&key)).await;
    let now = clock.body["now"].as_str().unwrap_or_default().to_owned();
    let next_month = time::Date::from_calendar_date(opened.year(), opened.month(), 28)
        .unwrap()
        .checked_add(time::Duration::days(4))
        .unwrap()
        .replace_day(1)
        .unwrap();
    let month_start = format!("{next_month}T09:00:00Z");
    if now.is_empty() || now < month_start {
        clock_to(&app, &key, &month_start).await;
    }
    // The failing delivery moved the clock on by days: near a month's end
    // that may be past the invoice date, when the draft is finalized.
    let statement = statement_in(&app, &key, &period, &["draft", "finalized"]).await;
    let statement_id = statement["id"].as_str().unwrap().to_owned();

    let person = oidc::person(&app).await;
    staff(&app, &client, &person, "owner");
    let reader = oidc::person(&app).await;
    staff(&app, &client, &reader, "read_only");
    let (other, _) = rest_partner(&app, SCOPES, Tier::Platform).await;
    let other_key = api_key(&app, &other, "test", None)["key"]
        .as_str()
        .unwrap()
        .to_owned();
    app.advance(time::Duration::seconds(1));
    let theirs = crate::rest_tier::rest_post(
        &app,
        "/sandbox/v1/applications",
        &other_key,
        serde_json::json!({"business": {"company_number": "00000401"}, "amount_pence": 1_000_000,
            "term_months": 12, "applicant": {"email": "someone@example.com"}}),
    )
    .await;
    assert_eq!(theirs.status, 201, "{}", theirs.body);
    receiver.accept_everything();
    let before = receiver.count();
    let r = crate::support::python_json(
        "dashboard_journey_browser.py",
        vec![
            ("BASE", app.hub.clone()),
            ("EMAIL", person.email.clone()),
            ("PASSWORD", oidc::PASSWORD.to_owned()),
            ("ENDPOINT", endpoint.clone()),
            ("DELIVERY", failed.id.to_string()),
            ("KEY", key_id.clone()),
            ("STATEMENT", statement_id.clone()),
            ("READER_EMAIL", reader.email.clone()),
            ("ACCOUNT", account.clone()),
            (
                "OTHER_APPLICATION",
                theirs.body["id"].as_str().unwrap().to_owned(),
            ),
        ],
    )
    .await;
    assert_eq!(r["page_errors"], serde_json::json!([]), "{r}");

    // Every screen was there to check (`python_json` checked each one's
    // accessibility and width), and the Copy button copied the secret a
    // page without script shows with no button.
    let screens = r["screens"].as_object().unwrap();
    for (name, status) in screens {
        let expected = if name == "dashboard-not-found" {
            404
        } else {
            200
        };
        assert_eq!(status, expected, "{name}: {r}");
    }
    let checked: Vec<&str> = r["audit"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(checked.len(), 17, "{checked:?}");
    assert_eq!(r["copy_hidden_without_script"], true, "{r}");
    assert_eq!(r["copied"], r["rolled_key"], "{r}");
    assert_eq!(r["copied_status"], "Copied to the clipboard.", "{r}");

    // Re-enabled, in the page and through the API.
    assert_eq!(
        (r["endpoint_before"].as_str(), r["endpoint_after"].as_str()),
        (Some("disabled"), Some("enabled")),
        "{r}"
    );
    let hook = rest_get(
        &app,
        &format!("/sandbox/v1/webhook_endpoints/{endpoint}"),
        Some(&key),
    )
    .await;
    assert_eq!(hook.body["status"], "enabled", "{}", hook.body);

    // Retried: the failure's answer was on the page; the receiver has it now.
    assert_eq!(r["delivery_before"], "failed", "{r}");
    assert!(
        r["delivery_answer"]
            .as_str()
            .unwrap()
            .contains("refused by the test receiver"),
        "{r}"
    );
    assert!(
        matches!(r["delivery_after"].as_str(), Some("pending" | "delivered")),
        "{r}"
    );
    eventually("the retried delivery", || receiver.count() > before).await;
    assert!(
        receiver.all()[before..]
            .iter()
            .any(|d| d.body.contains(&failed.event_id)),
        "the failed event, delivered"
    );

    // Rolled: the successor works, and so does the old key for its day.
    let rolled = r["rolled_key"].as_str().unwrap();
    assert!(rolled.starts_with("sk_test_") && rolled != key, "{r}");
    assert!(
        r["rolled_note"]
            .as_str()
            .unwrap()
            .contains("keeps working until"),
        "{r}"
    );
    assert_eq!(r["old_key_state"], "expiring", "{r}");
    for k in [rolled, key.as_str()] {
        let listed = rest_get(&app, "/sandbox/v1/applications", Some(k)).await;
        assert_eq!(listed.status, 200, "{}", listed.body);
    }

    // Downloaded: the CSV's loan and total are the statement's; the invoice
    // is the API's.
    assert_eq!(
        r["csv_name"],
        format!("lendhub-{period}-{statement_id}.csv"),
        "{r}"
    );
    let csv = r["csv"].as_str().unwrap();
    assert!(csv.contains(&account), "{csv}");
    let total: Vec<&str> = csv.lines().last().unwrap().split(',').collect();
    assert_eq!(
        (total[2], total[8]),
        ("total", statement["payable_pence"].to_string().as_str()),
        "{csv}"
    );
    assert_eq!(
        r["invoice_name"],
        format!("lendhub-{period}-{statement_id}.html")
    );
    let api_invoice = app
        .http
        .get(format!(
            "{}/sandbox/v1/statements/{statement_id}/invoice",
            app.hub
        ))
        .bearer_auth(&key)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert_eq!(r["invoice"].as_str(), Some(api_invoice.as_str()));

    // A read-only member sees every screen but no button, and is refused a
    // form posted anyway; another partner's application is not found.
    for (path, status) in r["reader_statuses"].as_object().unwrap() {
        let expected = if path == "/dashboard/staff" { 403 } else { 200 };
        assert_eq!(status, expected, "{path}: {r}");
    }
    assert_eq!(r["reader_buttons"], 0, "{r}");
    assert_eq!(r["reader_post"], 403, "{r}");
    assert_eq!(r["other_partners_application"], 404, "{r}");
}
