//! Identity checks of people (hub seed, `POST /identity/checks`; issue
//! #15): KYC and AML against the person register, as a `verification`
//! object with its `identity.verified` or `identity.review_required` event.

pub mod create;
pub mod retrieve;
