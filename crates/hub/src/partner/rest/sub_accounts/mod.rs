//! Sub-accounts (beta; hub seed, Resources → Sub-account; issue #17): the
//! distribution partners a partner works through. An application naming
//! one in `introduction_id` is attributed to it, and so is the account its
//! loan opens (`GET /accounts?sub_account_id=…`). One handler file per
//! endpoint.

pub mod create;
pub mod list;
pub mod retrieve;
pub mod update;
