//! The pure core of lendhub: identifiers, money, decisioning, loan arithmetic,
//! state machines and the webhook signature scheme. Nothing here performs I/O;
//! time and randomness come in as arguments.
//!
//! One folder per bounded context; the files at this level are the shared
//! kernel every context may use (money, ids, tenants, time, secrets).

// The shared kernel.
pub mod clock;
pub mod credit_model;
pub mod crypto;
pub mod idempotency;
pub mod ids;
pub mod list_filter;
pub mod loan;
pub mod metadata;
pub mod money;
pub mod paging;
pub mod payout_rail;
pub mod people;
pub mod problem;
pub mod retry;
pub mod secret;
pub mod tenant;
pub mod text;
pub mod working_days;

// The contexts.
pub mod billing;
pub mod identity;
pub mod ledger;
pub mod lending;
pub mod marketplace;
pub mod open_banking;
pub mod partner;
pub mod public;
pub mod sandbox;
pub mod servicing;
pub mod status;
pub mod webhooks;
