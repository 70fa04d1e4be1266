//! Back-off for guessing (issue #19): sign-in attempts are throttled per
//! account and per client address. A key gets some free failures within a
//! window; past them each further attempt must wait twice as long as the
//! one before, up to a cap. Every attempt is counted as a failure until it
//! succeeds, so a burst of concurrent guesses is counted in full before any
//! is checked.

/// How a kind of key is throttled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Policy {
    /// Failures allowed without waiting.
    pub free: u32,
    /// The wait after the first failure past `free`, doubling with each.
    pub first_wait_ms: i64,
    pub max_wait_ms: i64,
    /// A key quiet this long after its wait ended starts again from
    /// nothing. Longer than the cap, so waiting out the longest wait does
    /// not buy a fresh set of free attempts.
    pub forget_after_ms: i64,
}

/// One account: five tries, then 1 s, 2 s, 4 s … up to 15 minutes;
/// forgotten after a day of quiet.
pub const ACCOUNT: Policy = Policy {
    free: 5,
    first_wait_ms: 1_000,
    max_wait_ms: 15 * 60_000,
    forget_after_ms: 24 * 60 * 60_000,
};

/// One client address: more room (an office shares one), same back-off.
pub const ADDRESS: Policy = Policy {
    free: 20,
    first_wait_ms: 1_000,
    max_wait_ms: 15 * 60_000,
    forget_after_ms: 24 * 60 * 60_000,
};

/// A key's count.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Count {
    pub failures: u32,
    pub last_ms: i64,
}

impl Policy {
    /// How long after its last failure a key with `failures` must wait.
    pub fn wait_ms(&self, failures: u32) -> i64 {
        if failures < self.free {
            return 0;
        }
        let doublings = (failures - self.free).min(40);
        self.first_wait_ms
            .saturating_mul(1i64 << doublings.min(62))
            .min(self.max_wait_ms)
    }

    /// The count as it stands at `now_ms`: forgotten once quiet for
    /// `forget_after_ms` after its wait ended.
    pub fn current(&self, count: Count, now_ms: i64) -> Count {
        let quiet_since = count.last_ms + self.wait_ms(count.failures);
        if now_ms - quiet_since >= self.forget_after_ms {
            Count::default()
        } else {
            count
        }
    }

    /// An attempt at `now_ms`: the count with it reserved as a failure, or
    /// how many milliseconds to wait first.
    pub fn attempt(&self, count: Count, now_ms: i64) -> Result<Count, i64> {
        let count = self.current(count, now_ms);
        let ready_at = count.last_ms + self.wait_ms(count.failures);
        if count.failures >= self.free && now_ms < ready_at {
            return Err(ready_at - now_ms);
        }
        Ok(Count {
            failures: count.failures + 1,
            last_ms: now_ms,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn free_failures_then_a_doubling_wait_up_to_the_cap() {
        let p = ACCOUNT;
        let mut c = Count::default();
        let mut now = 1_000_000;
        for _ in 0..5 {
            c = p.attempt(c, now).expect("free");
        }
        assert_eq!(p.attempt(c, now), Err(1_000), "the sixth waits a second");
        now += 1_000;
        c = p.attempt(c, now).expect("waited");
        assert_eq!(p.attempt(c, now + 1_999), Err(1));
        c = p.attempt(c, now + 2_000).expect("waited twice as long");
        assert_eq!(p.wait_ms(7), 4_000);
        assert_eq!(p.wait_ms(100), 15 * 60_000, "capped");
        // At the cap, waiting it out buys one attempt, not a fresh five.
        let capped = Count {
            failures: 40,
            last_ms: now,
        };
        let after = now + 15 * 60_000;
        let next = p.attempt(capped, after).expect("waited the cap");
        assert_eq!(p.attempt(next, after + 1), Err(15 * 60_000 - 1));
        // Quiet for a day after its wait: forgotten.
        let later = c.last_ms + p.wait_ms(c.failures) + p.forget_after_ms;
        assert_eq!(
            p.attempt(c, later),
            Ok(Count {
                failures: 1,
                last_ms: later
            })
        );
    }
}
