//! The dashboard's money screens (issue #18): a funded loan's account with
//! its balance, ledger, schedule and payments, the environment's payments
//! by status, and the month's statement downloaded as an invoice and a CSV
//! by the finance role, each checked against the API; a developer (not a
//! billing role) is refused the statements, and the other environment's or
//! another partner's ids are not found.

use lendhub_domain::partner::project::Tier;
use serde_json::{Value, json};

use crate::dashboard::{sign_in, staff};
use crate::rest_accounts::fund;
use crate::rest_schedules::post_keyed;
use crate::rest_statements::{clock_to, statement_of};
use crate::rest_tier::{api_key, rest_app, rest_get, rest_partner};
use crate::support::App;
use crate::support::oidc;

const SCOPES: &str = "applications.read applications.write decisions.read accounts.read \
                      payments.read payments.write events.read billing.read";
const TEST: &str = "/sandbox/v1";

async fn api(app: &App, key: &str, path: &str) -> Value {
    let r = rest_get(app, &format!("{TEST}{path}"), Some(key)).await;
    assert_eq!(r.status, 200, "{path}: {}", r.body);
    r.body
}

#[tokio::test]
async fn finance_reads_accounts_payments_and_downloads_a_statement() {
    let app = rest_app().await;
    let (client, _) = rest_partner(&app, SCOPES, Tier::Platform).await;
    let key = api_key(&app, &client, "test", None)["key"]
        .as_str()
        .unwrap()
        .to_owned();
    let (other, _) = rest_partner(&app, SCOPES, Tier::Platform).await;
    let other_key = api_key(&app, &other, "test", None)["key"]
        .as_str()
        .unwrap()
        .to_owned();
    let account = fund(&app, &key).await;
    let theirs = fund(&app, &other_key).await;
    let a = api(&app, &key, &format!("/accounts/{account}")).await;
    let link = post_keyed(
        &app,
        &key,
        "/payments/links",
        "link-0001",
        json!({"account_id": account, "amount_pence": 46_589, "reference": "INV-0001"}),
    )
    .await;
    assert_eq!(link.status, 201, "{}", link.body);
    let payment = link.body["id"].as_str().unwrap().to_owned();
    let start = a["schedule"][0]["due_date"].as_str().unwrap().to_owned();
    let schedule = post_keyed(
        &app,
        &key,
        "/payments/schedules",
        "schedule-0001",
        json!({"account_id": account, "amount_pence": a["monthly_repayment_pence"],
               "cadence": "monthly", "start_date": start, "count": 24}),
    )
    .await;
    assert_eq!(schedule.status, 201, "{}", schedule.body);
    let schedule = schedule.body["id"].as_str().unwrap().to_owned();

    let finance = oidc::person(&app).await;
    staff(&app, &client, &finance, "finance");
    let (hub, _) = sign_in(&app, &finance).await;

    // The account: its balance as the API gives it, its ledger, its
    // schedule and its payment.
    let accounts = hub.get("/dashboard/accounts?env=test").await;
    assert_eq!(accounts.status, 200, "{}", accounts.body);
    assert!(accounts.body.contains(&account) && !accounts.body.contains(&theirs));
    assert!(
        hub.get("/dashboard/accounts?env=live")
            .await
            .body
            .contains("id=\"no-accounts\""),
        "test loans stay on the test screen"
    );
    let page = hub
        .get(&format!("/dashboard/accounts/{account}?env=test"))
        .await;
    assert_eq!(page.status, 200, "{}", page.body);
    let pounds = |pence: &Value| {
        let p = pence.as_i64().unwrap();
        format!("£{}.{:02}", group(p / 100), p % 100)
    };
    let balance = &api(&app, &key, &format!("/accounts/{account}")).await["balance"];
    let outstanding = pounds(&balance["principal_outstanding_pence"]);
    assert!(
        page.body.contains(&format!(
            "<td id=\"principal-outstanding\">{outstanding}</td>"
        )),
        "{outstanding}: {}",
        page.body
    );
    let ledger = api(&app, &key, &format!("/accounts/{account}/transactions")).await;
    for entry in ledger["data"].as_array().unwrap() {
        let id = entry["id"].as_str().unwrap();
        let kind = entry["type"].as_str().unwrap();
        assert!(
            page.body
                .contains(&format!("data-id=\"{id}\" data-kind=\"{kind}\"")),
            "{id}: {}",
            page.body
        );
    }
    assert!(page.body.contains("data-kind=\"drawdown\""));
    assert!(page.body.contains(&schedule) && page.body.contains("0 of 24"));
    assert!(page.body.contains(&payment) && page.body.contains("INV-0001"));

    // The application it came from, with its decision as the API gives it.
    let application = a["application_id"].as_str().unwrap();
    let decision = api(&app, &key, &format!("/applications/{application}/decision")).await;
    let page = hub
        .get(&format!("/dashboard/applications/{application}?env=test"))
        .await;
    assert_eq!(page.status, 200, "{}", page.body);
    assert!(
        page.body.contains(&format!(
            "data-id=\"{}\" data-outcome=\"approved\"",
            decision["id"].as_str().unwrap()
        )),
        "{}",
        page.body
    );
    for reason in decision["reasons"].as_array().unwrap() {
        let code = reason["code"].as_str().unwrap();
        assert!(
            page.body
                .contains(&format!("<li class=\"reason\" data-code=\"{code}\">")),
            "{code}"
        );
    }
    assert!(page.body.contains("id=\"offer\"") && page.body.contains("by Ada Lovelace"));
    // The model that decided, and what weighed, from the stored score.
    assert!(
        page.body.contains("id=\"model\">pd-scorecard 1: "),
        "{}",
        page.body
    );
    assert!(
        page.body
            .contains("<tr data-feature=\"bureau_score\" data-effect=\"lowered\">"),
        "{}",
        page.body
    );
    assert!(
        page.body
            .contains(&format!("href=\"/dashboard/accounts/{account}?env=test\""))
    );
    let payments = hub.get("/dashboard/payments?env=test&status=pending").await;
    assert_eq!(payments.status, 200);
    assert!(payments.body.contains(&payment), "{}", payments.body);
    let paid = hub.get("/dashboard/payments?env=test&status=paid").await;
    assert!(!paid.body.contains(&payment) && paid.body.contains("id=\"no-payments\""));
    for path in [
        format!("/dashboard/accounts/{account}?env=live"),
        format!("/dashboard/accounts/{theirs}?env=test"),
        "/dashboard/accounts/acc_nope?env=test".to_owned(),
    ] {
        assert_eq!(hub.get(&path).await.status, 404, "{path}");
    }

    // The month ends on the partner's clock: its statement is drafted.
    let opened = time::OffsetDateTime::parse(
        a["disbursed_at"].as_str().unwrap(),
        &time::format_description::well_known::Rfc3339,
    )
    .unwrap();
    let period = format!("{}-{:02}", opened.year(), u8::from(opened.month()));
    let next_month = time::Date::from_calendar_date(opened.year(), opened.month(), 1)
        .unwrap()
        .checked_add(time::Duration::days(32))
        .unwrap()
        .replace_day(1)
        .unwrap();
    clock_to(&app, &key, &format!("{next_month}T09:00:00Z")).await;
    let statement = statement_of(&app, &key, &period, "draft").await;
    let id = statement["id"].as_str().unwrap().to_owned();
    let listed = hub.get("/dashboard/statements?env=test").await;
    assert_eq!(listed.status, 200, "{}", listed.body);
    assert!(
        listed
            .body
            .contains(&format!("data-id=\"{id}\" data-status=\"draft\"")),
        "{}",
        listed.body
    );

    let invoice = hub
        .get(&format!("/dashboard/statements/{id}/invoice?env=test"))
        .await;
    assert_eq!(invoice.status, 200, "{}", invoice.body);
    assert_eq!(
        invoice.headers["content-disposition"],
        format!("attachment; filename=\"lendhub-{period}-{id}.html\"")
    );
    let from_api = app
        .http
        .get(format!("{}{TEST}/statements/{id}/invoice", app.hub))
        .bearer_auth(&key)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert_eq!(invoice.body, from_api, "the API's invoice, as a file");

    let csv = hub
        .get(&format!("/dashboard/statements/{id}/csv?env=test"))
        .await;
    assert_eq!(csv.status, 200);
    assert!(
        csv.headers["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/csv")
    );
    let rows: Vec<Vec<String>> = csv
        .body
        .lines()
        .map(|l| l.split(',').map(str::to_owned).collect())
        .collect();
    assert_eq!(rows[0][0], "statement");
    let lines: Vec<_> = rows
        .iter()
        .filter(|r| r[2] == "fee" || r[2] == "share")
        .collect();
    assert_eq!(lines.len(), 1, "{}", csv.body);
    assert_eq!(lines[0][3], account);
    let total = rows.last().unwrap();
    assert_eq!(total[2], "total");
    assert_eq!(
        total[8],
        statement["payable_pence"].to_string(),
        "the total is the statement's"
    );

    // Statements are for owners and finance only; another partner's or
    // the other environment's are not found.
    let developer = oidc::person(&app).await;
    staff(&app, &client, &developer, "developer");
    let (dev, _) = sign_in(&app, &developer).await;
    assert!(
        !dev.get("/dashboard?env=test")
            .await
            .body
            .contains("/dashboard/statements")
    );
    for path in [
        "/dashboard/statements?env=test".to_owned(),
        format!("/dashboard/statements/{id}/invoice?env=test"),
        format!("/dashboard/statements/{id}/csv?env=test"),
    ] {
        assert_eq!(dev.get(&path).await.status, 403, "{path}");
    }
    assert_eq!(
        hub.get(&format!("/dashboard/statements/{id}/csv?env=live"))
            .await
            .status,
        404
    );
}

/// Thousands separated as the pages write money.
fn group(pounds: i64) -> String {
    let digits = pounds.to_string();
    let mut out = String::new();
    for (n, c) in digits.chars().enumerate() {
        if n > 0 && (digits.len() - n).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}
