use serde_json::json;

use crate::support::{App, assert_error};

#[tokio::test]
async fn every_state_change_writes_an_owned_event_listed_newest_first() {
    let app = App::spawn().await;
    let token = app.caller().await;
    let other = app.caller().await;
    let funded = app.funded_application(&token).await;
    let types: Vec<String> = app
        .events(&token, "")
        .await
        .iter()
        .map(|e| e["type"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        types,
        [
            "account.activated",
            "payment.settled",
            "offer.accepted",
            "decision.completed",
            "application.created"
        ]
    );
    let event = &app.events(&token, "?limit=1").await[0];
    assert_eq!(event["object"], "event");
    assert_eq!(event["livemode"], false);
    assert_eq!(event["api_version"], "2026-08-11.1");
    assert_eq!(event["data"]["object"]["id"], funded["id"]);
    assert_eq!(event["id"].as_str().unwrap().len(), 26);
    assert!(app.events(&other, "").await.is_empty());
}

#[tokio::test]
async fn paging_with_cursors_limits_and_filters() {
    let app = App::spawn().await;
    let token = app.caller().await;
    for _ in 0..13 {
        app.create_application(&token, "00000403", 5_000).await;
    }
    // 26 events: 13 × (application.created, decision.completed).
    let all = app.events(&token, "?limit=100").await;
    assert_eq!(all.len(), 26);
    let page = app.get(&token, "/v1/events").await.body;
    assert_eq!(page["object"], "list");
    assert_eq!(page["url"], "/v1/events");
    assert_eq!(page["data"].as_array().unwrap().len(), 20);
    assert_eq!(page["has_more"], true);
    let last = page["data"][19]["id"].as_str().unwrap();
    assert_eq!(page["next_cursor"], last, "the cursor that continues older");
    let older = app
        .get(&token, &format!("/v1/events?starting_after={last}"))
        .await
        .body;
    assert_eq!(older["data"].as_array().unwrap().len(), 6);
    assert_eq!(older["has_more"], false);
    assert_eq!(older["next_cursor"], serde_json::Value::Null, "at the end");
    assert_eq!(older["data"][0], all[20]);
    let first_older = older["data"][0]["id"].as_str().unwrap();
    let newer = app
        .get(
            &token,
            &format!("/v1/events?ending_before={first_older}&limit=5"),
        )
        .await
        .body;
    assert_eq!(newer["data"].as_array().unwrap().as_slice(), &all[15..20]);
    assert_eq!(newer["has_more"], true);
    assert_eq!(
        newer["next_cursor"], all[15]["id"],
        "paging newer, the newest shown continues"
    );
    // Later events, after the clock moved: created_after keeps only them.
    app.advance(time::Duration::minutes(10));
    let mark = all[0]["created_at"].as_str().unwrap().to_owned();
    app.create_application(&token, "00000403", 5_000).await;
    let later = app
        .events(&token, &format!("?created_after={mark}&limit=100"))
        .await;
    assert_eq!(later.len(), 2, "only the two events made after {mark}");
    assert!(
        later
            .iter()
            .all(|e| e["created_at"].as_str().unwrap() > mark.as_str())
    );
    let created = app
        .events(&token, "?type=application.created&limit=100")
        .await;
    assert_eq!(created.len(), 14);
    assert!(created.iter().all(|e| e["type"] == "application.created"));
    for bad in [
        "?limit=0",
        "?limit=101",
        "?limit=x",
        "?type=nope.nope",
        "?created_after=yesterday",
        &format!("?starting_after={last}&ending_before={last}"),
    ] {
        assert_error(
            &app.get(&token, &format!("/v1/events{bad}")).await,
            422,
            "validation_failed",
        );
    }
    assert_eq!(app.events(&token, "?limit=1").await.len(), 1);
    assert_eq!(app.events(&token, "?limit=100").await.len(), 28);
    assert_error(
        &app.get(
            &token,
            "/v1/events?starting_after=01M80315443YA5R416G7AADFJ2",
        )
        .await,
        404,
        "not_found",
    );
    assert_error(
        &app.get(&token, "/v1/events?starting_after=garbage").await,
        404,
        "not_found",
    );
    let other = app.caller().await;
    assert_error(
        &app.get(&other, &format!("/v1/events?starting_after={last}"))
            .await,
        404,
        "not_found",
    );
}

#[tokio::test]
async fn replay_of_unknown_or_foreign_events_is_404() {
    let app = App::spawn().await;
    let token = app.caller().await;
    let other = app.caller().await;
    app.create_application(&token, "00000401", 5_000).await;
    let id = app.events(&token, "").await[0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_error(
        &app.post(
            &other,
            &format!("/v1/events/{id}/replay"),
            "replay-k-1",
            json!({}),
        )
        .await,
        404,
        "not_found",
    );
    assert_error(
        &app.post(
            &token,
            "/v1/events/01M80315443YA5R416G7AADFJ2/replay",
            "replay-k-2",
            json!({}),
        )
        .await,
        404,
        "not_found",
    );
    assert_error(
        &app.post(&token, "/v1/events/bad/replay", "replay-k-3", json!({}))
            .await,
        404,
        "not_found",
    );
    let r = app
        .post(
            &token,
            &format!("/v1/events/{id}/replay"),
            "replay-k-4",
            json!({}),
        )
        .await;
    assert_eq!(r.status, 202);
    assert_eq!(r.body["deliveries"], json!([]));
}

#[tokio::test]
async fn the_newest_page_is_never_stale() {
    let app = App::spawn().await;
    let token = app.caller().await;
    let other = app.caller().await;
    assert!(app.events(&token, "").await.is_empty());
    app.create_application(&token, "00000401", 5_000).await;
    let first = app.events(&token, "").await;
    assert_eq!(
        first.len(),
        2,
        "the empty page seen before is not served again"
    );
    assert_eq!(
        app.events(&token, "").await,
        first,
        "unchanged, the same page"
    );
    app.create_application(&other, "00000401", 5_000).await;
    assert_eq!(
        app.events(&token, "").await,
        first,
        "another client's events change nothing"
    );
    let funded = app.funded_application(&token).await;
    let now = app.events(&token, "").await;
    assert_eq!(now.len(), 7);
    assert_eq!(now[0]["data"]["object"]["id"], funded["id"]);
    assert_eq!(
        app.events(&token, "?limit=1").await,
        now[..1],
        "each limit is its own page"
    );
}

/// Events are kept 30 days on the owner's clock, then pruned by the
/// retention job (woken here by the clock's move instead of its timer).
#[tokio::test]
async fn events_older_than_thirty_days_are_pruned() {
    let app = App::spawn().await;
    let client = app.client("sandbox:read sandbox:write").await;
    let token = app.token_for(&client).await;
    app.create_application(&token, "00000401", 5_000).await;
    let old = app.events(&token, "").await;
    assert_eq!(old.len(), 2);
    app.advance(time::Duration::days(29));
    let token = app.token_for(&client).await;
    app.create_application(&token, "00000401", 5_000).await;
    assert_eq!(app.events(&token, "").await.len(), 4, "29 days: all kept");
    app.advance(time::Duration::days(2));
    let token = app.token_for(&client).await;
    crate::support::propagated("the first events are pruned", || async {
        app.events(&token, "").await.len() == 2
    })
    .await;
    let kept = app.events(&token, "").await;
    assert!(kept.iter().all(|e| !old.contains(e)), "the old ones went");
    let gone = old[0]["id"].as_str().unwrap();
    assert_error(
        &app.write(&token, &format!("/v1/events/{gone}/replay"), json!({}))
            .await,
        404,
        "not_found",
    );
}
