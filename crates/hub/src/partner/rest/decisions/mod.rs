//! Decisions (hub seed, Resources → Decision; issue #15): what the engine
//! decided on an application, as it decided it.

pub mod for_application;
pub mod list;
pub mod refresh;
pub mod retrieve;
