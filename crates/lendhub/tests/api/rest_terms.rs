//! A partner's terms change from a month on (issue #44): each month's
//! statement is rated under the agreement in effect on its first day, a
//! price rise needs 60 days' notice and a cut none, and the partner is
//! mailed the notice. The dates follow today's, since the notice is
//! measured on the real calendar while the statements' months are on the
//! partner's test clock.

use serde_json::{Value, json};
use time::{Date, Duration, OffsetDateTime};

use crate::rest_statements::{clock_to, funded, partner, statement_of};
use crate::rest_tier::rest_app_mailing;
use crate::support::eventually;
use crate::support::process::{cli, cli_refused};

/// The first day of the month after `day`'s.
fn next_month(day: Date) -> Date {
    let (year, month) = match day.month() {
        time::Month::December => (day.year() + 1, time::Month::January),
        m => (day.year(), m.next()),
    };
    Date::from_calendar_date(year, month, 1).unwrap()
}

fn month_of(day: Date) -> String {
    day.to_string()[..7].to_owned()
}

#[tokio::test]
async fn a_change_of_terms_rates_only_the_months_from_it_and_a_rise_needs_sixty_days_notice() {
    let (app, smtp) = rest_app_mailing().await;
    let (client, key) = partner(&app).await;
    cli(
        &app._site,
        &[
            "partner",
            "clients",
            "set-contact",
            &client,
            "finance@partner.example",
        ],
    );
    let today = OffsetDateTime::now_utc().date();
    let next = next_month(today);
    // The first month to start at least 60 days from today.
    let by = today + Duration::days(60);
    let rise_from = if by.day() == 1 { by } else { next_month(by) };
    // `lendhub billing terms set CLIENT …extra`: its output, or its refusal.
    let set = |extra: &[&str], ok: bool| {
        let mut args = vec!["billing", "terms", "set", client.as_str()];
        args.extend_from_slice(extra);
        if ok {
            cli(&app._site, &args)
        } else {
            cli_refused(&app._site, &args)
        }
    };
    let terms = |extra: &[&str]| -> Value { serde_json::from_str(&set(extra, true)).unwrap() };
    let refused = |extra: &[&str]| set(extra, false);

    // This month's loan, under the integration fee nobody changed.
    funded(&app, &key, 20_000, json!({})).await;

    // The revenue share from next month: a cut, so no notice is needed.
    let share = terms(&[
        "--model",
        "revenue-share",
        "--effective-from",
        &next.to_string(),
    ]);
    assert_eq!(share["effective_from"], next.to_string());
    assert_eq!(share["price_rise"], false);
    assert_eq!(share["replaces"]["model"], "integration_fee");
    assert_eq!(share["notice_mailed_to"], "finance@partner.example");

    // Back to the fee before 60 days are up: refused, naming the earliest.
    let too_soon = refused(&[
        "--model",
        "integration-fee",
        "--effective-from",
        &next.to_string(),
    ]);
    assert!(too_soon.contains("60 days' notice"), "{too_soon}");
    assert!(too_soon.contains(&rise_from.to_string()), "{too_soon}");
    // Not from mid-month either: terms rate whole months.
    let mid = refused(&[
        "--model",
        "revenue-share",
        "--effective-from",
        &(next + Duration::days(14)).to_string(),
    ]);
    assert!(mid.contains("first day of a month"), "{mid}");
    // Unnamed, the rise takes effect from the earliest month allowed.
    let fee = terms(&["--model", "integration-fee", "--custom-fee-pence", "2000"]);
    assert_eq!(fee["effective_from"], rise_from.to_string());
    assert_eq!(fee["price_rise"], true);
    assert_eq!(fee["replaces"]["model"], "revenue_share");

    let shown: Value =
        serde_json::from_str(&cli(&app._site, &["billing", "terms", "show", &client])).unwrap();
    assert_eq!(
        shown["terms"]["model"], "integration_fee",
        "in effect today"
    );
    assert_eq!(
        shown["agreements"],
        json!([
            {"effective_from": next.to_string(),
             "terms": {"model": "revenue_share", "strategic_share_bps": 2200}},
            {"effective_from": rise_from.to_string(),
             "terms": {"model": "integration_fee", "custom_fee_pence": 2000}},
        ])
    );

    // The written notices reach the partner's contact address.
    app.server().mail_wake.notify_one();
    let notices = || -> Vec<String> {
        smtp.texts()
            .into_iter()
            .filter(|m| m.contains("To: finance@partner.example"))
            .collect()
    };
    eventually("both notices", || notices().len() == 2).await;
    let notices = notices();
    let rise = notices
        .iter()
        .find(|m| m.contains("raises your price"))
        .unwrap_or_else(|| panic!("no rise's notice in {notices:?}"));
    assert!(rise.contains("60 days' written"), "{rise}");
    assert!(rise.contains("GBP 20 above 10m"), "{rise}");
    assert!(
        notices
            .iter()
            .any(|m| m.contains("does not raise your price")),
        "{notices:?}"
    );

    // A loan in each month under the share, and one once the fee is back.
    let shared_month = rise_from - Duration::days(1);
    clock_to(&app, &key, &format!("{next}T10:00:00Z")).await;
    funded(&app, &key, 20_000, json!({})).await;
    clock_to(
        &app,
        &key,
        &format!("{}T10:00:00Z", rise_from + Duration::days(9)),
    )
    .await;
    funded(&app, &key, 20_000, json!({})).await;
    let after = next_month(rise_from) + Duration::days(14);
    clock_to(&app, &key, &format!("{after}T10:00:00Z")).await;

    let before = statement_of(&app, &key, &month_of(today), "finalized").await;
    assert_eq!(before["model"], "integration_fee", "not re-rated");
    assert_eq!(before["payable_pence"], 4_500);
    let first_shared = statement_of(&app, &key, &month_of(next), "finalized").await;
    assert_eq!(first_shared["model"], "revenue_share");
    assert_eq!(first_shared["payable_by"], "lender");
    if month_of(shared_month) != month_of(next) {
        // A month between them with no loan has nothing to state.
        let quiet = crate::rest_tier::rest_get(
            &app,
            &format!("/sandbox/v1/statements?period={}", month_of(shared_month)),
            Some(&key),
        )
        .await;
        assert_eq!(quiet.body["data"], json!([]), "{}", quiet.body);
    }
    let risen = statement_of(&app, &key, &month_of(rise_from), "finalized").await;
    assert_eq!(risen["model"], "integration_fee");
    assert_eq!(risen["payable_by"], "partner");
    assert_eq!(risen["payable_pence"], 4_500, "the 500k tier's fee");
}
