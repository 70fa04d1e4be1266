//! The layer every surface shares, as one tower service: it assigns the
//! request id, turns a panic into a 500, renders error envelopes, and writes
//! the access-log line and the metrics. One hand-written service rather than a stack of
//! `middleware::from_fn` layers, because each of those boxes a future and
//! clones the whole service below it on every request.

use std::future::Future;
use std::panic::{self, AssertUnwindSafe};
use std::pin::Pin;
use std::task::{Context, Poll, ready};
use std::time::Instant;

use axum::body::Body;
use axum::extract::{MatchedPath, Request};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode};
use axum::response::IntoResponse;
use axum::response::Response;
use tower::{Layer, Service};

use crate::Problem;
use crate::access_log::{CallerSlot, Line};
use crate::problem::{Renderer, render_error};
use crate::request_id::{self, RequestId};
use crate::route_metrics;

/// Where `Edge` sits: outside every other layer of a surface, inside the
/// router (`Router::layer`), so it sees the matched route.
#[derive(Clone, Copy)]
pub struct Edge {
    surface: &'static str,
    renderer: Option<Renderer>,
}

impl Edge {
    /// A surface whose every non-2xx body is its JSON envelope.
    pub fn new(surface: &'static str, renderer: Renderer) -> Self {
        Self {
            surface,
            renderer: Some(renderer),
        }
    }

    /// A surface that renders its own error bodies.
    pub fn without_envelope(surface: &'static str) -> Self {
        Self {
            surface,
            renderer: None,
        }
    }
}

impl<S> Layer<S> for Edge {
    type Service = EdgeService<S>;

    fn layer(&self, inner: S) -> Self::Service {
        EdgeService { inner, edge: *self }
    }
}

#[derive(Clone)]
pub struct EdgeService<S> {
    inner: S,
    edge: Edge,
}

/// What the edge remembers about a request until its response is ready.
struct Pending {
    started: Instant,
    request_id: RequestId,
    caller: CallerSlot,
    method: Method,
    route: Option<MatchedPath>,
}

impl<S> Service<Request> for EdgeService<S>
where
    S: Service<Request, Response = Response>,
{
    type Response = Response;
    type Error = S::Error;
    type Future = EdgeFuture<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut request: Request) -> Self::Future {
        // A panic while the inner service builds its future is caught as one
        // while it is polled.
        let pending = Pending {
            started: Instant::now(),
            request_id: RequestId::generate(),
            caller: CallerSlot::default(),
            method: request.method().clone(),
            route: request.extensions().get::<MatchedPath>().cloned(),
        };
        let extensions = request.extensions_mut();
        extensions.insert(pending.request_id);
        extensions.insert(pending.caller.clone());
        if let Some(refused) = refused(request.headers()).filter(|_| self.edge.renderer.is_some()) {
            return EdgeFuture {
                inner: None,
                refused: Some(refused.into_response()),
                pending: Some(pending),
                edge: self.edge,
            };
        }
        let inner = panic::catch_unwind(AssertUnwindSafe(|| self.inner.call(request)));
        EdgeFuture {
            inner: inner.ok(),
            refused: None,
            pending: Some(pending),
            edge: self.edge,
        }
    }
}

pin_project_lite::pin_project! {
    pub struct EdgeFuture<F> {
        // `None` once the inner service has panicked.
        #[pin]
        inner: Option<F>,
        // The edge's own answer, when the request never reaches the routes.
        refused: Option<Response>,
        pending: Option<Pending>,
        edge: Edge,
    }
}

impl<F, E> Future for EdgeFuture<F>
where
    F: Future<Output = Result<Response, E>>,
{
    type Output = Result<Response, E>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let response = match (this.refused.take(), this.inner.as_pin_mut()) {
            (Some(refused), _) => refused,
            (None, inner) => match inner {
                Some(inner) => match panic::catch_unwind(AssertUnwindSafe(|| inner.poll(cx))) {
                    Ok(polled) => ready!(polled)?,
                    Err(_) => panicked(),
                },
                None => panicked(),
            },
        };
        let Some(pending) = this.pending.take() else {
            return Poll::Ready(Ok(response));
        };
        Poll::Ready(Ok(finish(*this.edge, pending, response)))
    }
}

/// Headers a request may carry once: with two, one reader would act on the
/// first and another on the last, so which one was meant is unknowable and
/// a check of one could be passed while the other is used. Each is refused
/// with the code its own check gives.
/// (`Authorization` is each credential reader's, `headers::repeated`, so a
/// 401 carries the surface's challenge.)
const ONCE: [(&str, StatusCode, &str); 3] = [
    (
        "Idempotency-Key",
        StatusCode::BAD_REQUEST,
        "idempotency_key_malformed",
    ),
    (
        "Service-Request-Signature",
        StatusCode::BAD_REQUEST,
        "signature_invalid",
    ),
    (
        "Content-Type",
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        "unsupported_media_type",
    ),
];

/// The most any route of a surface with an envelope reads as a body (each
/// surface's own limit is this or less): a request declaring more is
/// refused at once, not held while a body that may never come trickles in.
pub const MAX_DECLARED_BODY: u64 = 64 * 1024;

/// Why the edge answers a request itself: a security header sent twice, or
/// a body declared larger than any route reads.
fn refused(headers: &HeaderMap) -> Option<Problem> {
    let declared = headers
        .get(axum::http::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    if declared.is_some_and(|n| n > MAX_DECLARED_BODY) {
        return Some(Problem::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "payload_too_large",
            format!("the request body may be at most {MAX_DECLARED_BODY} bytes"),
        ));
    }
    repeated_header(headers)
}

fn repeated_header(headers: &HeaderMap) -> Option<Problem> {
    ONCE.iter().find_map(|(name, status, code)| {
        crate::headers::repeated(headers, *name).then(|| {
            Problem::new(
                *status,
                code,
                format!("send one {name} header, not several"),
            )
        })
    })
}

/// The answer to a request whose handler panicked: a bare 500, which the
/// envelope renders as `internal_error` (the panic hook has already logged
/// the message and location).
fn panicked() -> Response {
    let mut response = Response::new(Body::empty());
    *response.status_mut() = StatusCode::INTERNAL_SERVER_ERROR;
    response
}

fn finish(edge: Edge, pending: Pending, response: Response) -> Response {
    let mut response = match edge.renderer {
        Some(renderer) => render_error(renderer, &pending.request_id, response),
        None => response,
    };
    if let Ok(value) = HeaderValue::from_str(pending.request_id.as_str()) {
        response.headers_mut().insert(request_id::HEADER, value);
    }
    let took = pending.started.elapsed();
    let route = pending
        .route
        .as_ref()
        .map_or("unmatched", MatchedPath::as_str);
    let status = response.status().as_u16();
    Line {
        surface: edge.surface,
        request_id: &pending.request_id,
        method: &pending.method,
        route,
        status,
        took,
        caller: &pending.caller,
    }
    .write();
    route_metrics::record(edge.surface, route, &pending.method, status, took);
    response
}

#[cfg(test)]
mod tests {
    use std::convert::Infallible;

    use axum::http::Request as HttpRequest;
    use axum::response::IntoResponse;
    use tower::{ServiceExt, service_fn};

    use super::*;
    use crate::Problem;

    fn envelope(problem: &Problem, id: &RequestId) -> serde_json::Value {
        serde_json::json!({"code": problem.code, "request_id": id.as_str()})
    }

    async fn answer(
        edge: Edge,
        handler: fn() -> Response,
    ) -> (StatusCode, Option<String>, serde_json::Value) {
        let service = edge.layer(service_fn(move |_: Request| async move {
            Ok::<_, Infallible>(handler())
        }));
        let request = HttpRequest::builder()
            .uri("/x")
            .body(Body::empty())
            .unwrap_or_default();
        let Ok(response) = service.oneshot(request).await;
        let status = response.status();
        let id = response
            .headers()
            .get(request_id::HEADER)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let body = axum::body::to_bytes(response.into_body(), 1 << 16)
            .await
            .unwrap_or_default();
        let json = serde_json::from_slice(&body).unwrap_or(serde_json::Value::Null);
        (status, id, json)
    }

    #[tokio::test]
    async fn a_panicking_handler_answers_500_in_the_envelope_with_its_request_id() {
        let (status, id, body) = answer(Edge::new("test", envelope), || panic!("boom")).await;
        assert_eq!(status, StatusCode::INTERNAL_SERVER_ERROR);
        assert_eq!(body["code"], "internal_error");
        assert_eq!(body["request_id"].as_str(), id.as_deref());
        assert!(id.is_some_and(|id| id.starts_with("req_")));
    }

    #[tokio::test]
    async fn problems_are_rendered_and_successes_pass_untouched() {
        let (status, _, body) = answer(Edge::new("test", envelope), || {
            Problem::new(StatusCode::CONFLICT, "conflict", "no").into_response()
        })
        .await;
        assert_eq!(status, StatusCode::CONFLICT);
        assert_eq!(body["code"], "conflict");
        let (status, id, body) = answer(Edge::new("test", envelope), || {
            (StatusCode::OK, "{\"ok\":true}").into_response()
        })
        .await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(body["ok"], true);
        assert!(id.is_some());
    }

    #[tokio::test]
    async fn without_an_envelope_errors_keep_their_own_body() {
        let (status, id, body) = answer(Edge::without_envelope("test"), || {
            (StatusCode::NOT_FOUND, "{\"error\":\"mine\"}").into_response()
        })
        .await;
        assert_eq!(status, StatusCode::NOT_FOUND);
        assert_eq!(body["error"], "mine");
        assert!(id.is_some());
    }
}
