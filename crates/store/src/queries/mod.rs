//! Each context's statements, row mappers and store trait, written once
//! over the executor (`crate::exec`) for every backend.

mod brand;
mod dashboard;
mod events;
pub(crate) mod identity;
mod keys;
mod ledger;
mod partner;
pub(crate) mod public;
mod rest;
mod sandbox;
mod status;
