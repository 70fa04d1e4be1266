//! The accept loop every listener runs, with the bounds `[connections]`
//! sets (docs/guide/src/deployment.md): a head that does not arrive in time, a
//! connection that sits idle, a head too large, and more connections than
//! a listener holds at once. `axum::serve` sets none of them, so a client
//! trickling one header line every few seconds, or opening thousands of
//! connections and sending nothing, held a task and a socket each for as
//! long as it liked.

use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use axum::extract::ConnectInfo;
use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto;
use hyper_util::server::graceful::GracefulShutdown;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use tokio::task::JoinHandle;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use tower::ServiceExt;

use crate::config::Connections;

/// Serves `router` on `listener` until `stop`, then lets the connections
/// with a request in flight finish it.
pub fn serve(
    listener: TcpListener,
    router: Router,
    bounds: Connections,
    stop: CancellationToken,
) -> JoinHandle<()> {
    tokio::spawn(async move {
        let mut builder = auto::Builder::new(TokioExecutor::new());
        // hyper's own head timeout also runs while a kept-alive connection
        // waits for its next request, which would tie the idle bound to it;
        // both are kept here instead (`Activity::expired`).
        builder
            .http1()
            .timer(TokioTimer::new())
            .header_read_timeout(None)
            // hyper reads a head into a buffer this large at most (8 KiB at
            // least), and answers 431 to one that does not fit.
            .max_buf_size(bounds.max_header_bytes.max(8 * 1024));
        builder
            .http2()
            .timer(TokioTimer::new())
            .max_header_list_size(u32::try_from(bounds.max_header_bytes).unwrap_or(u32::MAX));
        let limits = Limits {
            head: Duration::from_millis(bounds.header_read_timeout_ms.max(1)),
            idle: Duration::from_millis(bounds.idle_timeout_ms.max(1)),
        };
        let slots = Arc::new(Semaphore::new(bounds.max_per_listener.max(1)));
        let graceful = GracefulShutdown::new();
        loop {
            // A slot first: at the cap, the next connection waits in the
            // kernel's backlog rather than costing a task here.
            let slot = tokio::select! {
                slot = slots.clone().acquire_owned() => match slot {
                    Ok(slot) => slot,
                    Err(_) => break,
                },
                () = stop.cancelled() => break,
            };
            let (stream, peer) = tokio::select! {
                accepted = listener.accept() => match accepted {
                    Ok(accepted) => accepted,
                    Err(e) => {
                        // Out of file descriptors, say: the next accept may
                        // work once some close.
                        tracing::warn!(error = %e, "accept failed");
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        continue;
                    }
                },
                () = stop.cancelled() => break,
            };
            let _ = stream.set_nodelay(true);
            let activity = Arc::new(Activity::new());
            let io = TokioIo::new(Watched {
                inner: stream,
                activity: activity.clone(),
            });
            // The peer's address where axum's `ConnectInfo` looks for it,
            // and each request counted as in flight until it is answered.
            let service = {
                let (router, activity) = (router.clone(), activity.clone());
                hyper::service::service_fn(move |mut request: hyper::Request<Incoming>| {
                    request.extensions_mut().insert(ConnectInfo(peer));
                    let busy = activity.begin();
                    let answer = router.clone().oneshot(request.map(axum::body::Body::new));
                    async move {
                        let response = answer.await;
                        drop(busy);
                        response
                    }
                })
            };
            let builder = builder.clone();
            let watcher = graceful.watcher();
            tokio::spawn(async move {
                let connection = watcher.watch(builder.serve_connection(io, service));
                tokio::select! {
                    _ = connection => {}
                    () = activity.expired(limits) => {}
                }
                drop(slot);
            });
        }
        drop(listener);
        graceful.shutdown().await;
    })
}

#[derive(Clone, Copy)]
struct Limits {
    /// From a head's first byte (or the connection's opening) to its end.
    head: Duration,
    /// With no request in flight and no byte moving, between requests.
    idle: Duration,
}

/// No head is being read (`Activity::head_from_ms`).
const NO_HEAD: u64 = u64::MAX;

/// What a connection is doing: when it last moved a byte, since when it
/// has been sending a request head, and how many of its requests are being
/// answered. Milliseconds since it opened.
struct Activity {
    opened: Instant,
    last_ms: AtomicU64,
    head_from_ms: AtomicU64,
    in_flight: AtomicUsize,
}

impl Activity {
    fn new() -> Self {
        // A new connection owes its first head from the moment it opened.
        Self {
            opened: Instant::now(),
            last_ms: AtomicU64::new(0),
            head_from_ms: AtomicU64::new(0),
            in_flight: AtomicUsize::new(0),
        }
    }

    fn now_ms(&self) -> u64 {
        u64::try_from(self.opened.elapsed().as_millis()).unwrap_or(u64::MAX - 1)
    }

    /// Bytes arrived: the first between requests starts the next head.
    fn read(&self) {
        let now = self.now_ms();
        self.last_ms.store(now, Ordering::Relaxed);
        if self.in_flight.load(Ordering::Relaxed) == 0 {
            let _ = self.head_from_ms.compare_exchange(
                NO_HEAD,
                now,
                Ordering::Relaxed,
                Ordering::Relaxed,
            );
        }
    }

    fn wrote(&self) {
        self.last_ms.store(self.now_ms(), Ordering::Relaxed);
    }

    /// A head arrived whole and its request is being answered.
    fn begin(self: &Arc<Self>) -> Busy {
        self.in_flight.fetch_add(1, Ordering::Relaxed);
        self.head_from_ms.store(NO_HEAD, Ordering::Relaxed);
        Busy(self.clone())
    }

    /// Resolves once the connection has spent longer than `limits.head` on
    /// one head, or sat idle between requests longer than `limits.idle`.
    async fn expired(&self, limits: Limits) {
        // Looked at again at least this often, since a head may start or
        // a request end while it sleeps.
        let shortest = limits.idle.min(limits.head);
        loop {
            let now = self.now_ms();
            let wait = if self.in_flight.load(Ordering::Relaxed) > 0 {
                shortest
            } else {
                let (deadline, limit) = match self.head_from_ms.load(Ordering::Relaxed) {
                    NO_HEAD => (self.last_ms.load(Ordering::Relaxed), limits.idle),
                    from => (from, limits.head),
                };
                let spent = Duration::from_millis(now.saturating_sub(deadline));
                if spent >= limit {
                    return;
                }
                (limit - spent).min(shortest)
            };
            tokio::time::sleep(wait.max(Duration::from_millis(10))).await;
        }
    }
}

/// A request being answered; the connection is not idle while one lives.
struct Busy(Arc<Activity>);

impl Drop for Busy {
    fn drop(&mut self) {
        self.0.wrote();
        self.0.in_flight.fetch_sub(1, Ordering::Relaxed);
    }
}

/// A socket that notes each byte it moves in its connection's `Activity`.
struct Watched {
    inner: TcpStream,
    activity: Arc<Activity>,
}

impl AsyncRead for Watched {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.inner).poll_read(cx, buf);
        if buf.filled().len() > before {
            self.activity.read();
        }
        polled
    }
}

impl AsyncWrite for Watched {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let polled = Pin::new(&mut self.inner).poll_write(cx, data);
        if matches!(polled, Poll::Ready(Ok(n)) if n > 0) {
            self.activity.wrote();
        }
        polled
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        let polled = Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
        if matches!(polled, Poll::Ready(Ok(n)) if n > 0) {
            self.activity.wrote();
        }
        polled
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}
