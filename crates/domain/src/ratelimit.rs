//! The partner ring's token bucket (seed 001, Limits → Partner rate limits):
//! a bucket per project holds up to `burst` tokens and refills at
//! `per_second`; every request, read or write, takes one. Pure arithmetic
//! on an injected clock, in thousandths of a token so refills are exact.

use crate::partner::TierLimits;

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
    use crate::partner::Tier;

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
}
