//! The journey's server-rendered pages (askama templates under
//! `templates/apply/`). Every interpolated value is HTML-escaped by askama;
//! no page needs JavaScript.

use askama::Template;

use crate::documents::markup::Block;

pub(crate) use crate::html::{form_status, render, render_sending_to};

/// What every step page shows at its top.
pub struct Header<'a> {
    pub company_name: &'a str,
    pub company_number: &'a str,
    pub amount: String,
    pub term_months: u32,
    /// The partner's reference, shown so the applicant can quote it.
    pub reference: Option<&'a str>,
    /// The partner's brand, if it set one.
    pub brand: Option<&'a crate::html::Brand>,
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
    /// Day, month, year, as typed.
    pub dob: (&'a str, &'a str, &'a str),
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
    pub terms: &'static str,
    pub privacy: &'static str,
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
    /// The agreement as it would be signed, shown in full.
    pub blocks: Vec<Block>,
    pub heading_level: u8,
    /// Its page, to open on its own.
    pub agreement: String,
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
    /// What happens next, one paragraph each.
    pub next: Vec<String>,
    /// Other help (the decline page).
    pub elsewhere: &'static [Help],
    pub finish: String,
    /// The signed agreement's PDF, once signed.
    pub copy: Option<String>,
}

#[derive(Template)]
#[template(path = "apply/done.html")]
pub struct Done<'a> {
    pub head: Header<'a>,
    pub reference: &'a str,
    /// The signed agreement's PDF, once signed.
    pub copy: Option<String>,
}

/// A document on a page of its own: the terms, the privacy notice, the
/// agreement (with its signature record, once signed).
#[derive(Template)]
#[template(path = "apply/document.html")]
pub struct Document {
    pub title: String,
    pub blocks: Vec<Block>,
    /// Headings inside the document sit under the page's `h1`.
    pub heading_level: u8,
    pub record: Option<Vec<(&'static str, String)>>,
    pub pdf: Option<String>,
}

impl Document {
    pub fn of(
        text: &str,
        record: Option<Vec<(&'static str, String)>>,
        pdf: Option<String>,
    ) -> Self {
        let (title, blocks) = super::documents::titled(text);
        Self {
            title,
            blocks,
            heading_level: 2,
            record,
            pdf,
        }
    }
}

/// What a reason code means to an applicant.
pub fn reason_text(code: lendhub_domain::sandbox::decisioning::ReasonCode) -> &'static str {
    lendhub_domain::people::reason(code)
}

/// Somewhere else to turn, on the decline page.
pub struct Help {
    pub name: &'static str,
    pub url: &'static str,
    pub what: &'static str,
}

/// Where a declined business can look next: free, impartial and not selling
/// anything (docs/decisions.md).
pub const ELSEWHERE: [Help; 3] = [
    Help {
        name: "The British Business Bank's Finance Hub",
        url: "https://www.british-business-bank.co.uk/finance-hub",
        what: "impartial guides to the other kinds of finance a small business can use",
    },
    Help {
        name: "GOV.UK: finance and support for your business",
        url: "https://www.gov.uk/business-finance-support",
        what: "government-backed loans, grants and support, searchable by where you are and what you need",
    },
    Help {
        name: "Business Debtline",
        url: "https://businessdebtline.org",
        what: "free, confidential advice if the business is struggling with debt",
    },
];
