//! The documents on the journey's pages (issue #51 item 1): the terms of
//! the application and the privacy notice, linked from the consents page
//! and every page's footer; the loan agreement, in full before signing and
//! as signed after, and the signed copy as a PDF.

use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use lendhub_domain::people;

use super::error::JourneyError;
use super::pages::{Document, render};
use super::session::Visit;
use super::state::JourneyState;
use super::{page, to_overview};
use crate::documents::{self, markup, pdf_response};
use crate::flows::FlowError;
use crate::flows::agreements;

/// Where the lender's standing documents are served.
pub const TERMS_PATH: &str = "/legal/application-terms";
pub const PRIVACY_PATH: &str = "/legal/privacy-notice";

/// `GET /legal/{name}`: the application terms or the privacy notice as
/// they stand today.
pub async fn legal(
    State(state): State<JourneyState>,
    Path(name): Path<String>,
) -> Result<Response, JourneyError> {
    let lender = state.flows.lender();
    let text = match name.as_str() {
        "application-terms" => documents::terms_text(lender),
        "privacy-notice" => documents::privacy_text(lender),
        _ => return Err(JourneyError::NoDocument),
    }
    .map_err(|e| JourneyError::Internal(e.to_string()))?;
    Ok(render(StatusCode::OK, &Document::of(&text, None, None)))
}

/// `GET {apply_url}/{id}/agreement`: the agreement as signed, or, before
/// signing, as the current offer would be signed.
pub async fn agreement(
    State(state): State<JourneyState>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Result<Response, JourneyError> {
    let visit = Visit::load(&state, &headers, &id).await?;
    if let Some(signed) = signed(&state, &visit, &id).await? {
        let record = vec![
            ("Signed by", signed.signed_by.clone()),
            ("Signed at", people::moment(signed.signed_at)),
            ("SHA-256 of the text", signed.content_sha256.clone()),
        ];
        let pdf = Some(page(&id, "agreement.pdf"));
        return Ok(render(
            StatusCode::OK,
            &Document::of(&signed.content, Some(record), pdf),
        ));
    }
    match agreements::draft(&state.flows, &visit.application)
        .await
        .map_err(|e| JourneyError::from_flow(&id, e))?
    {
        Some(text) => Ok(render(StatusCode::OK, &Document::of(&text, None, None))),
        None => Ok(to_overview(&id)),
    }
}

/// `GET {apply_url}/{id}/agreement.pdf`: the signed copy, for the person
/// who signed it (the e-mail after signing links here).
pub async fn agreement_pdf(
    State(state): State<JourneyState>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Result<Response, JourneyError> {
    let visit = Visit::load(&state, &headers, &id).await?;
    let signed = signed(&state, &visit, &id).await?;
    signed
        .map(|s| pdf_response(&s))
        .ok_or(JourneyError::NoDocument)
}

/// The agreement signed last for the visit's application, if any.
async fn signed(
    state: &JourneyState,
    visit: &Visit,
    id: &str,
) -> Result<Option<lendhub_domain::lending::agreement::Signed>, JourneyError> {
    match agreements::signed_for(&state.flows, &visit.application).await {
        Ok(signed) => Ok(Some(signed)),
        Err(FlowError::NotFound(_)) => Ok(None),
        Err(e) => Err(JourneyError::from_flow(id, e)),
    }
}

/// A document's text split into its title and the rest, for a page that
/// gives the title its own heading.
pub fn titled(text: &str) -> (String, Vec<markup::Block>) {
    let mut blocks = markup::parse(text);
    let title = match blocks.first() {
        Some(markup::Block::Title(t)) => t.clone(),
        _ => String::new(),
    };
    if !title.is_empty() {
        blocks.remove(0);
    }
    (title, blocks)
}
