//! The generated OpenAPI document is locked by a snapshot: any change to a
//! route or schema shows up as a diff to `docs/openapi/partner.json`.
//! Regenerate with `UPDATE_SNAPSHOTS=1 cargo test -p lendhub-hub --test openapi`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[test]
fn openapi_document_matches_the_snapshot() {
    let spec = serde_json::to_string_pretty(&lendhub_hub::openapi()).unwrap() + "\n";
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/openapi/partner.json"
    );
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        std::fs::write(path, &spec).unwrap();
    }
    let committed = std::fs::read_to_string(path)
        .expect("docs/openapi/partner.json is missing: run with UPDATE_SNAPSHOTS=1");
    assert!(
        committed == spec,
        "the OpenAPI document changed; review and regenerate with UPDATE_SNAPSHOTS=1"
    );
}

#[test]
fn every_live_operation_is_documented() {
    let spec = serde_json::to_value(lendhub_hub::openapi()).unwrap();
    assert_eq!(spec["openapi"], "3.1.0");
    for (path, method) in [
        ("/oauth/token", "post"),
        ("/oauth/introspect", "post"),
        ("/oauth/revoke", "post"),
        ("/oauth/jwks", "get"),
        ("/mcp", "post"),
    ] {
        assert!(
            spec["paths"][path][method].is_object(),
            "{method} {path} missing"
        );
    }
}
