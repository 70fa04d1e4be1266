use crate::support::{App, assert_error, reply};

#[tokio::test]
async fn every_non_2xx_carries_the_envelope() {
    let app = App::spawn().await;
    let token = app.caller().await;
    assert_error(
        &reply(app.http.get(app.url("/nowhere")).send().await.unwrap()).await,
        404,
        "route_not_found",
    );
    assert_error(
        &reply(
            app.http
                .delete(app.url("/v1/applications"))
                .send()
                .await
                .unwrap(),
        )
        .await,
        405,
        "method_not_allowed",
    );
    let post = |body: Vec<u8>, content_type: Option<&str>| {
        let mut req = app
            .http
            .post(app.url("/v1/applications"))
            .bearer_auth(&token)
            .header(
                "Idempotency-Key",
                format!("key-{}", crate::support::uuidish()),
            )
            .body(body);
        if let Some(ct) = content_type {
            req = req.header("content-type", ct);
        }
        req.send()
    };
    let big = format!(
        "{{\"amount_pence\": 5000, \"pad\": \"{}\"}}",
        "x".repeat(70 * 1024)
    );
    assert_error(
        &reply(
            post(big.into_bytes(), Some("application/json"))
                .await
                .unwrap(),
        )
        .await,
        413,
        "payload_too_large",
    );
    assert_error(
        &reply(post(b"{}".to_vec(), Some("text/plain")).await.unwrap()).await,
        415,
        "unsupported_media_type",
    );
    assert_error(
        &reply(post(b"{}".to_vec(), None).await.unwrap()).await,
        400,
        "missing_content_type",
    );
    assert_error(
        &reply(
            post(b"{\"amount_pence\":".to_vec(), Some("application/json"))
                .await
                .unwrap(),
        )
        .await,
        400,
        "invalid_json",
    );
    let unknown = reply(
        post(
            br#"{"business":{"company_number":"00000401"},"amount_pence":5000,"colour":"red"}"#
                .to_vec(),
            Some("application/json"),
        )
        .await
        .unwrap(),
    )
    .await;
    assert_error(&unknown, 400, "unknown_field");
    assert_eq!(unknown.body["error"]["detail"][0]["field"], "colour");
    let nested = reply(
        post(
            br#"{"business":{"company_number":"00000401","vat":"x"},"amount_pence":5000}"#.to_vec(),
            Some("application/json"),
        )
        .await
        .unwrap(),
    )
    .await;
    assert_error(&nested, 400, "unknown_field");
    assert_eq!(nested.body["error"]["detail"][0]["field"], "business.vat");
}
