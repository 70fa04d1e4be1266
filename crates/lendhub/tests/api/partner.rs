//! The partner ring's token plane on the hub listener: client-credentials
//! tokens as EdDSA JWTs, introspection, revocation, the JWKS and key
//! rotation, the metadata documents, the hub envelope, and the planned tier.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use lendhub_domain::partner::project::{PartnerStatus, Tier};
use lendhub_domain::partner::scope::PartnerScopes;
use lendhub_store::PartnerClientChange;
use serde_json::Value;

use crate::support::{App, Reply, reply};

pub struct Partner {
    pub id: String,
    pub secret: String,
}

pub async fn partner(app: &App, scopes: &str) -> Partner {
    let server = app.server();
    let created = lendhub_hub::partner::clients::create(
        server.store.as_ref(),
        &server.master_key,
        "acme",
        &PartnerScopes::parse(scopes).unwrap(),
        Tier::Build,
        None,
        0,
    )
    .await
    .unwrap();
    Partner {
        id: created.client_id,
        secret: created.client_secret.into_exposed(),
    }
}

pub async fn hub_post(
    app: &App,
    path: &str,
    auth: Option<(&str, &str)>,
    form: &[(&str, &str)],
) -> Reply {
    let mut request = app.http.post(format!("{}{path}", app.hub)).form(form);
    if let Some((id, secret)) = auth {
        request = request.basic_auth(id, Some(secret));
    }
    reply(request.send().await.unwrap()).await
}

pub async fn token(app: &App, p: &Partner, scope: Option<&str>) -> Reply {
    let mut form = vec![("grant_type", "client_credentials")];
    if let Some(s) = scope {
        form.push(("scope", s));
    }
    hub_post(
        app,
        "/partner/v1/oauth/token",
        Some((&p.id, &p.secret)),
        &form,
    )
    .await
}

pub async fn access_token(app: &App, p: &Partner) -> String {
    let r = token(app, p, None).await;
    assert_eq!(r.status, 200, "{}", r.body);
    r.body["access_token"].as_str().unwrap().to_owned()
}

fn segment(token: &str, i: usize) -> Value {
    let part = token.split('.').nth(i).unwrap();
    serde_json::from_slice(&URL_SAFE_NO_PAD.decode(part).unwrap()).unwrap()
}

/// The hub envelope, with the status and code expected.
pub fn assert_hub_error(r: &Reply, status: u16, code: &str) {
    assert_eq!(r.status.as_u16(), status, "{}", r.body);
    let e = &r.body["error"];
    assert_eq!(e["code"], code, "{}", r.body);
    assert!(e["message"].as_str().is_some_and(|m| !m.is_empty()));
    let correlation = e["correlation_id"].as_str().unwrap();
    assert!(correlation.starts_with("cor_"), "{correlation}");
    assert_eq!(r.header("x-service-correlation-id"), correlation);
    assert!(r.header("x-service-request-id").starts_with("req_"));
    // A 503 says for itself whether waiting helps (a switched-off tier does not).
    if status != 503 {
        assert_eq!(e["retryable"], matches!(status, 429 | 500), "{}", r.body);
    }
    if status == 401 {
        let challenge = r.header("www-authenticate");
        assert!(
            challenge.starts_with("Bearer resource_metadata=\"http://"),
            "{challenge}"
        );
        assert!(
            challenge.contains("/.well-known/oauth-protected-resource\""),
            "{challenge}"
        );
    }
}

async fn revoke(app: &App, caller: &Partner, token: &str) -> Reply {
    let auth = Some((caller.id.as_str(), caller.secret.as_str()));
    hub_post(app, "/partner/v1/oauth/revoke", auth, &[("token", token)]).await
}

async fn introspect(app: &App, caller: &Partner, token: &str) -> Value {
    let r = hub_post(
        app,
        "/partner/v1/oauth/introspect",
        Some((&caller.id, &caller.secret)),
        &[("token", token)],
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    r.body
}

#[tokio::test]
async fn tokens_are_eddsa_jwts_with_the_documented_claims() {
    let app = App::spawn().await;
    let p = partner(&app, "mcp.read ops.read").await;
    let basic = token(&app, &p, None).await;
    assert_eq!(basic.status, 200, "{}", basic.body);
    assert_eq!(basic.body["token_type"], "Bearer");
    assert_eq!(basic.body["expires_in"], 300);
    assert_eq!(basic.body["scope"], "mcp.read ops.read");
    assert!(basic.body.get("refresh_token").is_none());
    assert_eq!(basic.header("cache-control"), "no-store");
    let jwt = basic.body["access_token"].as_str().unwrap();
    let header = segment(jwt, 0);
    assert_eq!(header["alg"], "EdDSA");
    assert_eq!(header["typ"], "at+jwt");
    let claims = segment(jwt, 1);
    assert_eq!(claims["iss"], app.hub.as_str());
    assert_eq!(claims["aud"], format!("{}/partner/v1", app.hub));
    assert_eq!(claims["sub"], p.id.as_str());
    assert_eq!(claims["client_id"], p.id.as_str());
    assert_eq!(claims["scope"], "mcp.read ops.read");
    assert_eq!(
        claims["exp"].as_i64().unwrap() - claims["iat"].as_i64().unwrap(),
        300
    );
    assert_eq!(claims["nbf"], claims["iat"]);
    assert!(claims["jti"].as_str().is_some_and(|j| j.len() >= 16));

    // client_secret_post, and a narrower scope.
    let post = hub_post(
        &app,
        "/partner/v1/oauth/token",
        None,
        &[
            ("grant_type", "client_credentials"),
            ("scope", "ops.read"),
            ("client_id", &p.id),
            ("client_secret", &p.secret),
        ],
    )
    .await;
    assert_eq!(post.status, 200, "{}", post.body);
    assert_eq!(post.body["scope"], "ops.read");

    // The JWKS names the signing key.
    let jwks: Value = app
        .http
        .get(format!("{}/partner/v1/oauth/jwks", app.hub))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let keys = jwks["keys"].as_array().unwrap();
    assert!(keys.iter().any(|k| k["kid"] == header["kid"]
        && k["kty"] == "OKP"
        && k["crv"] == "Ed25519"
        && k["alg"] == "EdDSA"));
    assert!(
        keys.iter().all(|k| k.get("d").is_none()),
        "never a private part"
    );
}

#[tokio::test]
async fn token_errors_have_their_codes() {
    let app = App::spawn().await;
    let p = partner(&app, "mcp.read").await;
    let grant = [("grant_type", "client_credentials")];
    let none = hub_post(&app, "/partner/v1/oauth/token", None, &grant).await;
    assert_hub_error(&none, 401, "missing_api_key");
    let wrong = hub_post(
        &app,
        "/partner/v1/oauth/token",
        Some((&p.id, "sk_live_wrong")),
        &grant,
    )
    .await;
    assert_hub_error(&wrong, 401, "invalid_api_key");
    let sandbox = app.client("sandbox:read").await;
    let test_key = hub_post(
        &app,
        "/partner/v1/oauth/token",
        Some((&sandbox.id, &sandbox.secret)),
        &grant,
    )
    .await;
    assert_hub_error(&test_key, 401, "invalid_api_key");
    assert!(
        test_key.body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("test keys (pk_test_/sk_test_) belong to the sandbox")
    );
    // A secret that is neither live nor test is told what a partner secret
    // looks like, not that it belongs to the sandbox.
    let unprefixed = hub_post(
        &app,
        "/partner/v1/oauth/token",
        Some((&p.id, "not-a-key")),
        &grant,
    )
    .await;
    assert_hub_error(&unprefixed, 401, "invalid_api_key");
    let message = unprefixed.body["error"]["message"].as_str().unwrap();
    assert!(message.contains("starts with sk_live_"), "{message}");
    assert!(!message.contains("sandbox"), "{message}");
    let not_held = token(&app, &p, Some("owner.read")).await;
    assert_hub_error(&not_held, 403, "scope_not_granted");
    let unknown = token(&app, &p, Some("sandbox:write")).await;
    assert_hub_error(&unknown, 403, "scope_not_granted");
    let no_grant = hub_post(
        &app,
        "/partner/v1/oauth/token",
        Some((&p.id, &p.secret)),
        &[("scope", "mcp.read")],
    )
    .await;
    assert_hub_error(&no_grant, 422, "validation_failed");
    assert_eq!(no_grant.body["error"]["detail"][0]["field"], "grant_type");
    let other_grant = hub_post(
        &app,
        "/partner/v1/oauth/token",
        Some((&p.id, &p.secret)),
        &[("grant_type", "password")],
    )
    .await;
    assert_hub_error(&other_grant, 422, "validation_failed");
    let json = reply(
        app.http
            .post(format!("{}/partner/v1/oauth/token", app.hub))
            .basic_auth(&p.id, Some(&p.secret))
            .json(&serde_json::json!({"grant_type": "client_credentials"}))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_hub_error(&json, 415, "unsupported_media_type");

    let server = app.server();
    let suspend = PartnerClientChange::Status(PartnerStatus::Suspended);
    server
        .store
        .update_partner_client(&p.id, suspend, 1)
        .await
        .unwrap();
    crate::support::propagated("the suspension", || async {
        token(&app, &p, None).await.status == 403
    })
    .await;
    assert_hub_error(&token(&app, &p, None).await, 403, "account_suspended");
}

#[tokio::test]
async fn introspection_and_revocation_concern_only_the_callers_tokens() {
    let app = App::spawn().await;
    let (a, b) = (
        partner(&app, "mcp.read").await,
        partner(&app, "mcp.read").await,
    );
    let ta = access_token(&app, &a).await;
    let own = introspect(&app, &a, &ta).await;
    assert_eq!(own["active"], true);
    assert_eq!(own["client_id"], a.id.as_str());
    assert_eq!(own["scope"], "mcp.read");
    assert_eq!(own["token_type"], "Bearer");
    assert_eq!(
        introspect(&app, &b, &ta).await,
        serde_json::json!({"active": false}),
        "foreign tokens say nothing"
    );
    assert_eq!(introspect(&app, &a, "not-a-token").await["active"], false);
    let mut tampered = ta.clone();
    tampered.insert(tampered.len() - 3, 'x');
    assert_eq!(introspect(&app, &a, &tampered).await["active"], false);

    // B cannot revoke A's token; A can.
    assert_eq!(revoke(&app, &b, &ta).await.status, 200);
    assert_eq!(introspect(&app, &a, &ta).await["active"], true);
    assert_eq!(revoke(&app, &a, &ta).await.status, 200);
    assert_eq!(introspect(&app, &a, &ta).await["active"], false);
    let garbage = revoke(&app, &a, "x").await;
    assert_eq!(
        garbage.status, 200,
        "RFC 7009: invalid tokens are not an error"
    );
    let unauthenticated = hub_post(
        &app,
        "/partner/v1/oauth/introspect",
        None,
        &[("token", &ta)],
    )
    .await;
    assert_hub_error(&unauthenticated, 401, "missing_api_key");

    // Expiry follows the clock (stopped, so the machine's own seconds
    // cannot expire the token before the test moves it).
    app.clock.freeze();
    let fresh = access_token(&app, &a).await;
    app.advance(time::Duration::seconds(299));
    assert_eq!(introspect(&app, &a, &fresh).await["active"], true);
    app.advance(time::Duration::seconds(1));
    assert_eq!(introspect(&app, &a, &fresh).await["active"], false);
}

#[tokio::test]
async fn rotation_keeps_the_previous_key_verifying() {
    // A fixed public URL: the issuer must not change with the port across restarts.
    let site = crate::support::Site::new().await;
    let mut config = crate::support::test_config(&site);
    config.hub.public_url = Some("http://hub.lendhub.test".parse().unwrap());
    let app = App::spawn_with(config, site).await;
    let p = partner(&app, "mcp.read").await;
    let before = access_token(&app, &p).await;
    let server = app.server();
    let kid = lendhub_hub::keys::rotate(server.store.as_ref(), &server.master_key, 0)
        .await
        .unwrap();
    // Instances re-read the ring within 30 s; a restart reads it at once.
    let mut app = app;
    app.restart().await;
    let after = access_token(&app, &p).await;
    assert_eq!(
        segment(&after, 0)["kid"],
        kid.as_str(),
        "new tokens use the new key"
    );
    assert_ne!(segment(&before, 0)["kid"], kid.as_str());
    assert_eq!(
        introspect(&app, &p, &before).await["active"],
        true,
        "the previous key still verifies"
    );
    let jwks: Value = app
        .http
        .get(format!("{}/partner/v1/oauth/jwks", app.hub))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(jwks["keys"].as_array().unwrap().len(), 2);
    // A second rotation retires the first key: its tokens stop verifying.
    lendhub_hub::keys::rotate(app.server().store.as_ref(), &app.server().master_key, 0)
        .await
        .unwrap();
    app.restart().await;
    assert_eq!(introspect(&app, &p, &before).await["active"], false);
    assert_eq!(introspect(&app, &p, &after).await["active"], true);
}

#[tokio::test]
async fn metadata_documents_agree() {
    let app = App::spawn().await;
    let get = |path: &str| {
        let url = format!("{}{path}", app.hub);
        let http = app.http.clone();
        async move {
            http.get(url)
                .send()
                .await
                .unwrap()
                .json::<Value>()
                .await
                .unwrap()
        }
    };
    let server = get("/.well-known/oauth-authorization-server").await;
    let resource = get("/.well-known/oauth-protected-resource").await;
    assert_eq!(
        get("/.well-known/oauth-protected-resource/partner/v1").await,
        resource
    );
    let partner = format!("{}/partner/v1", app.hub);
    assert_eq!(server["issuer"], app.hub.as_str());
    assert_eq!(resource["resource"], partner.as_str());
    assert_eq!(resource["authorization_servers"][0], server["issuer"]);
    assert_eq!(resource["jwks_uri"], server["jwks_uri"]);
    assert_eq!(server["token_endpoint"], format!("{partner}/oauth/token"));
    assert_eq!(
        server["introspection_endpoint"],
        format!("{partner}/oauth/introspect")
    );
    assert_eq!(
        server["revocation_endpoint"],
        format!("{partner}/oauth/revoke")
    );
    assert_eq!(
        server["grant_types_supported"],
        serde_json::json!(["client_credentials"])
    );
    assert_eq!(
        server["token_endpoint_auth_methods_supported"],
        serde_json::json!(["client_secret_basic", "client_secret_post"])
    );
    assert_eq!(server["scopes_supported"], resource["scopes_supported"]);
    assert_eq!(
        server["scopes_supported"],
        serde_json::json!([
            "mcp.read",
            "ops.read",
            "account.read",
            "owner.read",
            "applications.read",
            "applications.write",
            "decisions.read",
            "payments.read",
            "payments.write",
            "accounts.read",
            "accounts.manage",
            "identity.read",
            "identity.write",
            "events.read",
            "webhooks.manage",
            "marketplace.read",
            "marketplace.write",
            "billing.read"
        ]),
        "canonical spellings only; the aliases are accepted, not advertised"
    );
    let jwks: Value = app
        .http
        .get(server["jwks_uri"].as_str().unwrap())
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(!jwks["keys"].as_array().unwrap().is_empty());
}

#[tokio::test]
async fn the_hub_envelope_and_the_planned_tier() {
    let app = App::spawn().await;
    let unknown = reply(
        app.http
            .get(format!("{}/partner/v1/nowhere", app.hub))
            .header("X-Request-Id", "trace-123")
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_hub_error(&unknown, 404, "route_not_found");
    assert_eq!(
        unknown.header("x-request-id"),
        "trace-123",
        "a caller's request id is echoed"
    );
    assert_eq!(unknown.body["error"]["type"], "invalid_request_error");
    // Every answer of the ring reports a bucket, an unknown path's too.
    for path in ["/partner/v1/nowhere", "/sandbox/v1/nowhere/at/all"] {
        let r = reply(
            app.http
                .get(format!("{}{path}", app.hub))
                .send()
                .await
                .unwrap(),
        )
        .await;
        assert_hub_error(&r, 404, "route_not_found");
        for header in [
            "ratelimit-limit",
            "ratelimit-remaining",
            "ratelimit-reset",
            "ratelimit-policy",
        ] {
            assert!(!r.header(header).is_empty(), "{path}: {header}");
        }
    }
    let own = reply(
        app.http
            .get(format!("{}/partner/v1/oauth/jwks", app.hub))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(
        own.header("x-request-id"),
        own.header("x-service-request-id")
    );
    let method = reply(
        app.http
            .get(format!("{}/partner/v1/oauth/token", app.hub))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_hub_error(&method, 405, "method_not_allowed");
    // Every operation the committed partner document names, but for the
    // live tier's own (the token plane and MCP), answers 503 while the
    // REST tier is off: read from the document, not from the list the
    // routes are built from, so a route missing from that list fails here.
    let document: Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../docs/openapi/partner.json"
        ))
        .unwrap(),
    )
    .unwrap();
    let mut operations: Vec<(String, String)> = document["paths"]
        .as_object()
        .unwrap()
        .iter()
        .filter(|(path, _)| !path.starts_with("/oauth/") && *path != "/mcp")
        .flat_map(|(path, item)| {
            item.as_object()
                .unwrap()
                .keys()
                .filter(|k| ["get", "post", "delete"].contains(&k.as_str()))
                .map(|verb| (verb.to_uppercase(), path.clone()))
                .collect::<Vec<_>>()
        })
        .collect();
    assert!(operations.len() >= 50, "{}", operations.len());
    operations.extend(
        lendhub_hub::partner::PLANNED_PATHS
            .iter()
            .map(|(verb, path)| ((*verb).to_owned(), (*path).to_owned())),
    );
    for (verb, path) in &operations {
        // Within the anonymous bucket's rate (the build tier's 10 a second).
        app.advance(time::Duration::milliseconds(150));
        let url = format!("{}/partner/v1{}", app.hub, path.replace("{id}", "x_1"));
        let request = match verb.as_str() {
            "GET" => app.http.get(url),
            "POST" => app.http.post(url),
            _ => app.http.delete(url),
        };
        let r = reply(request.send().await.unwrap()).await;
        assert_hub_error(&r, 503, "service_unavailable");
        assert_eq!(r.body["error"]["type"], "api_error");
        assert_eq!(
            r.body["error"]["retryable"], false,
            "no retry switches the tier on"
        );
        assert!(r.header("retry-after").is_empty());
        assert!(
            !r.header("ratelimit-limit").is_empty(),
            "{verb} {path}: every answer of the tier reports a bucket"
        );
    }
}

/// authlib (both client authentication methods, introspection) and PyJWT
/// (signature against the JWKS, issuer, audience), independent of our code.
#[tokio::test]
async fn third_party_oauth_and_jwt_libraries_accept_our_tokens() {
    let app = App::spawn().await;
    let p = partner(&app, "mcp.read ops.read").await;
    let result = crate::support::python_json(
        "partner_oauth.py",
        vec![
            ("HUB", app.hub.clone()),
            ("ISSUER", app.server().hub_url.clone()),
            ("CLIENT_ID", p.id.clone()),
            ("CLIENT_SECRET", p.secret.clone()),
        ],
    )
    .await;

    for method in ["client_secret_basic", "client_secret_post"] {
        let r = &result[method];
        assert_eq!(r["token_type"], "Bearer", "{method}");
        assert_eq!(r["expires_in"], 300);
        assert_eq!(r["scope"], "mcp.read");
        assert_eq!(r["claims"]["scope"], "mcp.read");
        assert_eq!(r["introspection"]["active"], true, "{method}: {r}");
    }
    assert_eq!(result["wrong_audience_rejected"], true);
}

#[tokio::test]
async fn the_agent_guide_matches_the_ring() {
    let app = App::spawn().await;
    let r = app
        .http
        .get(format!("{}/partner/v1/auth.md", app.hub))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert!(
        r.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/markdown")
    );
    let md = r.text().await.unwrap();
    let partner = format!("{}/partner/v1", app.hub);
    for needle in [
        format!("{partner}/oauth/token"),
        format!("{partner}/oauth/jwks"),
        format!("{partner}/mcp"),
        "client_secret_basic".into(),
        "2025-06-18".into(),
    ] {
        assert!(md.contains(&needle), "missing {needle}");
    }
    for tool in lendhub_hub::partner::MCP_TOOLS {
        let row = md
            .lines()
            .find(|l| l.contains(&format!("`{}`", tool.name)))
            .unwrap();
        assert!(
            row.starts_with(&format!(
                "| `{}`",
                lendhub_domain::partner::scope::Scope::as_str(tool.scope)
            )),
            "{row}"
        );
    }
}
