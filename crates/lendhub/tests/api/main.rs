//! HTTP tests: every test starts the real server on port 0 with its own
//! database and speaks HTTP to it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

mod applications;
mod auth;
mod cli;
mod crash;
mod dashboard;
mod docs;
mod enquiries;
mod envelope;
mod events;
mod hardening;
mod idempotency;
mod identity;
mod identity_clients;
mod identity_passwords;
mod instances;
mod mcp;
mod outage;
mod partner;
mod payments;
mod public;
mod public_mcp;
mod rest_accounts;
mod rest_applications;
mod rest_decision_lifecycle;
mod rest_decisions;
mod rest_identity_checks;
mod rest_journey;
mod rest_marketplace;
mod rest_mcp;
mod rest_payments;
mod rest_schedules;
mod rest_statements;
mod rest_sub_accounts;
mod rest_test_helpers;
mod rest_tier;
mod rest_webhooks;
mod secrets;
mod status_page;
mod test_helpers;
mod token;
mod webhooks;
mod widget;
