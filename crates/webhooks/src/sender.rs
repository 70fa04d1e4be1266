//! One signed delivery attempt over an HTTP client that resolves names itself
//! and refuses any address the policy forbids, so DNS cannot smuggle a request
//! onto a private network.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use lendhub_domain::webhooks::endpoint::DELIVERY_TIMEOUT;
use lendhub_domain::webhooks::signature;
use reqwest::dns::{Addrs, Name, Resolve, Resolving};

use crate::policy::NetworkPolicy;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Attempt {
    /// The receiver's HTTP status, if it answered.
    pub status: Option<u16>,
    pub error: Option<String>,
    pub duration_ms: u64,
    /// From sending to the receiver's status line, if it answered.
    pub latency_ms: Option<u64>,
    /// The first [`EXCERPT_BYTES`] of its body, as text: what a partner
    /// debugging their receiver wants to see.
    pub excerpt: Option<String>,
}

/// How much of a receiver's body is kept. Never more is read, so a
/// receiver answering with a large or endless body costs nothing.
pub const EXCERPT_BYTES: usize = 256;

impl Attempt {
    pub fn succeeded(&self) -> bool {
        self.status.is_some_and(|s| (200..300).contains(&s))
    }
}

struct PolicyResolver(Arc<NetworkPolicy>);

impl Resolve for PolicyResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let policy = self.0.clone();
        Box::pin(async move {
            let host = name.as_str().to_owned();
            let resolved: Vec<SocketAddr> =
                tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            let allowed: Vec<SocketAddr> = resolved
                .into_iter()
                .filter(|a| policy.address_allowed(a.ip()))
                .collect();
            if allowed.is_empty() {
                return Err(
                    format!("{host} resolves only to addresses webhooks may not reach").into(),
                );
            }
            Ok(Box::new(allowed.into_iter()) as Addrs)
        })
    }
}

#[derive(Clone)]
pub struct Sender {
    client: reqwest::Client,
    policy: Arc<NetworkPolicy>,
}

impl Sender {
    pub fn new(policy: NetworkPolicy) -> Result<Self, reqwest::Error> {
        let policy = Arc::new(policy);
        let client = reqwest::Client::builder()
            .dns_resolver(Arc::new(PolicyResolver(policy.clone())))
            .redirect(reqwest::redirect::Policy::none())
            .timeout(DELIVERY_TIMEOUT)
            .connect_timeout(Duration::from_secs(5))
            .user_agent(concat!("lendhub-webhooks/", env!("CARGO_PKG_VERSION")))
            .build()?;
        Ok(Self { client, policy })
    }

    pub fn policy(&self) -> &NetworkPolicy {
        &self.policy
    }

    /// POSTs `body` signed with each of `secrets` (one `v1` each); `unix_now`
    /// is the signature timestamp.
    pub async fn deliver(&self, url: &str, secrets: &[&str], body: &str, unix_now: i64) -> Attempt {
        let started = Instant::now();
        let finish = |status: Option<u16>, error: Option<String>| Attempt {
            status,
            error,
            duration_ms: started.elapsed().as_millis() as u64,
            latency_ms: None,
            excerpt: None,
        };
        // Literal IPs bypass the resolver, so they are checked here.
        if let Err(rejection) = self.policy.check_url(url) {
            return finish(None, Some(rejection.to_string()));
        }
        let result = self
            .client
            .post(url)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .header(
                signature::HEADER,
                signature::sign_with_each(secrets, unix_now, body.as_bytes()),
            )
            .body(body.to_owned())
            .send()
            .await;
        match result {
            Ok(response) => {
                let latency_ms = started.elapsed().as_millis() as u64;
                let status = response.status().as_u16();
                let error = (!response.status().is_success())
                    .then(|| format!("receiver answered {status}"));
                let excerpt = excerpt(response).await;
                Attempt {
                    latency_ms: Some(latency_ms),
                    excerpt,
                    ..finish(Some(status), error)
                }
            }
            Err(e) if e.is_timeout() => finish(None, Some("no answer within 10 seconds".into())),
            Err(e) => finish(None, Some(error_chain(&e))),
        }
    }
}

/// The first [`EXCERPT_BYTES`] of the body as text (invalid UTF-8 and a
/// character cut at the end replaced, controls and bidirectional overrides
/// shown as spaces), or none when it is empty; what arrived before an error
/// or the attempt's timeout is kept.
async fn excerpt(mut response: reqwest::Response) -> Option<String> {
    let mut bytes = Vec::with_capacity(EXCERPT_BYTES);
    while bytes.len() < EXCERPT_BYTES {
        match response.chunk().await {
            Ok(Some(chunk)) => {
                let room = EXCERPT_BYTES - bytes.len();
                bytes.extend_from_slice(&chunk[..chunk.len().min(room)]);
            }
            Ok(None) => break,
            Err(_) => break,
        }
    }
    let text = lendhub_domain::text::shown(&String::from_utf8_lossy(&bytes));
    let text = text.trim_end();
    (!text.is_empty()).then(|| text.to_owned())
}

fn error_chain(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        out.push_str(": ");
        out.push_str(&s.to_string());
        source = s.source();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    /// A receiver that answers 200 with `body` (then keeps the connection
    /// open, as a receiver streaming forever would).
    async fn receiver(body: Vec<u8>) -> String {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/hook", listener.local_addr().unwrap());
        tokio::spawn(async move {
            let (mut socket, _) = listener.accept().await.unwrap();
            let mut request = vec![0; 64 * 1024];
            let _ = socket.read(&mut request).await;
            let head = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: {}\r\n\r\n",
                body.len() * 100
            );
            socket.write_all(head.as_bytes()).await.unwrap();
            // One body's worth of the promised hundred: the rest never comes.
            socket.write_all(&body).await.unwrap();
            tokio::time::sleep(Duration::from_secs(3600)).await;
        });
        url
    }

    fn sender() -> Sender {
        Sender::new(NetworkPolicy {
            https_only: false,
            allow_private_networks: vec!["127.0.0.0/8".parse().unwrap()],
        })
        .unwrap()
    }

    #[tokio::test]
    async fn only_the_first_bytes_of_an_answer_are_read_and_shown_safely() {
        let mut body = "accepted \u{1b}[2J\u{202e}évt ".as_bytes().to_vec();
        body.extend(std::iter::repeat_n(b'x', 4096));
        let url = receiver(body).await;
        let attempt = tokio::time::timeout(
            Duration::from_secs(5),
            sender().deliver(&url, &["whsec_test"], "{}", 0),
        )
        .await
        .expect("an endless body is not waited for");
        assert_eq!(attempt.status, Some(200));
        assert!(attempt.latency_ms.is_some());
        let excerpt = attempt.excerpt.unwrap();
        assert!(excerpt.starts_with("accepted  [2J évt xxx"), "{excerpt:?}");
        assert!(excerpt.len() <= EXCERPT_BYTES, "{}", excerpt.len());
    }
}
