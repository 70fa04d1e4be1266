//! What one client connection may hold of a listener (issue #44, items 7
//! and 8): a head trickled in or never finished is cut off at the
//! header-read timeout, an idle connection at the idle timeout, a head over
//! the size bound is 431, a listener holds at most its cap of connections,
//! and a body declared larger than any route reads is 413 at once. The
//! bounds are set small here so that each is met within a second or so;
//! the waits are the server's own network timers, read off the socket.

use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::support::*;

/// A server whose connections have `head_ms` for a request head, `idle_ms`
/// between requests, and at most `cap` per listener.
async fn bounded(head_ms: u64, idle_ms: u64, cap: usize) -> App {
    let site = Site::new().await;
    let mut config = test_config(&site);
    config.connections.header_read_timeout_ms = head_ms;
    config.connections.idle_timeout_ms = idle_ms;
    config.connections.max_per_listener = cap;
    App::spawn_with(config, site).await
}

async fn connect(app: &App) -> TcpStream {
    let addr = app.hub.trim_start_matches("http://").to_owned();
    TcpStream::connect(addr).await.unwrap()
}

/// Reads until the server closes the connection or `within` passes:
/// everything it sent, and whether it closed.
async fn read_to_close(stream: &mut TcpStream, within: Duration) -> (String, bool) {
    let mut seen = Vec::new();
    let mut buf = [0u8; 4096];
    let deadline = tokio::time::Instant::now() + within;
    loop {
        match tokio::time::timeout_at(deadline, stream.read(&mut buf)).await {
            Ok(Ok(0)) | Ok(Err(_)) => return (String::from_utf8_lossy(&seen).into(), true),
            Ok(Ok(n)) => seen.extend_from_slice(&buf[..n]),
            Err(_) => return (String::from_utf8_lossy(&seen).into(), false),
        }
    }
}

#[tokio::test]
async fn a_head_trickled_in_or_left_unfinished_is_cut_off() {
    // Idle connections are kept far longer than a head may take.
    let app = bounded(600, 60_000, 64).await;

    // Stops after Host: closed once the timeout passes.
    let mut stalled = connect(&app).await;
    stalled
        .write_all(b"GET /public/v1/healthz HTTP/1.1\r\nHost: x\r\n")
        .await
        .unwrap();
    let started = Instant::now();
    let (_, closed) = read_to_close(&mut stalled, Duration::from_secs(10)).await;
    assert!(closed, "a head that never ends is not kept");
    assert!(started.elapsed() >= Duration::from_millis(500));

    // One header line every 200 ms: each line arrives well inside the
    // timeout, but the head as a whole does not.
    let mut trickle = connect(&app).await;
    trickle
        .write_all(b"GET /public/v1/healthz HTTP/1.1\r\n")
        .await
        .unwrap();
    let started = Instant::now();
    let mut cut_off = false;
    for n in 0..50 {
        tokio::time::sleep(Duration::from_millis(200)).await;
        if trickle
            .write_all(format!("X-Trickle-{n}: 1\r\n").as_bytes())
            .await
            .is_err()
        {
            cut_off = true;
            break;
        }
        let mut probe = [0u8; 1];
        if let Ok(Ok(0) | Err(_)) =
            tokio::time::timeout(Duration::from_millis(1), trickle.read(&mut probe)).await
        {
            cut_off = true;
            break;
        }
    }
    assert!(cut_off, "a trickled head is cut off");
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[tokio::test]
async fn an_idle_keep_alive_connection_is_closed() {
    // A head may take far longer than an idle connection is kept.
    let app = bounded(60_000, 600, 64).await;
    let mut stream = connect(&app).await;
    stream
        .write_all(b"GET /public/v1/healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .unwrap();
    let started = Instant::now();
    let (answer, closed) = read_to_close(&mut stream, Duration::from_secs(10)).await;
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(closed, "kept alive, then closed once idle");
    assert!(started.elapsed() >= Duration::from_millis(500));

    // A fresh connection that sends nothing owes its head at once.
    let mut silent = connect(&app).await;
    let (_, closed) = read_to_close(&mut silent, Duration::from_secs(1)).await;
    assert!(!closed, "within its head time (a minute here), kept");
}

#[tokio::test]
async fn a_listener_holds_at_most_its_cap_of_connections() {
    let app = bounded(30_000, 30_000, 3).await;
    let mut held = Vec::new();
    for _ in 0..3 {
        let mut s = connect(&app).await;
        // A whole request, so the connection is certainly accepted and
        // served, then kept alive doing nothing.
        s.write_all(b"GET /public/v1/healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            .await
            .unwrap();
        let mut buf = [0u8; 1024];
        let n = s.read(&mut buf).await.unwrap();
        assert!(buf[..n].starts_with(b"HTTP/1.1 200"));
        held.push(s);
    }
    let mut fourth = connect(&app).await;
    fourth
        .write_all(b"GET /public/v1/healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .await
        .unwrap();
    let (answer, _) = read_to_close(&mut fourth, Duration::from_millis(500)).await;
    assert!(answer.is_empty(), "over the cap, not served: {answer}");
    drop(held.pop());
    let (answer, closed) = read_to_close(&mut fourth, Duration::from_secs(10)).await;
    assert!(
        answer.starts_with("HTTP/1.1 200"),
        "served once a slot frees: {answer}"
    );
    assert!(closed);
}

#[tokio::test]
async fn oversized_heads_and_declared_bodies_are_refused_at_once() {
    let app = App::spawn().await;

    // A 200 KB header: 431, whatever the route.
    let mut stream = connect(&app).await;
    let huge = "a".repeat(200 * 1024);
    let request = format!("GET /public/v1/healthz HTTP/1.1\r\nHost: x\r\nX-Huge: {huge}\r\n\r\n");
    let _ = stream.write_all(request.as_bytes()).await;
    let (answer, _) = read_to_close(&mut stream, Duration::from_secs(10)).await;
    assert!(answer.starts_with("HTTP/1.1 431"), "{answer}");

    // Ten gigabytes declared, one byte sent: 413 now, not 503 after the
    // request timeout.
    for (base, path) in [
        (app.hub.clone(), "/public/v1/enquiries"),
        (app.hub.clone(), "/partner/v1/applications"),
        (app.base.clone(), "/v1/applications"),
    ] {
        let addr = base.trim_start_matches("http://").to_owned();
        let mut stream = TcpStream::connect(addr).await.unwrap();
        let request = format!(
            "POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
             Idempotency-Key: declared-huge-1\r\nContent-Length: 10000000000\r\n\r\n{{"
        );
        stream.write_all(request.as_bytes()).await.unwrap();
        let started = Instant::now();
        let (answer, _) = read_to_close(&mut stream, Duration::from_secs(10)).await;
        assert!(answer.starts_with("HTTP/1.1 413"), "{path}: {answer}");
        assert!(answer.contains("payload_too_large"), "{path}: {answer}");
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "{path}: answered at once"
        );
    }
}
