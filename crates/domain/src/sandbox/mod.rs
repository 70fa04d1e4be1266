//! The sandbox partner API's product (seed 000): its application and the
//! deterministic decision engine, its Crockford-base32 ids, events,
//! synthetic payments, sealed access tokens and per-client test clocks.

pub mod application;
pub mod decisioning;
pub mod events;
pub mod fixtures;
pub mod ids;
pub mod payment;
pub mod synthetic;
pub mod test_clock;
pub mod token;
