//! Per-project rate limiting on the partner ring: the tier's token bucket,
//! the seed's per-route sub-limits on top of it, and the tier's cap on
//! concurrent requests. Buckets live in this instance's memory, or, with
//! `limits.shared_url`, in a Valkey/Redis server every instance shares
//! (`crate::shared_limits`; without it N instances give a project N× its
//! limit, see docs/guide/src/deployment.md). Admission happens once the project is known — after client
//! authentication on the token plane, after token verification elsewhere —
//! so nobody can spend another project's budget. Every response to an
//! identified project carries the RateLimit headers.

use std::collections::HashMap;
use std::sync::{Arc, LazyLock};

use axum::extract::Request;
use axum::http::HeaderValue;
use axum::response::Response;
use lendhub_domain::partner::project::{Tier, TierLimits};
use lendhub_domain::partner::ratelimit::{SubLimit, TokenBucket, Verdict, sub_limit};
use lendhub_http::around::Hook;
use parking_lot::Mutex;

use super::error::PartnerError;
use crate::ratelimit_headers::{LIMIT, POLICY, REMAINING, RESET};
use crate::shared_limits::{Decision, SharedLimits, Sub};

/// A refused request's hint when only the concurrency cap is full.
const CONCURRENCY_RETRY_MS: i64 = 100;

#[derive(Default)]
pub struct RateLimiter {
    buckets: Mutex<HashMap<String, TokenBucket>>,
    /// Per project and route, for the routes with a sub-limit.
    route_buckets: Mutex<HashMap<(String, &'static SubLimit), TokenBucket>>,
    in_flight: Mutex<HashMap<String, u32>>,
    /// The buckets every instance shares, when configured; this instance's
    /// own are used only while it cannot reach them.
    shared: Option<Arc<SharedLimits>>,
}

/// Holds one of the project's concurrent slots until the response is sent.
pub struct InFlight {
    limiter: Arc<RateLimiter>,
    client_id: String,
    /// The slot's name in the shared store, when it was taken there.
    shared_slot: Option<String>,
}

impl Drop for InFlight {
    fn drop(&mut self) {
        if let (Some(slot), Some(shared)) = (self.shared_slot.take(), &self.limiter.shared) {
            let (shared, project) = (shared.clone(), std::mem::take(&mut self.client_id));
            // A slot that cannot be released now lapses after its lease.
            if let Ok(runtime) = tokio::runtime::Handle::try_current() {
                runtime.spawn(async move {
                    if let Err(e) = shared.release(&project, &slot).await {
                        tracing::debug!(error = %e, "a shared concurrency slot lapses instead");
                    }
                });
            }
            return;
        }
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
/// middleware that writes the headers, and who to count the request for
/// once its status is known.
#[derive(Clone, Default)]
pub struct Slot(Arc<Mutex<Held>>);

#[derive(Default)]
struct Held {
    admission: Option<Admission>,
    counted: Option<Counted>,
}

/// A REST-tier request, to be counted for the dashboard's charts.
pub struct Counted {
    pub traffic: Arc<super::traffic::Traffic>,
    pub client: Arc<lendhub_store::PartnerClientRecord>,
    pub livemode: bool,
    pub day: time::Date,
}

impl Slot {
    /// Counts the request for `counted` once it is answered.
    pub fn count(&self, counted: Counted) {
        self.0.lock().counted = Some(counted);
    }
}

/// The route a request matched, as `(method, path under /partner/v1)`, for
/// its sub-limit.
pub type Route<'a> = (&'a str, &'a str);

/// A sub-limit as a bucket: `n` per second with a burst of `n`.
fn sub_limits(per_second: u32) -> TierLimits {
    TierLimits {
        per_second,
        burst: per_second,
        concurrent: u32::MAX,
    }
}

impl RateLimiter {
    /// Limits kept in `shared` (every instance's), or in this instance.
    pub fn new(shared: Option<Arc<SharedLimits>>) -> Self {
        Self {
            shared,
            ..Self::default()
        }
    }

    /// Takes a token and a concurrent slot for `client_id`, or says when to
    /// retry. A `route` with a sub-limit must also get a token from the
    /// project's bucket for that route, taken first so a refusal there
    /// spends nothing of the project's budget.
    pub async fn admit(
        self: &Arc<Self>,
        slot: Option<&Slot>,
        client_id: &str,
        tier: Tier,
        route: Option<Route<'_>>,
        now_ms: i64,
    ) -> Result<(), PartnerError> {
        // The platform tier's limits are negotiated per contract (the seed),
        // its sub-limits with them: none applies until a contract sets one.
        let route = route.filter(|_| tier != Tier::Platform);
        let sub = route.and_then(|(method, path)| sub_limit(method, path));
        if let Some(shared) = self.shared.as_ref().filter(|s| s.reachable(now_ms)) {
            let name = sub.map(|s| format!("{} {}", s.method, s.path));
            let shared_sub = sub.zip(name.as_deref()).map(|(s, name)| Sub {
                name,
                per_second: s.per_second,
            });
            let lease = lendhub_system::random_token(12);
            match shared
                .admit(client_id, tier.limits(), shared_sub, &lease, now_ms)
                .await
            {
                Ok(decision) => return self.decided(slot, client_id, tier, sub, decision, lease),
                Err(e) => {
                    shared.failed(&e, now_ms);
                    // The server may have taken the slot before the answer
                    // was lost: give it back rather than let it lapse.
                    drop(InFlight {
                        limiter: self.clone(),
                        client_id: client_id.to_owned(),
                        shared_slot: Some(lease),
                    });
                }
            }
        }
        self.admit_here(slot, client_id, tier, sub, now_ms)
    }

    /// What the shared store decided, as this request's admission.
    fn decided(
        self: &Arc<Self>,
        slot: Option<&Slot>,
        client_id: &str,
        tier: Tier,
        sub: Option<&'static SubLimit>,
        decision: Decision,
        lease: String,
    ) -> Result<(), PartnerError> {
        let limits = tier.limits();
        match decision {
            Decision::Admitted(verdict) => {
                if let Some(slot) = slot {
                    slot.0.lock().admission = Some(Admission {
                        quota: Quota { limits, verdict },
                        _in_flight: Some(InFlight {
                            limiter: self.clone(),
                            client_id: client_id.to_owned(),
                            shared_slot: Some(lease),
                        }),
                    });
                } else {
                    // Nobody holds the slot for the response: give it back.
                    drop(InFlight {
                        limiter: self.clone(),
                        client_id: client_id.to_owned(),
                        shared_slot: Some(lease),
                    });
                }
                Ok(())
            }
            Decision::SubLimit(verdict) => {
                refuse(slot, sub_limits(sub.map_or(1, |s| s.per_second)), verdict)
            }
            Decision::Bucket(verdict) => refuse(slot, limits, verdict),
            Decision::Concurrency(mut verdict) => {
                verdict.allowed = false;
                verdict.retry_after_ms = CONCURRENCY_RETRY_MS;
                refuse(slot, limits, verdict)
            }
        }
    }

    /// The same decision from this instance's own buckets.
    fn admit_here(
        self: &Arc<Self>,
        slot: Option<&Slot>,
        client_id: &str,
        tier: Tier,
        sub: Option<&'static SubLimit>,
        now_ms: i64,
    ) -> Result<(), PartnerError> {
        if let Some(sub) = sub {
            let limits = sub_limits(sub.per_second);
            let verdict = self
                .route_buckets
                .lock()
                .entry((client_id.to_owned(), sub))
                .or_insert_with(|| TokenBucket::new(limits, now_ms))
                .take(limits, now_ms);
            if !verdict.allowed {
                return refuse(slot, limits, verdict);
            }
        }
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
                    shared_slot: None,
                });
            }
        }
        if !verdict.allowed {
            return refuse(slot, limits, verdict);
        }
        if let Some(slot) = slot {
            slot.0.lock().admission = Some(Admission {
                quota: Quota { limits, verdict },
                _in_flight: guard,
            });
        }
        Ok(())
    }
}

/// A 429 whose headers describe the bucket that refused it.
fn refuse(slot: Option<&Slot>, limits: TierLimits, verdict: Verdict) -> Result<(), PartnerError> {
    if let Some(slot) = slot {
        slot.0.lock().admission = Some(Admission {
            quota: Quota { limits, verdict },
            _in_flight: None,
        });
    }
    Err(PartnerError::RateLimited {
        retry_after_ms: u64::try_from(verdict.retry_after_ms.max(1)).unwrap_or(1),
    })
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

/// Gives every request a [`Slot`], then writes the RateLimit headers of
/// whatever admission the request got, counts it if it asked to be, and
/// releases its concurrent slot once the response is ready
/// (`Around(Headers)`).
#[derive(Clone, Copy)]
pub struct Headers;

impl Hook for Headers {
    type Carry = Slot;

    fn before(&self, request: &mut Request) -> Slot {
        let slot = Slot::default();
        request.extensions_mut().insert(slot.clone());
        slot
    }

    fn after(&self, slot: Slot, response: &mut Response) {
        finish(&slot, response);
    }
}

/// `RateLimit-Policy` for a tier's limits: rendered once per tier, since a
/// `format!` on every response was 2 % of an MCP request.
fn policy(limits: TierLimits) -> Option<HeaderValue> {
    static RENDERED: LazyLock<Vec<(TierLimits, HeaderValue)>> = LazyLock::new(|| {
        Tier::ALL
            .iter()
            .filter_map(|tier| Some((tier.limits(), render_policy(tier.limits())?)))
            .collect()
    });
    RENDERED
        .iter()
        .find(|(known, _)| *known == limits)
        .map(|(_, value)| value.clone())
        .or_else(|| render_policy(limits))
}

fn render_policy(
    TierLimits {
        per_second, burst, ..
    }: TierLimits,
) -> Option<HeaderValue> {
    HeaderValue::from_str(&format!("{per_second};w=1;burst={burst}")).ok()
}

fn finish(slot: &Slot, response: &mut Response) {
    // One lock for both: what to count and what the headers say.
    let (counted, admitted) = {
        let mut held = slot.0.lock();
        (held.counted.take(), held.admission.take())
    };
    if let Some(c) = counted {
        c.traffic.record(
            &c.client.client_id,
            c.livemode,
            c.day,
            response.status().as_u16(),
        );
    }
    if let Some(Admission { quota, .. }) = admitted {
        let h = response.headers_mut();
        let burst = quota.limits.burst;
        // Integers become header values without a String in between.
        h.insert(LIMIT, HeaderValue::from(burst));
        h.insert(REMAINING, HeaderValue::from(quota.verdict.remaining));
        let reset_s = u64::try_from(quota.verdict.reset_ms.max(0))
            .unwrap_or(0)
            .div_ceil(1000);
        h.insert(RESET, HeaderValue::from(reset_s));
        if let Some(policy) = policy(quota.limits) {
            h.insert(POLICY, policy);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_concurrency_cap_holds_until_responses_are_done() {
        let limiter = Arc::new(RateLimiter::default());
        // Build: 10 concurrent; the slots are held while their guards live.
        let slots: Vec<Slot> = (0..10).map(|_| Slot::default()).collect();
        for slot in &slots {
            assert!(
                limiter
                    .admit(Some(slot), "pk_live_a", Tier::Build, None, 0)
                    .await
                    .is_ok()
            );
        }
        let refused = limiter.admit(None, "pk_live_a", Tier::Build, None, 0).await;
        assert!(matches!(
            refused,
            Err(PartnerError::RateLimited {
                retry_after_ms: 100
            })
        ));
        assert!(
            limiter
                .admit(None, "pk_live_b", Tier::Build, None, 0)
                .await
                .is_ok(),
            "per project"
        );
        assert_eq!(limiter.usage("pk_live_a", Tier::Build, 0).in_flight, 10);
        drop(slots);
        assert_eq!(limiter.usage("pk_live_a", Tier::Build, 0).in_flight, 0);
        assert!(
            limiter
                .admit(None, "pk_live_a", Tier::Build, None, 0)
                .await
                .is_ok()
        );
    }

    #[tokio::test]
    async fn the_platform_tier_negotiates_its_sub_limits() {
        let limiter = Arc::new(RateLimiter::default());
        let create = Some(("POST", "/applications"));
        for _ in 0..50 {
            assert!(
                limiter
                    .admit(None, "pk_live_p", Tier::Platform, create, 0)
                    .await
                    .is_ok()
            );
        }
        for _ in 0..5 {
            assert!(
                limiter
                    .admit(None, "pk_live_s", Tier::Scale, create, 0)
                    .await
                    .is_ok()
            );
        }
        assert!(
            limiter
                .admit(None, "pk_live_s", Tier::Scale, create, 0)
                .await
                .is_err(),
            "other tiers keep the seed's 5 a second"
        );
    }

    #[tokio::test]
    async fn a_sub_limit_binds_before_the_project_bucket() {
        let limiter = Arc::new(RateLimiter::default());
        let refresh = Some(("POST", "/decisions/{id}/refresh"));
        // Scale: 100/s burst 400, but refresh is 1 per second.
        assert!(
            limiter
                .admit(None, "pk_live_a", Tier::Scale, refresh, 0)
                .await
                .is_ok()
        );
        let slot = Slot::default();
        let refused = limiter
            .admit(Some(&slot), "pk_live_a", Tier::Scale, refresh, 0)
            .await;
        assert!(matches!(
            refused,
            Err(PartnerError::RateLimited {
                retry_after_ms: 1000
            })
        ));
        let quota = slot.0.lock().admission.as_ref().map(|a| a.quota).unwrap();
        assert_eq!(
            (quota.limits.burst, quota.verdict.remaining),
            (1, 0),
            "the headers describe the sub-limit"
        );
        assert_eq!(
            limiter.usage("pk_live_a", Tier::Scale, 0).remaining,
            399,
            "the refusal spent nothing of the project's bucket"
        );
        assert!(
            limiter
                .admit(
                    None,
                    "pk_live_a",
                    Tier::Scale,
                    Some(("GET", "/decisions/{id}")),
                    0
                )
                .await
                .is_ok(),
            "other routes only spend the project's bucket"
        );
        assert!(
            limiter
                .admit(None, "pk_live_b", Tier::Scale, refresh, 0)
                .await
                .is_ok(),
            "per project"
        );
        assert!(
            limiter
                .admit(None, "pk_live_a", Tier::Scale, refresh, 1_000)
                .await
                .is_ok(),
            "refilled a second later"
        );
    }
}
