//! The per-address window in front of every public route, unknown ones
//! included: each request is counted against its client address and every
//! answer carries the RateLimit headers.
//!
//! A tower service rather than `middleware::from_fn`: when this instance
//! decides alone (no shared window, or one it cannot reach) the count needs
//! no awaiting, and the route's own future runs without the boxing and the
//! service clone `from_fn` costs each request. Only the shared window's
//! network round trip takes the boxed path.

use std::convert::Infallible;
use std::future::Future;
use std::net::IpAddr;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use axum::extract::Request;
use axum::http::HeaderValue;
use axum::response::{IntoResponse, Response};
use tower::{Layer, Service, ServiceExt};

use super::error::PublicError;
use super::state::PublicState;
use super::window::Standing;
use crate::ratelimit_headers::{LIMIT, POLICY, REMAINING, RESET};

#[derive(Clone)]
pub struct Protect(pub PublicState);

impl<S> Layer<S> for Protect {
    type Service = ProtectService<S>;

    fn layer(&self, inner: S) -> Self::Service {
        ProtectService {
            state: self.0.clone(),
            inner,
        }
    }
}

#[derive(Clone)]
pub struct ProtectService<S> {
    state: PublicState,
    inner: S,
}

impl<S> Service<Request> for ProtectService<S>
where
    S: Service<Request, Response = Response, Error = Infallible> + Clone + Send + 'static,
    S::Future: Send + 'static,
{
    type Response = Response;
    type Error = Infallible;
    type Future = ProtectFuture<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request) -> Self::Future {
        let (parts, body) = request.into_parts();
        let ip =
            lendhub_http::client_ip::client_ip(&parts, &self.state.ring.settings.trusted_proxies);
        let request = Request::from_parts(parts, body);
        // No peer address (an in-process call): nothing to count.
        let Some(ip) = ip else {
            return ProtectFuture::Route {
                inner: self.inner.call(request),
                stamp: None,
            };
        };
        let now_ms = self.state.clock.now_ms();
        match self.state.ring.limiter.hit_if_alone(ip, now_ms) {
            Some(standing) => self.answer(request, &standing),
            None => {
                // The route runs after an await, so it gets a clone of the
                // service; the one polled ready is left for the next request.
                let state = self.state.clone();
                let inner = self.inner.clone();
                ProtectFuture::Shared {
                    future: Box::pin(shared(state, inner, request, ip, now_ms)),
                }
            }
        }
    }
}

impl<S> ProtectService<S>
where
    S: Service<Request, Response = Response, Error = Infallible>,
{
    fn answer(&mut self, request: Request, standing: &Standing) -> ProtectFuture<S::Future> {
        let stamp = Stamp::new(&self.state, standing);
        if standing.allowed {
            ProtectFuture::Route {
                inner: self.inner.call(request),
                stamp: Some(stamp),
            }
        } else {
            let mut refused = refusal(standing);
            stamp.apply(&mut refused);
            ProtectFuture::Refused {
                response: Some(refused),
            }
        }
    }
}

/// Counts the request in the shared window, then runs (or refuses) it.
async fn shared<S>(
    state: PublicState,
    inner: S,
    request: Request,
    ip: IpAddr,
    now_ms: i64,
) -> Result<Response, Infallible>
where
    S: Service<Request, Response = Response, Error = Infallible>,
{
    let standing = state.ring.limiter.hit(ip, now_ms).await;
    let mut response = if standing.allowed {
        inner.oneshot(request).await?
    } else {
        refusal(&standing)
    };
    Stamp::new(&state, &standing).apply(&mut response);
    Ok(response)
}

fn refusal(standing: &Standing) -> Response {
    PublicError::RateLimited {
        retry_after_ms: u64::try_from(standing.reset_ms.max(1)).unwrap_or(1),
    }
    .into_response()
}

/// The RateLimit headers of one answer.
pub struct Stamp {
    limit: u32,
    remaining: u32,
    reset_s: u64,
    policy: HeaderValue,
}

impl Stamp {
    fn new(state: &PublicState, standing: &Standing) -> Self {
        Self {
            limit: state.ring.limiter.policy().requests,
            remaining: standing.remaining,
            reset_s: (standing.reset_ms.max(0) as u64).div_ceil(1000),
            policy: state.ring.policy_header.clone(),
        }
    }

    fn apply(self, response: &mut Response) {
        let headers = response.headers_mut();
        headers.insert(LIMIT, HeaderValue::from(self.limit));
        headers.insert(REMAINING, HeaderValue::from(self.remaining));
        headers.insert(RESET, HeaderValue::from(self.reset_s));
        headers.insert(POLICY, self.policy);
    }
}

type Boxed = Pin<Box<dyn Future<Output = Result<Response, Infallible>> + Send>>;

pin_project_lite::pin_project! {
    #[project = Projected]
    pub enum ProtectFuture<F> {
        /// Counted here (or not countable): the route, then the headers.
        Route { #[pin] inner: F, stamp: Option<Stamp> },
        /// Counted here and over the limit.
        Refused { response: Option<Response> },
        /// Counted in the shared window.
        Shared { future: Boxed },
    }
}

impl<F> Future for ProtectFuture<F>
where
    F: Future<Output = Result<Response, Infallible>>,
{
    type Output = Result<Response, Infallible>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match self.project() {
            Projected::Route { inner, stamp } => {
                let mut response = ready!(inner.poll(cx))?;
                if let Some(stamp) = stamp.take() {
                    stamp.apply(&mut response);
                }
                Poll::Ready(Ok(response))
            }
            Projected::Refused { response } => match response.take() {
                Some(response) => Poll::Ready(Ok(response)),
                None => Poll::Pending,
            },
            Projected::Shared { future } => future.as_mut().poll(cx),
        }
    }
}
