//! A signed loan agreement as the partner reads it (issue #51 item 1):
//! the text the applicant signed, byte for byte, with its SHA-256 and who
//! signed it when. The address it was signed from is the lender's
//! evidence, not the partner's to read.

use lendhub_domain::lending::agreement::Signed;
use lendhub_domain::tenant::{Tenant, TenantKind};
use serde::Serialize;
use time::OffsetDateTime;
use utoipa::ToSchema;

#[derive(Serialize, ToSchema)]
pub struct AgreementView {
    #[schema(example = "agr_01KQ3V1Y2C8WZ3R5T6Y7X819D0")]
    id: String,
    #[schema(example = "agreement")]
    object: &'static str,
    application_id: String,
    decision_id: String,
    reference: Option<String>,
    /// The template the text was rendered from, `name/version`.
    #[schema(example = "loan-agreement/1")]
    template: String,
    /// The agreement as signed: a small line markup (`# ` title, `## `
    /// heading, `- ` item, `| a | b |` table rows, else a paragraph).
    content: String,
    /// SHA-256 of `content` (its UTF-8 bytes), lowercase hex.
    #[schema(example = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08")]
    content_sha256: String,
    #[schema(example = "Ada Lovelace")]
    signed_by: String,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    signed_at: OffsetDateTime,
    amount_pence: i64,
    term_months: u32,
    total_repayable_pence: i64,
    livemode: bool,
}

impl AgreementView {
    pub fn new(owner: &Tenant, a: &Signed) -> Self {
        Self {
            id: a.id.clone(),
            object: "agreement",
            application_id: a.application_id.clone(),
            decision_id: a.decision_id.clone(),
            reference: a.figures.reference.clone(),
            template: a.template.clone(),
            content: a.content.clone(),
            content_sha256: a.content_sha256.clone(),
            signed_by: a.signed_by.clone(),
            signed_at: a.signed_at,
            amount_pence: a.figures.amount.as_pence(),
            term_months: a.figures.term_months,
            total_repayable_pence: a.figures.total_repayable.as_pence(),
            livemode: matches!(owner.kind(), TenantKind::Partner { livemode: true, .. }),
        }
    }
}
