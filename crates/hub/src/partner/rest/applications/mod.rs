//! Applications (hub seed, Resources → Application; issue #15): create,
//! retrieve, list, withdraw, and the expiry of those the applicant never
//! finishes.

pub mod accept;
pub mod agreement;
pub mod create;
pub mod list;
pub mod retrieve;
pub mod submit;
pub mod withdraw;
