use serde_json::Value;

use crate::support::{App, assert_error, propagated, reply};

#[tokio::test]
async fn basic_and_body_authentication_issue_scoped_opaque_tokens() {
    let app = App::spawn().await;
    let c = app.client("sandbox:read sandbox:write").await;
    let r = reply(
        app.http
            .post(app.url("/oauth/token"))
            .basic_auth(&c.id, Some(&c.secret))
            .form(&[("grant_type", "client_credentials")])
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(r.status, 200);
    assert_eq!(r.body["token_type"], "Bearer");
    assert_eq!(r.body["expires_in"], 3600);
    assert_eq!(
        r.body["scope"], "sandbox:read sandbox:write",
        "omitted scope grants all held"
    );
    assert!(r.body["access_token"].as_str().unwrap().len() >= 43);
    assert_eq!(r.headers["cache-control"], "no-store");

    let form = [
        ("grant_type", "client_credentials"),
        ("client_id", c.id.as_str()),
        ("client_secret", c.secret.as_str()),
        ("scope", "sandbox:read"),
    ];
    let r = reply(
        app.http
            .post(app.url("/oauth/token"))
            .form(&form)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(r.status, 200);
    assert_eq!(r.body["scope"], "sandbox:read");
}

async fn token_error(
    app: &App,
    form: &[(&str, &str)],
    basic: Option<(&str, &str)>,
) -> crate::support::Reply {
    let mut req = app.http.post(app.url("/oauth/token")).form(form);
    if let Some((id, secret)) = basic {
        req = req.basic_auth(id, Some(secret));
    }
    reply(req.send().await.unwrap()).await
}

#[tokio::test]
async fn every_token_error_has_its_code() {
    let app = App::spawn().await;
    let c = app.client("sandbox:read").await;
    let creds = Some((c.id.as_str(), c.secret.as_str()));
    assert_error(&token_error(&app, &[], creds).await, 400, "invalid_request");
    assert_error(
        &token_error(&app, &[("grant_type", "password")], creds).await,
        400,
        "unsupported_grant_type",
    );
    assert_error(
        &token_error(
            &app,
            &[
                ("grant_type", "client_credentials"),
                ("scope", "sandbox:write"),
            ],
            creds,
        )
        .await,
        400,
        "invalid_scope",
    );
    assert_error(
        &token_error(
            &app,
            &[("grant_type", "client_credentials"), ("scope", "admin")],
            creds,
        )
        .await,
        400,
        "invalid_scope",
    );
    let wrong = token_error(
        &app,
        &[("grant_type", "client_credentials")],
        Some((&c.id, "sk_test_wrong")),
    )
    .await;
    assert_error(&wrong, 401, "invalid_client");
    assert!(wrong.header("www-authenticate").starts_with("Basic"));
    assert_error(
        &token_error(
            &app,
            &[("grant_type", "client_credentials")],
            Some(("pk_test_nobody", "sk_test_x")),
        )
        .await,
        401,
        "invalid_client",
    );
    assert_error(
        &token_error(&app, &[("grant_type", "client_credentials")], None).await,
        401,
        "invalid_client",
    );
    // A live key is refused: the prefix must match the environment.
    assert_error(
        &token_error(
            &app,
            &[("grant_type", "client_credentials")],
            Some(("pk_live_abc", "sk_live_abc")),
        )
        .await,
        401,
        "invalid_client",
    );
    // Both authentication methods at once.
    let both = [
        ("grant_type", "client_credentials"),
        ("client_id", c.id.as_str()),
        ("client_secret", c.secret.as_str()),
    ];
    assert_error(
        &token_error(&app, &both, creds).await,
        400,
        "invalid_request",
    );
    // Not a form body.
    let json = reply(
        app.http
            .post(app.url("/oauth/token"))
            .basic_auth(&c.id, Some(&c.secret))
            .json(&serde_json::json!({"grant_type": "client_credentials"}))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_error(&json, 400, "invalid_request");
}

#[tokio::test]
async fn revoked_clients_lose_their_tokens_and_cannot_get_new_ones() {
    let app = App::spawn().await;
    let c = app.client("sandbox:read").await;
    let token = app.token_for(&c).await;
    assert_eq!(app.get(&token, "/v1/fixtures").await.status, 200);
    assert!(
        app.server
            .as_ref()
            .unwrap()
            .store
            .revoke_client(&c.id, 0)
            .await
            .unwrap()
    );
    // Revoked in the store, as the CLI does from another process: the
    // server learns of it by polling the sandbox epoch, within its bound.
    propagated("the revocation", || async {
        app.get(&token, "/v1/fixtures").await.status == 401
    })
    .await;
    assert_error(
        &app.get(&token, "/v1/fixtures").await,
        401,
        "unauthenticated",
    );
    assert_error(
        &token_error(
            &app,
            &[("grant_type", "client_credentials")],
            Some((&c.id, &c.secret)),
        )
        .await,
        401,
        "invalid_client",
    );
    let _: Value = serde_json::Value::Null;
}

/// Tokens are sealed, not stored: opaque to their holder (nothing of the
/// client id shows), refused when altered anywhere, and still good after
/// the server restarts, since nothing about them lived in its memory.
#[tokio::test]
async fn sealed_tokens_are_opaque_tamper_evident_and_outlive_a_restart() {
    let mut app = App::spawn().await;
    let c = app.client("sandbox:read").await;
    let token = app.token_for(&c).await;
    let random_part = c.id.trim_start_matches("pk_test_");
    assert!(!token.contains(random_part), "{token}");
    let decoded =
        base64::Engine::decode(&base64::engine::general_purpose::URL_SAFE_NO_PAD, &token).unwrap();
    assert!(
        !decoded
            .windows(random_part.len())
            .any(|w| w == random_part.as_bytes()),
        "the client id is encrypted, not merely encoded"
    );
    for at in [0, 1, token.len() / 2, token.len() - 1] {
        let mut altered = token.clone().into_bytes();
        altered[at] = if altered[at] == b'A' { b'B' } else { b'A' };
        let altered = String::from_utf8(altered).unwrap();
        assert_error(
            &app.get(&altered, "/v1/fixtures").await,
            401,
            "unauthenticated",
        );
    }
    assert_error(
        &app.get(&token[..token.len() - 4], "/v1/fixtures").await,
        401,
        "unauthenticated",
    );
    assert_eq!(app.get(&token, "/v1/fixtures").await.status, 200);
    app.restart().await;
    assert_eq!(app.get(&token, "/v1/fixtures").await.status, 200);
}
