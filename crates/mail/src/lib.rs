//! Outgoing mail: enquiry notifications sent by SMTP from a durable outbox.
//! An enquiry and its notification are stored together; this crate's worker
//! sends what is due, retries failures on a schedule read from the business
//! clock, and never lets a mail server's state reach the request path.

pub mod smtp;
pub mod worker;

pub use smtp::{Mailer, SmtpSettings, TlsMode};
pub use worker::Notifications;
