//! The journey's server-rendered pages (askama templates under
//! `templates/apply/`). Every interpolated value is HTML-escaped by askama;
//! no page needs JavaScript.

use askama::Template;

pub(crate) use crate::html::{form_status, render, render_sending_to};

/// What every step page shows at its top.
pub struct Header<'a> {
    pub company_name: &'a str,
    pub company_number: &'a str,
    pub amount: String,
    pub term_months: u32,
    /// The partner's reference, shown so the applicant can quote it.
    pub reference: Option<&'a str>,
}

#[derive(Template)]
#[template(path = "apply/problem.html")]
pub struct Problem<'a> {
    pub title: &'a str,
    pub message: &'a str,
    pub link: Option<&'a str>,
    pub code: &'a str,
}

#[derive(Template)]
#[template(path = "apply/company.html")]
pub struct Company<'a> {
    pub head: Header<'a>,
    pub action: String,
    pub csrf: String,
    pub full_name: String,
    pub email: &'a str,
    pub roles: [(&'static str, &'static str); 3],
    pub role: &'a str,
    pub date_of_birth: &'a str,
    pub postcode: &'a str,
    pub errors: Vec<String>,
}

#[derive(Template)]
#[template(path = "apply/bank.html")]
pub struct Bank<'a> {
    pub head: Header<'a>,
    pub action: String,
    pub csrf: String,
    pub banks: Vec<(String, String)>,
    pub errors: Vec<String>,
}

#[derive(Template)]
#[template(path = "apply/consents.html")]
pub struct Consents<'a> {
    pub head: Header<'a>,
    pub action: String,
    pub csrf: String,
    pub bank_name: String,
    pub errors: Vec<String>,
}

/// One line of the offer, as stored with the decision.
pub struct Term {
    pub label: &'static str,
    pub value: String,
    pub id: &'static str,
}

#[derive(Template)]
#[template(path = "apply/offer.html")]
pub struct Offer<'a> {
    pub head: Header<'a>,
    pub action: String,
    pub csrf: String,
    pub terms: Vec<Term>,
    pub expires: String,
    pub signed_by: &'a str,
    pub funding_failure: Option<&'a str>,
    /// Back to the partner without signing.
    pub finish: String,
    pub errors: Vec<String>,
}

/// Referred, declined, signed, funded: a message and the way back to the
/// partner.
#[derive(Template)]
#[template(path = "apply/outcome.html")]
pub struct Outcome<'a> {
    pub head: Header<'a>,
    pub outcome: &'static str,
    pub title: &'static str,
    pub message: &'static str,
    pub reasons: Vec<String>,
    pub finish: String,
}

#[derive(Template)]
#[template(path = "apply/done.html")]
pub struct Done<'a> {
    pub head: Header<'a>,
    pub application_id: &'a str,
}

/// What a reason code means to an applicant.
pub fn reason_text(code: lendhub_domain::sandbox::decisioning::ReasonCode) -> &'static str {
    use lendhub_domain::sandbox::decisioning::ReasonCode::*;
    match code {
        AffordabilityOk => "The connected account shows the repayments are affordable.",
        AffordabilityLow => "The connected account does not show enough room for the repayments.",
        CreditOk => "The company's credit file is in good standing.",
        CreditAdverse => "The company's credit file shows adverse information.",
        ThinFile => "The company's credit file has too little history.",
        BankingDataInsufficient => "The connected account has too little history to assess.",
        DirectorRisk => "A director's identity check needs a closer look.",
        IneligibleEntity => "The company is not a type we can lend to.",
        AmountExceedsLimit => "The amount asked for is above what we can lend the company.",
        ManualReviewRequired => "An underwriter reviews the application.",
        MarketplaceSignal => {
            "A check made for the lender by one of its partners' providers weighed in."
        }
    }
}
