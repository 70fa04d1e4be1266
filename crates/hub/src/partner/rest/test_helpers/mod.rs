//! Helpers of the REST tier's test environment: they answer test
//! credentials only (`/sandbox/v1`); live callers get 403
//! `capability_denied`.

pub mod clock;
pub mod events;
pub mod mandates;
mod request_signature;
mod specimens;

pub use request_signature::*;

use super::caller::RestCaller;
use crate::partner::error::PartnerError;

pub(crate) fn test_only(caller: &RestCaller) -> Result<(), PartnerError> {
    if caller.livemode() {
        Err(PartnerError::CapabilityDenied(
            "test helpers work in the test environment only (/sandbox/v1, test credentials)",
        ))
    } else {
        Ok(())
    }
}
