//! Servicing accounts (hub seed, Resources → Account; issue #16): opened
//! when a loan is funded, with a balance derived on every read from the
//! account's immutable ledger (`lendhub_domain::servicing::ledger`) on the caller's
//! clock. One handler file per endpoint.

pub mod balance;
pub mod caller;
pub mod list;
pub mod retrieve;
pub mod transactions;
