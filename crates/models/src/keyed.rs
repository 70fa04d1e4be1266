//! What the model servers of lendhub's own JSON APIs share (the identity
//! provider, the credit bureau): a bearer API key on every route, the
//! injected failures, and the problem document they answer errors with.

use std::sync::Arc;

use axum::extract::{FromRef, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::{Json, Router};
use serde_json::json;

use crate::credentials;
use crate::injected::Injected;

#[derive(Clone)]
pub struct Keyed {
    api_key: Arc<str>,
    pub injected: Injected,
}

impl FromRef<Keyed> for Injected {
    fn from_ref(keyed: &Keyed) -> Self {
        keyed.injected.clone()
    }
}

impl Keyed {
    pub fn new(api_key: &str) -> Self {
        Self {
            api_key: api_key.into(),
            injected: Injected::default(),
        }
    }

    /// `routes` and the admin ones, every one behind the key.
    pub fn serve(self, routes: Router<Keyed>) -> Router {
        routes
            .merge(Injected::routes())
            .layer(axum::middleware::from_fn_with_state(
                self.clone(),
                authenticate,
            ))
            .with_state(self)
    }
}

/// `{"error": {"code", "message"}}` with `status`.
pub fn problem(status: StatusCode, code: &str, message: &str) -> Response {
    (
        status,
        Json(json!({ "error": { "code": code, "message": message } })),
    )
        .into_response()
}

fn authorised(keyed: &Keyed, headers: &HeaderMap) -> bool {
    headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .is_some_and(|key| credentials::same(key.trim(), &keyed.api_key))
}

async fn authenticate(
    State(keyed): State<Keyed>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    if authorised(&keyed, request.headers()) {
        next.run(request).await
    } else {
        let mut answer = problem(
            StatusCode::UNAUTHORIZED,
            "unauthorised",
            "a valid API key is required (Authorization: Bearer)",
        );
        answer.headers_mut().insert(
            header::WWW_AUTHENTICATE,
            header::HeaderValue::from_static("Bearer"),
        );
        answer
    }
}
