//! What a partner's own (white-label) journey sends on the applicant's
//! behalf: the submission, with the applicant's consents and connected
//! bank, and the acceptance of the offer, with the signatory's name.

use crate::lending::application::MAX_NAME;
use crate::problem::{Problem, Problems};

/// `POST /applications/{id}/submit` as received.
#[derive(Clone, Debug, Default)]
pub struct Submission {
    pub credit_search: Option<bool>,
    pub open_banking: Option<bool>,
    pub terms: Option<bool>,
    pub bank: Option<String>,
    /// A `bcn_…` connection made through the applicant's bank, instead of
    /// `bank`.
    pub bank_connection: Option<String>,
}

/// Each consent given (`consent_required`), and either a bank connection
/// or a bank named (`required`) and known to open banking (`unknown_bank`;
/// `bank_known` is what the lookup of the named bank found), never both
/// (`mutually_exclusive_with_bank`); all at once. The connection itself is
/// the flow's to find.
pub fn check_submission(request: &Submission, bank_known: bool) -> Result<(), Vec<Problem>> {
    let mut problems = Problems::new();
    problems.consent("consents.credit_search", request.credit_search);
    problems.consent("consents.open_banking", request.open_banking);
    problems.consent("consents.terms", request.terms);
    match (&request.bank, &request.bank_connection) {
        (Some(_), Some(_)) => problems.push("bank_connection", "mutually_exclusive_with_bank"),
        (None, Some(_)) => {}
        (bank, None) => {
            if problems.required("bank", bank.as_ref()).is_some() && !bank_known {
                problems.push("bank", "unknown_bank");
            }
        }
    }
    problems.finish(Some(()))
}

/// `POST /applications/{id}/accept` as received.
#[derive(Clone, Debug, Default)]
pub struct Acceptance {
    pub signed_by: Option<String>,
    pub accept_terms: Option<bool>,
}

/// The signatory's name as they typed it (trimmed, 1 to `MAX_NAME`
/// characters) and the terms accepted; the name, checked.
pub fn check_acceptance(request: &Acceptance) -> Result<String, Vec<Problem>> {
    let mut problems = Problems::new();
    let signed_by = problems.name("signed_by", request.signed_by.as_deref(), MAX_NAME);
    problems.consent("accept_terms", request.accept_terms);
    problems.finish(signed_by.map(str::to_owned))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn given() -> Submission {
        Submission {
            credit_search: Some(true),
            open_banking: Some(true),
            terms: Some(true),
            bank: Some("test_bank_strong".into()),
            bank_connection: None,
        }
    }

    #[test]
    fn a_submission_needs_every_consent_and_a_known_bank() {
        assert_eq!(check_submission(&given(), true), Ok(()));
        assert_eq!(
            check_submission(&Submission::default(), false),
            Err(vec![
                Problem::new("consents.credit_search", "consent_required"),
                Problem::new("consents.open_banking", "consent_required"),
                Problem::new("consents.terms", "consent_required"),
                Problem::new("bank", "required"),
            ])
        );
        assert_eq!(
            check_submission(
                &Submission {
                    open_banking: Some(false),
                    ..given()
                },
                false
            ),
            Err(vec![
                Problem::new("consents.open_banking", "consent_required"),
                Problem::new("bank", "unknown_bank"),
            ])
        );
        let connected = Submission {
            bank: None,
            bank_connection: Some("bcn_x".into()),
            ..given()
        };
        assert_eq!(check_submission(&connected, false), Ok(()));
        assert_eq!(
            check_submission(
                &Submission {
                    bank: Some("test_bank_strong".into()),
                    ..connected
                },
                true
            ),
            Err(vec![Problem::new(
                "bank_connection",
                "mutually_exclusive_with_bank"
            )])
        );
    }

    #[test]
    fn an_acceptance_needs_a_name_and_the_terms() {
        let accept = |name: Option<&str>, terms| {
            check_acceptance(&Acceptance {
                signed_by: name.map(str::to_owned),
                accept_terms: terms,
            })
        };
        assert_eq!(
            accept(Some(" Ada Lovelace "), Some(true)),
            Ok("Ada Lovelace".into())
        );
        assert_eq!(
            accept(Some(" "), None),
            Err(vec![
                Problem::new("signed_by", "required"),
                Problem::new("accept_terms", "consent_required"),
            ])
        );
        assert_eq!(
            accept(Some(&"n".repeat(MAX_NAME + 1)), Some(false)),
            Err(vec![
                Problem::bounded("signed_by", "max_length", MAX_NAME as i64),
                Problem::new("accept_terms", "consent_required"),
            ])
        );
    }
}
