//! The documents an applicant reads and agrees to (issue #51 item 1): the
//! application terms, the privacy notice and the loan agreement, each a
//! versioned template (`templates/documents/*.v{N}.txt`) in the tiny
//! markup of [`markup`]. A template, once an agreement has been signed
//! with it, is never edited: a change is a new version beside it, so every
//! signed agreement renders again byte for byte from its stored figures.
//!
//! The same text is shown on the page ([`Html`]) and set as a PDF
//! ([`pdf`]); what is signed, stored and hashed is the text itself.

pub mod markup;
mod metrics;
pub mod pdf;

use askama::Template;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use lendhub_domain::lending::agreement::{Figures, Lender, Signed};
use lendhub_domain::people;
use sha2::{Digest, Sha256};
use time::OffsetDateTime;

/// The loan agreement's current template: what is signed today.
pub const AGREEMENT: &str = "loan-agreement/1";
/// The application terms' current template.
pub const TERMS: &str = "application-terms/1";
/// The privacy notice's current template.
pub const PRIVACY: &str = "privacy-notice/1";

#[derive(Template)]
#[template(path = "documents/loan-agreement.v1.txt", escape = "none")]
struct AgreementV1<'a> {
    f: &'a Figures,
    borrower: String,
    reference: Option<String>,
    signer: Option<String>,
    amount: String,
    rate: String,
    apr: String,
    monthly: String,
    total_interest: String,
    total: String,
    /// Number, amount, interest, principal, principal left.
    schedule: Vec<(u32, String, String, String, String)>,
}

#[derive(Template)]
#[template(path = "documents/application-terms.v1.txt", escape = "none")]
struct TermsV1<'a> {
    lender: &'a Lender,
}

#[derive(Template)]
#[template(path = "documents/privacy-notice.v1.txt", escape = "none")]
struct PrivacyV1<'a> {
    lender: &'a Lender,
}

/// Text a person typed or a register holds, made safe to stand in one
/// line and one table cell of the markup: a line break or a `|` in a name
/// cannot start a heading or a column.
fn one_line(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            '|' => '/',
            c if c.is_control() => ' ',
            c => c,
        })
        .collect::<String>()
        .trim()
        .to_owned()
}

/// Why a document could not be rendered.
#[derive(Debug, thiserror::Error)]
pub enum DocumentError {
    #[error("this build has no document template {0}")]
    UnknownTemplate(String),
    #[error("rendering a document: {0}")]
    Render(#[from] askama::Error),
}

/// The loan agreement `template` (`name/version`) renders from `f`.
pub fn agreement_text(template: &str, f: &Figures) -> Result<String, DocumentError> {
    match template {
        "loan-agreement/1" => Ok(AgreementV1 {
            f,
            borrower: one_line(&f.borrower_name),
            reference: f.reference.as_deref().map(one_line),
            signer: f.signer.as_deref().map(one_line),
            amount: people::money(f.amount),
            rate: f.rate_percent(),
            apr: format!("{:.1}", f.apr),
            monthly: people::money(f.monthly),
            total_interest: people::money(f.total_interest),
            total: people::money(f.total_repayable),
            schedule: f
                .schedule
                .iter()
                .map(|i| {
                    (
                        i.number,
                        people::money(i.amount),
                        people::money(i.interest),
                        people::money(i.principal),
                        people::money(i.balance),
                    )
                })
                .collect(),
        }
        .render()?),
        other => Err(DocumentError::UnknownTemplate(other.to_owned())),
    }
}

/// The application terms as they stand today.
pub fn terms_text(lender: &Lender) -> Result<String, askama::Error> {
    TermsV1 { lender }.render()
}

/// The privacy notice as it stands today.
pub fn privacy_text(lender: &Lender) -> Result<String, askama::Error> {
    PrivacyV1 { lender }.render()
}

/// SHA-256 of `content`, lowercase hex: what a signed agreement's record
/// and its PDF name it by.
pub fn sha256_hex(content: &str) -> String {
    hex::encode(Sha256::digest(content.as_bytes()))
}

/// The agreement `figures` (their signer set) make with the current
/// template, as signed by `signed_by` at `at` from `ip_address`.
pub fn sign(
    id: String,
    figures: Figures,
    signed_by: &str,
    at: OffsetDateTime,
    ip_address: Option<String>,
) -> Result<Signed, DocumentError> {
    let content = agreement_text(AGREEMENT, &figures)?;
    Ok(Signed {
        id,
        application_id: figures.application_id.clone(),
        decision_id: figures.decision_id.clone(),
        template: AGREEMENT.to_owned(),
        content_sha256: sha256_hex(&content),
        content,
        figures,
        signed_by: signed_by.to_owned(),
        signed_at: at,
        ip_address,
    })
}

/// A signed agreement as its PDF: the text as signed, then the record of
/// the signature (who, when, the template and the text's SHA-256).
pub fn signed_pdf(signed: &Signed) -> Vec<u8> {
    let record = [
        ("Signed by", signed.signed_by.clone()),
        ("Signed at", people::moment(signed.signed_at)),
        ("Agreement", signed.id.clone()),
        ("Template", signed.template.clone()),
        ("SHA-256 of the text", signed.content_sha256.clone()),
    ];
    pdf::render("Loan agreement", &signed.content, &record)
}

/// The signed copy as a PDF download named by its agreement.
pub(crate) fn pdf_response(signed: &lendhub_domain::lending::agreement::Signed) -> Response {
    let disposition = HeaderValue::from_str(&format!(
        "attachment; filename=\"loan-agreement-{}.pdf\"",
        signed.application_id
    ))
    .unwrap_or(HeaderValue::from_static("attachment"));
    (
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/pdf"),
            ),
            (header::CONTENT_DISPOSITION, disposition),
            (
                header::CACHE_CONTROL,
                HeaderValue::from_static("private, no-store"),
            ),
        ],
        signed_pdf(signed),
    )
        .into_response()
}

/// A document's text as the page shows it: its blocks, escaped by the
/// template that includes `documents/blocks.html`.
pub struct Html {
    pub blocks: Vec<markup::Block>,
}

impl Html {
    pub fn of(text: &str) -> Self {
        Self {
            blocks: markup::parse(text),
        }
    }
}

#[cfg(test)]
mod tests;
