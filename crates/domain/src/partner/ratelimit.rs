//! The partner ring's token bucket (seed 001, Limits → Partner rate limits):
//! a bucket per project holds up to `burst` tokens and refills at
//! `per_second`; every request, read or write, takes one. Pure arithmetic
//! on an injected clock, in thousandths of a token so refills are exact.

use crate::partner::project::TierLimits;

const MILLI: i64 = 1000;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TokenBucket {
    /// Tokens × 1000.
    level: i64,
    at_ms: i64,
}

/// What one request learns from the bucket.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Verdict {
    pub allowed: bool,
    /// Whole tokens left after this request.
    pub remaining: u32,
    /// Milliseconds until the bucket is full again.
    pub reset_ms: i64,
    /// When refused: milliseconds until one token is available.
    pub retry_after_ms: i64,
}

impl TokenBucket {
    /// A full bucket.
    pub fn new(limits: TierLimits, now_ms: i64) -> Self {
        Self {
            level: i64::from(limits.burst) * MILLI,
            at_ms: now_ms,
        }
    }

    fn refill(&mut self, limits: TierLimits, now_ms: i64) {
        let elapsed = (now_ms - self.at_ms).max(0);
        // per_second tokens per 1000 ms is per_second milli-tokens per ms.
        let gained = elapsed.saturating_mul(i64::from(limits.per_second));
        self.level = (self.level + gained).min(i64::from(limits.burst) * MILLI);
        self.at_ms = self.at_ms.max(now_ms);
    }

    /// Whole tokens available now, without taking one.
    pub fn peek(&self, limits: TierLimits, now_ms: i64) -> u32 {
        let mut copy = *self;
        copy.refill(limits, now_ms);
        u32::try_from(copy.level / MILLI).unwrap_or(0)
    }

    pub fn take(&mut self, limits: TierLimits, now_ms: i64) -> Verdict {
        self.refill(limits, now_ms);
        let allowed = self.level >= MILLI;
        if allowed {
            self.level -= MILLI;
        }
        Verdict::of(limits, self.level, allowed)
    }
}

impl Verdict {
    /// What a bucket left at `level` thousandths of a token says, the
    /// request `allowed` or not: the same arithmetic wherever the bucket
    /// is kept (this instance's memory, or a store shared by instances).
    pub fn of(limits: TierLimits, level: i64, allowed: bool) -> Verdict {
        let rate = i64::from(limits.per_second.max(1));
        let missing_for_full = (i64::from(limits.burst) * MILLI - level).max(0);
        let missing_for_one = (MILLI - level).max(0);
        Verdict {
            allowed,
            remaining: u32::try_from(level / MILLI).unwrap_or(0),
            reset_ms: (missing_for_full + rate - 1) / rate,
            retry_after_ms: if allowed {
                0
            } else {
                (missing_for_one + rate - 1) / rate
            },
        }
    }
}

/// A route's own limit, on top of the project's bucket.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct SubLimit {
    pub method: &'static str,
    /// Under the partner ring, in the router's syntax.
    pub path: &'static str,
    pub per_second: u32,
}

/// The seed's sub-limits. They name planned-tier routes, which answer 503 today.
pub const SUB_LIMITS: [SubLimit; 4] = [
    SubLimit {
        method: "POST",
        path: "/applications",
        per_second: 5,
    },
    SubLimit {
        method: "POST",
        path: "/decisions/{id}/refresh",
        per_second: 1,
    },
    SubLimit {
        method: "POST",
        path: "/payments/links",
        per_second: 10,
    },
    SubLimit {
        method: "POST",
        path: "/identity/checks",
        per_second: 5,
    },
];

pub fn sub_limit(method: &str, path: &str) -> Option<&'static SubLimit> {
    SUB_LIMITS
        .iter()
        .find(|l| l.method == method && l.path == path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::partner::project::Tier;

    #[test]
    fn burst_then_refill_at_the_rate() {
        let limits = Tier::Build.limits(); // 10/s, burst 50
        let mut b = TokenBucket::new(limits, 0);
        for i in 0..50 {
            let v = b.take(limits, 0);
            assert!(v.allowed, "request {i}");
            assert_eq!(v.remaining, 49 - i);
        }
        let refused = b.take(limits, 0);
        assert!(!refused.allowed);
        assert_eq!(refused.retry_after_ms, 100, "one token every 100 ms");
        assert_eq!(refused.reset_ms, 5_000, "empty to full in 5 s");
        assert!(!b.take(limits, 99).allowed);
        assert!(b.take(limits, 100).allowed);
        // A long idle period never overfills.
        let v = b.take(limits, 3_600_000);
        assert_eq!(v.remaining, 49);
    }

    #[test]
    fn sub_limits_follow_the_seed() {
        let per_second = |m, p| sub_limit(m, p).map(|l| l.per_second);
        assert_eq!(per_second("POST", "/applications"), Some(5));
        assert_eq!(per_second("POST", "/decisions/{id}/refresh"), Some(1));
        assert_eq!(per_second("POST", "/payments/links"), Some(10));
        assert_eq!(per_second("POST", "/identity/checks"), Some(5));
        assert_eq!(per_second("GET", "/applications"), None);
    }

    proptest::proptest! {
        /// Over any requests at any (non-decreasing) times, a bucket never
        /// admits more than its burst plus what its rate refilled, and a
        /// refusal's Retry-After is exactly when the next token comes: a
        /// retry then is admitted.
        #[test]
        fn a_bucket_admits_its_burst_plus_its_rate_and_no_more(
            tier in proptest::sample::select(vec![Tier::Build, Tier::Launch, Tier::Scale]),
            gaps in proptest::collection::vec(0i64..400, 1..400),
        ) {
            let limits = tier.limits();
            let mut bucket = TokenBucket::new(limits, 0);
            let (mut now, mut admitted) = (0i64, 0i64);
            for gap in gaps {
                now += gap;
                let verdict = bucket.take(limits, now);
                if verdict.allowed {
                    admitted += 1;
                } else {
                    proptest::prop_assert!(verdict.retry_after_ms > 0);
                    let mut retried = bucket;
                    proptest::prop_assert!(
                        retried.take(limits, now + verdict.retry_after_ms).allowed,
                        "a retry at Retry-After is admitted"
                    );
                }
                let refilled = now * i64::from(limits.per_second) / 1000;
                proptest::prop_assert!(admitted <= i64::from(limits.burst) + refilled);
                proptest::prop_assert!(verdict.remaining <= limits.burst);
            }
        }

        /// The verdict is a function of the bucket's level alone: what a
        /// bucket kept elsewhere (the shared limits) reports from its level
        /// is what this one reports.
        #[test]
        fn a_verdict_depends_only_on_the_level(
            tier in proptest::sample::select(vec![Tier::Build, Tier::Launch, Tier::Scale]),
            gaps in proptest::collection::vec(0i64..200, 1..100),
        ) {
            let limits = tier.limits();
            let mut bucket = TokenBucket::new(limits, 0);
            let mut now = 0;
            for gap in gaps {
                now += gap;
                let verdict = bucket.take(limits, now);
                proptest::prop_assert_eq!(verdict, Verdict::of(limits, bucket.level, verdict.allowed));
            }
        }
    }
}
