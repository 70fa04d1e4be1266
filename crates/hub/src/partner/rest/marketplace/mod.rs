//! The marketplace (hub seed, Marketplace; issue #17): a partner registers
//! the third-party vendors it works with as app listings, which the
//! lender's operator reviews (`lendhub marketplace apps …`); an approved app
//! subscribes to the partner's events, delivered to the app's own endpoint
//! under a secret of its own, and publishes signals that the decision
//! engine weighs while an application's decision is unresolved. One
//! handler file per endpoint; here the views and what they share.

pub mod create_app;
pub mod publish_signal;
pub mod retrieve_app;
pub mod subscribe;
