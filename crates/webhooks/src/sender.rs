//! One signed delivery attempt over an HTTP client that resolves names itself
//! and refuses any address the policy forbids, so DNS cannot smuggle a request
//! onto a private network.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use lendhub_domain::signature;
use lendhub_domain::webhook::DELIVERY_TIMEOUT;
use reqwest::dns::{Addrs, Name, Resolve, Resolving};

use crate::policy::NetworkPolicy;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Attempt {
    /// The receiver's HTTP status, if it answered.
    pub status: Option<u16>,
    pub error: Option<String>,
    pub duration_ms: u64,
}

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
                let status = response.status().as_u16();
                let error = (!response.status().is_success())
                    .then(|| format!("receiver answered {status}"));
                finish(Some(status), error)
            }
            Err(e) if e.is_timeout() => finish(None, Some("no answer within 10 seconds".into())),
            Err(e) => finish(None, Some(error_chain(&e))),
        }
    }
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
