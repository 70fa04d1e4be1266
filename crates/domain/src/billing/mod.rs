//! What a partner pays and is paid (hub seed, Commercial model): the
//! integration fee, monthly statements under agreed terms, and the usage
//! the dashboard charts.

pub mod economics;
pub mod payout;
pub mod statement;
pub mod statement_list;
pub mod usage;
