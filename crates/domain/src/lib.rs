//! The pure core of lendhub: identifiers, money, decisioning, loan arithmetic,
//! state machines and the webhook signature scheme. Nothing here performs I/O;
//! time and randomness come in as arguments.

pub mod application;
pub mod clock;
pub mod credentials;
pub mod crypto;
pub mod decisioning;
pub mod enquiry;
pub mod events;
pub mod fixtures;
pub mod grants;
pub mod hub_ids;
pub mod idempotency;
pub mod identity;
pub mod ids;
pub mod journey;
pub mod kyc;
pub mod lending;
pub mod loan;
pub mod money;
pub mod partner;
pub mod payment;
pub mod pkce;
pub mod pricing;
pub mod quote;
pub mod ratelimit;
pub mod register;
pub mod request_signature;
pub mod retry;
pub mod scope;
pub mod servicing;
pub mod signature;
pub mod synthetic;
pub mod tenant;
pub mod test_clock;
pub mod underwriting;
pub mod webhook;
