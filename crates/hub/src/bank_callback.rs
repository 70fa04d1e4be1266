//! `GET /open-banking/callback`: lendhub's one redirect URI at every bank.
//! The state it gets back names what the payer was authorising: an
//! application's account-access consent (the hosted journey's bank step,
//! where the applicant's session is), a white-label journey's bank
//! connection, or a payment link's payment consent (the pay page). Each
//! takes the answer on its own page.

use askama::Template;
use axum::extract::{Query, State};
use axum::http::{StatusCode, Uri};
use axum::response::{IntoResponse, Redirect, Response};
use lendhub_domain::ids::{ApplicationId, BankConnectionId, HubId, PaymentId};
use lendhub_domain::lending::bank_connection::{BankConnection, Status};
use serde::Deserialize;

use crate::flows::Context;
use crate::flows::connect_bank::{BankAnswer, returned};
use crate::html::render;

#[derive(Deserialize)]
pub struct Answer {
    state: Option<String>,
    code: Option<String>,
    error: Option<String>,
}

#[derive(Template)]
#[template(path = "pay/problem.html")]
struct Unknown<'a> {
    title: &'a str,
    message: &'a str,
}

/// Where a white-label connection ends when the partner named no
/// `return_url`.
#[derive(Template)]
#[template(path = "apply/connected.html")]
struct Connected<'a> {
    status: &'a str,
    title: &'a str,
    message: &'a str,
}

fn unknown() -> Response {
    render(
        StatusCode::NOT_FOUND,
        &Unknown {
            title: "This link does not work",
            message: "Your bank sent you back with an answer we did not ask for. Start again from the page that sent you to your bank.",
        },
    )
}

pub async fn callback(
    State(flows): State<Context>,
    Query(answer): Query<Answer>,
    uri: Uri,
) -> Response {
    let query = uri.query().unwrap_or_default();
    let state = answer.state.as_deref().unwrap_or_default();
    let named = state.split_once('.').map(|(id, _)| id);
    match named {
        Some(id) if ApplicationId::parse(id).is_some() => {
            let page = format!("{}/{id}/bank/return", crate::apply::PREFIX);
            Redirect::to(&format!("{page}?{query}")).into_response()
        }
        Some(id) if PaymentId::parse(id).is_some() => {
            Redirect::to(&format!("{}?{query}", crate::pay::RETURN)).into_response()
        }
        Some(id) if BankConnectionId::parse(id).is_some() => {
            let answer = BankAnswer {
                state,
                code: answer.code.as_deref(),
                error: answer.error.as_deref(),
            };
            match returned(&flows, answer).await {
                Ok(Some(connection)) => back_to_partner(&flows, &connection).await,
                Ok(None) => unknown(),
                Err(e) => {
                    tracing::warn!(error = %e, "a bank connection's callback failed");
                    render(
                        StatusCode::SERVICE_UNAVAILABLE,
                        &Unknown {
                            title: "Sorry, there is a problem",
                            message: "We could not record your bank's answer just now. Go back to your bank's page and try again in a moment.",
                        },
                    )
                }
            }
        }
        _ => unknown(),
    }
}

/// To the partner's `return_url` with the connection's id and status, or
/// lendhub's own page saying how it ended.
async fn back_to_partner(flows: &Context, connection: &BankConnection) -> Response {
    let now = flows
        .now_for(&connection.owner)
        .await
        .unwrap_or(connection.created_at);
    let status = connection.status(now);
    if let Some(url) = &connection.return_url
        && let Ok(mut url) = url::Url::parse(url)
    {
        url.query_pairs_mut()
            .append_pair("bank_connection", connection.id.as_str())
            .append_pair("status", status.as_str());
        return Redirect::to(url.as_str()).into_response();
    }
    let (title, message) = match status {
        Status::Connected => (
            "Your bank account is connected",
            "We have read the account you shared. Your application can go on.",
        ),
        Status::AwaitingAuthorisation => {
            ("Waiting for your bank", "Your bank has not answered yet.")
        }
        Status::Failed | Status::Expired => (
            "Your bank account is not connected",
            "We could not read an account at your bank. Your application will ask you to connect it again.",
        ),
    };
    render(
        StatusCode::OK,
        &Connected {
            status: status.as_str(),
            title,
            message,
        },
    )
}
