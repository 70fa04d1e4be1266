//! Crash points: the crash tests stop the real binary at a step they
//! cannot time from outside (between a payment sent and its answer kept,
//! say), by naming it in `LENDHUB_CRASH_AT`. There the process aborts at
//! once, as `kill -9` would stop it: no unwinding, no destructor, nothing
//! flushed. Unset, as in every deployment, a crash point is one read of a
//! value cached at the first.

use std::sync::OnceLock;

/// The environment variable naming the one point to die at.
pub const CRASH_AT: &str = "LENDHUB_CRASH_AT";

/// Aborts the process if `LENDHUB_CRASH_AT` names `point`.
pub fn crash_point(point: &str) {
    static AT: OnceLock<Option<String>> = OnceLock::new();
    if AT.get_or_init(|| std::env::var(CRASH_AT).ok()).as_deref() == Some(point) {
        eprintln!("crash point {point}: aborting");
        std::process::abort();
    }
}
