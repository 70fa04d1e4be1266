//! `GET /open-banking/callback`: lendhub's one redirect URI at every bank.
//! The state it gets back names what the payer was authorising: an
//! application's account-access consent (the hosted journey's bank step,
//! where the applicant's session is) or a payment link's payment consent
//! (the pay page). Each surface takes the answer on its own page.

use askama::Template;
use axum::extract::Query;
use axum::http::{StatusCode, Uri};
use axum::response::{IntoResponse, Redirect, Response};
use lendhub_domain::ids::{ApplicationId, HubId, PaymentId};
use serde::Deserialize;

use crate::html::render;

#[derive(Deserialize)]
pub struct Answer {
    state: Option<String>,
}

#[derive(Template)]
#[template(path = "pay/problem.html")]
struct Unknown<'a> {
    title: &'a str,
    message: &'a str,
}

pub async fn callback(Query(answer): Query<Answer>, uri: Uri) -> Response {
    let query = uri.query().unwrap_or_default();
    let named = answer
        .state
        .as_deref()
        .and_then(|s| s.split_once('.'))
        .map(|(id, _)| id);
    match named {
        Some(id) if ApplicationId::parse(id).is_some() => {
            let page = format!("{}/{id}/bank/return", crate::apply::PREFIX);
            Redirect::to(&format!("{page}?{query}")).into_response()
        }
        Some(id) if PaymentId::parse(id).is_some() => {
            Redirect::to(&format!("{}?{query}", crate::pay::RETURN)).into_response()
        }
        _ => render(
            StatusCode::NOT_FOUND,
            &Unknown {
                title: "This link does not work",
                message: "Your bank sent you back with an answer we did not ask for. Start again from the page that sent you to your bank.",
            },
        ),
    }
}
