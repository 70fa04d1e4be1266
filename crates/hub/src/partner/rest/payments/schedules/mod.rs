//! Payment schedules (hub seed, Resources → Payment and schedule; States →
//! Schedule; issue #16): a partner's standing instruction to collect from
//! an account weekly or monthly. The scheduler (`collect.rs`, riding the
//! sweep) initiates each due instalment as a child payment, exactly once
//! across instances; `follow.rs` moves the schedule with its children.
//! One handler file per endpoint.

pub mod cancel;
pub mod create;
pub mod retrieve;
