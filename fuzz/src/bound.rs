//! The allocation bound every target runs under, in the fuzzer and in the
//! corpus replay alike: one input may make its target hold at most
//! [`MAX_ALLOCATION`] bytes more than were live when it started. Past that
//! the allocator refuses and the process aborts ("memory allocation of …
//! failed"), which libFuzzer reports as a crash and saves the input. It is
//! kept here rather than left to libFuzzer's `-malloc_limit_mb` because that
//! flag needs a sanitizer's allocator hooks, and the test command's fuzzing
//! build has no sanitizer (docs/decisions.md).

use std::alloc::System;
use std::sync::Once;

use cap::Cap;

use crate::{MAX_ALLOCATION, Target};

#[global_allocator]
static ALLOCATOR: Cap<System> = Cap::new(System, usize::MAX);

/// Runs `target` on one input under the bound.
pub fn run(target: Target, data: &[u8]) {
    static REPORT_UNBOUND: Once = Once::new();
    REPORT_UNBOUND.call_once(|| {
        // A failing target's report (a backtrace) may need more than the
        // bound, and libFuzzer's own hook aborts before anything unwinds.
        let report = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            lift();
            report(info);
        }));
    });
    let limit = ALLOCATOR.allocated().saturating_add(MAX_ALLOCATION);
    if ALLOCATOR.set_limit(limit).is_err() {
        panic!("the allocation bound could not be set");
    }
    let _lifted_after = Lift;
    target(data);
}

/// Lifts the bound.
fn lift() {
    let _ = ALLOCATOR.set_limit(usize::MAX);
}

/// Lifts the bound when the target returns or unwinds.
struct Lift;

impl Drop for Lift {
    fn drop(&mut self) {
        lift();
    }
}
