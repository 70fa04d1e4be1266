//! When a failed notification is tried again: 30 s after the first failure,
//! doubling to at most an hour between attempts, for three days after it was
//! first due; then it is marked failed (and logged) for an operator.

/// The longest wait between two attempts.
const MAX_GAP_MS: i64 = 3_600_000;
const FIRST_GAP_MS: i64 = 30_000;
/// How long an undeliverable notification keeps being tried.
pub const GIVE_UP_AFTER_MS: i64 = 3 * 24 * 3_600_000;

/// After the `attempts`-th failed attempt (1-based) at `now_ms`, when to try
/// next; `None` once three days have passed since `first_due_ms`.
pub fn next_attempt_ms(first_due_ms: i64, attempts: u32, now_ms: i64) -> Option<i64> {
    let doublings = attempts.saturating_sub(1).min(20);
    let gap = (FIRST_GAP_MS << doublings).min(MAX_GAP_MS);
    let next = now_ms + gap;
    (next - first_due_ms <= GIVE_UP_AFTER_MS).then_some(next)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backs_off_then_gives_up() {
        assert_eq!(next_attempt_ms(0, 1, 0), Some(30_000));
        assert_eq!(next_attempt_ms(0, 2, 30_000), Some(90_000));
        assert_eq!(next_attempt_ms(0, 3, 90_000), Some(210_000));
        assert_eq!(
            next_attempt_ms(0, 12, 1_000_000),
            Some(1_000_000 + MAX_GAP_MS)
        );
        assert_eq!(
            next_attempt_ms(0, 40, GIVE_UP_AFTER_MS - MAX_GAP_MS),
            Some(GIVE_UP_AFTER_MS)
        );
        assert_eq!(next_attempt_ms(0, 41, GIVE_UP_AFTER_MS), None);
    }
}
