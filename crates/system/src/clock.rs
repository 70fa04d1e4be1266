//! The clocks that read real time: the system's, and one tests and the
//! sandbox can move forward.

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};

use lendhub_domain::clock::{Clock, from_unix_ms, unix_ms};
use time::OffsetDateTime;

#[derive(Debug, Default, Clone, Copy)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> OffsetDateTime {
        OffsetDateTime::now_utc()
    }
}

/// Real time plus an offset that only grows. Tests (and later the sandbox
/// test clock) advance it; whoever advances it wakes the timers that care.
/// Frozen, it stops following real time and moves only when advanced.
#[derive(Debug, Default)]
pub struct ShiftedClock {
    offset_ms: AtomicI64,
    /// Real time (ms) at which it was frozen; 0 while it runs.
    frozen_at_ms: AtomicI64,
}

impl ShiftedClock {
    pub fn new() -> Arc<Self> {
        Arc::new(Self::default())
    }

    pub fn advance(&self, by: time::Duration) {
        let ms = by.whole_milliseconds().max(0) as i64;
        self.offset_ms.fetch_add(ms, Ordering::SeqCst);
    }

    pub fn offset_ms(&self) -> i64 {
        self.offset_ms.load(Ordering::SeqCst)
    }

    /// Stops following real time: for tests that count what happens within
    /// one instant (a rate-limit bucket, say).
    pub fn freeze(&self) {
        let now = unix_ms(OffsetDateTime::now_utc());
        let _ = self
            .frozen_at_ms
            .compare_exchange(0, now, Ordering::SeqCst, Ordering::SeqCst);
    }
}

impl Clock for ShiftedClock {
    fn now(&self) -> OffsetDateTime {
        let base = match self.frozen_at_ms.load(Ordering::SeqCst) {
            0 => OffsetDateTime::now_utc(),
            at => from_unix_ms(at),
        };
        base + time::Duration::milliseconds(self.offset_ms())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shifted_clock_moves_forward_only_by_what_it_is_told() {
        let clock = ShiftedClock::new();
        let before = clock.now();
        clock.advance(time::Duration::hours(73));
        let after = clock.now();
        assert!(after - before >= time::Duration::hours(73));
        assert!(after - before < time::Duration::hours(73) + time::Duration::seconds(5));
        clock.advance(time::Duration::seconds(-5));
        assert!(clock.offset_ms() >= 73 * 3_600_000, "never backwards");
    }

    #[test]
    fn a_frozen_clock_moves_only_when_advanced() {
        let clock = ShiftedClock::new();
        clock.freeze();
        let t = clock.now_ms();
        std::thread::sleep(std::time::Duration::from_millis(5));
        assert_eq!(clock.now_ms(), t);
        clock.advance(time::Duration::milliseconds(100));
        assert_eq!(clock.now_ms(), t + 100);
    }

    #[test]
    fn unix_ms_round_trips() {
        let t = from_unix_ms(1_790_000_000_123);
        assert_eq!(unix_ms(t), 1_790_000_000_123);
    }
}
