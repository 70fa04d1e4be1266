//! A funded loan (hub seed, Resources → Account, Ledger entry, Payment and
//! schedule): the account, its ledger and how the ledger reviews it, and
//! the collections, schedules and mandates that repay it.

pub mod account;
pub mod bank_payment;
pub mod collection;
pub mod ledger;
pub mod link_request;
pub mod list_filters;
pub mod mandate;
pub mod refund_payout;
pub mod refund_request;
pub mod request_fields;
mod review;
pub mod schedule;
pub mod schedule_request;
pub mod statement;
