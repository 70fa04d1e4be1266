//! The public ring (hub seed, Public ring): the pricing configuration, the
//! quotes computed from it, and enquiries.

pub mod enquiry;
pub mod pricing;
pub mod quote;
