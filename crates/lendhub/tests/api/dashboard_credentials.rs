//! The dashboard's credentials screen (issue #18): a developer makes an API
//! key (shown once), rolls it with an overlap and revokes it, and rolls the
//! OAuth client's secret the same way; each checked through the API the
//! credential is for. A read-only member sees no button and is refused the
//! forms; another partner's key is not found; owners read it all in the
//! audit log.

use lendhub_domain::partner::Tier;

use crate::dashboard::{sign_in, staff};
use crate::rest_tier::{api_key, rest_app, rest_get, rest_partner};
use crate::support::oidc::{self, Browser, Page};
use crate::support::process::cli;
use crate::support::{App, Reply, reply};

const SCOPES: &str = "applications.read applications.write";

async fn token(app: &App, id: &str, secret: &str) -> Reply {
    reply(
        app.http
            .post(format!("{}/partner/v1/oauth/token", app.hub))
            .basic_auth(id, Some(secret))
            .form(&[("grant_type", "client_credentials")])
            .send()
            .await
            .unwrap(),
    )
    .await
}

/// Submits the form at `action` on `page` with its hidden fields and `extra`.
async fn submit(hub: &Browser, page: &Page, action: &str, extra: &[(&str, &str)]) -> Page {
    let csrf = page.hidden("csrf_token").unwrap();
    let form_id = page.hidden("form_id").unwrap();
    let env = page.hidden("env").unwrap();
    let mut fields = vec![
        ("csrf_token", csrf.as_str()),
        ("env", env.as_str()),
        ("form_id", form_id.as_str()),
    ];
    fields.extend_from_slice(extra);
    hub.post(action, &fields).await
}

/// The value a shown-once page shows.
fn shown(page: &Page) -> String {
    let marker = "<code id=\"shown-once\">";
    let start = page.body.find(marker).unwrap() + marker.len();
    let end = page.body[start..].find('<').unwrap() + start;
    page.body[start..end].to_owned()
}

fn key_count(app: &App, client: &str) -> usize {
    cli(&app._site, &["partner", "api-keys", "list", client])
        .lines()
        .count()
}

#[tokio::test]
async fn a_developer_makes_rolls_and_revokes_keys_and_the_client_secret() {
    let app = rest_app().await;
    let (client, secret) = rest_partner(&app, SCOPES, Tier::Scale).await;
    let (other, _) = rest_partner(&app, SCOPES, Tier::Scale).await;
    let theirs = api_key(&app, &other, "test", None)["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let developer = oidc::person(&app).await;
    staff(&app, &client, &developer, "developer");
    let (hub, _) = sign_in(&app, &developer).await;

    let page = hub.get("/dashboard/credentials?env=test").await;
    assert_eq!(page.status, 200, "{}", page.body);
    assert!(page.body.contains(&client) && page.body.contains("id=\"no-keys\""));

    // A new test key, shown once, working under /sandbox/v1 only.
    let made = submit(
        &hub,
        &page,
        "/dashboard/credentials/api-keys",
        &[("scopes", "applications.read")],
    )
    .await;
    assert_eq!(made.status, 200, "{}", made.body);
    let key = shown(&made);
    assert!(key.starts_with("sk_test_"), "{key}");
    assert_eq!(
        rest_get(&app, "/sandbox/v1/applications", Some(&key))
            .await
            .status,
        200
    );
    assert_eq!(
        rest_get(&app, "/partner/v1/applications", Some(&key))
            .await
            .status,
        401
    );
    assert_eq!(key_count(&app, &client), 1);
    // The same form again makes nothing and shows nothing.
    let again = submit(&hub, &page, "/dashboard/credentials/api-keys", &[]).await;
    assert_eq!(again.status, 409, "{}", again.body);
    assert!(!again.body.contains("sk_test_"));
    assert_eq!(key_count(&app, &client), 1);
    // Never a scope the partner does not hold.
    let page = hub.get("/dashboard/credentials?env=test").await;
    let greedy = submit(
        &hub,
        &page,
        "/dashboard/credentials/api-keys",
        &[("scopes", "accounts.manage")],
    )
    .await;
    assert_eq!(greedy.status, 422, "{}", greedy.body);
    assert_eq!(key_count(&app, &client), 1);

    // Rolled with a day's overlap: both keys work; revoking the old one
    // stops it at once, and the new one goes on.
    let page = hub.get("/dashboard/credentials?env=test").await;
    let old_id = listed_ids(&page).remove(0);
    assert!(!page.body.contains(&key), "the list never shows a key");
    let rolled = submit(
        &hub,
        &page,
        &format!("/dashboard/credentials/api-keys/{old_id}/roll"),
        &[("overlap_hours", "24")],
    )
    .await;
    assert_eq!(rolled.status, 200, "{}", rolled.body);
    let successor = shown(&rolled);
    assert!(
        rolled.body.contains("keeps working until"),
        "{}",
        rolled.body
    );
    for k in [&key, &successor] {
        assert_eq!(
            rest_get(&app, "/sandbox/v1/applications", Some(k))
                .await
                .status,
            200
        );
    }
    let page = hub.get("/dashboard/credentials?env=test").await;
    assert!(
        page.body
            .contains(&format!("data-id=\"{old_id}\" data-state=\"expiring\""))
    );
    let revoked = submit(
        &hub,
        &page,
        &format!("/dashboard/credentials/api-keys/{old_id}/revoke"),
        &[],
    )
    .await;
    assert_eq!(revoked.status, 303, "{}", revoked.body);
    assert_eq!(
        rest_get(&app, "/sandbox/v1/applications", Some(&key))
            .await
            .status,
        401
    );
    assert_eq!(
        rest_get(&app, "/sandbox/v1/applications", Some(&successor))
            .await
            .status,
        200
    );
    // Rolled without an overlap: the old key stops now.
    let page = hub.get("/dashboard/credentials?env=test").await;
    let successor_id = listed_ids(&page)
        .into_iter()
        .find(|id| *id != old_id)
        .unwrap();
    let third = submit(
        &hub,
        &page,
        &format!("/dashboard/credentials/api-keys/{successor_id}/roll"),
        &[("overlap_hours", "0")],
    )
    .await;
    let third = shown(&third);
    assert_eq!(
        rest_get(&app, "/sandbox/v1/applications", Some(&successor))
            .await
            .status,
        401
    );
    assert_eq!(
        rest_get(&app, "/sandbox/v1/applications", Some(&third))
            .await
            .status,
        200
    );

    // Another partner's key, or one of the other environment: not found.
    let page = hub.get("/dashboard/credentials?env=live").await;
    assert!(
        page.body.contains("id=\"no-keys\""),
        "test keys stay on the test screen"
    );
    for path in [
        format!("/dashboard/credentials/api-keys/{theirs}/revoke"),
        format!("/dashboard/credentials/api-keys/{successor_id}/revoke"),
        "/dashboard/credentials/api-keys/key_nope/revoke".to_owned(),
    ] {
        let refused = submit(&hub, &page, &path, &[]).await;
        assert_eq!(refused.status, 404, "{path}: {}", refused.body);
    }

    // The client secret, rolled with an hour's overlap: both secrets take
    // tokens until the old one is stopped.
    assert_eq!(token(&app, &client, &secret).await.status, 200);
    let rolled = submit(
        &hub,
        &page,
        "/dashboard/credentials/client/roll-secret",
        &[("overlap_hours", "1")],
    )
    .await;
    assert_eq!(rolled.status, 200, "{}", rolled.body);
    let new_secret = shown(&rolled);
    assert!(new_secret.starts_with("sk_live_") && new_secret != secret);
    assert_eq!(token(&app, &client, &secret).await.status, 200);
    assert_eq!(token(&app, &client, &new_secret).await.status, 200);
    let page = hub.get("/dashboard/credentials?env=live").await;
    assert!(page.body.contains("id=\"previous-secret\""));
    let ended = submit(
        &hub,
        &page,
        "/dashboard/credentials/client/end-previous-secret",
        &[],
    )
    .await;
    assert_eq!(ended.status, 303, "{}", ended.body);
    let old = token(&app, &client, &secret).await;
    assert_eq!(old.status, 401, "{}", old.body);
    assert_eq!(token(&app, &client, &new_secret).await.status, 200);

    // A read-only member sees the keys but no button, and is refused.
    let reader = oidc::person(&app).await;
    staff(&app, &client, &reader, "read_only");
    let (reading, _) = sign_in(&app, &reader).await;
    let page = reading.get("/dashboard/credentials?env=test").await;
    assert_eq!(page.status, 200);
    assert!(page.body.contains(&successor_id));
    for button in [
        "create-api-key",
        "roll-client-secret",
        "class=\"roll\"",
        "class=\"revoke\"",
    ] {
        assert!(!page.body.contains(button), "{button} shown to read-only");
    }
    let csrf = page.hidden("csrf_token").unwrap();
    let refused = reading
        .post(
            "/dashboard/credentials/api-keys",
            &[
                ("csrf_token", &csrf),
                ("env", "test"),
                ("form_id", "0123456789abcdefghij"),
            ],
        )
        .await;
    assert_eq!(refused.status, 403, "{}", refused.body);
    assert_eq!(key_count(&app, &client), 3, "a refused form makes nothing");

    // Every change is in the audit log, newest first.
    let owner = oidc::person(&app).await;
    staff(&app, &client, &owner, "owner");
    let (owning, _) = sign_in(&app, &owner).await;
    let audit = owning.get("/dashboard/audit").await;
    let order: Vec<usize> = [
        "oauth_client.end_previous_secret",
        "oauth_client.roll_secret",
        "api_key.roll",
        "api_key.revoke",
        "api_key.create",
    ]
    .iter()
    .map(|a| {
        audit
            .body
            .find(a)
            .unwrap_or_else(|| panic!("{a}: {}", audit.body))
    })
    .collect();
    assert!(order.is_sorted(), "{order:?}");
    assert!(audit.body.contains(&developer.email));
    assert!(!audit.body.contains(&new_secret) && !audit.body.contains(&third));
}

/// The key ids of a credentials page, newest first.
fn listed_ids(page: &Page) -> Vec<String> {
    page.body
        .split("<tr data-id=\"")
        .skip(1)
        .map(|rest| rest[..rest.find('"').unwrap()].to_owned())
        .collect()
}
