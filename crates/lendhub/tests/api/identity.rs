//! The identity provider over HTTP on its own listener: discovery and JWKS,
//! the authorization request and its errors, the sign-in and consent pages,
//! the token endpoint's two grants, UserInfo, end-session, key rotation and
//! the CLI. Real third-party relying parties are in `identity_clients.rs`.

use reqwest::StatusCode;
use serde_json::Value;

use crate::support::oidc::*;
use crate::support::{App, propagated, reply};

async fn discovery(app: &App) -> Value {
    let r = reply(
        app.http
            .get(format!("{}/.well-known/openid-configuration", app.sso))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(r.status, 200);
    r.body
}

/// What the seed and the issue require of discovery, and that it agrees
/// with where the endpoints are.
#[tokio::test]
async fn discovery_advertises_the_code_flow_with_pkce_and_es256() {
    let app = App::spawn().await;
    let d = discovery(&app).await;
    let issuer = &app.server().sso_url;
    assert_eq!(d["issuer"], issuer.as_str());
    for (key, path) in [
        ("authorization_endpoint", "/authorize"),
        ("token_endpoint", "/token"),
        ("userinfo_endpoint", "/userinfo"),
        ("jwks_uri", "/.well-known/jwks.json"),
        ("end_session_endpoint", "/end-session"),
    ] {
        assert_eq!(d[key], format!("{issuer}{path}"), "{key}");
    }
    assert_eq!(d["response_types_supported"], serde_json::json!(["code"]));
    assert_eq!(
        d["grant_types_supported"],
        serde_json::json!(["authorization_code", "refresh_token"])
    );
    assert_eq!(
        d["id_token_signing_alg_values_supported"],
        serde_json::json!(["ES256"])
    );
    assert_eq!(
        d["code_challenge_methods_supported"],
        serde_json::json!(["S256"])
    );
    assert_eq!(
        d["scopes_supported"],
        serde_json::json!(["openid", "profile", "email", "business", "accounts.read"])
    );
    assert_eq!(d["subject_types_supported"], serde_json::json!(["public"]));
    let methods = d["token_endpoint_auth_methods_supported"]
        .as_array()
        .unwrap();
    for m in ["client_secret_basic", "client_secret_post", "none"] {
        assert!(methods.contains(&Value::from(m)), "{m}");
    }
    let claims = d["claims_supported"].as_array().unwrap();
    for c in [
        "sub",
        "name",
        "given_name",
        "family_name",
        "updated_at",
        "email",
        "email_verified",
        "company_number",
        "company_name",
        "company_role",
    ] {
        assert!(claims.contains(&Value::from(c)), "{c}");
    }

    let jwks = reply(
        app.http
            .get(format!("{}/.well-known/jwks.json", app.sso))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(jwks.status, 200);
    let keys = jwks.body["keys"].as_array().unwrap();
    assert_eq!(keys.len(), 1);
    let k = &keys[0];
    assert_eq!(
        (&k["kty"], &k["crv"], &k["alg"], &k["use"]),
        (
            &Value::from("EC"),
            &Value::from("P-256"),
            &Value::from("ES256"),
            &Value::from("sig")
        )
    );
    assert_eq!(
        k["kid"],
        lendhub_idp::keys::thumbprint(k["x"].as_str().unwrap(), k["y"].as_str().unwrap()),
        "kid is the RFC 7638 thumbprint"
    );
    assert!(k.get("d").is_none(), "no private part");
}

/// The whole journey with a confidential client: sign-in and consent pages,
/// code, tokens, a verified ID token, UserInfo by scope, refresh rotation.
#[tokio::test]
async fn a_confidential_client_signs_a_person_in_and_refreshes() {
    let app = App::spawn().await;
    let person = person(&app).await;
    let rp = rp(&app, false).await;
    let pkce = pkce();
    let b = Browser::new(&app);
    let req = Authorize::new(&rp, &pkce);

    let started = b.get(&req.url()).await;
    assert_eq!(started.status, 303);
    let browser_cookie = started
        .set_cookies()
        .into_iter()
        .find(|c| c.starts_with("lendhub_sso_browser="))
        .unwrap();
    assert!(browser_cookie.contains("HttpOnly") && browser_cookie.contains("SameSite=Lax"));
    assert!(
        !browser_cookie.contains("Secure"),
        "the test issuer is http"
    );
    let form = b.get(started.location()).await;
    assert_eq!(form.status, 200);
    assert!(
        form.body.contains("<label for=\"email\">"),
        "labelled fields"
    );
    assert!(form.body.contains("Acme Lending Portal"));
    assert!(
        form.headers["content-security-policy"]
            .to_str()
            .unwrap()
            .contains("frame-ancestors 'none'")
    );
    assert_eq!(form.headers["x-frame-options"], "DENY");

    let signed_in = b
        .post(
            "/sign-in",
            &[
                ("ticket", &form.hidden("ticket").unwrap()),
                ("csrf_token", &form.hidden("csrf_token").unwrap()),
                ("email", &person.email.to_uppercase()),
                ("password", PASSWORD),
            ],
        )
        .await;
    assert_eq!(signed_in.status, 303, "{}", signed_in.body);
    let session_cookie = signed_in
        .set_cookies()
        .into_iter()
        .find(|c| c.starts_with("lendhub_sso_session="))
        .unwrap();
    assert!(session_cookie.contains("HttpOnly") && session_cookie.contains("SameSite=Lax"));

    let consent = b.get(signed_in.location()).await;
    assert_eq!(consent.status, 200);
    for words in [
        "See your name",
        "See your email address",
        "See your company&#39;s name and number",
    ] {
        assert!(consent.body.contains(words), "{words}: {}", consent.body);
    }
    assert!(consent.body.contains(&person.email));
    let back = b
        .post(
            "/consent",
            &[
                ("ticket", &consent.hidden("ticket").unwrap()),
                ("csrf_token", &consent.hidden("csrf_token").unwrap()),
                ("decision", "approve"),
            ],
        )
        .await;
    let code = code_from(&back, "state-123");
    assert_eq!(
        query_param(back.location(), "iss").as_deref(),
        Some(app.server().sso_url.as_str())
    );

    let t = exchange(&app, &rp, &code, &pkce.verifier).await;
    assert_eq!(t.status, 200, "{}", t.body);
    assert_eq!(t.header("cache-control"), "no-store");
    assert_eq!(t.body["token_type"], "Bearer");
    assert_eq!(t.body["expires_in"], 3600);
    assert_eq!(t.body["scope"], "openid profile email business");
    for field in ["access_token", "refresh_token", "id_token"] {
        assert!(t.body[field].is_string(), "{field}");
    }
    let access = t.body["access_token"].as_str().unwrap();
    let claims = verify_id_token(&app, t.body["id_token"].as_str().unwrap(), &rp.client_id)
        .await
        .unwrap();
    assert_eq!(claims["sub"], person.sub.as_str());
    assert!(person.sub.starts_with("usr_"));
    assert_ne!(claims["sub"], person.email.as_str());
    assert_eq!(claims["aud"], rp.client_id.as_str());
    assert_eq!(claims["nonce"], "nonce-456");
    assert_eq!(
        claims["at_hash"],
        lendhub_domain::identity::pkce::at_hash(access)
    );
    let iat = claims["iat"].as_i64().unwrap();
    assert_eq!(claims["exp"].as_i64().unwrap(), iat + 3600);
    assert!(claims["auth_time"].as_i64().unwrap() <= iat);
    assert!(
        claims.get("email").is_none(),
        "profile claims come from UserInfo"
    );

    let info = userinfo(&app, access).await;
    assert_eq!(info.status, 200, "{}", info.body);
    assert_eq!(info.body["sub"], person.sub.as_str());
    assert_eq!(info.body["name"], "Ada Lovelace");
    assert_eq!(info.body["given_name"], "Ada");
    assert_eq!(info.body["family_name"], "Lovelace");
    assert!(info.body["updated_at"].is_i64());
    assert_eq!(info.body["email"], person.email.as_str());
    assert_eq!(info.body["email_verified"], true);
    assert_eq!(info.body["company_number"], "01234567");
    assert_eq!(info.body["company_name"], "Analytical Engines Ltd");
    assert_eq!(info.body["company_role"], "director");
    assert_eq!(info.body.as_object().unwrap().len(), 10);

    // Refresh rotates: a new refresh token every time, the old one spent.
    let r1 = refresh(&app, &rp, t.body["refresh_token"].as_str().unwrap()).await;
    assert_eq!(r1.status, 200, "{}", r1.body);
    assert_ne!(r1.body["refresh_token"], t.body["refresh_token"]);
    assert_eq!(r1.body["scope"], "openid profile email business");
    let refreshed = verify_id_token(&app, r1.body["id_token"].as_str().unwrap(), &rp.client_id)
        .await
        .unwrap();
    assert_eq!(refreshed["sub"], person.sub.as_str());
    assert_eq!(refreshed["auth_time"], claims["auth_time"]);
    assert!(refreshed.get("nonce").is_none());
    let r2 = refresh(&app, &rp, r1.body["refresh_token"].as_str().unwrap()).await;
    assert_eq!(r2.status, 200, "{}", r2.body);
    assert_eq!(
        userinfo(&app, r2.body["access_token"].as_str().unwrap())
            .await
            .status,
        200
    );
}

/// Scopes release exactly their claims; `openid` alone gives only `sub`.
#[tokio::test]
async fn userinfo_releases_only_the_granted_scopes() {
    let app = App::spawn().await;
    let person = person(&app).await;
    let rp = rp(&app, false).await;
    for (scope, keys) in [
        ("openid", vec!["sub"]),
        ("openid email", vec!["email", "email_verified", "sub"]),
        (
            "openid business address",
            vec!["company_name", "company_number", "company_role", "sub"],
        ),
    ] {
        let pkce = pkce();
        let b = Browser::new(&app);
        let mut req = Authorize::new(&rp, &pkce);
        req.scope = scope;
        let code = code(&b, &req, &person).await;
        let t = exchange(&app, &rp, &code, &pkce.verifier).await;
        assert_eq!(t.status, 200, "{}", t.body);
        assert_eq!(
            t.body["scope"],
            scope.trim_end_matches(" address"),
            "unknown scopes are not granted"
        );
        let info = userinfo(&app, t.body["access_token"].as_str().unwrap()).await;
        let mut got: Vec<&str> = info
            .body
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        got.sort_unstable();
        assert_eq!(got, keys, "{scope}");
    }
}

/// A public client authenticates with PKCE alone; a confidential client
/// must prove its secret, by Basic or in the form.
#[tokio::test]
async fn public_clients_use_pkce_alone_and_confidential_clients_their_secret() {
    let app = App::spawn().await;
    let person = person(&app).await;
    let public = rp(&app, true).await;
    let pkce1 = pkce();
    let code1 = code(
        &Browser::new(&app),
        &Authorize::new(&public, &pkce1),
        &person,
    )
    .await;
    let t = exchange(&app, &public, &code1, &pkce1.verifier).await;
    assert_eq!(t.status, 200, "{}", t.body);

    // A public client has no secret to present.
    let with_secret = reply(
        app.http
            .post(format!("{}/token", app.sso))
            .basic_auth(&public.client_id, Some("rpsk_guess"))
            .form(&[
                ("grant_type", "refresh_token"),
                ("refresh_token", t.body["refresh_token"].as_str().unwrap()),
            ])
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_oauth_error(&with_secret, 401, "invalid_client");

    // Confidential: client_secret_post works too; a wrong secret is 401 with
    // a Basic challenge when Basic was used.
    let rp = rp(&app, false).await;
    let secret = rp.client_secret.clone().unwrap();
    let pkce2 = pkce();
    let code2 = code(&Browser::new(&app), &Authorize::new(&rp, &pkce2), &person).await;
    let post = reply(
        app.http
            .post(format!("{}/token", app.sso))
            .form(&[
                ("grant_type", "authorization_code"),
                ("code", code2.as_str()),
                ("redirect_uri", REDIRECT_URI),
                ("code_verifier", pkce2.verifier.as_str()),
                ("client_id", rp.client_id.as_str()),
                ("client_secret", secret.as_str()),
            ])
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(post.status, 200, "{}", post.body);
    let wrong = reply(
        app.http
            .post(format!("{}/token", app.sso))
            .basic_auth(&rp.client_id, Some("rpsk_wrong"))
            .form(&[("grant_type", "refresh_token"), ("refresh_token", "x")])
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_oauth_error(&wrong, 401, "invalid_client");
    assert_eq!(
        wrong.header("www-authenticate"),
        "Basic realm=\"lendhub-sso\""
    );
    let missing = reply(
        app.http
            .post(format!("{}/token", app.sso))
            .form(&[
                ("grant_type", "refresh_token"),
                ("refresh_token", "x"),
                ("client_id", rp.client_id.as_str()),
            ])
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_oauth_error(&missing, 401, "invalid_client");
    let unknown = reply(
        app.http
            .post(format!("{}/token", app.sso))
            .form(&[("grant_type", "refresh_token"), ("client_id", "rp_nobody")])
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_oauth_error(&unknown, 401, "invalid_client");
}

/// The token endpoint's request errors: RFC 6749 bodies, the seed's statuses.
#[tokio::test]
async fn token_endpoint_errors_are_rfc6749_bodies() {
    let app = App::spawn().await;
    let rp = rp(&app, false).await;
    let unsupported = token(&app, &rp, &[("grant_type", "client_credentials")]).await;
    assert_oauth_error(&unsupported, 400, "unsupported_grant_type");
    let implicit = token(&app, &rp, &[("grant_type", "password")]).await;
    assert_oauth_error(&implicit, 400, "unsupported_grant_type");
    let no_grant = token(&app, &rp, &[]).await;
    assert_oauth_error(&no_grant, 400, "invalid_request");
    let no_code = token(
        &app,
        &rp,
        &[
            ("grant_type", "authorization_code"),
            ("redirect_uri", REDIRECT_URI),
        ],
    )
    .await;
    assert_oauth_error(&no_code, 400, "invalid_request");
    let unknown_code = exchange(&app, &rp, "not-a-code", &"a".repeat(43)).await;
    assert_oauth_error(&unknown_code, 400, "invalid_grant");
    let json = reply(
        app.http
            .post(format!("{}/token", app.sso))
            .json(&serde_json::json!({"grant_type": "refresh_token"}))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_oauth_error(&json, 400, "invalid_request");
    let get = reply(
        app.http
            .get(format!("{}/token", app.sso))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(get.status, 405);
    assert!(get.body["error"].is_string(), "{}", get.body);
    let repeated = reply(
        app.http
            .post(format!("{}/token", app.sso))
            .basic_auth(&rp.client_id, rp.client_secret.as_deref())
            .header("content-type", "application/x-www-form-urlencoded")
            .body("grant_type=refresh_token&grant_type=authorization_code")
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_oauth_error(&repeated, 400, "invalid_request");
}

/// A wrong `code_verifier` is `invalid_grant`, and the code is spent by it.
#[tokio::test]
async fn a_wrong_verifier_is_refused_and_spends_the_code() {
    let app = App::spawn().await;
    let person = person(&app).await;
    let rp = rp(&app, false).await;
    let pkce = pkce();
    let code = code(&Browser::new(&app), &Authorize::new(&rp, &pkce), &person).await;
    let other = self::pkce();
    let wrong = exchange(&app, &rp, &code, &other.verifier).await;
    assert_oauth_error(&wrong, 400, "invalid_grant");
    let right = exchange(&app, &rp, &code, &pkce.verifier).await;
    assert_oauth_error(&right, 400, "invalid_grant");

    // A malformed verifier (42 characters, or outside the unreserved set) is
    // a malformed request.
    let code2 = self::code(&Browser::new(&app), &Authorize::new(&rp, &pkce), &person).await;
    for bad in [
        "a".repeat(42),
        format!("{}+", "a".repeat(42)),
        "a".repeat(129),
    ] {
        let r = exchange(&app, &rp, &code2, &bad).await;
        assert_oauth_error(&r, 400, "invalid_request");
    }
    let ok = exchange(&app, &rp, &code2, &pkce.verifier).await;
    assert_eq!(
        ok.status, 200,
        "a malformed verifier does not spend the code"
    );
}

/// `plain` PKCE, a missing challenge, missing `state`, no `openid`, and the
/// implicit and hybrid flows are refused at the redirect URI.
#[tokio::test]
async fn authorization_errors_go_back_to_the_registered_redirect_uri() {
    let app = App::spawn().await;
    let rp = rp(&app, false).await;
    let pkce = pkce();
    let b = Browser::new(&app);
    type Change = Box<dyn Fn(&mut Authorize)>;
    let cases: Vec<(Change, &str, bool)> = vec![
        (
            Box::new(|r| r.extra = vec![("code_challenge_method", "plain")]),
            "invalid_request",
            true,
        ),
        (Box::new(|r| r.challenge = ""), "invalid_request", true),
        (Box::new(|r| r.state = ""), "invalid_request", false),
        (
            Box::new(|r| r.scope = "profile email"),
            "invalid_scope",
            true,
        ),
        (Box::new(|r| r.scope = ""), "invalid_request", true),
        (
            Box::new(|r| r.extra = vec![("response_type", "token")]),
            "invalid_request",
            true,
        ),
        (
            Box::new(|r| r.extra = vec![("prompt", "select_account")]),
            "invalid_request",
            true,
        ),
        (
            Box::new(|r| r.extra = vec![("request", "eyJ")]),
            "request_not_supported",
            true,
        ),
    ];
    for (i, (change, error, has_state)) in cases.into_iter().enumerate() {
        let mut req = Authorize::new(&rp, &pkce);
        change(&mut req);
        let mut url = req.url();
        if req.challenge.is_empty() {
            url = url.replace("code_challenge=&", "");
        }
        if req.state.is_empty() {
            url = url.replace("state=&", "");
        }
        if req.extra.iter().any(|(k, _)| *k == "code_challenge_method") {
            url = url.replace("code_challenge_method=S256&", "");
        }
        let r = b.get(&url).await;
        assert_eq!(r.status, 303, "case {i}: {}", r.body);
        let loc = r.location();
        assert!(loc.starts_with(REDIRECT_URI), "case {i}: {loc}");
        assert_eq!(
            query_param(loc, "error").as_deref(),
            Some(error),
            "case {i}: {loc}"
        );
        assert!(query_param(loc, "error_description").is_some());
        assert_eq!(
            query_param(loc, "state").is_some(),
            has_state,
            "case {i}: {loc}"
        );
    }
    // Implicit and hybrid response types.
    for response_type in ["token", "id_token", "code id_token", "code token"] {
        let url = Authorize::new(&rp, &pkce).url().replace(
            "response_type=code",
            &format!("response_type={}", response_type.replace(' ', "+")),
        );
        let r = b.get(&url).await;
        assert_eq!(
            query_param(r.location(), "error").as_deref(),
            Some("unsupported_response_type"),
            "{response_type}"
        );
        assert_eq!(
            query_param(r.location(), "state").as_deref(),
            Some("state-123")
        );
    }
    // A missing code_challenge_method is refused too.
    let url = Authorize::new(&rp, &pkce)
        .url()
        .replace("code_challenge_method=S256&", "");
    let r = b.get(&url).await;
    assert_eq!(
        query_param(r.location(), "error").as_deref(),
        Some("invalid_request")
    );
}

/// An unknown client or an unregistered redirect URI gets a page, never a redirect.
#[tokio::test]
async fn unknown_clients_and_unregistered_redirect_uris_get_an_error_page() {
    let app = App::spawn().await;
    let rp = rp(&app, false).await;
    let pkce = pkce();
    let b = Browser::new(&app);
    let unknown = Rp {
        client_id: "rp_unregistered".into(),
        client_secret: None,
    };
    let r = b.get(&Authorize::new(&unknown, &pkce).url()).await;
    assert_eq!(r.status, 400);
    assert!(r.headers.get("location").is_none());
    assert_eq!(r.error_code(), Some("unknown_client"));
    assert!(
        r.headers["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/html")
    );

    for other in [
        "http://127.0.0.1:9/callback/",
        "http://127.0.0.1:9/callback?x=1",
        "https://evil.example/callback",
        "HTTP://127.0.0.1:9/callback",
    ] {
        let url = Authorize::new(&rp, &pkce).url().replace(
            &url::form_urlencoded::byte_serialize(REDIRECT_URI.as_bytes()).collect::<String>(),
            &url::form_urlencoded::byte_serialize(other.as_bytes()).collect::<String>(),
        );
        let r = b.get(&url).await;
        assert_eq!(r.status, 400, "{other}");
        assert!(r.headers.get("location").is_none(), "{other}");
        assert_eq!(r.error_code(), Some("redirect_uri_mismatch"), "{other}");
    }
    // Even with every other parameter wrong, no redirect.
    let r = b
        .get(&format!(
            "/authorize?client_id={}&redirect_uri=https%3A%2F%2Fevil.example%2F",
            rp.client_id
        ))
        .await;
    assert_eq!(r.status, 400);
    assert_eq!(r.error_code(), Some("redirect_uri_mismatch"));
    let r = b.get("/authorize").await;
    assert_eq!(r.error_code(), Some("unknown_client"));
}

/// A code bound to one redirect URI does not redeem with another.
#[tokio::test]
async fn a_code_redeems_only_with_its_redirect_uri_and_client() {
    let app = App::spawn().await;
    let person = person(&app).await;
    let rp = rp(&app, false).await;
    let other = self::rp(&app, false).await;
    let pkce = pkce();
    let code = code(&Browser::new(&app), &Authorize::new(&rp, &pkce), &person).await;
    let mismatched = token(
        &app,
        &rp,
        &[
            ("grant_type", "authorization_code"),
            ("code", &code),
            ("redirect_uri", "http://127.0.0.1:9/other"),
            ("code_verifier", &pkce.verifier),
        ],
    )
    .await;
    assert_oauth_error(&mismatched, 400, "invalid_grant");

    let code = self::code(&Browser::new(&app), &Authorize::new(&rp, &pkce), &person).await;
    let stolen = exchange(&app, &other, &code, &pkce.verifier).await;
    assert_oauth_error(&stolen, 400, "invalid_grant");
}

/// A code used twice: the second use fails and revokes what the first issued.
#[tokio::test]
async fn a_reused_code_fails_and_revokes_the_first_use() {
    let app = App::spawn().await;
    let person = person(&app).await;
    let rp = rp(&app, false).await;
    let pkce = pkce();
    let code = code(&Browser::new(&app), &Authorize::new(&rp, &pkce), &person).await;
    let first = exchange(&app, &rp, &code, &pkce.verifier).await;
    assert_eq!(first.status, 200);
    let access = first.body["access_token"].as_str().unwrap();
    assert_eq!(userinfo(&app, access).await.status, 200);

    // As the conformance suite's oidcc-codereuse-30seconds: 30 s later,
    // within the code's lifetime.
    app.advance(time::Duration::seconds(30));
    let second = exchange(&app, &rp, &code, &pkce.verifier).await;
    assert_oauth_error(&second, 400, "invalid_grant");
    let after = userinfo(&app, access).await;
    assert_eq!(after.status, 401, "{}", after.body);
    assert!(after.header("www-authenticate").contains("invalid_token"));
    let r = refresh(&app, &rp, first.body["refresh_token"].as_str().unwrap()).await;
    assert_oauth_error(&r, 400, "invalid_grant");
}

/// Two requests racing with the same code: exactly one gets tokens.
#[tokio::test]
async fn concurrent_redemptions_of_one_code_issue_tokens_once() {
    let app = App::spawn().await;
    let person = person(&app).await;
    let rp = rp(&app, false).await;
    let pkce = pkce();
    let code = code(&Browser::new(&app), &Authorize::new(&rp, &pkce), &person).await;
    let attempts = (0..8).map(|_| exchange(&app, &rp, &code, &pkce.verifier));
    let results = futures_util::future::join_all(attempts).await;
    let ok = results.iter().filter(|r| r.status == 200).count();
    assert_eq!(ok, 1);
    assert!(
        results
            .iter()
            .filter(|r| r.status != 200)
            .all(|r| r.body["error"] == "invalid_grant")
    );
}

/// Presenting a refresh token that was already used fails and revokes the
/// whole family: the newest refresh token and access token stop working.
#[tokio::test]
async fn refresh_token_reuse_revokes_the_family() {
    let app = App::spawn().await;
    let person = person(&app).await;
    let rp = rp(&app, false).await;
    let pkce = pkce();
    let code = code(&Browser::new(&app), &Authorize::new(&rp, &pkce), &person).await;
    let t = exchange(&app, &rp, &code, &pkce.verifier).await;
    let old = t.body["refresh_token"].as_str().unwrap();
    let r1 = refresh(&app, &rp, old).await;
    assert_eq!(r1.status, 200);
    let newest_access = r1.body["access_token"].as_str().unwrap();
    let newest_refresh = r1.body["refresh_token"].as_str().unwrap();
    // Used first, so the instance remembers the grant; the revocation below
    // must still take effect at once.
    assert_eq!(userinfo(&app, newest_access).await.status, 200);

    let reused = refresh(&app, &rp, old).await;
    assert_oauth_error(&reused, 400, "invalid_grant");
    assert_oauth_error(
        &refresh(&app, &rp, newest_refresh).await,
        400,
        "invalid_grant",
    );
    assert_eq!(userinfo(&app, newest_access).await.status, 401);
    assert_eq!(
        userinfo(&app, t.body["access_token"].as_str().unwrap())
            .await
            .status,
        401
    );

    // Another client cannot use (or burn) someone else's refresh token.
    let code = self::code(&Browser::new(&app), &Authorize::new(&rp, &pkce), &person).await;
    let t = exchange(&app, &rp, &code, &pkce.verifier).await;
    let other = self::rp(&app, false).await;
    let theft = refresh(&app, &other, t.body["refresh_token"].as_str().unwrap()).await;
    assert_oauth_error(&theft, 400, "invalid_grant");
    let still = refresh(&app, &rp, t.body["refresh_token"].as_str().unwrap()).await;
    assert_eq!(still.status, 200, "{}", still.body);

    // A refresh may narrow the scope, never widen it.
    let narrowed = token(
        &app,
        &rp,
        &[
            ("grant_type", "refresh_token"),
            (
                "refresh_token",
                still.body["refresh_token"].as_str().unwrap(),
            ),
            ("scope", "openid email"),
        ],
    )
    .await;
    assert_eq!(narrowed.status, 200, "{}", narrowed.body);
    assert_eq!(narrowed.body["scope"], "openid email");
    let info = userinfo(&app, narrowed.body["access_token"].as_str().unwrap()).await;
    assert!(info.body.get("name").is_none() && info.body.get("email").is_some());
    let wider = token(
        &app,
        &rp,
        &[
            ("grant_type", "refresh_token"),
            (
                "refresh_token",
                narrowed.body["refresh_token"].as_str().unwrap(),
            ),
            ("scope", "openid accounts.read"),
        ],
    )
    .await;
    assert_oauth_error(&wider, 400, "invalid_scope");
    let after = refresh(&app, &rp, narrowed.body["refresh_token"].as_str().unwrap()).await;
    assert_eq!(after.status, 200, "a refused widening spends nothing");
}

/// The sign-in transaction lapses 120 s after /authorize (the clock is moved,
/// nobody sleeps): 401 `sso_ticket_expired`, with a way to start again.
#[tokio::test]
async fn an_expired_ticket_shows_a_start_again_page() {
    let app = App::spawn().await;
    let person = person(&app).await;
    let rp = rp(&app, false).await;
    let pkce = pkce();
    let b = Browser::new(&app);
    let req = Authorize::new(&rp, &pkce);
    // Stopped, so only the test moves it towards the 120 s.
    app.clock.freeze();
    let started = b.get(&req.url()).await;
    let form = b.get(started.location()).await;
    assert_eq!(form.status, 200);

    app.advance(time::Duration::seconds(119));
    assert_eq!(
        b.get(started.location()).await.status,
        200,
        "still within 120 s"
    );
    app.advance(time::Duration::seconds(2));
    let lapsed = b.get(started.location()).await;
    assert_eq!(lapsed.status, 401);
    assert_eq!(lapsed.error_code(), Some("sso_ticket_expired"));
    let posted = b
        .post(
            "/sign-in",
            &[
                ("ticket", &form.hidden("ticket").unwrap()),
                ("csrf_token", &form.hidden("csrf_token").unwrap()),
                ("email", &person.email),
                ("password", PASSWORD),
            ],
        )
        .await;
    assert_eq!(posted.status, 401);
    assert_eq!(posted.error_code(), Some("sso_ticket_expired"));
    assert!(
        !posted
            .set_cookies()
            .iter()
            .any(|c| c.starts_with("lendhub_sso_session=")),
        "no session from a lapsed ticket"
    );

    // "Start again" is a fresh /authorize for the same request.
    let marker = "href=\"";
    let start = lapsed.body.find("id=\"start-again\"").unwrap();
    let href_start = lapsed.body[..start].rfind(marker).unwrap() + marker.len();
    let href = lapsed.body[href_start..]
        .split('"')
        .next()
        .unwrap()
        .replace("&#38;", "&")
        .replace("&amp;", "&");
    assert!(href.starts_with("/authorize?"), "{href}");
    let again = b.get(&href).await;
    assert_eq!(again.status, 303);
    let form = b.get(again.location()).await;
    let signed_in = b
        .post(
            "/sign-in",
            &[
                ("ticket", &form.hidden("ticket").unwrap()),
                ("csrf_token", &form.hidden("csrf_token").unwrap()),
                ("email", &person.email),
                ("password", PASSWORD),
            ],
        )
        .await;
    let back = decide(&b, signed_in.location(), true).await;
    let code = code_from(&back, "state-123");
    assert_eq!(exchange(&app, &rp, &code, &pkce.verifier).await.status, 200);

    // An unknown ticket is treated as lapsed.
    let bogus = b.get("/sign-in?ticket=nope").await;
    assert_eq!(bogus.status, 401);
    assert_eq!(bogus.error_code(), Some("sso_ticket_expired"));
    // The consent step lapses too.
    let mut ask = Authorize::new(&rp, &pkce);
    ask.extra = vec![("prompt", "consent")];
    let started = b.get(&ask.url()).await;
    assert!(
        started.location().starts_with("/consent"),
        "signed in already"
    );
    app.advance(time::Duration::seconds(121));
    let lapsed = b.get(started.location()).await;
    assert_eq!(lapsed.error_code(), Some("sso_ticket_expired"));
}

/// The forms need their CSRF token, from the browser that started the
/// transaction.
#[tokio::test]
async fn forms_without_their_csrf_token_are_refused() {
    let app = App::spawn().await;
    let person = person(&app).await;
    let rp = rp(&app, false).await;
    let pkce = pkce();
    let b = Browser::new(&app);
    let started = b.get(&Authorize::new(&rp, &pkce).url()).await;
    let form = b.get(started.location()).await;
    let ticket = form.hidden("ticket").unwrap();
    let csrf = form.hidden("csrf_token").unwrap();

    let missing = b
        .post(
            "/sign-in",
            &[
                ("ticket", ticket.as_str()),
                ("email", person.email.as_str()),
                ("password", PASSWORD),
            ],
        )
        .await;
    assert_eq!(missing.status, 403);
    assert_eq!(missing.error_code(), Some("csrf_token_invalid"));
    let wrong = b
        .post(
            "/sign-in",
            &[
                ("ticket", ticket.as_str()),
                ("csrf_token", "x".repeat(43).as_str()),
                ("email", person.email.as_str()),
                ("password", PASSWORD),
            ],
        )
        .await;
    assert_eq!(wrong.error_code(), Some("csrf_token_invalid"));
    // The right token from another browser (an attacker posting a form they
    // were shown) fails too: it is bound to the browser cookie.
    let elsewhere = Browser::new(&app);
    let foreign = elsewhere
        .post(
            "/sign-in",
            &[
                ("ticket", ticket.as_str()),
                ("csrf_token", csrf.as_str()),
                ("email", person.email.as_str()),
                ("password", PASSWORD),
            ],
        )
        .await;
    assert_eq!(foreign.status, 403);
    assert_eq!(foreign.error_code(), Some("csrf_token_invalid"));
    assert_eq!(
        elsewhere.get(started.location()).await.status,
        403,
        "the page itself is not shown to another browser"
    );

    // The real form still works, then consent needs its token too.
    let signed_in = b
        .post(
            "/sign-in",
            &[
                ("ticket", ticket.as_str()),
                ("csrf_token", csrf.as_str()),
                ("email", person.email.as_str()),
                ("password", PASSWORD),
            ],
        )
        .await;
    assert_eq!(signed_in.status, 303);
    let consent = b.get(signed_in.location()).await;
    let no_token = b
        .post(
            "/consent",
            &[
                ("ticket", consent.hidden("ticket").unwrap().as_str()),
                ("decision", "approve"),
            ],
        )
        .await;
    assert_eq!(no_token.status, 403);
    assert_eq!(no_token.error_code(), Some("csrf_token_invalid"));
}

/// A wrong password or unknown email re-shows the form with an error, and
/// does not say which was wrong.
#[tokio::test]
async fn wrong_credentials_redisplay_the_form() {
    let app = App::spawn().await;
    let person = person(&app).await;
    let rp = rp(&app, false).await;
    let pkce = pkce();
    let b = Browser::new(&app);
    let started = b.get(&Authorize::new(&rp, &pkce).url()).await;
    let form = b.get(started.location()).await;
    let mut bodies = Vec::new();
    for (email, password) in [
        (person.email.as_str(), "wrong password"),
        ("nobody@example.com", PASSWORD),
    ] {
        let r = b
            .post(
                "/sign-in",
                &[
                    ("ticket", form.hidden("ticket").unwrap().as_str()),
                    ("csrf_token", form.hidden("csrf_token").unwrap().as_str()),
                    ("email", email),
                    ("password", password),
                ],
            )
            .await;
        assert_eq!(r.status, 401);
        assert!(r.body.contains("role=\"alert\""));
        assert!(
            r.body
                .contains("Enter a correct email address and password.")
        );
        assert!(
            !r.set_cookies()
                .iter()
                .any(|c| c.starts_with("lendhub_sso_session"))
        );
        bodies.push(r.body.replace(email, ""));
    }
    assert_eq!(bodies[0], bodies[1], "the same answer either way");
}

/// Denying consent sends `access_denied` (with `state`) back to the client.
#[tokio::test]
async fn denying_consent_returns_access_denied() {
    let app = App::spawn().await;
    let person = person(&app).await;
    let rp = rp(&app, false).await;
    let pkce = pkce();
    let b = Browser::new(&app);
    let signed_in = start_and_sign_in(&b, &Authorize::new(&rp, &pkce), &person).await;
    let denied = decide(&b, signed_in.location(), false).await;
    assert_eq!(denied.status, 303);
    let loc = denied.location();
    assert!(loc.starts_with(REDIRECT_URI));
    assert_eq!(query_param(loc, "error").as_deref(), Some("access_denied"));
    assert_eq!(query_param(loc, "state").as_deref(), Some("state-123"));
    assert!(query_param(loc, "code").is_none());
}

/// `prompt=none` without a session is `login_required`; with a session and
/// earlier consent the code comes back at once; `prompt=login` asks for the
/// password again even within a session.
#[tokio::test]
async fn prompt_none_and_prompt_login() {
    let app = App::spawn().await;
    let person = person(&app).await;
    let rp = rp(&app, false).await;
    let pkce = pkce();
    let b = Browser::new(&app);
    let mut req = Authorize::new(&rp, &pkce);
    req.extra = vec![("prompt", "none")];
    let r = b.get(&req.url()).await;
    assert_eq!(r.status, 303);
    assert_eq!(
        query_param(r.location(), "error").as_deref(),
        Some("login_required")
    );
    assert_eq!(
        query_param(r.location(), "state").as_deref(),
        Some("state-123")
    );

    // Signed in, but this scope was never approved: consent_required.
    let first = code(&b, &Authorize::new(&rp, &pkce), &person).await;
    assert_eq!(
        exchange(&app, &rp, &first, &pkce.verifier).await.status,
        200
    );
    let mut wider = Authorize::new(&rp, &pkce);
    wider.scope = "openid accounts.read";
    wider.extra = vec![("prompt", "none")];
    let r = b.get(&wider.url()).await;
    assert_eq!(
        query_param(r.location(), "error").as_deref(),
        Some("consent_required")
    );

    // Signed in and consented: straight back with a code, no page.
    let r = b.get(&req.url()).await;
    let code = code_from(&r, "state-123");
    let t = exchange(&app, &rp, &code, &pkce.verifier).await;
    assert_eq!(t.status, 200);
    // Without prompt, the same: single sign-on.
    let r = b.get(&Authorize::new(&rp, &pkce).url()).await;
    code_from(&r, "state-123");

    // prompt=login: the sign-in page again, and a later auth_time.
    let before = verify_id_token(&app, t.body["id_token"].as_str().unwrap(), &rp.client_id)
        .await
        .unwrap()["auth_time"]
        .as_i64()
        .unwrap();
    app.advance(time::Duration::seconds(30));
    let mut login = Authorize::new(&rp, &pkce);
    login.extra = vec![("prompt", "login")];
    let signed_in = start_and_sign_in(&b, &login, &person).await;
    let code = code_from(&signed_in, "state-123");
    let t = exchange(&app, &rp, &code, &pkce.verifier).await;
    let after = verify_id_token(&app, t.body["id_token"].as_str().unwrap(), &rp.client_id)
        .await
        .unwrap()["auth_time"]
        .as_i64()
        .unwrap();
    assert!(after >= before + 30, "{before} → {after}");

    // max_age: a session older than it needs a fresh sign-in.
    app.advance(time::Duration::seconds(60));
    let mut aged = Authorize::new(&rp, &pkce);
    aged.extra = vec![("max_age", "10")];
    let r = b.get(&aged.url()).await;
    assert!(r.location().starts_with("/sign-in"), "{}", r.location());
    aged.extra = vec![("max_age", "10"), ("prompt", "none")];
    let r = b.get(&aged.url()).await;
    assert_eq!(
        query_param(r.location(), "error").as_deref(),
        Some("login_required")
    );

    // prompt=consent shows the consent page even though consent was given.
    let mut ask = Authorize::new(&rp, &pkce);
    ask.extra = vec![("prompt", "consent")];
    let r = b.get(&ask.url()).await;
    assert!(r.location().starts_with("/consent"), "{}", r.location());
}

/// A forged or altered ID token does not verify against the JWKS, and the
/// provider refuses it as an `id_token_hint`.
#[tokio::test]
async fn a_tampered_id_token_is_rejected() {
    let app = App::spawn().await;
    let person = person(&app).await;
    let rp = rp(&app, false).await;
    let pkce = pkce();
    let code = code(&Browser::new(&app), &Authorize::new(&rp, &pkce), &person).await;
    let t = exchange(&app, &rp, &code, &pkce.verifier).await;
    let id_token = t.body["id_token"].as_str().unwrap();
    assert!(verify_id_token(&app, id_token, &rp.client_id).await.is_ok());

    use base64::Engine;
    let engine = base64::engine::general_purpose::URL_SAFE_NO_PAD;
    let parts: Vec<&str> = id_token.split('.').collect();
    let mut claims = payload(id_token);
    claims["sub"] = Value::from("usr_somebody_else");
    let forged_payload = engine.encode(serde_json::to_vec(&claims).unwrap());
    let tampered = format!("{}.{}.{}", parts[0], forged_payload, parts[2]);
    assert!(
        verify_id_token(&app, &tampered, &rp.client_id)
            .await
            .is_err()
    );
    let mut sig = engine.decode(parts[2]).unwrap();
    sig[10] ^= 1;
    let bad_sig = format!("{}.{}.{}", parts[0], parts[1], engine.encode(&sig));
    assert!(
        verify_id_token(&app, &bad_sig, &rp.client_id)
            .await
            .is_err()
    );
    assert!(
        verify_id_token(&app, id_token, "rp_someone_else")
            .await
            .is_err(),
        "aud is the client"
    );

    let b = Browser::new(&app);
    for hint in [tampered.as_str(), bad_sig.as_str(), "not.a.jwt"] {
        let r = b
            .get(&format!(
                "/end-session?id_token_hint={hint}&post_logout_redirect_uri={}",
                url::form_urlencoded::byte_serialize(LOGOUT_URI.as_bytes()).collect::<String>()
            ))
            .await;
        assert_eq!(r.status, 400);
        assert_eq!(r.error_code(), Some("invalid_logout_request"));
        assert!(r.headers.get("location").is_none());
    }
}

/// UserInfo: 401 with `WWW-Authenticate` for a missing, unknown or expired token.
#[tokio::test]
async fn userinfo_refuses_missing_unknown_and_expired_tokens() {
    let app = App::spawn().await;
    let person = person(&app).await;
    let rp = rp(&app, false).await;
    let pkce = pkce();
    let code = code(&Browser::new(&app), &Authorize::new(&rp, &pkce), &person).await;
    // Stopped, the clock reads the token's issue time until it is moved:
    // a second of the machine's own cannot expire the token early.
    app.clock.freeze();
    let t = exchange(&app, &rp, &code, &pkce.verifier).await;
    let access = t.body["access_token"].as_str().unwrap();

    let none = reply(
        app.http
            .get(format!("{}/userinfo", app.sso))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(none.status, 401);
    assert_eq!(
        none.header("www-authenticate"),
        "Bearer realm=\"lendhub-sso\""
    );

    let last = if access.ends_with('A') { 'B' } else { 'A' };
    let forged = userinfo(&app, &format!("{}{last}", &access[..access.len() - 1])).await;
    assert_eq!(forged.status, 401);
    assert!(
        forged
            .header("www-authenticate")
            .contains("error=\"invalid_token\"")
    );
    assert_eq!(forged.body["error"], "invalid_token");
    assert_eq!(userinfo(&app, "garbage").await.status, 401);

    // POST works as well as GET (OpenID Connect Core §5.3.1).
    let post = reply(
        app.http
            .post(format!("{}/userinfo", app.sso))
            .bearer_auth(access)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(post.status, 200);

    app.advance(time::Duration::seconds(3599));
    assert_eq!(userinfo(&app, access).await.status, 200);
    app.advance(time::Duration::seconds(2));
    let expired = userinfo(&app, access).await;
    assert_eq!(expired.status, 401);
    let challenge = expired.header("www-authenticate");
    assert!(
        challenge.starts_with("Bearer realm=\"lendhub-sso\""),
        "{challenge}"
    );
    assert!(challenge.contains("error=\"invalid_token\""), "{challenge}");
    assert!(challenge.contains("expired"), "{challenge}");
    // The refresh token outlives it.
    let r = refresh(&app, &rp, t.body["refresh_token"].as_str().unwrap()).await;
    assert_eq!(r.status, 200);
    assert_eq!(
        userinfo(&app, r.body["access_token"].as_str().unwrap())
            .await
            .status,
        200
    );

    // An authorization code expires in 60 s.
    let code = self::code(&Browser::new(&app), &Authorize::new(&rp, &pkce), &person).await;
    app.advance(time::Duration::seconds(61));
    assert_oauth_error(
        &exchange(&app, &rp, &code, &pkce.verifier).await,
        400,
        "invalid_grant",
    );
}

/// RP-initiated logout: the session ends, its cookie is cleared, its tokens
/// are revoked, and the browser goes to the registered URI with `state`.
#[tokio::test]
async fn end_session_signs_out_and_redirects_to_a_registered_uri() {
    let app = App::spawn().await;
    let person = person(&app).await;
    let rp = rp(&app, false).await;
    let pkce = pkce();
    let b = Browser::new(&app);
    let code = code(&b, &Authorize::new(&rp, &pkce), &person).await;
    let t = exchange(&app, &rp, &code, &pkce.verifier).await;
    let hint = t.body["id_token"].as_str().unwrap();
    let logout_uri =
        url::form_urlencoded::byte_serialize(LOGOUT_URI.as_bytes()).collect::<String>();

    let unregistered = b
        .get(&format!(
            "/end-session?id_token_hint={hint}&post_logout_redirect_uri=https%3A%2F%2Fevil.example%2F&state=s"
        ))
        .await;
    assert_eq!(unregistered.status, 400);
    assert_eq!(unregistered.error_code(), Some("invalid_logout_request"));

    // An expired ID token is still a good hint.
    app.advance(time::Duration::hours(2));
    let out = b
        .get(&format!(
            "/end-session?id_token_hint={hint}&post_logout_redirect_uri={logout_uri}&state=bye-1"
        ))
        .await;
    assert_eq!(out.status, 303, "{}", out.body);
    assert_eq!(out.location(), format!("{LOGOUT_URI}?state=bye-1"));
    let cleared = out
        .set_cookies()
        .into_iter()
        .find(|c| c.starts_with("lendhub_sso_session="))
        .unwrap();
    assert!(cleared.contains("Max-Age=0"), "{cleared}");
    assert_oauth_error(
        &refresh(&app, &rp, t.body["refresh_token"].as_str().unwrap()).await,
        400,
        "invalid_grant",
    );

    // The session is over: prompt=none needs a sign-in again, even with the
    // old cookie.
    let mut req = Authorize::new(&rp, &pkce);
    req.extra = vec![("prompt", "none")];
    let r = b.get(&req.url()).await;
    assert_eq!(
        query_param(r.location(), "error").as_deref(),
        Some("login_required")
    );
}

/// Without an `id_token_hint` nobody vouches for the sign-out, so the
/// person confirms it on a page with a CSRF-protected form.
#[tokio::test]
async fn end_session_without_a_hint_asks_for_confirmation() {
    let app = App::spawn().await;
    let person = person(&app).await;
    let rp = rp(&app, false).await;
    let pkce = pkce();
    let b = Browser::new(&app);
    code(&b, &Authorize::new(&rp, &pkce), &person).await;
    let page = b.get("/end-session").await;
    assert_eq!(page.status, 200);
    let csrf = page.hidden("csrf_token").unwrap();
    let forged = b.post("/end-session", &[]).await;
    assert_eq!(forged.status, 403);
    let done = b
        .post("/end-session", &[("csrf_token", csrf.as_str())])
        .await;
    assert_eq!(done.status, 200);
    assert!(done.body.contains("You are signed out"));
    let r = b.get(&Authorize::new(&rp, &pkce).url()).await;
    assert!(r.location().starts_with("/sign-in"), "{}", r.location());
}

/// `lendhub sso keys rotate`: the JWKS lists the new key and the previous
/// one, new ID tokens use the new key, and tokens signed before still verify.
#[tokio::test]
async fn key_rotation_keeps_the_previous_key_in_the_jwks() {
    // A fixed issuer, so it survives the restart below (which rebinds port 0).
    let site = crate::support::Site::new().await;
    let mut config = crate::support::test_config(&site);
    config.sso.public_url = Some("http://sso.lendhub.test".parse().unwrap());
    let app = App::spawn_with(config, site).await;
    let person = person(&app).await;
    let rp = rp(&app, false).await;
    let pkce = pkce();
    let b = Browser::new(&app);
    let code = code(&b, &Authorize::new(&rp, &pkce), &person).await;
    let before = exchange(&app, &rp, &code, &pkce.verifier).await;
    let old_token = before.body["id_token"].as_str().unwrap().to_owned();

    let server = app.server();
    let new_kid = lendhub_idp::keys::rotate(server.store.as_ref(), &server.master_key, 0)
        .await
        .unwrap();
    // Instances re-read the ring within 30 s; a restart reads it at once.
    let mut app = app;
    app.restart().await;
    let jwks = reply(
        app.http
            .get(format!("{}/.well-known/jwks.json", app.sso))
            .send()
            .await
            .unwrap(),
    )
    .await;
    let kids: Vec<&str> = jwks.body["keys"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["kid"].as_str().unwrap())
        .collect();
    assert_eq!(kids.len(), 2);
    assert_eq!(kids[0], new_kid);
    assert!(
        verify_id_token(&app, &old_token, &rp.client_id)
            .await
            .is_ok()
    );
    let r = refresh(&app, &rp, before.body["refresh_token"].as_str().unwrap()).await;
    let new_token = r.body["id_token"].as_str().unwrap();
    assert_eq!(
        jsonwebtoken::decode_header(new_token)
            .unwrap()
            .kid
            .as_deref(),
        Some(new_kid.as_str())
    );
    assert!(
        verify_id_token(&app, new_token, &rp.client_id)
            .await
            .is_ok()
    );
}

/// Cookies are `Secure` when the provider is served over HTTPS.
#[tokio::test]
async fn cookies_are_secure_behind_an_https_issuer() {
    let site = crate::support::Site::new().await;
    let mut config = crate::support::test_config(&site);
    config.sso.public_url = Some("https://sso.lendhub.test".parse().unwrap());
    let app = App::spawn_with(config, site).await;
    assert_eq!(app.server().sso_url, "https://sso.lendhub.test");
    assert_eq!(discovery(&app).await["issuer"], "https://sso.lendhub.test");
    let rp = rp(&app, false).await;
    let pkce = pkce();
    let b = Browser::new(&app);
    let r = b.get(&Authorize::new(&rp, &pkce).url()).await;
    let cookie = r.set_cookies().join("\n");
    assert!(cookie.contains("; Secure"), "{cookie}");
    let mut no_openid = Authorize::new(&rp, &pkce);
    no_openid.scope = "email";
    let refused = b.get(&no_openid.url()).await;
    assert_eq!(
        query_param(refused.location(), "iss").as_deref(),
        Some("https://sso.lendhub.test")
    );
}

/// Unknown routes and methods get an answer in the provider's own forms.
#[tokio::test]
async fn unknown_routes_get_a_page() {
    let app = App::spawn().await;
    let b = Browser::new(&app);
    let r = b.get("/nowhere").await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
    assert_eq!(r.error_code(), Some("route_not_found"));
    assert!(r.headers.get("x-service-request-id").is_some());
}

/// The CLI: users and clients are created with one JSON object on stdout,
/// and the keys rotate, while the server runs.
#[tokio::test]
async fn users_clients_and_keys_are_managed_from_the_cli() {
    use crate::support::process::{cli, cli_input, launch};
    let site = crate::support::Site::new().await;
    let server = launch(&site);
    // The password comes on standard input, never as an argument.
    let user: Value = serde_json::from_str(&cli_input(
        &site,
        &[],
        &[
            "sso",
            "users",
            "create",
            "--email",
            "Director@Example.com",
            "--given-name",
            "Grace",
            "--family-name",
            "Hopper",
            "--company-number",
            "07654321",
            "--company-name",
            "Compilers Ltd",
            "--company-role",
            "director",
            "--email-verified",
        ],
        "a long enough password\n",
    ))
    .unwrap();
    assert!(user["sub"].as_str().unwrap().starts_with("usr_"));
    assert_eq!(user["email"], "director@example.com");

    let confidential: Value = serde_json::from_str(&cli(
        &site,
        &[
            "sso",
            "clients",
            "create",
            "--name",
            "Portal",
            "--redirect-uri",
            "https://portal.example/cb",
            "--redirect-uri",
            "http://127.0.0.1:8000/cb",
            "--post-logout-redirect-uri",
            "https://portal.example/bye",
        ],
    ))
    .unwrap();
    assert!(
        confidential["client_id"]
            .as_str()
            .unwrap()
            .starts_with("rp_")
    );
    assert!(
        confidential["client_secret"]
            .as_str()
            .unwrap()
            .starts_with("rpsk_")
    );
    assert_eq!(confidential["redirect_uris"].as_array().unwrap().len(), 2);
    let public: Value = serde_json::from_str(&cli(
        &site,
        &[
            "sso",
            "clients",
            "create",
            "--name",
            "App",
            "--redirect-uri",
            "http://localhost:3000/cb",
            "--public",
        ],
    ))
    .unwrap();
    assert!(public.get("client_secret").is_none());
    assert_eq!(public["token_endpoint_auth_method"], "none");

    // Refused: plain http to a non-loopback host; a duplicate email; a
    // short password; no password at all on standard input.
    let user = |email: &'static str| {
        vec![
            "sso",
            "users",
            "create",
            "--email",
            email,
            "--given-name",
            "G",
            "--family-name",
            "H",
            "--company-number",
            "1",
            "--company-name",
            "C",
            "--company-role",
            "r",
        ]
    };
    for (args, input) in [
        (
            vec![
                "sso",
                "clients",
                "create",
                "--name",
                "X",
                "--redirect-uri",
                "http://portal.example/cb",
            ],
            "",
        ),
        (user("director@example.com"), "another long one\n"),
        (user("new@example.com"), "short\n"),
        (user("new@example.com"), ""),
    ] {
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_lendhub"))
            .args(&args)
            .envs(site.env())
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        std::io::Write::write_all(&mut child.stdin.take().unwrap(), input.as_bytes()).unwrap();
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert!(!out.stderr.is_empty());
    }

    let http = reqwest::Client::new();
    let jwks = |http: reqwest::Client, sso: String| async move {
        http.get(format!("{sso}/.well-known/jwks.json"))
            .send()
            .await
            .unwrap()
            .json::<Value>()
            .await
            .unwrap()
    };
    let before = jwks(http.clone(), server.sso.clone()).await;
    let rotated: Value = serde_json::from_str(&cli(&site, &["sso", "keys", "rotate"])).unwrap();
    assert_eq!(rotated["keys"].as_array().unwrap().len(), 2);
    assert_eq!(rotated["keys"][1]["kid"], before["keys"][0]["kid"]);
    assert_eq!(rotated["keys"][1]["state"], "previous");
    assert!(
        server
            .stdout
            .iter()
            .any(|l| l.starts_with("sso listening on http://127.0.0.1:"))
    );
}

/// What the OpenID Foundation basic plan sends that a code-flow provider must
/// accept or refuse cleanly (see docs/oidc-conformance.md): parameters it does
/// not act on, no nonce, `login_hint`, a POSTed authorization request,
/// `id_token_hint` with `prompt=none`, `max_age=10000`, a missing
/// `response_type`, `request_uri`, and the access token in a UserInfo body.
#[tokio::test]
async fn what_the_conformance_plan_sends() {
    let app = App::spawn().await;
    let person = person(&app).await;
    let rp = rp(&app, false).await;
    let pkce = pkce();

    // oidcc-ensure-request-with-unknown-parameter-succeeds, -display-page,
    // -ui-locales, -claims-locales, -acr-values, -claims-essential.
    let b = Browser::new(&app);
    let mut req = Authorize::new(&rp, &pkce);
    req.extra = vec![
        ("display", "page"),
        ("ui_locales", "en-GB fr"),
        ("claims_locales", "en"),
        ("acr_values", "1 2"),
        ("claims", r#"{"userinfo":{"name":{"essential":true}}}"#),
        ("extra_parameter", "ignored"),
    ];
    let code = self::code(&b, &req, &person).await;
    assert_eq!(exchange(&app, &rp, &code, &pkce.verifier).await.status, 200);

    // oidcc-ensure-request-without-nonce-succeeds-for-code-flow.
    let mut req = Authorize::new(&rp, &pkce);
    req.nonce = None;
    req.extra = vec![("display", "popup")];
    let code = self::code(&b, &req, &person).await;
    let t = exchange(&app, &rp, &code, &pkce.verifier).await;
    let claims = verify_id_token(&app, t.body["id_token"].as_str().unwrap(), &rp.client_id)
        .await
        .unwrap();
    assert!(claims.get("nonce").is_none());

    // oidcc-id-token-hint: prompt=none with the hint, in the same session.
    let mut req = Authorize::new(&rp, &pkce);
    let hint = t.body["id_token"].as_str().unwrap().to_owned();
    req.extra = vec![("prompt", "none"), ("id_token_hint", hint.as_str())];
    let code = code_from(&b.get(&req.url()).await, "state-123");
    let again = exchange(&app, &rp, &code, &pkce.verifier).await;
    let claims2 = verify_id_token(
        &app,
        again.body["id_token"].as_str().unwrap(),
        &rp.client_id,
    )
    .await
    .unwrap();
    assert_eq!(claims2["sub"], claims["sub"]);

    // oidcc-max-age-10000: a recent session is not asked again.
    let mut req = Authorize::new(&rp, &pkce);
    req.extra = vec![("max_age", "10000")];
    code_from(&b.get(&req.url()).await, "state-123");

    // oidcc-login-hint: the email field is filled in.
    let fresh = Browser::new(&app);
    let mut req = Authorize::new(&rp, &pkce);
    req.extra = vec![("login_hint", person.email.as_str())];
    let started = fresh.get(&req.url()).await;
    let form = fresh.get(started.location()).await;
    assert!(
        form.body
            .contains(&format!("name=\"email\" value=\"{}\"", person.email)),
        "{}",
        form.body
    );

    // oidcc-ensure-post-request-succeeds: the request as a form POST.
    let query = Authorize::new(&rp, &pkce).url();
    let posted = fresh
        .post(
            "/authorize",
            &url::form_urlencoded::parse(query.trim_start_matches("/authorize?").as_bytes())
                .map(|(k, v)| (k.into_owned(), v.into_owned()))
                .collect::<Vec<_>>()
                .iter()
                .map(|(k, v)| (k.as_str(), v.as_str()))
                .collect::<Vec<_>>(),
        )
        .await;
    assert_eq!(posted.status, 303, "{}", posted.body);
    assert!(posted.location().starts_with("/sign-in?ticket="));

    // oidcc-response-type-missing; request_uri (rejected as unsupported).
    let missing = Authorize::new(&rp, &pkce)
        .url()
        .replace("response_type=code&", "");
    let r = fresh.get(&missing).await;
    assert_eq!(
        query_param(r.location(), "error").as_deref(),
        Some("invalid_request")
    );
    assert_eq!(
        query_param(r.location(), "state").as_deref(),
        Some("state-123")
    );
    let mut req = Authorize::new(&rp, &pkce);
    req.extra = vec![("request_uri", "https://rp.example/request.jwt")];
    let r = fresh.get(&req.url()).await;
    assert_eq!(
        query_param(r.location(), "error").as_deref(),
        Some("request_uri_not_supported")
    );

    // oidcc-userinfo-post-body: the token as a form parameter; not both ways.
    let access = t.body["access_token"].as_str().unwrap();
    let in_body = reply(
        app.http
            .post(format!("{}/userinfo", app.sso))
            .form(&[("access_token", access)])
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(in_body.status, 200, "{}", in_body.body);
    assert_eq!(in_body.body["sub"], person.sub.as_str());
    let both = reply(
        app.http
            .post(format!("{}/userinfo", app.sso))
            .bearer_auth(access)
            .form(&[("access_token", access)])
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(both.status, 400);
    assert_eq!(both.body["error"], "invalid_request");
}

/// Guessing is throttled per account and per client address (issue #19):
/// five free tries at an account, then a doubling wait with a clear
/// message and `Retry-After`, the same for an account that does not exist;
/// during the wait even the right password is not checked; once waited, the
/// right password signs in and the account starts again.
#[tokio::test]
async fn sign_in_guesses_are_throttled_without_telling_which_accounts_exist() {
    let app = App::spawn().await;
    // The waits are read to the millisecond: only the test moves time.
    app.clock.freeze();
    let person = person(&app).await;
    let rp = rp(&app, false).await;
    let pkce = pkce();
    let b = Browser::new(&app);
    let started = b.get(&Authorize::new(&rp, &pkce).url()).await;
    let form = b.get(started.location()).await;
    let ticket = form.hidden("ticket").unwrap();
    let csrf = form.hidden("csrf_token").unwrap();
    let attempt = |email: String, password: &'static str| {
        let (b, ticket, csrf) = (&b, ticket.clone(), csrf.clone());
        async move {
            b.post(
                "/sign-in",
                &[
                    ("ticket", ticket.as_str()),
                    ("csrf_token", csrf.as_str()),
                    ("email", email.as_str()),
                    ("password", password),
                ],
            )
            .await
        }
    };
    let mut throttled = Vec::new();
    for email in [person.email.clone(), "nobody@example.com".to_owned()] {
        for _ in 0..5 {
            assert_eq!(attempt(email.clone(), "wrong password").await.status, 401);
        }
        let r = attempt(email.clone(), "wrong password").await;
        assert_eq!(r.status, 429, "{}", r.body);
        assert_eq!(r.headers["retry-after"], "1");
        assert!(
            r.body
                .contains("Too many sign-in attempts. Wait 1 second and try again."),
            "{}",
            r.body
        );
        throttled.push(r.body.replace(&email, ""));
    }
    assert_eq!(throttled[0], throttled[1], "the same answer either way");
    // Even the right password waits its turn.
    assert_eq!(attempt(person.email.clone(), PASSWORD).await.status, 429);
    app.advance(time::Duration::seconds(1));
    let r = attempt(person.email.clone(), "wrong password").await;
    assert_eq!(r.status, 401, "waited a second");
    let r = attempt(person.email.clone(), "wrong password").await;
    assert_eq!(r.status, 429, "now two seconds");
    assert!(r.body.contains("Wait 2 seconds"), "{}", r.body);
    app.advance(time::Duration::seconds(2));
    let r = attempt(person.email.clone(), PASSWORD).await;
    assert_eq!(r.status, 303, "signed in: {}", r.body);
    // A good sign-in starts the account again.
    for _ in 0..5 {
        assert_eq!(
            attempt(person.email.clone(), "wrong password").await.status,
            401
        );
    }

    // One address guessing across many accounts is throttled too: twenty
    // free tries, of which this address has used sixteen (refused attempts
    // do not count; the good one was given back).
    let mut statuses = Vec::new();
    for n in 0..5 {
        statuses.push(
            attempt(format!("someone{n}@example.com"), "guess")
                .await
                .status,
        );
    }
    assert_eq!(statuses, [401, 401, 401, 401, 429], "{statuses:?}");
}

/// The operator lists people and clients, and disables them (issue #19):
/// a disabled person's tokens stop working, their refresh token is refused
/// and they cannot sign in (answered as a wrong password); a disabled
/// client is unknown to /authorize and /token.
#[tokio::test]
async fn the_operator_lists_and_disables_people_and_clients() {
    use crate::support::process::cli;
    let app = App::spawn().await;
    let person = person(&app).await;
    let rp = rp(&app, false).await;
    let pkce = pkce();
    let b = Browser::new(&app);
    let code = code(&b, &Authorize::new(&rp, &pkce), &person).await;
    let t = exchange(&app, &rp, &code, &pkce.verifier).await;
    assert_eq!(t.status, 200, "{}", t.body);
    let access = t.body["access_token"].as_str().unwrap().to_owned();
    let refresh_token = t.body["refresh_token"].as_str().unwrap().to_owned();
    assert_eq!(userinfo(&app, &access).await.status, 200);

    let listed = cli(&app._site, &["sso", "users", "list"]);
    let me: serde_json::Value = listed
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|u| u["email"] == person.email.as_str())
        .expect("listed");
    assert_eq!(me["sub"], person.sub.as_str());
    assert!(me["disabled_at_ms"].is_null());
    assert!(!listed.contains("argon2"), "never a password hash");

    let out = cli(&app._site, &["sso", "users", "disable", &person.email]);
    assert!(out.contains("\"status\":\"disabled\""), "{out}");
    crate::support::eventually_async("the access token stops working", || async {
        userinfo(&app, &access).await.status == 401
    })
    .await;
    let r = refresh(&app, &rp, &refresh_token).await;
    assert_oauth_error(&r, 400, "invalid_grant");
    let me: serde_json::Value = cli(&app._site, &["sso", "users", "list"])
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|u| u["email"] == person.email.as_str())
        .expect("still listed");
    assert!(me["disabled_at_ms"].is_i64(), "{me}");
    // Signing in again: answered as a wrong password, saying nothing more.
    let fresh = Browser::new(&app);
    let started = fresh.get(&Authorize::new(&rp, &pkce).url()).await;
    let signed_in = sign_in(&fresh, &started, &person).await;
    assert_eq!(signed_in.status, 401, "{}", signed_in.body);
    assert!(
        signed_in
            .body
            .contains("Enter a correct email address and password.")
    );

    // A disabled client is unknown.
    let clients = cli(&app._site, &["sso", "clients", "list"]);
    assert!(clients.contains(&rp.client_id), "{clients}");
    assert!(!clients.contains("secret_hash") && !clients.contains("client_secret\""));
    // The server remembers clients until the identity epoch moves; the
    // command line's change moves it, and the server sees that within a poll.
    cli(&app._site, &["sso", "clients", "disable", &rp.client_id]);
    propagated("the disabled client is forgotten", || async {
        let page = Browser::new(&app)
            .get(&Authorize::new(&rp, &pkce).url())
            .await;
        page.error_code() == Some("unknown_client")
    })
    .await;
    let r = exchange(&app, &rp, "a-code", &pkce.verifier).await;
    assert_oauth_error(&r, 401, "invalid_client");
}
