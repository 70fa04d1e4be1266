//! `POST /marketplace/signals` as received, and the rules a signal's
//! fields keep before the application it names is looked up.

use serde_json::Value;

use crate::marketplace::{Category, MAX_EVIDENCE_BYTES, Verdict, score_thousandths};
use crate::problem::{Problem, Problems};

#[derive(Clone, Debug, Default)]
pub struct SignalRequest {
    pub application_id: Option<String>,
    pub kind: Option<String>,
    /// As sent: a number is read, anything else refused.
    pub score: Option<Value>,
    pub verdict: Option<String>,
    pub evidence: Option<Value>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct CheckedSignal {
    pub application_id: String,
    pub kind: Category,
    /// Thousandths (`score_thousandths`).
    pub score: u32,
    pub verdict: Verdict,
    pub evidence: Value,
}

/// A confidence from 0 to 1 (`required`, `number`, `min_value` 0,
/// `max_value` 1).
fn score(problems: &mut Problems, raw: Option<&Value>) -> Option<u32> {
    match raw {
        None | Some(Value::Null) => problems.push("score", "required"),
        Some(v) => match v.as_f64() {
            None => problems.push("score", "number"),
            Some(n) => match score_thousandths(n) {
                Some(s) => return Some(s),
                None if n < 0.0 => problems.push_bounded("score", "min_value", 0),
                None => problems.push_bounded("score", "max_value", 1),
            },
        },
    }
    None
}

/// What the check saw: a JSON object (`object`) of at most
/// `MAX_EVIDENCE_BYTES` serialized (`max_length`, with the bound).
fn evidence(problems: &mut Problems, raw: Option<&Value>) -> Option<Value> {
    match raw {
        None | Some(Value::Null) => problems.push("evidence", "required"),
        Some(v @ Value::Object(_)) if v.to_string().len() > MAX_EVIDENCE_BYTES => {
            problems.push_bounded("evidence", "max_length", MAX_EVIDENCE_BYTES as i64)
        }
        Some(v @ Value::Object(_)) => return Some(v.clone()),
        Some(_) => problems.push("evidence", "object"),
    }
    None
}

/// Every field's rule at once, in the order of the body's schema.
pub fn check(request: &SignalRequest) -> Result<CheckedSignal, Vec<Problem>> {
    let mut problems = Problems::new();
    let application_id = problems.required("application_id", request.application_id.clone());
    let kind = problems.required_parsed("kind", request.kind.as_deref(), "enum", Category::parse);
    let score = score(&mut problems, request.score.as_ref());
    let verdict = problems.required_parsed(
        "verdict",
        request.verdict.as_deref(),
        "enum",
        Verdict::parse,
    );
    let evidence = evidence(&mut problems, request.evidence.as_ref());
    let checked = application_id
        .zip(kind)
        .zip(score)
        .zip(verdict)
        .zip(evidence)
        .map(
            |((((application_id, kind), score), verdict), evidence)| CheckedSignal {
                application_id,
                kind,
                score,
                verdict,
                evidence,
            },
        );
    problems.finish(checked)
}

/// An application keeps at most `max` signals (`signal_limit`, with the
/// bound), `earlier` being how many it has.
pub fn room_for_one_more(earlier: usize, max: u32) -> Result<(), Vec<Problem>> {
    if earlier >= max as usize {
        return Problem::bounded("application_id", "signal_limit", i64::from(max)).alone();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    fn request() -> SignalRequest {
        SignalRequest {
            application_id: Some("app_01KQ3V1Y2C8WZ3R5T6Y7X8V9W0".into()),
            kind: Some("fraud".into()),
            score: Some(json!(0.95)),
            verdict: Some("pass".into()),
            evidence: Some(json!({"seen": true})),
        }
    }

    fn problems(r: SignalRequest) -> Vec<Problem> {
        check(&r).err().unwrap_or_default()
    }

    #[test]
    fn a_signal_reads_its_score_in_thousandths() {
        assert_eq!(
            check(&request()),
            Ok(CheckedSignal {
                application_id: "app_01KQ3V1Y2C8WZ3R5T6Y7X8V9W0".into(),
                kind: Category::Fraud,
                score: 950,
                verdict: Verdict::Pass,
                evidence: json!({"seen": true}),
            })
        );
    }

    #[test]
    fn every_missing_field_is_required() {
        let all = problems(SignalRequest {
            score: Some(Value::Null),
            evidence: Some(Value::Null),
            ..SignalRequest::default()
        });
        let fields: Vec<_> = all.iter().map(|p| (p.field.as_str(), p.reason)).collect();
        assert_eq!(
            fields,
            [
                ("application_id", "required"),
                ("kind", "required"),
                ("score", "required"),
                ("verdict", "required"),
                ("evidence", "required"),
            ]
        );
    }

    #[test]
    fn each_field_names_how_it_is_wrong() {
        let wrong = problems(SignalRequest {
            kind: Some("astrology".into()),
            score: Some(json!("high")),
            verdict: Some("maybe".into()),
            evidence: Some(json!([1])),
            ..request()
        });
        assert_eq!(
            wrong,
            vec![
                Problem::new("kind", "enum"),
                Problem::new("score", "number"),
                Problem::new("verdict", "enum"),
                Problem::new("evidence", "object"),
            ]
        );
        let big = json!({"blob": "x".repeat(MAX_EVIDENCE_BYTES)});
        assert_eq!(
            problems(SignalRequest {
                score: Some(json!(-0.5)),
                evidence: Some(big),
                ..request()
            }),
            vec![
                Problem::bounded("score", "min_value", 0),
                Problem::bounded("evidence", "max_length", MAX_EVIDENCE_BYTES as i64),
            ]
        );
        assert_eq!(
            problems(SignalRequest {
                score: Some(json!(1.01)),
                ..request()
            }),
            vec![Problem::bounded("score", "max_value", 1)]
        );
    }

    #[test]
    fn an_application_holds_a_bounded_number_of_signals() {
        assert_eq!(room_for_one_more(99, 100), Ok(()));
        assert_eq!(
            room_for_one_more(100, 100),
            Err(vec![Problem::bounded(
                "application_id",
                "signal_limit",
                100
            )])
        );
    }

    proptest! {
        #[test]
        fn a_score_is_accepted_exactly_from_zero_to_one(s in -2.0f64..2.0) {
            let checked = check(&SignalRequest { score: Some(json!(s)), ..request() });
            prop_assert_eq!(checked.is_ok(), (0.0..=1.0).contains(&s));
        }
    }
}
