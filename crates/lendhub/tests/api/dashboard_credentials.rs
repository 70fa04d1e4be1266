//! The dashboard's credentials screen (issue #18): a developer makes an API
//! key (shown once), rolls it with an overlap and revokes it, and rolls the
//! OAuth client's secret the same way; each checked through the API the
//! credential is for. Additional OAuth clients are made with some of the
//! partner's scopes, act as the partner, and are rolled and revoked on their
//! own. A read-only member sees no button and is refused the forms; another
//! partner's key or client is not found; owners read it all in the audit
//! log.

use lendhub_domain::partner::project::Tier;
use serde_json::json;

use crate::dashboard::{sign_in, staff};
use crate::rest_tier::{api_key, rest_app, rest_get, rest_partner, rest_post};
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
    let keys = &page.body[page.body.find("id=\"api-keys\"").unwrap()..];
    keys.split("<tr data-id=\"")
        .skip(1)
        .map(|rest| rest[..rest.find('"').unwrap()].to_owned())
        .collect()
}

async fn introspect(app: &App, id: &str, secret: &str, token: &str) -> Reply {
    reply(
        app.http
            .post(format!("{}/partner/v1/oauth/introspect", app.hub))
            .basic_auth(id, Some(secret))
            .form(&[("token", token)])
            .send()
            .await
            .unwrap(),
    )
    .await
}

async fn scoped_token(app: &App, id: &str, secret: &str, scope: &str) -> Reply {
    reply(
        app.http
            .post(format!("{}/partner/v1/oauth/token", app.hub))
            .basic_auth(id, Some(secret))
            .form(&[("grant_type", "client_credentials"), ("scope", scope)])
            .send()
            .await
            .unwrap(),
    )
    .await
}

/// The client id a new OAuth client's page names.
fn made_client_id(page: &Page) -> String {
    let marker = "<h1>New OAuth client ";
    let start = page.body.find(marker).unwrap() + marker.len();
    page.body[start..start + page.body[start..].find('<').unwrap()].to_owned()
}

/// Additional OAuth clients: made from the dashboard with some of the
/// partner's scopes, they take tokens that act as the partner (its
/// applications) within those scopes and see only their own tokens; their
/// secret rolls with an overlap; revoking one stops it and its tokens at
/// once. Another partner's client is not found; a read-only member gets no
/// button and a 403.
#[tokio::test]
async fn additional_oauth_clients_act_for_the_partner_within_their_scopes() {
    const HELD: &str = "applications.read applications.write events.read";
    let app = rest_app().await;
    let (client, secret) = rest_partner(&app, HELD, Tier::Scale).await;
    let (other, _) = rest_partner(&app, HELD, Tier::Scale).await;
    let developer = oidc::person(&app).await;
    staff(&app, &client, &developer, "developer");
    let (hub, _) = sign_in(&app, &developer).await;

    let page = hub.get("/dashboard/credentials?env=live").await;
    assert!(page.body.contains("id=\"no-clients\""), "{}", page.body);
    // Never a scope the partner does not hold, never without a name.
    let greedy = make_client(&hub, &page, "greedy", "applications.read accounts.manage").await;
    assert_eq!(greedy.status, 422, "{}", greedy.body);
    let page = hub.get("/dashboard/credentials?env=live").await;
    let nameless = make_client(&hub, &page, " ", "").await;
    assert_eq!(nameless.status, 422, "{}", nameless.body);

    let page = hub.get("/dashboard/credentials?env=live").await;
    let made = make_client(
        &hub,
        &page,
        "warehouse sync",
        "applications.read applications.write",
    )
    .await;
    assert_eq!(made.status, 200, "{}", made.body);
    let id = made_client_id(&made);
    let id_secret = shown(&made);
    assert!(id.starts_with("pk_live_") && id != client, "{id}");
    assert!(id_secret.starts_with("sk_live_") && id_secret != secret);
    // The same form again makes nothing and shows nothing.
    let again = make_client(&hub, &page, "warehouse sync", "").await;
    assert_eq!(again.status, 409, "{}", again.body);
    let page = hub.get("/dashboard/credentials?env=live").await;
    assert_eq!(page.body.matches("data-state=\"active\"").count(), 1);
    assert!(page.body.contains("warehouse sync") && !page.body.contains(&id_secret));

    // Its tokens name it, carry at most its scopes and act as the partner:
    // what it creates the partner's own key reads.
    let granted = token(&app, &id, &id_secret).await;
    assert_eq!(granted.status, 200, "{}", granted.body);
    assert_eq!(
        granted.body["scope"], "applications.read applications.write",
        "its own scopes, not all the partner's"
    );
    let bearer = granted.body["access_token"].as_str().unwrap().to_owned();
    let beyond = scoped_token(&app, &id, &id_secret, "events.read").await;
    assert_eq!(beyond.status, 403, "{}", beyond.body);
    assert_eq!(beyond.body["error"]["code"], "scope_not_granted");
    let events = rest_get(&app, "/partner/v1/events", Some(&bearer)).await;
    assert_eq!(events.status, 403, "{}", events.body);
    let body = json!({
        "business": {"company_number": "00000401"},
        "amount_pence": 1_000_000,
        "term_months": 24,
        "purpose": "working_capital",
        "applicant": {"email": "founder@healthy-widgets.example", "first_name": "Ada"}
    });
    let created = rest_post(&app, "/partner/v1/applications", &bearer, body).await;
    assert_eq!(created.status, 201, "{}", created.body);
    let application = created.body["id"].as_str().unwrap();
    let own_key = api_key(&app, &client, "live", None)["key"]
        .as_str()
        .unwrap()
        .to_owned();
    let read = rest_get(
        &app,
        &format!("/partner/v1/applications/{application}"),
        Some(&own_key),
    )
    .await;
    assert_eq!(read.status, 200, "the partner's own: {}", read.body);
    // Each client sees its own tokens only.
    let seen = introspect(&app, &id, &id_secret, &bearer).await;
    assert_eq!(
        (&seen.body["active"], &seen.body["client_id"]),
        (&json!(true), &json!(id)),
        "{}",
        seen.body
    );
    let by_partner = introspect(&app, &client, &secret, &bearer).await;
    assert_eq!(by_partner.body["active"], false, "{}", by_partner.body);

    // Rolled with an hour's overlap: both secrets work until the old one
    // is stopped; the partner's own secret is untouched.
    let page = hub.get("/dashboard/credentials?env=live").await;
    let rolled = submit(
        &hub,
        &page,
        &format!("/dashboard/credentials/clients/{id}/roll-secret"),
        &[("overlap_hours", "1")],
    )
    .await;
    assert_eq!(rolled.status, 200, "{}", rolled.body);
    let rolled_secret = shown(&rolled);
    for s in [&id_secret, &rolled_secret] {
        assert_eq!(token(&app, &id, s).await.status, 200);
    }
    let page = hub.get("/dashboard/credentials?env=live").await;
    assert!(page.body.contains("the replaced secret works until"));
    let ended = submit(
        &hub,
        &page,
        &format!("/dashboard/credentials/clients/{id}/end-previous-secret"),
        &[],
    )
    .await;
    assert_eq!(ended.status, 303, "{}", ended.body);
    assert_eq!(token(&app, &id, &id_secret).await.status, 401);
    assert_eq!(token(&app, &id, &rolled_secret).await.status, 200);
    assert_eq!(token(&app, &client, &secret).await.status, 200);

    // Another partner's client is not found here; nor is the partner's own
    // client revocable, nor one that does not exist.
    let other_owner = oidc::person(&app).await;
    staff(&app, &other, &other_owner, "owner");
    let (theirs, _) = sign_in(&app, &other_owner).await;
    let their_page = theirs.get("/dashboard/credentials?env=live").await;
    let their_made = make_client(&theirs, &their_page, "their vendor", "").await;
    assert_eq!(their_made.status, 200, "{}", their_made.body);
    let their_client = made_client_id(&their_made);
    let page = hub.get("/dashboard/credentials?env=live").await;
    for path in [
        format!("/dashboard/credentials/clients/{their_client}/revoke"),
        format!("/dashboard/credentials/clients/{their_client}/roll-secret"),
        format!("/dashboard/credentials/clients/{client}/revoke"),
        "/dashboard/credentials/clients/pk_live_nope/revoke".to_owned(),
    ] {
        let refused = submit(&hub, &page, &path, &[("overlap_hours", "0")]).await;
        assert_eq!(refused.status, 404, "{path}: {}", refused.body);
    }

    // A read-only member sees the client but no button, and is refused.
    let reader = oidc::person(&app).await;
    staff(&app, &client, &reader, "read_only");
    let (reading, _) = sign_in(&app, &reader).await;
    let page = reading.get("/dashboard/credentials?env=live").await;
    assert!(page.body.contains(&id));
    assert!(!page.body.contains("create-oauth-client") && !page.body.contains("class=\"revoke\""));
    let csrf = page.hidden("csrf_token").unwrap();
    let refused = reading
        .post(
            &format!("/dashboard/credentials/clients/{id}/revoke"),
            &[("csrf_token", csrf.as_str()), ("env", "live")],
        )
        .await;
    assert_eq!(refused.status, 403, "{}", refused.body);
    assert_eq!(token(&app, &id, &rolled_secret).await.status, 200);

    // Revoked: no new token, and the one it holds stops at once.
    let page = hub.get("/dashboard/credentials?env=live").await;
    let revoked = submit(
        &hub,
        &page,
        &format!("/dashboard/credentials/clients/{id}/revoke"),
        &[],
    )
    .await;
    assert_eq!(revoked.status, 303, "{}", revoked.body);
    assert_eq!(token(&app, &id, &rolled_secret).await.status, 401);
    let stopped = rest_get(
        &app,
        &format!("/partner/v1/applications/{application}"),
        Some(&bearer),
    )
    .await;
    assert_eq!(stopped.status, 401, "{}", stopped.body);
    let page = hub.get("/dashboard/credentials?env=live").await;
    assert!(
        page.body
            .contains(&format!("data-id=\"{id}\" data-state=\"revoked\""))
    );
    assert_eq!(token(&app, &client, &secret).await.status, 200);

    let owner = oidc::person(&app).await;
    staff(&app, &client, &owner, "owner");
    let (owning, _) = sign_in(&app, &owner).await;
    let audit = owning.get("/dashboard/audit").await;
    for action in [
        "oauth_client.create",
        "oauth_client.roll_secret",
        "oauth_client.end_previous_secret",
        "oauth_client.revoke",
    ] {
        assert!(audit.body.contains(action), "{action}: {}", audit.body);
    }
    assert!(!audit.body.contains(&id_secret) && !audit.body.contains(&rolled_secret));
}

async fn make_client(hub: &Browser, page: &Page, name: &str, scopes: &str) -> Page {
    submit(
        hub,
        page,
        "/dashboard/credentials/clients",
        &[("name", name), ("scopes", scopes)],
    )
    .await
}
