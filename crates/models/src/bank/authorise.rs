//! The consent page: where the bank authenticates the payer and asks them
//! to approve what the client asked for. The model's payer is a tester:
//! the page lists the test accounts to share and an Approve and a Decline
//! button. Its answer goes to the client's registered redirect URI, with
//! a code or `error=access_denied`, and the request's `state`.

use std::time::Duration;

use axum::Form;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Redirect, Response};
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use lendhub_domain::open_banking::pis::ConsentStatus;
use lendhub_domain::open_banking::test_accounts::{self, TEST_ACCOUNTS};
use serde::Deserialize;
use time::OffsetDateTime;

use lendhub_domain::open_banking::vrp::ConsentStatus as VrpStatus;

use super::{Bank, oidc, vrp};

/// How long a consent page may stay open.
const PAGE_LIFE: Duration = Duration::from_secs(15 * 60);

/// A consent page shown and not yet answered.
#[derive(Clone, Debug, serde::Serialize, Deserialize)]
pub(super) struct Page {
    consent_id: String,
    redirect_uri: String,
    state: Option<String>,
    nonce: Option<String>,
    #[serde(with = "time::serde::rfc3339")]
    expires: OffsetDateTime,
}

impl Page {
    pub(super) fn expires(&self) -> OffsetDateTime {
        self.expires
    }
}

#[derive(Deserialize)]
pub(super) struct AuthorisationRequest {
    client_id: Option<String>,
    request: Option<String>,
}

/// The request object's claims the bank reads.
#[derive(Deserialize)]
struct RequestObject {
    redirect_uri: String,
    #[serde(default)]
    state: Option<String>,
    #[serde(default)]
    nonce: Option<String>,
    claims: RequestedClaims,
}

#[derive(Deserialize)]
struct RequestedClaims {
    id_token: IntentClaim,
}

#[derive(Deserialize)]
struct IntentClaim {
    openbanking_intent_id: IntentValue,
}

#[derive(Deserialize)]
struct IntentValue {
    value: String,
}

fn refuse(why: &str) -> Response {
    // Nothing is sent to a redirect URI the bank cannot trust.
    let body = format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Model Bank</title></head>\
         <body><h1>This request cannot be authorised</h1><p>{}</p></body></html>",
        escape(why)
    );
    (StatusCode::BAD_REQUEST, Html(body)).into_response()
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// `GET /authorize`: checks the client and its signed request object, then
/// shows the consent the request names.
pub(super) async fn show(
    State(bank): State<Bank>,
    Query(query): Query<AuthorisationRequest>,
) -> Response {
    let registration = &bank.registration;
    if query.client_id.as_deref() != Some(registration.client_id.as_str()) {
        return refuse("The client is not registered with this bank.");
    }
    let Some(jwt) = query.request.as_deref() else {
        return refuse("The request object is missing.");
    };
    let mut validation = Validation::new(Algorithm::HS256);
    validation.set_audience(&[bank.base.as_ref()]);
    validation.set_issuer(&[registration.client_id.as_str()]);
    validation.set_required_spec_claims(&["exp", "aud", "iss"]);
    let key = DecodingKey::from_secret(registration.client_secret.as_bytes());
    let Ok(request) = jsonwebtoken::decode::<RequestObject>(jwt, &key, &validation) else {
        return refuse("The request object is not signed by the client, or has expired.");
    };
    let request = request.claims;
    if !registration.redirect_uris.contains(&request.redirect_uri) {
        return refuse("The redirect URI is not registered for the client.");
    }
    let consent_id = request.claims.id_token.openbanking_intent_id.value;
    let asks: Vec<String> = {
        let books = bank.books();
        let mandate = books.vrp_consents.get(&consent_id);
        match (
            books.consents.get(&consent_id),
            books.payment_consents.get(&consent_id),
        ) {
            _ if mandate.is_some_and(|m| m.data.status == VrpStatus::AwaitingAuthorisation) => {
                mandate.map(vrp::asks).unwrap_or_default()
            }
            (Some(c), _) if c.data.status == "AwaitingAuthorisation" => c.data.permissions.clone(),
            (_, Some(p)) if p.data.status == ConsentStatus::AwaitingAuthorisation => {
                let i = &p.data.initiation;
                let reference = i
                    .remittance_information
                    .as_ref()
                    .and_then(|r| r.reference.as_deref())
                    .unwrap_or("none");
                vec![format!(
                    "pay {} {} to {} (sort code and account {}), reference {reference}",
                    i.instructed_amount.currency,
                    i.instructed_amount.amount,
                    i.creditor_account.name.as_deref().unwrap_or("the payee"),
                    i.creditor_account.identification,
                )]
            }
            _ => {
                return refuse(
                    "The consent does not exist or is no longer awaiting authorisation.",
                );
            }
        }
    };
    let page = lendhub_system::random_token(24);
    bank.books().pages.insert(
        page.clone(),
        Page {
            consent_id,
            redirect_uri: request.redirect_uri,
            state: request.state,
            nonce: request.nonce,
            expires: bank.now() + PAGE_LIFE,
        },
    );
    let accounts: String = TEST_ACCOUNTS
        .iter()
        .enumerate()
        .map(|(i, a)| {
            format!(
                "<p><input type=\"radio\" id=\"account-{key}\" name=\"account\" value=\"{key}\"{checked}> \
                 <label for=\"account-{key}\">{name} (sort code {sort}, account {number})</label></p>",
                key = a.key,
                checked = if i == 0 { " checked" } else { "" },
                name = escape(a.name),
                sort = &a.sort_code_account_number[..6],
                number = &a.sort_code_account_number[6..],
            )
        })
        .collect();
    let asks: String = asks
        .iter()
        .map(|p| format!("<li>{}</li>", escape(p)))
        .collect();
    Html(format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">\
         <title>Model Bank – authorise access</title></head><body>\
         <h1>Model Bank</h1><p>A test bank: choose an account and approve or decline.</p>\
         <p><strong>{client}</strong> asks to:</p><ul>{asks}</ul>\
         <form method=\"post\" action=\"/authorize\">\
         <input type=\"hidden\" name=\"page\" value=\"{page}\">\
         <fieldset><legend>Account</legend>{accounts}</fieldset>\
         <button type=\"submit\" id=\"bank-approve\" name=\"decision\" value=\"approve\">Approve</button> \
         <button type=\"submit\" id=\"bank-decline\" name=\"decision\" value=\"decline\">Decline</button>\
         </form></body></html>",
        client = escape(&registration.client_id),
    ))
    .into_response()
}

#[derive(Deserialize)]
pub(super) struct Answer {
    page: String,
    decision: String,
    account: Option<String>,
}

/// `POST /authorize`: the payer's answer, sent to the client.
pub(super) async fn answer(State(bank): State<Bank>, Form(answer): Form<Answer>) -> Response {
    let Some(page) = bank.books().pages.remove(&answer.page) else {
        return refuse("This page has already been answered.");
    };
    if bank.now() >= page.expires {
        return refuse("This page has expired; start again from the service you came from.");
    }
    let approved = answer.decision == "approve";
    let account = answer.account.as_deref().and_then(test_accounts::find);
    if approved && account.is_none() {
        return refuse("Choose an account to share.");
    }
    let Ok(mut to) = url::Url::parse(&page.redirect_uri) else {
        return refuse("The redirect URI is not a URL.");
    };
    {
        let mut books = bank.books();
        let now = bank.now();
        if let Some(consent) = books.consents.get_mut(&page.consent_id) {
            consent.data.status = if approved { "Authorised" } else { "Rejected" }.to_owned();
            consent.data.status_updated = now;
            consent.account = account.map(|a| super::AccountKey(a.key));
        } else if let Some(consent) = books.vrp_consents.get_mut(&page.consent_id) {
            consent.data.status = if approved {
                VrpStatus::Authorised
            } else {
                VrpStatus::Rejected
            };
            consent.data.status_updated = now;
            consent.account = account.map(|a| super::AccountKey(a.key));
        } else if let Some(consent) = books.payment_consents.get_mut(&page.consent_id) {
            consent.data.status = if approved {
                ConsentStatus::Authorised
            } else {
                ConsentStatus::Rejected
            };
            consent.data.status_updated = now;
            consent.account = account.map(|a| super::AccountKey(a.key));
        } else {
            return refuse("The consent no longer exists.");
        }
    }
    {
        let mut pairs = to.query_pairs_mut();
        if approved {
            let code = oidc::issue_code(&bank, &page.consent_id, &page.redirect_uri, page.nonce);
            pairs.append_pair("code", &code);
        } else {
            pairs.append_pair("error", "access_denied");
            pairs.append_pair("error_description", "the payer declined at their bank");
        }
        if let Some(state) = &page.state {
            pairs.append_pair("state", state);
        }
    }
    Redirect::to(to.as_str()).into_response()
}
