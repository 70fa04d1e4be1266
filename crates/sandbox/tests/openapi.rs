//! The generated OpenAPI document is locked by a snapshot: any change to a
//! route or schema shows up as a diff to `docs/openapi/sandbox.json`.
//! Regenerate with `UPDATE_SNAPSHOTS=1 cargo test -p lendhub-sandbox --test openapi`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[test]
fn openapi_document_matches_the_snapshot() {
    let spec = serde_json::to_string_pretty(&lendhub_sandbox::openapi()).unwrap() + "\n";
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/openapi/sandbox.json"
    );
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        std::fs::write(path, &spec).unwrap();
    }
    let committed = std::fs::read_to_string(path)
        .expect("docs/openapi/sandbox.json is missing: run with UPDATE_SNAPSHOTS=1");
    assert!(
        committed == spec,
        "the OpenAPI document changed; review and regenerate with UPDATE_SNAPSHOTS=1"
    );
}

#[test]
fn every_seed_operation_is_documented_with_its_statuses() {
    let spec = serde_json::to_value(lendhub_sandbox::openapi()).unwrap();
    assert_eq!(spec["openapi"], "3.1.0");
    assert_eq!(spec["info"]["version"], "2026-08-11.1");
    let expect = [
        ("/healthz", "get", vec!["200"]),
        ("/oauth/token", "post", vec!["200", "400", "401"]),
        ("/v1/fixtures", "get", vec!["200", "401", "403"]),
        ("/v1/applications", "post", vec!["201", "409", "422"]),
        ("/v1/applications/{id}", "get", vec!["200", "404"]),
        ("/v1/applications/{id}/accept", "post", vec!["200", "409"]),
        ("/v1/payments", "post", vec!["201", "409"]),
        ("/v1/webhook-endpoints", "post", vec!["201", "422"]),
        ("/v1/events", "get", vec!["200"]),
        ("/v1/events/{id}/replay", "post", vec!["202", "404"]),
    ];
    for (path, method, statuses) in expect {
        let op = &spec["paths"][path][method];
        assert!(op.is_object(), "{method} {path} missing");
        for s in statuses {
            assert!(op["responses"][s].is_object(), "{method} {path} lacks {s}");
        }
    }
}
