//! The hub's REST tier up to the loan (hub seed, Resources → Application,
//! Decision): the application and its states, underwriting, the hosted
//! journey, identity checks of a person, the company register and
//! introductions.

pub mod agreement;
pub mod application;
pub mod bank_connection;
pub mod checks_api;
pub mod companies_house;
pub mod disbursement;
pub mod introduction;
pub mod journey;
pub mod kyc;
pub mod list_filters;
pub mod register;
pub mod underwriting;
pub mod white_label;
