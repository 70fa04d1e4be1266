//! The generated OpenAPI documents are locked by snapshots: any change to a
//! route or schema shows up as a diff to `docs/openapi/partner.json` or
//! `docs/openapi/public.json`.
//! Regenerate with `UPDATE_SNAPSHOTS=1 cargo test -p lendhub-hub --test openapi`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

fn matches_snapshot(spec: &utoipa::openapi::OpenApi, file: &str) {
    let spec = serde_json::to_string_pretty(spec).unwrap() + "\n";
    let path = format!("{}/../../docs/openapi/{file}", env!("CARGO_MANIFEST_DIR"));
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        std::fs::write(&path, &spec).unwrap();
    }
    let committed = std::fs::read_to_string(&path)
        .unwrap_or_else(|_| panic!("docs/openapi/{file} is missing: run with UPDATE_SNAPSHOTS=1"));
    assert!(
        committed == spec,
        "docs/openapi/{file} changed; review and regenerate with UPDATE_SNAPSHOTS=1"
    );
}

#[test]
fn openapi_documents_match_their_snapshots() {
    matches_snapshot(&lendhub_hub::openapi(), "partner.json");
    matches_snapshot(&lendhub_hub::public_openapi(), "public.json");
}

fn documented(spec: &utoipa::openapi::OpenApi, operations: &[(&str, &str)]) {
    let spec = serde_json::to_value(spec).unwrap();
    assert_eq!(spec["openapi"], "3.1.0");
    for (path, method) in operations {
        assert!(
            spec["paths"][path][method].is_object(),
            "{method} {path} missing"
        );
    }
}

#[test]
fn every_live_operation_is_documented() {
    documented(
        &lendhub_hub::openapi(),
        &[
            ("/oauth/token", "post"),
            ("/oauth/introspect", "post"),
            ("/oauth/revoke", "post"),
            ("/oauth/jwks", "get"),
            ("/mcp", "post"),
            ("/openapi.json", "get"),
        ],
    );
    documented(
        &lendhub_hub::public_openapi(),
        &[
            ("/enquiries", "post"),
            ("/mcp", "post"),
            ("/mcp", "get"),
            ("/healthz", "get"),
            ("/config/pricing", "get"),
            ("/products", "get"),
            ("/loyalty/tiers", "get"),
            ("/quote/onetime", "get"),
            ("/quote/flex", "get"),
            ("/slice/billers", "get"),
            ("/cms/pages/{key}", "get"),
            ("/support/widget.js", "get"),
            ("/support/widget.css", "get"),
        ],
    );
}
