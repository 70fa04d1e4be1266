//! Introductions (beta; hub seed, Resources → Introduction; issue #17):
//! the applications a partner's sub-accounts introduced, each at the stage
//! its application has reached (`Stage::of`, read at answer time). One
//! handler file per endpoint.

pub mod list;
