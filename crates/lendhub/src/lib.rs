//! The `lendhub` binary's library half: configuration, the server that wires
//! every surface to its listener, and the operator CLI. Tests start the same
//! server in-process.

pub mod cli;
pub mod config;
mod counterparties;
pub mod keys;
mod listener;
mod log_writer;
mod people;
mod secret_input;
pub mod server;
pub mod telemetry;
