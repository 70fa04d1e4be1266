//! The public MCP server: JSON-RPC over HTTP without credentials, six
//! read-only tools computed like the REST endpoints, JSON-RPC errors, the
//! server card; then the official MCP Python SDK and the MCP Inspector CLI.

use serde_json::{Value, json};

use crate::public::public_get;
use crate::support::{App, Reply, reply};

async fn rpc(app: &App, body: Value) -> Reply {
    reply(
        app.http
            .post(format!("{}/public/v1/mcp", app.hub))
            .json(&body)
            .send()
            .await
            .unwrap(),
    )
    .await
}

fn call(id: u64, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

#[tokio::test]
async fn json_rpc_tools_answer_like_the_rest_endpoints() {
    let app = App::spawn().await;
    let init = rpc(&app, call(1, "initialize", json!({"protocolVersion": "2099-01-01", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}))).await;
    assert_eq!(init.status, 200);
    let result = &init.body["result"];
    assert_eq!(
        result["protocolVersion"], "2025-06-18",
        "a newer offer gets 2025-06-18"
    );
    assert_eq!(
        result["serverInfo"],
        json!({"name": "Service", "version": "1.0.0"})
    );
    let note = app
        .http
        .post(format!("{}/public/v1/mcp", app.hub))
        .json(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .send()
        .await
        .unwrap();
    assert_eq!(note.status(), 202);
    assert!(note.text().await.unwrap().is_empty());
    assert_eq!(
        rpc(&app, call(2, "ping", json!({}))).await.body["result"],
        json!({})
    );

    let list = rpc(&app, call(3, "tools/list", json!({}))).await;
    let tools = list.body["result"]["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "ListProducts",
            "ProductDetails",
            "GetQuote",
            "EligibilityCriteria",
            "HowToApply",
            "LoyaltyTiers"
        ]
    );
    for t in tools {
        assert_eq!(t["annotations"]["readOnlyHint"], true);
        assert_eq!(t["inputSchema"]["type"], "object");
        assert_eq!(t["outputSchema"]["type"], "object");
    }

    let tool =
        |name: &str, args: Value| call(4, "tools/call", json!({"name": name, "arguments": args}));
    let quote = rpc(
        &app,
        tool(
            "GetQuote",
            json!({"amount": 250, "term": 28, "frequency": "fortnightly"}),
        ),
    )
    .await;
    let structured = &quote.body["result"]["structuredContent"];
    let rest = public_get(
        &app,
        "/quote/onetime?amount=250&term=28&frequency=fortnightly",
    )
    .await;
    assert_eq!(structured, &rest.body, "the same quote code answers both");
    let text: Value =
        serde_json::from_str(quote.body["result"]["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(&text, structured);
    let alias = rpc(
        &app,
        tool(
            "get_quote",
            json!({"amount": 250, "term": 28, "frequency": "fortnightly"}),
        ),
    )
    .await;
    assert_eq!(&alias.body["result"]["structuredContent"], structured);

    let products = rpc(&app, tool("list_products", json!({}))).await;
    assert_eq!(
        products.body["result"]["structuredContent"]["data"],
        public_get(&app, "/products").await.body["data"]
    );
    let details = rpc(&app, tool("ProductDetails", json!({"name": "slice"}))).await;
    assert_eq!(details.body["result"]["structuredContent"]["name"], "Slice");
    let tiers = rpc(&app, tool("LoyaltyTiers", json!({}))).await;
    assert_eq!(
        tiers.body["result"]["structuredContent"]["data"],
        public_get(&app, "/loyalty/tiers").await.body["data"]
    );
    let eligibility = rpc(&app, tool("eligibility_criteria", json!({}))).await;
    assert_eq!(
        eligibility.body["result"]["structuredContent"]["business_loan"]["principal_max_pence"],
        50_000
    );
    let how = rpc(&app, tool("HowToApply", json!({}))).await;
    assert!(
        how.body["result"]["structuredContent"]["steps"]
            .as_array()
            .unwrap()
            .len()
            >= 3
    );
}

#[tokio::test]
async fn protocol_failures_are_json_rpc_errors() {
    let app = App::spawn().await;
    let tool =
        |name: &str, args: Value| call(7, "tools/call", json!({"name": name, "arguments": args}));
    let out_of_range = rpc(&app, tool("GetQuote", json!({"amount": 5000, "term": 100}))).await;
    assert_eq!(out_of_range.status, 200);
    let error = &out_of_range.body["error"];
    assert_eq!(error["code"], -32602);
    assert_eq!(error["data"]["code"], "validation_failed");
    assert_eq!(
        error["data"]["detail"],
        json!([{"field": "amount", "reason": "max_value", "bound": 500},
               {"field": "term", "reason": "max_value", "bound": 84}])
    );
    assert_eq!(out_of_range.body["id"], 7);
    let missing = rpc(&app, tool("GetQuote", json!({"term": 20}))).await;
    assert_eq!(
        missing.body["error"]["data"]["detail"][0],
        json!({"field": "amount", "reason": "required"})
    );
    assert_eq!(
        rpc(&app, tool("ApplyForLoan", json!({}))).await.body["error"]["code"],
        -32602
    );
    assert_eq!(
        rpc(&app, tool("ListProducts", json!({"x": 1}))).await.body["error"]["code"],
        -32602
    );
    assert_eq!(
        rpc(&app, call(8, "resources/list", json!({}))).await.body["error"]["code"],
        -32601
    );
    let no_method = rpc(&app, json!({"jsonrpc": "2.0", "id": 9})).await;
    assert_eq!(
        (no_method.status.as_u16(), &no_method.body["error"]["code"]),
        (400, &json!(-32600))
    );
    assert_eq!(no_method.body["id"], 9);
    let parse = reply(
        app.http
            .post(format!("{}/public/v1/mcp", app.hub))
            .header("content-type", "application/json")
            .body("{not json")
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(
        (parse.status.as_u16(), &parse.body["error"]["code"]),
        (400, &json!(-32700)),
        "not a message the server can accept (the streamable HTTP transport)"
    );
    assert_eq!(parse.body["id"], Value::Null);
}

#[tokio::test]
async fn the_server_card() {
    let app = App::spawn().await;
    let card = public_get(&app, "/mcp").await;
    assert_eq!(card.status, 200);
    assert_eq!(card.body["protocolVersion"], "2025-06-18");
    assert_eq!(card.body["serverInfo"]["name"], "Service");
    assert_eq!(card.body["capabilities"]["tools"]["listChanged"], false);
    assert_eq!(card.body["tools"].as_array().unwrap().len(), 6);
    let stream = app
        .http
        .get(format!("{}/public/v1/mcp", app.hub))
        .header("accept", "text/event-stream")
        .send()
        .await
        .unwrap();
    assert_eq!(
        stream.status(),
        405,
        "no server-sent event stream is offered"
    );
}

#[tokio::test]
async fn the_official_mcp_sdk_uses_every_tool() {
    let app = App::spawn().await;
    let r = crate::support::python_json(
        "public_mcp.py",
        vec![("MCP_URL", format!("{}/public/v1/mcp", app.hub))],
    )
    .await;
    assert_eq!(r["protocol_version"], "2025-06-18");
    assert_eq!(r["server"], json!({"name": "Service", "version": "1.0.0"}));
    let tools = r["tools"].as_array().unwrap();
    assert_eq!(tools.len(), 6);
    assert!(
        tools
            .iter()
            .all(|t| t["read_only"] == true && t["has_output_schema"] == true)
    );
    for (name, call) in r["calls"].as_object().unwrap() {
        assert_eq!(call["is_error"], false, "{name}");
        assert_eq!(call["text_matches"], true, "{name}");
    }
    assert_eq!(
        r["calls"]["GetQuote"]["structured"]["total_repayable_pence"],
        10_763
    );
    assert_eq!(r["alias_total"], 10_763);
    assert_eq!(r["out_of_range"]["code"], -32602);
    assert_eq!(r["out_of_range"]["data"]["detail"][0]["field"], "amount");
}

/// The MCP Inspector's command-line mode lists the tools over HTTP.
#[tokio::test]
async fn the_mcp_inspector_cli_lists_the_tools() {
    let app = App::spawn().await;
    let inspector = std::env::var("TEST_MCP_INSPECTOR").unwrap_or_else(|_| {
        format!(
            "{}/../../.tools/inspector/node_modules/.bin/mcp-inspector",
            env!("CARGO_MANIFEST_DIR")
        )
    });
    let url = format!("{}/public/v1/mcp", app.hub);
    let out = tokio::process::Command::new(&inspector)
        .args([
            "--cli",
            &url,
            "--transport",
            "http",
            "--method",
            "tools/list",
        ])
        .output()
        .await
        .unwrap_or_else(|e| panic!("running {inspector} (scripts/test.sh installs it): {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let listed: Value = serde_json::from_str(&stdout).unwrap();
    let names: Vec<&str> = listed["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), 6);
    assert!(names.contains(&"GetQuote"));
}
