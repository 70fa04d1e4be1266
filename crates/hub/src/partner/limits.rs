//! Per-project rate limiting on the partner ring: the tier's token bucket and
//! its cap on concurrent requests. Buckets live in this instance's memory
//! (see docs/deployment.md: with N instances a project can reach N× its
//! limit). Admission happens once the project is known — after client
//! authentication on the token plane, after token verification elsewhere —
//! so nobody can spend another project's budget. Every response to an
//! identified project carries the RateLimit headers.

use std::collections::HashMap;
use std::sync::Arc;

use axum::extract::Request;
use axum::http::{HeaderMap, HeaderName, HeaderValue};
use axum::middleware::Next;
use axum::response::Response;
use lendhub_domain::partner::{Tier, TierLimits};
use lendhub_domain::ratelimit::{TokenBucket, Verdict};
use parking_lot::Mutex;

use super::error::PartnerError;

/// A refused request's hint when only the concurrency cap is full.
const CONCURRENCY_RETRY_MS: i64 = 100;

#[derive(Default)]
pub struct RateLimiter {
    buckets: Mutex<HashMap<String, TokenBucket>>,
    in_flight: Mutex<HashMap<String, u32>>,
}

/// Holds one of the project's concurrent slots until the response is sent.
pub struct InFlight {
    limiter: Arc<RateLimiter>,
    client_id: String,
}

impl Drop for InFlight {
    fn drop(&mut self) {
        let mut in_flight = self.limiter.in_flight.lock();
        if let Some(n) = in_flight.get_mut(&self.client_id) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                in_flight.remove(&self.client_id);
            }
        }
    }
}

/// What the response's RateLimit headers say.
#[derive(Clone, Copy)]
struct Quota {
    limits: TierLimits,
    verdict: Verdict,
}

/// A request's admission: what its headers say, and its concurrent slot if it got one.
struct Admission {
    quota: Quota,
    _in_flight: Option<InFlight>,
}

/// Carries a request's admission from where the project is known to the
/// middleware that writes the headers.
#[derive(Clone, Default)]
pub struct Slot(Arc<Mutex<Option<Admission>>>);

impl RateLimiter {
    /// Takes a token and a concurrent slot for `client_id`, or says when to retry.
    pub fn admit(
        self: &Arc<Self>,
        slot: Option<&Slot>,
        client_id: &str,
        tier: Tier,
        now_ms: i64,
    ) -> Result<(), PartnerError> {
        let limits = tier.limits();
        let mut verdict = {
            let mut buckets = self.buckets.lock();
            // Look up before inserting: no key allocation on the hot path.
            match buckets.get_mut(client_id) {
                Some(bucket) => bucket.take(limits, now_ms),
                None => buckets
                    .entry(client_id.to_owned())
                    .or_insert_with(|| TokenBucket::new(limits, now_ms))
                    .take(limits, now_ms),
            }
        };
        let mut guard = None;
        if verdict.allowed {
            let mut in_flight = self.in_flight.lock();
            let current = in_flight.get(client_id).copied().unwrap_or(0);
            if current >= limits.concurrent {
                verdict.allowed = false;
                verdict.retry_after_ms = CONCURRENCY_RETRY_MS;
            } else {
                match in_flight.get_mut(client_id) {
                    Some(n) => *n += 1,
                    None => {
                        in_flight.insert(client_id.to_owned(), 1);
                    }
                }
                guard = Some(InFlight {
                    limiter: self.clone(),
                    client_id: client_id.to_owned(),
                });
            }
        }
        let allowed = verdict.allowed;
        if let Some(slot) = slot {
            *slot.0.lock() = Some(Admission {
                quota: Quota { limits, verdict },
                _in_flight: guard,
            });
        }
        if allowed {
            Ok(())
        } else {
            Err(PartnerError::RateLimited {
                retry_after_ms: u64::try_from(verdict.retry_after_ms.max(1)).unwrap_or(1),
            })
        }
    }
}

/// A project's current standing, without spending anything.
pub struct Usage {
    pub remaining: u32,
    pub in_flight: u32,
}

impl RateLimiter {
    pub fn usage(&self, client_id: &str, tier: Tier, now_ms: i64) -> Usage {
        let limits = tier.limits();
        let remaining = self
            .buckets
            .lock()
            .get(client_id)
            .map_or(limits.burst, |b| b.peek(limits, now_ms));
        let in_flight = self.in_flight.lock().get(client_id).copied().unwrap_or(0);
        Usage {
            remaining,
            in_flight,
        }
    }
}

fn set(headers: &mut HeaderMap, name: &'static str, value: String) {
    if let Ok(v) = HeaderValue::from_str(&value) {
        headers.insert(HeaderName::from_static(name), v);
    }
}

/// Writes the RateLimit headers of whatever admission the request got, and
/// releases its concurrent slot once the response is ready.
pub async fn headers(mut request: Request, next: Next) -> Response {
    let slot = Slot::default();
    request.extensions_mut().insert(slot.clone());
    let mut response = next.run(request).await;
    let admitted = slot.0.lock().take();
    if let Some(Admission { quota, .. }) = admitted {
        let h = response.headers_mut();
        let TierLimits {
            per_second, burst, ..
        } = quota.limits;
        set(h, "ratelimit-limit", burst.to_string());
        set(
            h,
            "ratelimit-remaining",
            quota.verdict.remaining.to_string(),
        );
        set(
            h,
            "ratelimit-reset",
            (quota.verdict.reset_ms.max(0) as u64)
                .div_ceil(1000)
                .to_string(),
        );
        set(
            h,
            "ratelimit-policy",
            format!("{per_second};w=1;burst={burst}"),
        );
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_concurrency_cap_holds_until_responses_are_done() {
        let limiter = Arc::new(RateLimiter::default());
        // Build: 10 concurrent; the slots are held while their guards live.
        let slots: Vec<Slot> = (0..10).map(|_| Slot::default()).collect();
        for slot in &slots {
            assert!(
                limiter
                    .admit(Some(slot), "pk_live_a", Tier::Build, 0)
                    .is_ok()
            );
        }
        let refused = limiter.admit(None, "pk_live_a", Tier::Build, 0);
        assert!(matches!(
            refused,
            Err(PartnerError::RateLimited {
                retry_after_ms: 100
            })
        ));
        assert!(
            limiter.admit(None, "pk_live_b", Tier::Build, 0).is_ok(),
            "per project"
        );
        assert_eq!(limiter.usage("pk_live_a", Tier::Build, 0).in_flight, 10);
        drop(slots);
        assert_eq!(limiter.usage("pk_live_a", Tier::Build, 0).in_flight, 0);
        assert!(limiter.admit(None, "pk_live_a", Tier::Build, 0).is_ok());
    }
}
