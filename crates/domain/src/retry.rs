//! When failed background work is tried again. Every queue (webhook
//! deliveries, mail, and later payment schedules, payouts and statements)
//! answers the same question through [`Backoff`], so the one worker loop
//! (`lendhub-jobs`) can ask it without knowing the queue.

/// Where a failed attempt stands, in milliseconds on the clock its job is
/// timed on (the owner's test clock for sandbox deliveries).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Attempted {
    /// When the job was first due.
    pub first_due_ms: i64,
    /// When the attempt that failed was due.
    pub due_ms: i64,
    /// Which attempt failed, 1-based.
    pub attempt: u32,
    /// When it failed.
    pub now_ms: i64,
    /// In [-1, 1]: how far to spread this retry within the schedule's jitter.
    pub jitter: f64,
}

/// A retry schedule.
pub trait Backoff: Send + Sync {
    /// When to try again after `failed`, or `None` when the schedule has run
    /// out and the job is given up.
    fn next_attempt_ms(&self, failed: Attempted) -> Option<i64>;
}

/// Doubling gaps from `first_gap_ms` up to `max_gap_ms`, counted from the
/// failure, for `give_up_after_ms` after the job was first due. No jitter:
/// each job has its own first due time, so retries do not bunch.
#[derive(Clone, Copy, Debug)]
pub struct Doubling {
    pub first_gap_ms: i64,
    pub max_gap_ms: i64,
    pub give_up_after_ms: i64,
}

impl Backoff for Doubling {
    fn next_attempt_ms(&self, failed: Attempted) -> Option<i64> {
        let doublings = failed.attempt.saturating_sub(1).min(20);
        let gap = self
            .first_gap_ms
            .saturating_mul(1 << doublings)
            .min(self.max_gap_ms);
        let next = failed.now_ms.saturating_add(gap);
        (next - failed.first_due_ms <= self.give_up_after_ms).then_some(next)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAIL: Doubling = Doubling {
        first_gap_ms: 30_000,
        max_gap_ms: 3_600_000,
        give_up_after_ms: 3 * 24 * 3_600_000,
    };

    fn failed(attempt: u32, now_ms: i64) -> Attempted {
        Attempted {
            first_due_ms: 0,
            due_ms: now_ms,
            attempt,
            now_ms,
            jitter: 0.0,
        }
    }

    #[test]
    fn doubling_backs_off_to_its_ceiling_then_gives_up() {
        assert_eq!(MAIL.next_attempt_ms(failed(1, 0)), Some(30_000));
        assert_eq!(MAIL.next_attempt_ms(failed(2, 30_000)), Some(90_000));
        assert_eq!(MAIL.next_attempt_ms(failed(3, 90_000)), Some(210_000));
        assert_eq!(
            MAIL.next_attempt_ms(failed(12, 1_000_000)),
            Some(1_000_000 + 3_600_000)
        );
        let last = MAIL.give_up_after_ms - MAIL.max_gap_ms;
        assert_eq!(
            MAIL.next_attempt_ms(failed(40, last)),
            Some(MAIL.give_up_after_ms)
        );
        assert_eq!(
            MAIL.next_attempt_ms(failed(41, MAIL.give_up_after_ms)),
            None
        );
    }
}
