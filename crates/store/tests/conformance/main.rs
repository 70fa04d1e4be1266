//! What every storage backend must do, one module per storage context,
//! tested through the store's traits only. A new backend runs this same
//! suite: SQLite unless `TEST_BACKEND=postgres`, which needs
//! `TEST_POSTGRES_URL` (`scripts/test.sh` sets both).
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../common/mod.rs"]
mod common;
mod support;

mod billing;
mod dashboard;
mod events;
mod identity;
mod instances;
mod jobs;
mod ledger;
mod lending;
mod marketplace;
mod partner;
mod plans;
mod public;
mod sandbox;
mod status;
mod writes;
