//! The identity provider as real relying parties and a real browser see it:
//! the Rust `openidconnect` crate, Python's authlib (with PyJWT), headless
//! Chromium through Selenium and Debian's chromedriver; and two `lendhub
//! serve` processes on one PostgreSQL database acting as one provider.

use openidconnect::core::{
    CoreAuthenticationFlow, CoreClient, CoreGenderClaim, CoreProviderMetadata,
};
use openidconnect::{
    AccessTokenHash, AdditionalClaims, AuthorizationCode, ClientId, ClientSecret, CsrfToken,
    IssuerUrl, Nonce, OAuth2TokenResponse, PkceCodeChallenge, RedirectUrl, RefreshToken, Scope,
    TokenResponse, UserInfoClaims,
};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::support::oidc::*;
use crate::support::{App, python_json};

/// The `business` scope's claims, which are not standard OpenID claims.
#[derive(Debug, Deserialize, Serialize)]
struct Business {
    company_number: Option<String>,
    company_name: Option<String>,
    company_role: Option<String>,
}
impl AdditionalClaims for Business {}

/// The `openidconnect` crate discovers the provider, builds the authorization
/// URL (code, PKCE S256, nonce), verifies the ID token (ES256 against the
/// JWKS, issuer, audience, nonce, `at_hash`), reads UserInfo and refreshes.
#[tokio::test]
async fn the_openidconnect_crate_completes_the_code_flow() {
    let app = App::spawn().await;
    let person = person(&app).await;
    let rp = rp(&app, false).await;
    // The crate's own advice: an HTTP client that follows no redirects.
    let http = openidconnect::reqwest::ClientBuilder::new()
        .redirect(openidconnect::reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let issuer = IssuerUrl::new(app.server().sso_url.clone()).unwrap();
    let metadata = CoreProviderMetadata::discover_async(issuer, &http)
        .await
        .unwrap();
    let client = CoreClient::from_provider_metadata(
        metadata,
        ClientId::new(rp.client_id.clone()),
        rp.client_secret.clone().map(ClientSecret::new),
    )
    .set_redirect_uri(RedirectUrl::new(REDIRECT_URI.to_owned()).unwrap());
    let (challenge, verifier) = PkceCodeChallenge::new_random_sha256();
    let (url, csrf, nonce) = client
        .authorize_url(
            CoreAuthenticationFlow::AuthorizationCode,
            CsrfToken::new_random,
            Nonce::new_random,
        )
        .add_scope(Scope::new("profile".into()))
        .add_scope(Scope::new("email".into()))
        .add_scope(Scope::new("business".into()))
        .set_pkce_challenge(challenge)
        .url();

    // A person signs in and consents in a browser.
    let b = Browser::new(&app);
    let started = b.get(url.as_str()).await;
    assert_eq!(started.status, 303, "{}", started.body);
    let form = b.get(started.location()).await;
    let signed_in = b
        .post(
            "/sign-in",
            &[
                ("ticket", form.hidden("ticket").unwrap().as_str()),
                ("csrf_token", form.hidden("csrf_token").unwrap().as_str()),
                ("email", person.email.as_str()),
                ("password", PASSWORD),
            ],
        )
        .await;
    let back = decide(&b, signed_in.location(), true).await;
    let code = code_from(&back, csrf.secret());

    let tokens = client
        .exchange_code(AuthorizationCode::new(code))
        .unwrap()
        .set_pkce_verifier(verifier)
        .request_async(&http)
        .await
        .unwrap();
    let id_token = tokens.id_token().expect("an ID token");
    let id_verifier = client.id_token_verifier();
    let claims = id_token.claims(&id_verifier, &nonce).unwrap();
    assert_eq!(claims.subject().as_str(), person.sub);
    let expected = claims.access_token_hash().expect("at_hash");
    let actual = AccessTokenHash::from_token(
        tokens.access_token(),
        id_token.signing_alg().unwrap(),
        id_token.signing_key(&id_verifier).unwrap(),
    )
    .unwrap();
    assert_eq!(&actual, expected);
    assert!(claims.auth_time().is_some());
    // A different nonce is refused by the relying party.
    assert!(
        id_token
            .claims(&id_verifier, &Nonce::new("other".into()))
            .is_err()
    );

    let info: UserInfoClaims<Business, CoreGenderClaim> = client
        .user_info(tokens.access_token().to_owned(), None)
        .unwrap()
        .request_async(&http)
        .await
        .unwrap();
    assert_eq!(info.subject().as_str(), person.sub);
    assert_eq!(
        info.email().map(|e| e.as_str()),
        Some(person.email.as_str())
    );
    assert_eq!(info.email_verified(), Some(true));
    assert_eq!(
        info.given_name()
            .and_then(|n| n.get(None))
            .map(|n| n.as_str()),
        Some("Ada")
    );
    assert!(info.updated_at().is_some());
    assert_eq!(
        info.additional_claims().company_number.as_deref(),
        Some("01234567")
    );
    assert_eq!(
        info.additional_claims().company_role.as_deref(),
        Some("director")
    );

    let refresh = tokens.refresh_token().unwrap().clone();
    let refreshed = client
        .exchange_refresh_token(&refresh)
        .unwrap()
        .request_async(&http)
        .await
        .unwrap();
    assert_ne!(
        refreshed.refresh_token().unwrap().secret(),
        refresh.secret()
    );
    let again = client
        .exchange_refresh_token(&RefreshToken::new(refresh.secret().clone()))
        .unwrap()
        .request_async(&http)
        .await;
    let err = format!("{:?}", again.unwrap_err());
    assert!(err.contains("invalid_grant"), "{err}");
}

/// Python's authlib as the relying party (PKCE, nonce), filling in the real
/// forms over HTTP; the ID token checked by authlib's OpenID Connect claims
/// validation and by PyJWT against the JWKS.
#[tokio::test]
async fn authlib_completes_the_code_flow_and_sees_refresh_reuse_rejected() {
    let app = App::spawn().await;
    let person = person(&app).await;
    let rp = rp(&app, false).await;
    let result = python_json(
        "sso_authlib.py",
        vec![
            ("SSO", app.sso.clone()),
            ("ISSUER", app.server().sso_url.clone()),
            ("CLIENT_ID", rp.client_id.clone()),
            ("CLIENT_SECRET", rp.client_secret.clone().unwrap()),
            ("REDIRECT_URI", REDIRECT_URI.to_owned()),
            ("EMAIL", person.email.clone()),
            ("PASSWORD", PASSWORD.to_owned()),
        ],
    )
    .await;
    assert_eq!(result["id_token_header"]["alg"], "ES256");
    assert_eq!(result["authlib_claims"]["sub"], person.sub.as_str());
    assert_eq!(result["authlib_claims"]["aud"], rp.client_id.as_str());
    assert_eq!(result["pyjwt_claims"]["sub"], person.sub.as_str());
    assert_eq!(result["pyjwt_claims"]["nonce"], result["nonce"]);
    assert_eq!(result["token"]["token_type"], "Bearer");
    assert_eq!(result["token"]["expires_in"], 3600);
    assert_eq!(result["userinfo"]["sub"], person.sub.as_str());
    assert_eq!(result["userinfo"]["email"], person.email.as_str());
    assert_eq!(result["userinfo"]["company_name"], "Analytical Engines Ltd");
    assert_eq!(result["refreshed"], true);
    assert_eq!(result["reuse_error"], "invalid_grant");
    assert_eq!(result["newest_refresh_after_reuse"], "invalid_grant");
    assert_eq!(result["userinfo_after_reuse"], 401);
    assert_eq!(result["wrong_nonce_rejected"], true);
}

/// Headless Chromium (Debian's package, driven by its chromedriver) signs in
/// through the real pages and lands on the client's redirect URI with a code.
#[tokio::test]
async fn headless_chromium_signs_in_through_the_pages() {
    let app = App::spawn().await;
    let person = person(&app).await;
    // The browser lands on a callback the test script serves itself.
    let port = crate::support::unclaimed_port();
    let callback = format!("http://127.0.0.1:{port}/callback");
    let server = app.server();
    let rp = lendhub_idp::clients::create(
        server.store.as_ref(),
        &server.master_key,
        lendhub_idp::clients::NewClient {
            name: "Browser Test Portal",
            redirect_uris: std::slice::from_ref(&callback),
            post_logout_redirect_uris: &[],
            public: false,
        },
        0,
    )
    .await
    .unwrap();
    let pkce = pkce();
    let mut q = url::form_urlencoded::Serializer::new(String::new());
    q.append_pair("response_type", "code")
        .append_pair("client_id", &rp.client_id)
        .append_pair("redirect_uri", &callback)
        .append_pair("scope", "openid profile email business")
        .append_pair("state", "browser-state")
        .append_pair("nonce", "browser-nonce")
        .append_pair("code_challenge", &pkce.challenge)
        .append_pair("code_challenge_method", "S256");
    let result = python_json(
        "sso_browser.py",
        vec![
            (
                "AUTHORIZE_URL",
                format!("{}/authorize?{}", app.sso, q.finish()),
            ),
            ("CALLBACK_PORT", port.to_string()),
            ("EMAIL", person.email.clone()),
            ("PASSWORD", PASSWORD.to_owned()),
        ],
    )
    .await;
    assert_eq!(result["sign_in_title"], "Sign in – lendhub");
    assert!(
        result["consent_text"]
            .as_str()
            .unwrap()
            .contains("See your email address")
    );
    assert_eq!(result["callback"]["state"], "browser-state");
    let code = result["callback"]["code"].as_str().unwrap();
    let creds = Rp {
        client_id: rp.client_id.clone(),
        client_secret: rp.client_secret.clone().map(|s| s.into_exposed()),
    };
    let t = token(
        &app,
        &creds,
        &[
            ("grant_type", "authorization_code"),
            ("code", code),
            ("redirect_uri", &callback),
            ("code_verifier", &pkce.verifier),
        ],
    )
    .await;
    assert_eq!(t.status, 200, "{}", t.body);
    let claims = verify_id_token(&app, t.body["id_token"].as_str().unwrap(), &rp.client_id)
        .await
        .unwrap();
    assert_eq!(claims["nonce"], "browser-nonce");
    assert_eq!(claims["sub"], person.sub.as_str());
}

/// Two instances on one PostgreSQL database: a person signs in on one, the
/// client redeems and refreshes on the other, and a code presented to both
/// at once is honoured once.
#[tokio::test]
async fn two_instances_share_sign_ins_codes_and_refresh_tokens() {
    use crate::support::Site;
    use crate::support::process::{cli_input, cli_with, launch_with};
    use base64::Engine;

    let site = Site::postgres().await;
    let key = base64::engine::general_purpose::STANDARD.encode(
        <lendhub_domain::crypto::MasterKey as lendhub_system::GenerateKey>::generate().as_bytes(),
    );
    let env = [
        ("LENDHUB_SECRETS__MASTER_KEY", key.as_str()),
        ("LENDHUB_SSO__PUBLIC_URL", "http://sso.lendhub.test"),
    ];
    let a = launch_with(&site, &env);
    let b = launch_with(&site, &env);
    let user: Value = serde_json::from_str(&cli_input(
        &site,
        &env,
        &[
            "sso",
            "users",
            "create",
            "--email",
            "pair@example.com",
            "--given-name",
            "Ada",
            "--family-name",
            "Lovelace",
            "--company-number",
            "01234567",
            "--company-name",
            "Analytical Engines Ltd",
            "--company-role",
            "director",
        ],
        &format!("{PASSWORD}\n"),
    ))
    .unwrap();
    let client: Value = serde_json::from_str(&cli_with(
        &site,
        &env,
        &[
            "sso",
            "clients",
            "create",
            "--name",
            "Pair",
            "--redirect-uri",
            REDIRECT_URI,
        ],
    ))
    .unwrap();
    let rp = Rp {
        client_id: client["client_id"].as_str().unwrap().to_owned(),
        client_secret: client["client_secret"].as_str().map(str::to_owned),
    };
    let person = Person {
        email: "pair@example.com".into(),
        sub: user["sub"].as_str().unwrap().to_owned(),
    };
    let http = reqwest::Client::new();
    let exchange_at = |base: String, code: String, verifier: String| {
        let http = http.clone();
        let (id, secret) = (rp.client_id.clone(), rp.client_secret.clone());
        async move {
            let r = http
                .post(format!("{base}/token"))
                .basic_auth(id, secret)
                .form(&[
                    ("grant_type", "authorization_code"),
                    ("code", code.as_str()),
                    ("redirect_uri", REDIRECT_URI),
                    ("code_verifier", verifier.as_str()),
                ])
                .send()
                .await
                .unwrap();
            (r.status().as_u16(), r.json::<Value>().await.unwrap())
        }
    };

    // Sign in on A (the ticket, session and consent live in the database),
    // redeem on B, then refresh on A with what B issued.
    let pkce1 = pkce();
    let browser = Browser::at(&a.sso);
    let code1 = code(&browser, &Authorize::new(&rp, &pkce1), &person).await;
    let (status, t) = exchange_at(b.sso.clone(), code1, pkce1.verifier.clone()).await;
    assert_eq!(status, 200, "{t}");
    let refreshed = http
        .post(format!("{}/token", a.sso))
        .basic_auth(&rp.client_id, rp.client_secret.as_deref())
        .form(&[
            ("grant_type", "refresh_token"),
            ("refresh_token", t["refresh_token"].as_str().unwrap()),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(refreshed.status(), 200);
    // B's session cookie works on A: single sign-on across instances.
    let on_b = Browser::at(&b.sso);
    *on_b.cookies.lock() = browser.cookies.lock().clone();
    let pkce2 = pkce();
    let sso = on_b.get(&Authorize::new(&rp, &pkce2).url()).await;
    let code2 = code_from(&sso, "state-123");

    // The same code at both instances at once: one 200, one invalid_grant.
    let (x, y) = tokio::join!(
        exchange_at(a.sso.clone(), code2.clone(), pkce2.verifier.clone()),
        exchange_at(b.sso.clone(), code2, pkce2.verifier.clone()),
    );
    let mut statuses = [x.0, y.0];
    statuses.sort_unstable();
    assert_eq!(statuses, [200, 400], "{x:?} {y:?}");
    let refused = if x.0 == 400 { &x.1 } else { &y.1 };
    assert_eq!(refused["error"], "invalid_grant");

    // Both instances publish the same keys under the same issuer.
    let jwks = |base: String| {
        let http = http.clone();
        async move {
            http.get(format!("{base}/.well-known/jwks.json"))
                .send()
                .await
                .unwrap()
                .json::<Value>()
                .await
                .unwrap()
        }
    };
    assert_eq!(jwks(a.sso.clone()).await, jwks(b.sso.clone()).await);
}
