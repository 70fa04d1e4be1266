//! A mandate, as `mandate.revoked` and the test helper show it.

use lendhub_domain::servicing::mandate::Mandate;
use serde::Serialize;
use time::OffsetDateTime;
use utoipa::ToSchema;

use crate::links::Links;

/// A mandate, as `mandate.revoked` and the test helper show it.
#[derive(Serialize, ToSchema)]
pub struct MandateView {
    #[schema(example = "mnd_01KQ3V1Y2C8WZ3R5T6Y7X819D0")]
    id: String,
    #[schema(example = "mandate")]
    object: &'static str,
    account_id: String,
    /// active or revoked.
    status: &'static str,
    /// The payer's bank, which holds the consent.
    payer_bank: String,
    /// The payment whose authorisation established it.
    established_by: String,
    /// The payer's page to see and revoke it (`{pay_url}/mandates/…`).
    url: String,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    revoked_at: Option<OffsetDateTime>,
}

impl MandateView {
    pub fn new(m: &Mandate, links: &Links) -> Self {
        Self {
            id: m.id.to_string(),
            object: "mandate",
            account_id: m.account_id.to_string(),
            status: m.status.as_str(),
            payer_bank: m.payer_bank.clone(),
            established_by: m.established_by.to_string(),
            url: links.mandate_url(m),
            created_at: m.created_at,
            revoked_at: m.revoked_at,
        }
    }
}
