//! `POST /payments/links` as received, and the rules its fields keep before
//! the account is looked up (that it is the caller's, open, and owes at
//! least the amount are the store's to say).

use serde_json::Value;
use time::OffsetDateTime;

use crate::clock::{from_unix_ms, parse_rfc3339_ms, unix_ms};
use crate::ids::AccountId;
use crate::money::Money;
use crate::problem::{Problem, Problems};
use crate::servicing::collection::{MAX_DESCRIPTION, MAX_REFERENCE};
use crate::servicing::request_fields;

#[derive(Clone, Debug, Default)]
pub struct LinkRequest {
    pub account_id: Option<String>,
    pub amount_pence: Option<Value>,
    pub reference: Option<String>,
    pub description: Option<String>,
    pub redirect_url: Option<String>,
    pub expires_at: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckedLink {
    pub account_id: AccountId,
    pub amount: Money,
    /// An empty reference is none.
    pub reference: Option<String>,
    pub description: Option<String>,
    pub redirect_url: Option<String>,
    pub expires_at: Option<OffsetDateTime>,
}

/// `redirect_url`: where the pay page sends the payer afterwards, https.
fn https(url: &str) -> bool {
    url::Url::parse(url).is_ok_and(|u| u.scheme() == "https")
}

/// `expires_at`: RFC 3339 (`rfc3339`) and after `now` (`in_the_past`).
fn expires_at(
    problems: &mut Problems,
    raw: Option<&str>,
    now: OffsetDateTime,
) -> Option<OffsetDateTime> {
    let ms = problems.parsed("expires_at", raw, "rfc3339", parse_rfc3339_ms)?;
    if ms > unix_ms(now) {
        return Some(from_unix_ms(ms));
    }
    problems.push("expires_at", "in_the_past");
    None
}

/// Every field's rule at once, `now` being the caller's clock.
pub fn check(request: &LinkRequest, now: OffsetDateTime) -> Result<CheckedLink, Vec<Problem>> {
    let mut problems = Problems::new();
    let account_id = request_fields::account_id(&mut problems, request.account_id.as_deref());
    let amount = request_fields::amount(&mut problems, request.amount_pence.as_ref());
    let reference = request.reference.clone().filter(|r| !r.is_empty());
    problems.max_length("reference", reference.as_deref(), MAX_REFERENCE);
    problems.max_length(
        "description",
        request.description.as_deref(),
        MAX_DESCRIPTION,
    );
    if request.redirect_url.as_deref().is_some_and(|u| !https(u)) {
        problems.push("redirect_url", "https_required");
    }
    let expires_at = expires_at(&mut problems, request.expires_at.as_deref(), now);
    let checked = account_id
        .zip(amount)
        .map(|(account_id, amount)| CheckedLink {
            account_id,
            amount,
            reference,
            description: request.description.clone(),
            redirect_url: request.redirect_url.clone(),
            expires_at,
        });
    problems.finish(checked)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use time::macros::datetime;

    const NOW: OffsetDateTime = datetime!(2026-11-25 12:00 UTC);
    const ACCOUNT: &str = "acc_01KQ3V1Y2C8WZ3R5T6Y7X819D0";

    fn request() -> LinkRequest {
        LinkRequest {
            account_id: Some(ACCOUNT.into()),
            amount_pence: Some(json!(46_589)),
            ..LinkRequest::default()
        }
    }

    fn reasons(r: LinkRequest) -> Vec<(String, &'static str)> {
        check(&r, NOW)
            .err()
            .unwrap_or_default()
            .into_iter()
            .map(|p| (p.field, p.reason))
            .collect()
    }

    #[test]
    fn a_link_needs_only_an_account_and_an_amount() {
        let checked = check(&request(), NOW);
        assert_eq!(
            checked.map(|c| (c.account_id.to_string(), c.amount, c.expires_at)),
            Ok((ACCOUNT.to_owned(), Money::pence(46_589), None))
        );
        let full = check(
            &LinkRequest {
                reference: Some("INV-0001".into()),
                description: Some("March".into()),
                redirect_url: Some("https://partner.example/done".into()),
                expires_at: Some("2026-11-25T12:00:00.001Z".into()),
                ..request()
            },
            NOW,
        );
        assert_eq!(
            full.map(|c| (c.reference, c.expires_at)),
            Ok((
                Some("INV-0001".to_owned()),
                Some(datetime!(2026-11-25 12:00:00.001 UTC))
            ))
        );
    }

    #[test]
    fn an_empty_reference_is_none() {
        let checked = check(
            &LinkRequest {
                reference: Some(String::new()),
                ..request()
            },
            NOW,
        );
        assert_eq!(checked.map(|c| c.reference), Ok(None));
    }

    #[test]
    fn every_problem_is_named_in_field_order() {
        assert_eq!(
            reasons(LinkRequest {
                account_id: None,
                amount_pence: None,
                reference: Some("r".repeat(MAX_REFERENCE + 1)),
                description: Some("d".repeat(MAX_DESCRIPTION + 1)),
                redirect_url: Some("http://partner.example/done".into()),
                expires_at: Some("tomorrow".into()),
            }),
            vec![
                ("account_id".to_owned(), "required"),
                ("amount_pence".to_owned(), "required"),
                ("reference".to_owned(), "max_length"),
                ("description".to_owned(), "max_length"),
                ("redirect_url".to_owned(), "https_required"),
                ("expires_at".to_owned(), "rfc3339"),
            ]
        );
        assert_eq!(
            check(
                &LinkRequest {
                    reference: Some("r".repeat(MAX_REFERENCE + 1)),
                    expires_at: Some("2026-11-25T12:00:00Z".into()),
                    ..request()
                },
                NOW
            ),
            Err(vec![
                Problem::bounded("reference", "max_length", MAX_REFERENCE as i64),
                Problem::new("expires_at", "in_the_past"),
            ])
        );
        assert_eq!(
            reasons(LinkRequest {
                redirect_url: Some("not a url".into()),
                ..request()
            }),
            vec![("redirect_url".to_owned(), "https_required")]
        );
    }
}
