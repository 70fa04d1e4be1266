//! The UK Open Banking Read/Write API (v3.1.11), as far as lendhub speaks
//! it: the shapes the adapters send and read and the model bank answers
//! with, named as the standard names them, and what lendhub derives from
//! them. The standard's OpenAPI documents, vendored under
//! `crates/models/spec/`, are what tests check these shapes against.

pub mod ais;
pub mod amount;
pub mod events;
pub mod jws;
pub mod pis;
pub mod test_accounts;
pub mod vrp;
