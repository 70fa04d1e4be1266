//! The objects the API answers with, which are also the payloads of the
//! events announcing them: one file per resource. Every surface renders
//! through these (REST, MCP, the hosted pages, webhooks), so an object reads
//! the same wherever it is seen.

pub mod account;
pub mod agreement;
pub mod application;
pub mod bank_connection;
pub mod decision;
pub mod event_replay;
pub mod explanation;
pub mod introduction;
pub mod invoice;
pub mod mandate;
pub mod marketplace;
pub mod model_drift;
pub mod payment;
pub mod payout;
pub mod schedule;
pub mod statement;
pub mod sub_account;
pub mod verification;
pub mod webhook_endpoint;
