//! The partner MCP tier: JSON-RPC over HTTP with a bearer token, the tool
//! list filtered by scope, tools answering real stored data, every error
//! code, and forged tokens rejected with their documented codes.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use lendhub_domain::partner::project::Tier;
use lendhub_domain::partner::scope::PartnerScopes;
use serde_json::{Value, json};

use crate::partner::{Partner, access_token, assert_hub_error, partner};
use crate::support::{App, Reply, reply};

async fn rpc(app: &App, token: Option<&str>, body: Value) -> Reply {
    let mut r = app
        .http
        .post(format!("{}/partner/v1/mcp", app.hub))
        .json(&body);
    if let Some(t) = token {
        r = r.bearer_auth(t);
    }
    reply(r.send().await.unwrap()).await
}

fn call(id: i64, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// A partner whose project includes a sandbox client, and that client's token.
async fn linked_partner(app: &App, scopes: &str) -> (Partner, String) {
    let sandbox = app.client("sandbox:read sandbox:write").await;
    let sandbox_token = app.token_for(&sandbox).await;
    let server = app.server();
    let created = lendhub_hub::partner::clients::create(
        server.store.as_ref(),
        &server.master_key,
        "acme",
        &PartnerScopes::parse(scopes).unwrap(),
        Tier::Launch,
        Some(&sandbox.id),
        0,
    )
    .await
    .unwrap();
    (
        Partner {
            id: created.client_id,
            secret: created.client_secret.into_exposed(),
        },
        sandbox_token,
    )
}

/// The text of a tool result that reports a failure. It carries text only:
/// a `structuredContent` would have to match the tool's `outputSchema`,
/// which describes answers.
fn tool_failure(r: &Reply) -> String {
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.body["result"]["isError"], true, "{}", r.body);
    assert!(
        r.body["result"].get("structuredContent").is_none(),
        "{}",
        r.body
    );
    r.body["result"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .to_owned()
}

pub fn tool_names(r: &Reply) -> Vec<String> {
    r.body["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn initialize_list_and_call_with_a_scoped_token() {
    let app = App::spawn().await;
    let (p, sandbox_token) =
        linked_partner(&app, "mcp.read ops.read account.read owner.read").await;
    let token = access_token(&app, &p).await;
    let init = rpc(&app, Some(&token), call(1, "initialize", json!({"protocolVersion": "2099-01-01", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}))).await;
    assert_eq!(init.status, 200, "{}", init.body);
    assert_eq!(init.body["id"], 1);
    assert_eq!(
        init.body["result"]["protocolVersion"], "2025-06-18",
        "a newer revision is answered with ours"
    );
    assert!(init.body["result"]["capabilities"]["tools"].is_object());
    let notified = rpc(
        &app,
        Some(&token),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    )
    .await;
    assert_eq!(notified.status, 202);
    assert_eq!(notified.body, Value::String(String::new()));
    assert_eq!(
        rpc(&app, Some(&token), call(2, "ping", json!({})))
            .await
            .body["result"],
        json!({})
    );

    let all = rpc(&app, Some(&token), call(3, "tools/list", json!({}))).await;
    assert_eq!(
        tool_names(&all),
        [
            "decisioning_explanation",
            "service_status",
            "account_profile",
            "owner_clients"
        ]
    );
    for tool in all.body["result"]["tools"].as_array().unwrap() {
        assert_eq!(tool["annotations"]["readOnlyHint"], true);
        assert!(tool["inputSchema"].is_object() && tool["outputSchema"].is_object());
    }
    let narrow = {
        let r = crate::partner::token(&app, &p, Some("ops.read")).await;
        r.body["access_token"].as_str().unwrap().to_owned()
    };
    assert_eq!(
        tool_names(&rpc(&app, Some(&narrow), call(4, "tools/list", json!({}))).await),
        ["service_status"]
    );
    let hidden = rpc(
        &app,
        Some(&narrow),
        call(
            5,
            "tools/call",
            json!({"name": "decisioning_explanation", "arguments": {"reference": "x"}}),
        ),
    )
    .await;
    assert_hub_error(&hidden, 404, "mcp_tool_not_found");

    // A real stored decision of this partner's project.
    let declined = app
        .create_application(&sandbox_token, "00000403", 1_000_000)
        .await;
    let reference = declined.body["id"].as_str().unwrap();
    let explained = rpc(
        &app,
        Some(&token),
        call(
            6,
            "tools/call",
            json!({"name": "decisioning_explanation", "arguments": {"reference": reference}}),
        ),
    )
    .await;
    assert_eq!(explained.status, 200, "{}", explained.body);
    let result = &explained.body["result"];
    assert_eq!(result["isError"], false);
    let s = &result["structuredContent"];
    assert_eq!(s["outcome"], "declined");
    assert_eq!(s["reference"], reference);
    assert_eq!(s["company_number"], "00000403");
    assert_eq!(
        s["reasons"][0]["code"],
        declined.body["decision"]["reasons"][0]["code"]
    );
    assert!(s["reasons"][0]["explanation"].as_str().unwrap().len() > 10);
    assert!(s["facts"]["credit_score"].is_number());
    let text: Value = serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(&text, s, "the text content is the same JSON");

    // Another partner's decision is not this partner's to explain.
    let (other, other_sandbox) = linked_partner(&app, "mcp.read").await;
    let theirs = app
        .create_application(&other_sandbox, "00000401", 1_000_000)
        .await;
    let r = rpc(&app, Some(&token), call(7, "tools/call", json!({"name": "decisioning_explanation", "arguments": {"reference": theirs.body["id"]}}))).await;
    let why = tool_failure(&r);
    assert!(why.starts_with("not_found: no application"), "{why}");
    let _ = other;

    let profile = rpc(
        &app,
        Some(&token),
        call(8, "tools/call", json!({"name": "account_profile"})),
    )
    .await;
    assert_eq!(
        profile.body["result"]["structuredContent"]["tier"],
        "launch"
    );
    let owners = rpc(
        &app,
        Some(&token),
        call(
            9,
            "tools/call",
            json!({"name": "owner_clients", "arguments": {}}),
        ),
    )
    .await;
    let listed = owners.body["result"]["structuredContent"]["clients"].to_string();
    assert!(
        listed.contains(&p.id) && !listed.contains(&p.secret) && !listed.contains("sk_"),
        "{listed}"
    );
    let status = rpc(
        &app,
        Some(&token),
        call(10, "tools/call", json!({"name": "service_status"})),
    )
    .await;
    assert_eq!(status.body["result"]["structuredContent"]["database"], "ok");
}

#[tokio::test]
async fn mcp_errors_have_their_codes() {
    let app = App::spawn().await;
    let p = partner(&app, "mcp.read").await;
    let token = access_token(&app, &p).await;
    let no_method = rpc(&app, Some(&token), json!({"jsonrpc": "2.0", "id": 1})).await;
    assert_hub_error(&no_method, 422, "validation_failed");
    assert_eq!(
        no_method.body["error"]["detail"],
        json!([{"field": "method", "reason": "required"}])
    );
    assert_hub_error(
        &rpc(&app, Some(&token), call(2, "resources/list", json!({}))).await,
        404,
        "mcp_method_not_found",
    );
    assert_hub_error(
        &rpc(
            &app,
            Some(&token),
            call(3, "tools/call", json!({"name": "nope"})),
        )
        .await,
        404,
        "mcp_tool_not_found",
    );
    let bad = rpc(
        &app,
        Some(&token),
        call(
            4,
            "tools/call",
            json!({"name": "decisioning_explanation", "arguments": {}}),
        ),
    )
    .await;
    assert_hub_error(&bad, 422, "mcp_invalid_params");
    assert_eq!(
        bad.body["error"]["detail"][0]["field"],
        "arguments.reference"
    );
    let extra = rpc(&app, Some(&token), call(5, "tools/call", json!({"name": "decisioning_explanation", "arguments": {"reference": "01ARZ3NDEKTSV4RRFFQ69G5FAV", "x": 1}}))).await;
    assert_hub_error(&extra, 422, "mcp_invalid_params");
    let url = format!("{}/partner/v1/mcp", app.hub);
    let get = reply(app.http.get(&url).bearer_auth(&token).send().await.unwrap()).await;
    assert_hub_error(&get, 405, "method_not_allowed");
    let broken = reply(
        app.http
            .post(&url)
            .bearer_auth(&token)
            .header("content-type", "application/json")
            .body("{")
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_hub_error(&broken, 400, "invalid_json");
    let untyped = reply(
        app.http
            .post(&url)
            .bearer_auth(&token)
            .body("{}")
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_hub_error(&untyped, 400, "missing_content_type");
    let text = reply(
        app.http
            .post(&url)
            .bearer_auth(&token)
            .header("content-type", "text/plain")
            .body("{}")
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_hub_error(&text, 415, "unsupported_media_type");
    let origin = reply(
        app.http
            .post(&url)
            .bearer_auth(&token)
            .header("origin", "https://evil.example")
            .json(&call(6, "ping", json!({})))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_hub_error(&origin, 403, "origin_not_allowed");
}

fn sign_with(
    header: Value,
    claims: Value,
    key: &jsonwebtoken::EncodingKey,
    alg: jsonwebtoken::Algorithm,
) -> String {
    let mut h = jsonwebtoken::Header::new(alg);
    h.typ = header["typ"].as_str().map(str::to_owned);
    h.kid = header["kid"].as_str().map(str::to_owned);
    jsonwebtoken::encode(&h, &claims, key).unwrap()
}

#[tokio::test]
async fn forged_and_stale_tokens_are_refused_with_their_codes() {
    let app = App::spawn().await;
    let p = partner(&app, "mcp.read").await;
    let good = access_token(&app, &p).await;
    let ping = |t: String| {
        let app = &app;
        async move { rpc(app, Some(&t), call(1, "ping", json!({}))).await }
    };
    assert_eq!(ping(good.clone()).await.status, 200);
    let parts: Vec<&str> = good.split('.').collect();
    let decode =
        |s: &str| -> Value { serde_json::from_slice(&URL_SAFE_NO_PAD.decode(s).unwrap()).unwrap() };
    let (header, claims) = (decode(parts[0]), decode(parts[1]));
    let encode = |v: &Value| URL_SAFE_NO_PAD.encode(v.to_string());

    assert_hub_error(
        &rpc(&app, None, call(1, "ping", json!({}))).await,
        401,
        "missing_api_key",
    );
    let expect = |r: &Reply, code: &str| {
        assert_hub_error(r, 401, code);
        assert!(
            r.header("www-authenticate")
                .contains("error=\"invalid_token\""),
            "{}",
            r.header("www-authenticate")
        );
    };
    // alg none, unsigned.
    let none = format!(
        "{}.{}.",
        encode(&json!({"alg": "none", "typ": "at+jwt"})),
        parts[1]
    );
    expect(&ping(none).await, "unauthenticated");
    // HS256 "signed" with the public key as the HMAC secret.
    let jwks: Value = app
        .http
        .get(format!("{}/partner/v1/oauth/jwks", app.hub))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let public = URL_SAFE_NO_PAD
        .decode(jwks["keys"][0]["x"].as_str().unwrap())
        .unwrap();
    let hs = sign_with(
        header.clone(),
        claims.clone(),
        &jsonwebtoken::EncodingKey::from_secret(&public),
        jsonwebtoken::Algorithm::HS256,
    );
    expect(&ping(hs).await, "unauthenticated");
    // Unknown kid.
    let mut unknown = header.clone();
    unknown["kid"] = json!("not-a-key");
    expect(
        &ping(format!("{}.{}.{}", encode(&unknown), parts[1], parts[2])).await,
        "unauthenticated",
    );
    // Altered payload (a wider scope), original signature.
    let mut wider = claims.clone();
    wider["scope"] = json!("mcp.read owner.read");
    expect(
        &ping(format!("{}.{}.{}", parts[0], encode(&wider), parts[2])).await,
        "unauthenticated",
    );
    // Signed with the service's real key, but for another issuer or audience.
    let server = app.server();
    let ring = server
        .store
        .signing_keys(lendhub_hub::PARTNER_KEYS)
        .await
        .unwrap();
    let seed = server
        .master_key
        .open("signing-key/partner", &ring[0].sealed_private)
        .unwrap();
    let seed: [u8; 32] = seed.as_slice().try_into().unwrap();
    let der = ed25519_dalek::pkcs8::EncodePrivateKey::to_pkcs8_der(
        &ed25519_dalek::SigningKey::from_bytes(&seed),
    )
    .unwrap();
    let ours = jsonwebtoken::EncodingKey::from_ed_der(der.as_bytes());
    let eddsa = jsonwebtoken::Algorithm::EdDSA;
    let resigned = sign_with(header.clone(), claims.clone(), &ours, eddsa);
    assert_eq!(
        ping(resigned).await.status,
        200,
        "the re-signed original is valid"
    );
    let mut other_aud = claims.clone();
    other_aud["aud"] = json!("https://elsewhere.example/partner/v1");
    expect(
        &ping(sign_with(header.clone(), other_aud, &ours, eddsa)).await,
        "audience_mismatch",
    );
    let mut other_iss = claims.clone();
    other_iss["iss"] = json!("https://evil.example");
    expect(
        &ping(sign_with(header.clone(), other_iss, &ours, eddsa)).await,
        "unauthenticated",
    );
    let mut wrong_typ = header.clone();
    wrong_typ["typ"] = json!("JWT");
    expect(
        &ping(sign_with(wrong_typ, claims.clone(), &ours, eddsa)).await,
        "unauthenticated",
    );
    // Revoked.
    let revoked = access_token(&app, &p).await;
    crate::partner::hub_post(
        &app,
        "/partner/v1/oauth/revoke",
        Some((&p.id, &p.secret)),
        &[("token", &revoked)],
    )
    .await;
    expect(&ping(revoked).await, "token_revoked");
    // A suspended partner's token.
    let q = partner(&app, "mcp.read").await;
    let suspended = access_token(&app, &q).await;
    // Used first, so the instance remembers the partner as active.
    assert_eq!(ping(suspended.clone()).await.status, 200);
    let change = lendhub_store::PartnerClientChange::Status(
        lendhub_domain::partner::project::PartnerStatus::Suspended,
    );
    server
        .store
        .update_partner_client(&q.id, change, 0)
        .await
        .unwrap();
    // Written behind the server's back, as the CLI would: seen within the
    // directory's sync interval.
    crate::support::propagated("the suspension", || async {
        ping(suspended.clone()).await.status == 403
    })
    .await;
    assert_hub_error(&ping(suspended).await, 403, "account_suspended");
    // Expired, by the clock.
    app.advance(time::Duration::seconds(300));
    expect(&ping(good.clone()).await, "token_expired");
}

/// The official MCP Python SDK, with bearer tokens of two scopes.
#[tokio::test]
async fn the_official_mcp_sdk_lists_and_calls_tools() {
    let app = App::spawn().await;
    let (p, sandbox_token) = linked_partner(&app, "mcp.read ops.read").await;
    let full = access_token(&app, &p).await;
    let narrow = crate::partner::token(&app, &p, Some("ops.read")).await.body["access_token"]
        .as_str()
        .unwrap()
        .to_owned();
    let approved = app
        .create_application(&sandbox_token, "00000401", 1_000_000)
        .await;
    let reference = approved.body["id"].as_str().unwrap().to_owned();
    let r = crate::support::python_json(
        "partner_mcp.py",
        vec![
            ("MCP_URL", format!("{}/partner/v1/mcp", app.hub)),
            ("FULL_TOKEN", full),
            ("NARROW_TOKEN", narrow),
            ("REFERENCE", reference),
        ],
    )
    .await;

    assert_eq!(r["protocol_version"], "2025-06-18");
    assert_eq!(r["server_name"], "lendhub-partner");
    assert_eq!(
        r["full_tools"],
        json!(["decisioning_explanation", "service_status"])
    );
    assert_eq!(r["narrow_tools"], json!(["service_status"]));
    assert_eq!(r["call_is_error"], false);
    assert_eq!(r["structured"]["outcome"], "approved");
    let text: Value = serde_json::from_str(r["text"].as_str().unwrap()).unwrap();
    assert_eq!(text, r["structured"]);
}

/// The build tier's bucket (10/s, burst 50), on the injectable clock: the
/// token request and every call take one token each.
#[tokio::test]
async fn rate_limits_exhaust_and_recover_on_the_clock() {
    let app = App::spawn().await;
    app.clock.freeze();
    let p = partner(&app, "mcp.read").await;
    let issued = crate::partner::token(&app, &p, None).await;
    assert_eq!(issued.header("ratelimit-limit"), "50");
    assert_eq!(issued.header("ratelimit-remaining"), "49");
    assert_eq!(issued.header("ratelimit-policy"), "10;w=1;burst=50");
    let token = issued.body["access_token"].as_str().unwrap().to_owned();
    for i in 0..49 {
        let r = rpc(&app, Some(&token), call(i, "ping", json!({}))).await;
        assert_eq!(r.status, 200, "call {i}: {}", r.body);
        assert_eq!(r.header("ratelimit-remaining"), (48 - i).to_string());
    }
    let limited = rpc(&app, Some(&token), call(50, "ping", json!({}))).await;
    assert_hub_error(&limited, 429, "rate_limited");
    assert_eq!(limited.body["error"]["type"], "rate_limit_error");
    assert_eq!(limited.body["error"]["retry_after_ms"], 100);
    assert_eq!(limited.header("retry-after"), "1");
    assert_eq!(limited.header("ratelimit-remaining"), "0");
    assert_eq!(limited.header("ratelimit-reset"), "5");
    // Another project's bucket is its own.
    let q = partner(&app, "mcp.read").await;
    assert_eq!(crate::partner::token(&app, &q, None).await.status, 200);

    app.advance(time::Duration::milliseconds(100));
    assert_eq!(
        rpc(&app, Some(&token), call(51, "ping", json!({})))
            .await
            .status,
        200
    );
    assert_eq!(
        rpc(&app, Some(&token), call(52, "ping", json!({})))
            .await
            .status,
        429
    );
    app.advance(time::Duration::seconds(5));
    let full = rpc(&app, Some(&token), call(53, "ping", json!({}))).await;
    assert_eq!(full.header("ratelimit-remaining"), "49");
}

#[tokio::test]
async fn a_partner_without_a_sandbox_client_is_told_how_to_link_one() {
    let app = App::spawn().await;
    let unlinked = partner(&app, "mcp.read").await;
    let token = access_token(&app, &unlinked).await;
    let args = json!({"name": "decisioning_explanation",
                      "arguments": {"reference": "01M8033JVX3JGXW0FWVDK5H72F"}});
    let r = rpc(&app, Some(&token), call(1, "tools/call", args)).await;
    let why = tool_failure(&r);
    assert!(why.contains("--sandbox-client-id"), "{why}");
}

#[tokio::test]
async fn an_explanation_gives_the_facts_stored_with_the_decision() {
    let app = App::spawn().await;
    let (p, sandbox_token) = linked_partner(&app, "mcp.read").await;
    let token = access_token(&app, &p).await;
    let declined = app
        .create_application(&sandbox_token, "00000403", 1_000_000)
        .await;
    let id = declined.body["id"].as_str().unwrap();
    let server = app.server();
    let owner = {
        let listed = server.store.list_partner_clients().await.unwrap();
        listed[0].sandbox_client_id.clone().unwrap()
    };
    // Rewrite what was stored, as a later fixtures release could never do:
    // the explanation must follow the record, not today's fixtures.
    let mut stored = server
        .store
        .application(
            &lendhub_domain::tenant::Tenant::sandbox_client(&owner),
            &lendhub_domain::sandbox::ids::ApplicationId::parse(id).unwrap(),
        )
        .await
        .unwrap()
        .unwrap();
    let mut facts = stored.decision.facts.expect("the engine keeps its facts");
    assert_eq!(
        facts.credit_score, 320,
        "00000403's profile when it was decided"
    );
    facts.credit_score = 777;
    stored.decision.facts = Some(facts);
    stored.version += 1;
    let record = lendhub_store::ApplicationRecord {
        rendered: declined.body.to_string(),
        application: stored.clone(),
    };
    let mut writes = lendhub_store::WriteSet::default();
    writes.push(lendhub_store::SandboxWrite::UpdateApplication(record));
    server.store.commit(writes).await.unwrap();
    let explain = json!({"name": "decisioning_explanation", "arguments": {"reference": id}});
    let r = rpc(&app, Some(&token), call(1, "tools/call", explain.clone())).await;
    assert_eq!(
        r.body["result"]["structuredContent"]["facts"]["credit_score"], 777,
        "{}",
        r.body
    );

    // A decision stored before facts were kept explains itself without them.
    stored.decision.facts = None;
    stored.version += 1;
    let record = lendhub_store::ApplicationRecord {
        rendered: declined.body.to_string(),
        application: stored,
    };
    let mut writes = lendhub_store::WriteSet::default();
    writes.push(lendhub_store::SandboxWrite::UpdateApplication(record));
    server.store.commit(writes).await.unwrap();
    let r = rpc(&app, Some(&token), call(2, "tools/call", explain)).await;
    let s = &r.body["result"]["structuredContent"];
    assert!(s["facts"].is_null(), "{}", r.body);
    assert_eq!(s["outcome"], "declined");
}
