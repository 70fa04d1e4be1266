use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use lendhub_domain::partner::scope::PartnerScope;

use crate::flows::connect_bank::banks;
use crate::partner::error::PartnerError;
use crate::partner::rest::caller::RestCaller;
use crate::partner::rest::events::list_url;
use crate::partner::state::PartnerState;
use crate::views::bank_connection::BankView;

/// The banks an applicant may connect in this environment (the lender's
/// open-banking connections), in the order to offer them. One page.
#[utoipa::path(get, operation_id = "listBanks", path = "/banks", tag = "applications",
    security(("oauth2" = ["applications.read"]), ("api_key" = [])),
    responses((status = 200, description = "`{object: \"list\", data: [bank], has_more: false, url, next_cursor: null}`, each `bank` being `{id, object: \"bank\", name}`"),
        (status = 401, description = "credentials"), (status = 403, description = "insufficient_scope")))]
pub async fn list(
    State(state): State<PartnerState>,
    caller: RestCaller,
) -> Result<Response, PartnerError> {
    caller.require(PartnerScope::ApplicationsRead)?;
    let rendered = banks(&state.flows, &caller.tenant())
        .into_iter()
        .map(|(id, name)| {
            serde_json::to_string(&BankView {
                id,
                object: "bank",
                name,
            })
        })
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| PartnerError::Internal(e.to_string()))?;
    let body = lendhub_http::list::envelope(
        &list_url(caller.env, "/banks"),
        rendered.iter().map(String::as_str),
        false,
        None,
    );
    Ok(([(header::CONTENT_TYPE, "application/json")], body).into_response())
}
