//! The company register over the Companies House Public Data API:
//! `GET {url}/company/{company_number}` with the API key as HTTP basic
//! user name and an empty password. 404 is "no such company"; 401, 429, a
//! 5xx, a timeout or an answer that is not a profile are an outage (the
//! request answers 503 and may be retried).
//!
//! The register allows 600 requests per 5 minutes per key: a client-side
//! bucket of that size, refilled at that rate on the service clock, keeps
//! lendhub under it ([`Quota::PUBLISHED`]), and profiles are kept for a
//! minute so a burst of applications for one company asks once. The model
//! register has no quota to protect: `serve` reaches it with none.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use lendhub_domain::clock::Clock;
use lendhub_domain::lending::companies_house::CompanyProfile;
use lendhub_domain::lending::register::RegisteredEntity;
use lendhub_domain::secret::Secret;
use parking_lot::Mutex;
use reqwest::StatusCode;

use super::hop;
use super::{CompanyRegister, RegisterUnavailable};

/// How many requests a key may make per window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Quota {
    pub requests: u32,
    pub window_ms: i64,
}

impl Quota {
    /// Companies House's: 600 requests per 5 minutes.
    pub const PUBLISHED: Quota = Quota {
        requests: 600,
        window_ms: 5 * 60 * 1000,
    };
}
/// How long a profile (or "no such company") is kept.
const KEEP_MS: i64 = 60 * 1000;
/// Profiles kept at most; the oldest half goes when full.
const KEEP_AT_MOST: usize = 10_000;

pub struct CompaniesHouse {
    base: String,
    api_key: Secret<String>,
    http: reqwest::Client,
    clock: Arc<dyn Clock>,
    /// `None`: a register with no quota (the model).
    bucket: Option<Mutex<Bucket>>,
    kept: Mutex<HashMap<String, (i64, Option<RegisteredEntity>)>>,
}

/// Requests left in the window, refilled continuously.
struct Bucket {
    quota: Quota,
    tokens: f64,
    at_ms: i64,
}

impl Bucket {
    fn take(&mut self, now_ms: i64) -> bool {
        let limit = f64::from(self.quota.requests);
        let refill = (now_ms - self.at_ms).max(0) as f64 * limit / self.quota.window_ms as f64;
        self.tokens = (self.tokens + refill).min(limit);
        self.at_ms = now_ms;
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

impl CompaniesHouse {
    /// `base` is the API's root (`https://api.company-information.service.gov.uk`
    /// in production); `timeout` bounds each request; `quota` is the key's
    /// (`Quota::PUBLISHED` for Companies House).
    pub fn new(
        base: &str,
        api_key: Secret<String>,
        timeout: Duration,
        clock: Arc<dyn Clock>,
        quota: Option<Quota>,
    ) -> Result<Self, reqwest::Error> {
        let http = super::http_client(timeout)?;
        let now_ms = clock.now_ms();
        Ok(Self {
            base: base.trim_end_matches('/').to_owned(),
            api_key,
            http,
            clock,
            bucket: quota.map(|quota| {
                Mutex::new(Bucket {
                    quota,
                    tokens: f64::from(quota.requests),
                    at_ms: now_ms,
                })
            }),
            kept: Mutex::default(),
        })
    }

    fn kept(&self, number: &str, now_ms: i64) -> Option<Option<RegisteredEntity>> {
        let kept = self.kept.lock();
        let (at_ms, entity) = kept.get(number)?;
        (now_ms - at_ms < KEEP_MS).then(|| entity.clone())
    }

    fn keep(&self, number: &str, entity: &Option<RegisteredEntity>, now_ms: i64) {
        let mut kept = self.kept.lock();
        if kept.len() >= KEEP_AT_MOST {
            let mut ages: Vec<i64> = kept.values().map(|(at, _)| *at).collect();
            ages.sort_unstable();
            let cut = ages[ages.len() / 2];
            kept.retain(|_, (at, _)| *at > cut);
        }
        kept.insert(number.to_owned(), (now_ms, entity.clone()));
    }

    async fn ask(&self, number: &str) -> Result<Option<RegisteredEntity>, RegisterUnavailable> {
        let unavailable = |why: String| RegisterUnavailable(why);
        let request = self
            .http
            .get(format!("{}/company/{number}", self.base))
            .basic_auth(self.api_key.expose(), Some(""));
        let response = hop::send(hop::REGISTER, "GET /company/{company_number}", request)
            .await
            .map_err(|e| unavailable(format!("Companies House did not answer: {e}")))?;
        match response.status() {
            StatusCode::OK => {
                let profile: CompanyProfile = response.json().await.map_err(|e| {
                    unavailable(format!("Companies House answered no company profile: {e}"))
                })?;
                Ok(Some(profile.entity()))
            }
            StatusCode::NOT_FOUND => Ok(None),
            StatusCode::UNAUTHORIZED => Err(unavailable(
                "Companies House refused the API key (counterparties.<environment>.company_register.api_key)".into(),
            )),
            status => Err(unavailable(format!("Companies House answered {status}"))),
        }
    }
}

#[async_trait]
impl CompanyRegister for CompaniesHouse {
    async fn lookup(&self, number: &str) -> Result<Option<RegisteredEntity>, RegisterUnavailable> {
        let now_ms = self.clock.now_ms();
        if let Some(kept) = self.kept(number, now_ms) {
            return Ok(kept);
        }
        if let Some(bucket) = &self.bucket
            && !bucket.lock().take(now_ms)
        {
            return Err(RegisterUnavailable(
                "lendhub's share of the Companies House rate limit is spent for now".into(),
            ));
        }
        let entity = self.ask(number).await?;
        self.keep(number, &entity, now_ms);
        Ok(entity)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bucket_allows_the_registers_limit_and_refills_at_its_rate() {
        let quota = Quota::PUBLISHED;
        let mut bucket = Bucket {
            quota,
            tokens: f64::from(quota.requests),
            at_ms: 0,
        };
        assert_eq!(
            (0..quota.requests).filter(|_| bucket.take(0)).count(),
            quota.requests as usize
        );
        assert!(!bucket.take(0), "the 601st request in the window waits");
        // One request's worth every 500 ms.
        assert!(!bucket.take(499));
        assert!(bucket.take(500));
        assert!(!bucket.take(500));
        assert!(bucket.take(quota.window_ms * 2), "a full window refills it");
    }
}
