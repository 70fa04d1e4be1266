use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use lendhub_domain::lending::application::Status;

use super::error::JourneyError;
use super::pages::{Done, render};
use super::session::Visit;
use super::state::JourneyState;
use super::{head, to_overview};

/// `GET {apply_url}/{id}/finish`: back to the partner, at `redirect_uri`
/// with `application_id` appended (hub seed, Partner-facing flows), or a
/// closing page when the partner gave none.
pub async fn finish(
    State(state): State<JourneyState>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Result<Response, JourneyError> {
    let visit = Visit::load(&state, &headers, &id).await?;
    let a = &visit.application;
    if a.status == Status::Created {
        return Ok(to_overview(&id));
    }
    if let Some(uri) = &a.redirect_uri
        && let Ok(mut url) = url::Url::parse(uri)
    {
        url.query_pairs_mut().append_pair("application_id", &id);
        return Ok(Redirect::to(url.as_str()).into_response());
    }
    let signed = state.lending.agreement(&a.owner, &a.id).await?.is_some();
    Ok(render(
        StatusCode::OK,
        &Done {
            head: head(&visit),
            // The partner's reference where it gave one: what the
            // applicant quotes to it.
            reference: a.reference.as_deref().unwrap_or(&id),
            copy: signed.then(|| super::page(&id, "agreement.pdf")),
        },
    ))
}
