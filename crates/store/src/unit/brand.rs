//! A partner's brand: replaced as a whole, its new logo kept by its hash.

use super::{Unit, json};
use crate::context::brand::BrandWrite;
use crate::error::StoreError;
use crate::sql::brand as sql;
use crate::values;

pub(super) fn plan(write: &BrandWrite, unit: &mut Unit) -> Result<(), StoreError> {
    match write {
        BrandWrite::Set {
            partner_client_id,
            branding,
            logo,
            at_ms,
        } => {
            if let (Some(bytes), Some(described)) = (logo, &branding.logo) {
                unit.step(
                    sql::INSERT_LOGO,
                    values![
                        described.sha256.as_str(),
                        described.content_type.as_str(),
                        bytes.clone()
                    ],
                );
            }
            unit.step(
                sql::SET_BRANDING,
                values![partner_client_id.as_str(), *at_ms, json(branding)?],
            );
        }
    }
    Ok(())
}
