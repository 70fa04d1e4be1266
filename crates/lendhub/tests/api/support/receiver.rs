//! A local webhook receiver on port 0. It records every request and answers
//! with the statuses it is told, in order (then 200) — or, when told to
//! refuse bodies containing some text, 500 to those and 200 to the rest.
//! A refusal's body says why, with an escape sequence a display must not
//! pass on ([`REFUSAL`]); an acceptance's body is `ok`.

use std::collections::VecDeque;
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use parking_lot::Mutex;

#[derive(Clone, Debug)]
pub struct Received {
    pub signature: String,
    pub body: String,
}

#[derive(Clone, Default)]
pub struct Receiver {
    pub received: Arc<Mutex<Vec<Received>>>,
    answers: Arc<Mutex<VecDeque<u16>>>,
    refuse: Arc<Mutex<Option<String>>>,
    pub url: String,
}

/// What a refused delivery is answered with.
pub const REFUSAL: &str = "{\"error\":\"refused by the test receiver\u{1b}[31m\"}";

async fn record(
    State(r): State<Receiver>,
    headers: HeaderMap,
    body: Bytes,
) -> (StatusCode, &'static str) {
    let signature = headers
        .get("service-signature")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_owned();
    r.received.lock().push(Received {
        signature,
        body: String::from_utf8_lossy(&body).into_owned(),
    });
    let refused = r
        .refuse
        .lock()
        .as_deref()
        .is_some_and(|text| String::from_utf8_lossy(&body).contains(text));
    if refused {
        return (StatusCode::INTERNAL_SERVER_ERROR, REFUSAL);
    }
    let status = r.answers.lock().pop_front().unwrap_or(200);
    (StatusCode::from_u16(status).unwrap(), "ok")
}

impl Receiver {
    pub async fn start(answers: &[u16]) -> Receiver {
        Self::start_on("127.0.0.1", answers).await
    }

    /// Listening on `ip` (for instances in other network namespaces).
    pub async fn start_on(ip: &str, answers: &[u16]) -> Receiver {
        let listener = tokio::net::TcpListener::bind((ip, 0)).await.unwrap();
        let mut r = Receiver {
            answers: Arc::new(Mutex::new(answers.iter().copied().collect())),
            ..Default::default()
        };
        r.url = format!("http://{}/hook", listener.local_addr().unwrap());
        let app = axum::Router::new()
            .route("/hook", axum::routing::post(record))
            .with_state(r.clone());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        r
    }

    /// Answers 500 to every body containing `text` from now on.
    pub fn refuse_bodies_containing(&self, text: &str) {
        *self.refuse.lock() = Some(text.to_owned());
    }

    /// Stops refusing (after `refuse_bodies_containing`).
    pub fn accept_everything(&self) {
        *self.refuse.lock() = None;
    }

    pub fn count(&self) -> usize {
        self.received.lock().len()
    }

    pub fn all(&self) -> Vec<Received> {
        self.received.lock().clone()
    }
}

/// Verifies a delivery with Stripe's own Python library, an implementation
/// independent of ours.
pub fn stripe_verifies(secret: &str, r: &Received) -> bool {
    let python = std::env::var("TEST_PYTHON").unwrap_or_else(|_| "python3".into());
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/stripe_verify.py");
    let out = std::process::Command::new(python)
        .arg(script)
        .env("SECRET", secret)
        .env("SIGNATURE", &r.signature)
        .env("PAYLOAD", &r.body)
        .output()
        .expect("python3 with the stripe package must be installed (scripts/test.sh does it)");
    assert!(
        out.status.code() != Some(3),
        "stripe package missing: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.status.success()
}
