//! The steps more than one surface takes: the REST tier, the hosted journey,
//! the pay page, the dashboard, MCP and the operator's CLI all call these,
//! never each other's handlers. A flow reads and decides; it returns the
//! writes for its caller to commit with the rest of the request, and a
//! [`FlowError`] each surface words in its own envelope. Nothing here knows
//! HTTP.

pub mod accounts;
pub mod agree_terms;
pub mod agreements;
pub mod bank_notification;
pub mod branding;
pub mod change_endpoint;
pub mod check_person;
pub mod close_month;
pub mod collectable;
pub mod collection_ledger;
pub mod connect_bank;
mod context;
pub mod decide;
pub mod endpoint_disabled;
mod error;
pub mod event_replay;
pub mod events;
pub mod fund;
pub mod lending;
pub mod lists;
pub mod mandate_at_bank;
pub mod mandates;
pub mod marketplace;
pub mod monitor_models;
pub mod open_application;
pub mod pay_at_bank;
pub mod payment_links;
pub mod payment_sweep;
pub mod payments;
pub mod payout_account;
pub mod reconcile;
pub mod redecide;
pub mod refund;
pub mod refund_rail;
pub mod review_account;
pub mod review_mail;
pub mod schedule_collect;
pub mod schedule_follow;
pub mod schedules;
pub mod share_payout;
pub mod sign;
pub mod staff_acts;
pub mod sweep;
pub mod underwrite;
pub mod webhook_endpoints;

pub use context::{Context, Parts, Stores};
pub use error::FlowError;
