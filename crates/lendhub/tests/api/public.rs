//! The public ring's catalogue: quotes, products, loyalty, pricing, billers,
//! CMS pages, the per-address window and the envelope.

use serde_json::{Value, json};

use crate::partner::assert_hub_error;
use crate::support::{App, Reply, Site, reply, test_config};

pub async fn public_get(app: &App, path: &str) -> Reply {
    reply(
        app.http
            .get(format!("{}/public/v1{path}", app.hub))
            .send()
            .await
            .unwrap(),
    )
    .await
}

#[tokio::test]
async fn a_quote_is_computed_from_the_pricing_configuration() {
    let app = App::spawn().await;
    // Frozen, so the dates asserted below cannot cross midnight mid-test.
    app.clock.freeze();
    let pricing = public_get(&app, "/config/pricing").await;
    assert_eq!(pricing.status, 200);
    let loan = &pricing.body["business_loan"];
    assert_eq!(loan["daily_interest_bps"], 25);
    assert_eq!(loan["establishment_fee_pence"], 500);

    let q = public_get(&app, "/quote/onetime?amount=100&term=14").await;
    assert_eq!(q.status, 200, "{}", q.body);
    let b = &q.body;
    assert_eq!(b["object"], "quote");
    assert_eq!(b["pricing_version"], pricing.body["version"]);
    assert_eq!(
        (b["amount_pence"].as_i64(), b["term_days"].as_i64()),
        (Some(10_000), Some(14))
    );
    assert_eq!(b["frequency"], "weekly");
    // 10000 × 0.25 % × 7 days, then 5000 × 0.25 % × 7 (87.5 → 88).
    let schedule = b["schedule"].as_array().unwrap();
    let amounts: Vec<i64> = schedule
        .iter()
        .map(|i| i["amount_pence"].as_i64().unwrap())
        .collect();
    assert_eq!(amounts, [5_000 + 175 + 500, 5_000 + 88]);
    assert_eq!(b["total_repayable_pence"], 10_763);
    assert_eq!(b["fees_pence"], 500);
    assert_eq!(b["interest_pence"], 263);
    assert_eq!(b["cost_cap"]["applied"], false);
    // Dates follow the service clock.
    let today = lendhub_domain::clock::Clock::now(app.clock.as_ref()).date();
    assert_eq!(b["start_date"], today.to_string());
    assert_eq!(
        schedule[0]["due_date"],
        (today + time::Duration::days(7)).to_string()
    );
    let apr = b["apr_percent"].as_f64().unwrap();
    assert!(apr > 100.0, "{apr}");

    // Monthly, with pence in the amount; the final instalment absorbs rounding.
    let q = public_get(
        &app,
        "/quote/onetime?amount=333.33&term=84&frequency=monthly",
    )
    .await;
    assert_eq!(q.status, 200, "{}", q.body);
    let schedule = q.body["schedule"].as_array().unwrap();
    let principal: i64 = schedule
        .iter()
        .map(|i| i["principal_pence"].as_i64().unwrap())
        .sum();
    assert_eq!(principal, 33_333);
    let total: i64 = schedule
        .iter()
        .map(|i| i["amount_pence"].as_i64().unwrap())
        .sum();
    assert_eq!(total, q.body["total_repayable_pence"].as_i64().unwrap());
    assert_eq!(schedule.last().unwrap()["days_from_start"], 84);
}

#[tokio::test]
async fn bad_quote_inputs_name_the_field_and_the_bound() {
    let app = App::spawn().await;
    let r = public_get(&app, "/quote/onetime?amount=49.99&term=85").await;
    assert_hub_error(&r, 422, "validation_failed");
    assert_eq!(
        r.body["error"]["detail"],
        json!([
            {"field": "amount", "reason": "min_value", "bound": 50},
            {"field": "term", "reason": "max_value", "bound": 84}
        ])
    );
    let r = public_get(&app, "/quote/onetime?amount=501&term=13").await;
    assert_eq!(
        r.body["error"]["detail"],
        json!([
            {"field": "amount", "reason": "max_value", "bound": 500},
            {"field": "term", "reason": "min_value", "bound": 14}
        ])
    );
    let r = public_get(&app, "/quote/onetime?amount=1e2&term=two&frequency=daily").await;
    assert_eq!(
        r.body["error"]["detail"],
        json!([
            {"field": "amount", "reason": "invalid_amount"},
            {"field": "term", "reason": "invalid_integer"},
            {"field": "frequency", "reason": "invalid"}
        ])
    );
    let r = public_get(&app, "/quote/onetime?term=20").await;
    assert_eq!(
        r.body["error"]["detail"],
        json!([{"field": "amount", "reason": "required"}])
    );
    let r = public_get(&app, "/quote/onetime?amount=100.005&term=20").await;
    assert_eq!(r.body["error"]["detail"][0]["reason"], "too_many_decimals");
    assert_eq!(r.body["error"]["type"], "invalid_request_error");
    // A parameter given twice is ambiguous: refused, naming it.
    let r = public_get(&app, "/quote/onetime?amount=100&term=20&amount=200").await;
    assert_hub_error(&r, 400, "invalid_request");
    assert_eq!(
        r.body["error"]["message"],
        "`amount` is given more than once"
    );
}

#[tokio::test]
async fn quote_parameters_are_percent_decoded_and_others_ignored() {
    let app = App::spawn().await;
    app.clock.freeze();
    let plain = public_get(
        &app,
        "/quote/onetime?amount=250.5&term=42&frequency=fortnightly",
    )
    .await;
    assert_eq!(plain.status, 200, "{}", plain.body);
    let encoded = public_get(
        &app,
        "/quote/onetime?utm_source=x&amount=25%30.5&term=%342&frequency=fort%6Eightly&term_hint=7",
    )
    .await;
    assert_eq!(encoded.status, 200, "{}", encoded.body);
    assert_eq!(encoded.body, plain.body);
    assert_eq!(plain.body["amount_pence"], 25_050);
    assert_eq!(plain.body["frequency"], "fortnightly");
    // `+` is a space, and surrounding spaces are trimmed as before.
    let spaced = public_get(
        &app,
        "/quote/onetime?amount=+250.5+&term=42&frequency=fortnightly",
    )
    .await;
    assert_eq!(spaced.body, plain.body);
}

#[tokio::test]
async fn products_loyalty_and_flex_agree_with_the_configuration() {
    let app = App::spawn().await;
    let pricing = public_get(&app, "/config/pricing").await.body;
    let products = public_get(&app, "/products").await;
    assert_eq!(products.status, 200);
    assert!(products.header("cache-control").contains("max-age"));
    let data = products.body["data"].as_array().unwrap();
    let names: Vec<&str> = data.iter().map(|p| p["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["Business Loan", "Flex", "Slice"]);
    assert_eq!(
        data[0]["pricing"]["principal_min_pence"],
        pricing["business_loan"]["principal_min_pence"]
    );
    assert_eq!(data[0]["pricing"]["daily_interest_rate_percent"], "0.25");
    assert_eq!(data[2]["pricing"]["fee_percent"], "6.00");
    assert_eq!(data[2]["pricing"]["instalments_max"], 4);

    let tiers = public_get(&app, "/loyalty/tiers").await.body;
    let tiers = tiers["data"].as_array().unwrap();
    let names: Vec<&str> = tiers.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["Bronze", "Silver", "Gold", "Platinum"]);
    for (tier, configured) in tiers
        .iter()
        .zip(pricing["loyalty_tiers"].as_array().unwrap())
    {
        for key in [
            "threshold_loans_repaid",
            "cooldown_days",
            "arrangement_fee_discount_percent",
            "benefits",
        ] {
            assert_eq!(tier[key], configured[key], "{key}");
        }
    }

    let flex = public_get(&app, "/quote/flex").await;
    assert_eq!(flex.status, 200);
    let example = &flex.body["representative_example"];
    assert_eq!(example["product"], "flex");
    assert_eq!(
        example["amount_pence"],
        pricing["flex"]["representative"]["drawn_pence"]
    );
    assert_eq!(example["fees_pence"], 0);
    assert!(example["apr_percent"].as_f64().unwrap() > 0.0);

    let health = public_get(&app, "/healthz").await;
    assert_eq!(
        (health.status.as_u16(), &health.body),
        (200, &json!({"status": "ok"}))
    );
}

/// The operator's pricing file replaces the shipped one everywhere; here a
/// rate high enough for the cost cap to bind.
#[tokio::test]
async fn an_operator_pricing_file_drives_every_figure() {
    let site = Site::new().await;
    let mut pricing: Value = serde_json::from_str(lendhub_hub::public::DEFAULT_PRICING).unwrap();
    pricing["version"] = json!("operator-1");
    pricing["business_loan"]["daily_interest_bps"] = json!(300);
    pricing["business_loan"]["principal_max_pence"] = json!(100_000);
    let path = site.path().join("pricing.json");
    std::fs::write(&path, pricing.to_string()).unwrap();
    let mut config = test_config(&site);
    config.public.pricing_file = Some(path);
    let app = App::spawn_with(config, site).await;

    assert_eq!(
        public_get(&app, "/config/pricing").await.body["version"],
        "operator-1"
    );
    let products = public_get(&app, "/products").await.body;
    assert_eq!(
        products["data"][0]["pricing"]["principal_max_pence"],
        100_000
    );
    let q = public_get(&app, "/quote/onetime?amount=1000&term=84").await;
    assert_eq!(q.status, 200, "{}", q.body);
    assert_eq!(q.body["pricing_version"], "operator-1");
    assert_eq!(q.body["cost_cap"]["applied"], true);
    assert_eq!(
        q.body["total_cost_pence"], 100_000,
        "capped at 100 % of the principal"
    );
    assert_eq!(q.body["total_repayable_pence"], 200_000);
}

#[tokio::test]
async fn slice_billers_are_public_safe_and_switchable() {
    let app = App::spawn().await;
    let r = public_get(&app, "/slice/billers").await;
    assert_eq!(r.status, 200);
    let billers = r.body["data"].as_array().unwrap();
    assert!(!billers.is_empty());
    for b in billers {
        let mut keys: Vec<&str> = b.as_object().unwrap().keys().map(String::as_str).collect();
        keys.sort_unstable();
        assert_eq!(
            keys,
            ["category", "id", "max_pence", "min_pence", "name", "object"]
        );
    }
    assert!(!r.body.to_string().contains("sort_code"));

    let site = Site::new().await;
    let mut config = test_config(&site);
    config.public.slice_billers = false;
    let off = App::spawn_with(config, site).await;
    assert_hub_error(
        &public_get(&off, "/slice/billers").await,
        403,
        "capability_denied",
    );
}

#[tokio::test]
async fn cms_pages_come_from_the_cli_and_only_when_published() {
    let site = Site::new().await;
    let config = test_config(&site);
    let app = App::spawn_with(config, site).await;
    let page = app._site.path().join("about.md");
    std::fs::write(
        &page,
        "# About us\n\nWe lend to *companies*. <script>x()</script>\n\n\
         [Apply](javascript:alert(document.cookie)) ![logo](javascript:alert(1)) \
         <javascript:alert(2)> [Terms](https://lender.example/terms)\n",
    )
    .unwrap();
    let cli = |args: &[&str]| crate::support::process::cli(&app._site, args);
    let put: Value = serde_json::from_str(&cli(&[
        "cms",
        "put",
        "about",
        "--file",
        page.to_str().unwrap(),
    ]))
    .unwrap();
    assert_eq!(
        put,
        json!({"key": "about", "title": "About us", "version": 1, "published": false})
    );
    assert_hub_error(
        &public_get(&app, "/cms/pages/about").await,
        404,
        "cms_page_not_found",
    );
    let put: Value = serde_json::from_str(&cli(&[
        "cms",
        "put",
        "about",
        "--file",
        page.to_str().unwrap(),
        "--publish",
    ]))
    .unwrap();
    assert_eq!(put["version"], 2);
    let r = public_get(&app, "/cms/pages/about").await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.body["title"], "About us");
    assert_eq!(r.body["version"], 2);
    let html = r.body["body_html"].as_str().unwrap();
    assert!(
        html.contains("<em>companies</em>") && !html.contains("<script>"),
        "{html}"
    );
    // Links keep only safe targets (issue #44, item 10).
    assert!(
        !html.contains("href=\"javascript") && !html.contains("src=\"javascript"),
        "{html}"
    );
    assert!(
        html.contains("href=\"https://lender.example/terms\""),
        "{html}"
    );
    assert_hub_error(
        &public_get(&app, "/cms/pages/nope").await,
        404,
        "cms_page_not_found",
    );
    let listed = cli(&["cms", "list"]);
    assert!(
        listed.contains("\"about\"") && !listed.contains("We lend"),
        "{listed}"
    );
}

#[tokio::test]
async fn sixty_requests_a_minute_per_address_then_429_until_the_window_turns() {
    let app = App::spawn().await;
    for i in 0..60 {
        let r = public_get(&app, "/products").await;
        assert_eq!(r.status, 200, "request {i}");
        assert_eq!(r.header("ratelimit-limit"), "60");
        assert_eq!(r.header("ratelimit-remaining"), (59 - i).to_string());
        assert_eq!(r.header("ratelimit-policy"), "60;w=60");
    }
    let refused = public_get(&app, "/quote/flex").await;
    assert_hub_error(&refused, 429, "rate_limited");
    assert_eq!(refused.body["error"]["type"], "rate_limit_error");
    assert_eq!(refused.body["error"]["retryable"], true);
    let retry_after: u64 = refused.header("retry-after").parse().unwrap();
    assert!((1..=60).contains(&retry_after), "{retry_after}");
    assert!(refused.body["error"]["retry_after_ms"].as_u64().unwrap() <= 60_000);
    // Unknown routes count too, and are refused alike.
    assert_eq!(public_get(&app, "/nope").await.status, 429);
    // A forged X-Forwarded-For from an untrusted peer changes nothing.
    let forged = app
        .http
        .get(format!("{}/public/v1/products", app.hub))
        .header("x-forwarded-for", "198.51.100.7")
        .send()
        .await
        .unwrap();
    assert_eq!(forged.status(), 429);
    app.advance(time::Duration::seconds(retry_after as i64));
    assert_eq!(
        public_get(&app, "/products").await.status,
        200,
        "a new window"
    );
}

#[tokio::test]
async fn behind_a_trusted_proxy_each_forwarded_address_has_its_own_window() {
    let site = Site::new().await;
    let mut config = test_config(&site);
    config.public.trusted_proxies = vec!["127.0.0.1/32".parse().unwrap()];
    config.public.rate_limit_requests = 2;
    let app = App::spawn_with(config, site).await;
    let from = |ip: &'static str| {
        let app = &app;
        async move {
            app.http
                .get(format!("{}/public/v1/healthz", app.hub))
                .header("x-forwarded-for", ip)
                .send()
                .await
                .unwrap()
                .status()
        }
    };
    assert_eq!(from("198.51.100.1").await, 200);
    assert_eq!(from("198.51.100.1").await, 200);
    assert_eq!(from("198.51.100.1").await, 429);
    assert_eq!(
        from("198.51.100.2").await,
        200,
        "another client behind the proxy"
    );
}

#[tokio::test]
async fn the_public_ring_speaks_the_hub_envelope() {
    let app = App::spawn().await;
    let r = public_get(&app, "/no/such/route").await;
    assert_hub_error(&r, 404, "route_not_found");
    assert!(r.header("x-service-correlation-id").starts_with("cor_"));
    // Every path under the prefix is the ring's: counted in its window.
    for path in ["", "/", "/no", "/no/such/route"] {
        let r = public_get(&app, path).await;
        assert_hub_error(&r, 404, "route_not_found");
        assert!(!r.header("ratelimit-remaining").is_empty(), "{path:?}");
    }
    let r = reply(
        app.http
            .delete(format!("{}/public/v1/products", app.hub))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_hub_error(&r, 405, "method_not_allowed");
    // Reads are open to any origin.
    let r = app
        .http
        .get(format!("{}/public/v1/products", app.hub))
        .header("origin", "https://anywhere.example")
        .send()
        .await
        .unwrap();
    assert_eq!(r.headers()["access-control-allow-origin"], "*");
}

#[tokio::test]
async fn the_public_ring_serves_its_openapi_document() {
    let app = App::spawn().await;
    let r = public_get(&app, "/openapi.json").await;
    assert_eq!(r.status, 200, "{}", r.body);
    let committed: Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../docs/openapi/public.json"
        ))
        .unwrap(),
    )
    .unwrap();
    assert_eq!(
        r.body, committed,
        "the served document is the committed one"
    );
    assert!(
        r.headers.get("ratelimit-limit").is_some(),
        "inside the window"
    );
}

/// The catalogue's lists use the one list envelope and pager: the whole
/// list by default, pages by `limit` and the item keys as cursors.
#[tokio::test]
async fn catalogue_lists_use_the_one_list_envelope_and_pager() {
    let app = App::spawn().await;
    let all = public_get(&app, "/products").await.body;
    assert_eq!(all["object"], "list");
    assert_eq!(all["url"], "/public/v1/products");
    assert_eq!(all["has_more"], false);
    assert_eq!(all["next_cursor"], serde_json::Value::Null);
    assert_eq!(all["data"].as_array().unwrap().len(), 3);
    let first = public_get(&app, "/products?limit=1").await.body;
    assert_eq!(first["data"][0]["id"], "business_loan");
    assert_eq!(first["has_more"], true);
    assert_eq!(first["next_cursor"], "business_loan");
    let next = public_get(&app, "/products?limit=1&starting_after=business_loan")
        .await
        .body;
    assert_eq!(next["data"][0]["id"], all["data"][1]["id"]);
    let back = public_get(
        &app,
        &format!(
            "/products?ending_before={}",
            all["data"][2]["id"].as_str().unwrap()
        ),
    )
    .await
    .body;
    assert_eq!(back["data"].as_array().unwrap().len(), 2);
    assert_hub_error(
        &public_get(&app, "/products?starting_after=nothing").await,
        404,
        "resource_not_found",
    );
    assert_hub_error(
        &public_get(&app, "/products?limit=0").await,
        422,
        "validation_failed",
    );
    let tiers = public_get(&app, "/loyalty/tiers?limit=2&starting_after=Bronze")
        .await
        .body;
    let names: Vec<&str> = tiers["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["Silver", "Gold"]);
    assert_eq!(tiers["next_cursor"], "Gold");
    let billers = public_get(&app, "/slice/billers").await.body;
    assert_eq!(billers["url"], "/public/v1/slice/billers");
    assert_eq!(billers["has_more"], false);
}
