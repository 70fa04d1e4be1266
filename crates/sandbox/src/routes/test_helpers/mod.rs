//! Test helpers (issue 7): the caller's test clock, events on demand and a
//! reset. They exist only on the sandbox listener; the hub has none.

pub mod clock;
pub mod events;
pub mod reset;
