//! The dashboard's charts (issue #18): the home page draws the last 30
//! days of REST-tier requests (errors marked) and webhook delivery attempts
//! (failures marked) from the stored counts, which match what was asked of
//! the API and what the delivery worker attempted.

use lendhub_domain::partner::project::Tier;

use crate::dashboard::{failing_delivery, sign_in, staff};
use crate::rest_tier::{api_key, rest_app, rest_get, rest_partner};
use crate::support::oidc::{self, Page};

fn summary(page: &Page, id: &str) -> (i64, i64) {
    let marker = format!("id=\"{id}-summary\" data-total=\"");
    let rest = &page.body[page.body.find(&marker).unwrap() + marker.len()..];
    let total = rest[..rest.find('"').unwrap()].parse().unwrap();
    let rest = &rest[rest.find("data-part=\"").unwrap() + 11..];
    let part = rest[..rest.find('"').unwrap()].parse().unwrap();
    (total, part)
}

#[tokio::test]
async fn the_home_page_charts_requests_and_deliveries_from_stored_counts() {
    let app = rest_app().await;
    let (client, _) = rest_partner(
        &app,
        "applications.read applications.write webhooks.manage events.read",
        Tier::Scale,
    )
    .await;
    let key = api_key(&app, &client, "test", None)["key"]
        .as_str()
        .unwrap()
        .to_owned();
    // Two writes (an endpoint, an application), then three reads and two
    // misses.
    let (_receiver, _endpoint, failed) = failing_delivery(&app, &client, &key).await;
    for _ in 0..3 {
        assert_eq!(
            rest_get(&app, "/sandbox/v1/applications", Some(&key))
                .await
                .status,
            200
        );
    }
    for _ in 0..2 {
        let missing = rest_get(&app, "/sandbox/v1/applications/app_nope", Some(&key)).await;
        assert_eq!(missing.status, 404);
    }
    // Live traffic is another environment's chart.
    let live = api_key(&app, &client, "live", None)["key"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(
        rest_get(&app, "/partner/v1/applications", Some(&live))
            .await
            .status,
        200
    );

    let person = oidc::person(&app).await;
    staff(&app, &client, &person, "read_only");
    let (hub, _) = sign_in(&app, &person).await;
    let home = hub.get("/dashboard?env=test").await;
    assert_eq!(home.status, 200, "{}", home.body);
    assert_eq!(summary(&home, "requests"), (7, 2), "{}", home.body);
    let attempts = failed.attempt;
    assert_eq!(
        summary(&home, "deliveries"),
        (attempts, attempts),
        "every attempt at the refusing receiver failed"
    );
    assert!(home.body.contains("<svg id=\"requests-chart\""));
    // Axes and a text alternative: the picture is labelled by its title
    // and a sentence of its figures; the scale starts at 0 and tops out
    // at a round figure above the busiest day; the days run along the
    // bottom, as people write them.
    assert!(
        home.body
            .contains("aria-labelledby=\"requests-title requests-desc\""),
        "{}",
        home.body
    );
    assert!(
        home.body
            .contains("<desc id=\"requests-desc\">API requests per day from "),
        "{}",
        home.body
    );
    assert!(
        home.body
            .contains("text-anchor=\"end\" fill=\"#0b0c0c\">0</text>")
    );
    // The app's today: the deliveries' retries moved its clock on.
    let today = lendhub_domain::clock::Clock::now(app.clock.as_ref()).date();
    let month = lendhub_domain::people::date(today);
    let short = format!("{} {}", today.day(), &month.split(' ').nth(1).unwrap()[..3]);
    assert!(
        home.body.contains(&format!(">{short}</text>")),
        "{short}: {}",
        home.body
    );
    assert!(
        home.body.contains("<td class=\"requests\">"),
        "the figures beside the picture"
    );
    let live_home = hub.get("/dashboard?env=live").await;
    assert_eq!(summary(&live_home, "requests"), (1, 0));
    assert_eq!(summary(&live_home, "deliveries"), (0, 0));
}
