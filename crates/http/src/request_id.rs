//! Every request gets an id, returned in `x-service-request-id` and quoted in
//! every error body and log line.

use std::fmt;

use axum::extract::Request;
use axum::http::HeaderValue;
use axum::middleware::Next;
use axum::response::Response;

pub const HEADER: &str = "x-service-request-id";

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RequestId(pub String);

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl RequestId {
    pub fn generate() -> Self {
        Self(format!("req_{}", ulid::Ulid::new()))
    }
}

pub async fn assign(mut request: Request, next: Next) -> Response {
    let id = RequestId::generate();
    request.extensions_mut().insert(id.clone());
    let mut response = next.run(request).await;
    if let Ok(v) = HeaderValue::from_str(&id.0) {
        response.headers_mut().insert(HEADER, v);
    }
    response
}
