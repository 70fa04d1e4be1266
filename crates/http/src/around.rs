//! A layer for work that needs no awaiting, done to every request before it
//! is handled and to its response after: what `middleware::from_fn` would
//! do, without boxing a future and cloning the service below on every
//! request (see `edge`).

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use axum::extract::Request;
use axum::response::Response;
use tower::{Layer, Service};

/// The work: `before` may change the request and hands `after` what it
/// needs to finish the response.
pub trait Hook: Clone {
    type Carry;
    fn before(&self, request: &mut Request) -> Self::Carry;
    fn after(&self, carry: Self::Carry, response: &mut Response);
}

#[derive(Clone, Copy)]
pub struct Around<H>(pub H);

impl<H: Clone, S> Layer<S> for Around<H> {
    type Service = AroundService<H, S>;

    fn layer(&self, inner: S) -> Self::Service {
        AroundService {
            hook: self.0.clone(),
            inner,
        }
    }
}

#[derive(Clone)]
pub struct AroundService<H, S> {
    hook: H,
    inner: S,
}

impl<H, S> Service<Request> for AroundService<H, S>
where
    H: Hook,
    S: Service<Request, Response = Response>,
{
    type Response = Response;
    type Error = S::Error;
    type Future = AroundFuture<H, H::Carry, S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut request: Request) -> Self::Future {
        let carry = self.hook.before(&mut request);
        AroundFuture {
            inner: self.inner.call(request),
            hook: self.hook.clone(),
            carry: Some(carry),
        }
    }
}

pin_project_lite::pin_project! {
    pub struct AroundFuture<H, C, F> {
        #[pin]
        inner: F,
        hook: H,
        carry: Option<C>,
    }
}

impl<H, F, E> Future for AroundFuture<H, H::Carry, F>
where
    H: Hook,
    F: Future<Output = Result<Response, E>>,
{
    type Output = Result<Response, E>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let mut response = ready!(this.inner.poll(cx))?;
        if let Some(carry) = this.carry.take() {
            this.hook.after(carry, &mut response);
        }
        Poll::Ready(Ok(response))
    }
}
