//! The `lendhub` binary's library half: configuration, the server that wires
//! every surface to its listener, and the operator CLI. Tests start the same
//! server in-process.

mod accounts_cli;
mod billing_cli;
pub mod cli;
mod cms_cli;
pub mod config;
pub mod keys;
mod listener;
mod log_writer;
mod marketplace_cli;
mod partner_cli;
mod people;
mod secret_input;
pub mod server;
mod sso_cli;
mod staff_cli;
mod status_cli;
pub mod telemetry;
mod underwriting_cli;
