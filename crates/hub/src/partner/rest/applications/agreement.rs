use axum::extract::{Path, State};
use axum::http::{HeaderMap, header};
use axum::response::{IntoResponse, Response};
use lendhub_domain::partner::scope::PartnerScope;

use crate::documents::pdf_response;
use crate::flows::agreements::signed;
use crate::partner::error::PartnerError;
use crate::partner::rest::caller::RestCaller;
use crate::partner::state::PartnerState;
use crate::views::agreement::AgreementView;

/// A PDF file, as OpenAPI describes one.
#[derive(utoipa::ToSchema)]
#[schema(value_type = String, format = Binary)]
pub struct PdfFile(#[allow(dead_code)] Vec<u8>);

/// The loan agreement the applicant signed for an application of yours,
/// as signed: its text byte for byte (hash it to check), the template it
/// was rendered from, and who signed it when. Ask with `Accept:
/// application/pdf` for the signed copy the applicant was given. Signed
/// again after a payment the bank refused, the latest signature is shown.
#[utoipa::path(get, operation_id = "getApplicationAgreement", path = "/applications/{id}/agreement", tag = "applications",
    security(("oauth2" = ["applications.read"]), ("api_key" = [])),
    params(("id" = String, Path, description = "app_…"),
        ("Accept" = Option<String>, Header, description = "`application/pdf` for the signed copy as a PDF; otherwise JSON")),
    responses((status = 200, description = "the agreement as signed",
            content((AgreementView = "application/json"), (PdfFile = "application/pdf"))),
        (status = 401, description = "credentials"),
        (status = 403, description = "insufficient_scope"),
        (status = 404, description = "not_found: no such application of yours in this environment, or no agreement signed for it yet")))]
pub async fn agreement(
    State(state): State<PartnerState>,
    caller: RestCaller,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, PartnerError> {
    caller.require(PartnerScope::ApplicationsRead)?;
    let owner = caller.tenant();
    let signed = signed(&state.flows, &owner, &id).await?;
    if wants_pdf(&headers) {
        return Ok(pdf_response(&signed));
    }
    Ok(axum::Json(AgreementView::new(&owner, &signed)).into_response())
}

/// Whether `Accept` names the PDF (a browser's `*/*` gets JSON).
fn wants_pdf(headers: &HeaderMap) -> bool {
    headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|t| {
            t.split(';')
                .next()
                .is_some_and(|m| m.trim().eq_ignore_ascii_case("application/pdf"))
        })
}
