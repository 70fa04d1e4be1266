//! One module per storage context: its trait, its records and, where it
//! writes inside a request's transaction, its variants of [`writes::Write`].

pub mod brand;
pub mod dashboard;
pub mod events;
pub mod jobs;
pub mod keys;
pub mod ledger;
pub mod maintenance;
pub mod partner;
pub mod rest;
pub mod sandbox;
pub mod status;
pub mod writes;
