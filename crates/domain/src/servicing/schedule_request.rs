//! `POST /payments/schedules` as received, and the rules its fields keep
//! before the account and the mandate are looked up.

use serde_json::Value;
use time::Date;
use time::format_description::BorrowedFormatItem;
use time::macros::format_description;

use crate::ids::{AccountId, HubId, MandateId};
use crate::money::Money;
use crate::problem::{Problem, Problems};
use crate::servicing::request_fields;
use crate::servicing::schedule::{Cadence, MAX_COUNT};

/// RFC 3339's full-date, and nothing else ISO 8601 allows (week or
/// ordinal dates).
const CALENDAR_DATE: &[BorrowedFormatItem<'_>] = format_description!("[year]-[month]-[day]");

#[derive(Clone, Debug, Default)]
pub struct ScheduleRequest {
    pub account_id: Option<String>,
    pub amount_pence: Option<Value>,
    pub cadence: Option<String>,
    pub start_date: Option<String>,
    pub count: Option<Value>,
    pub mandate_id: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckedSchedule {
    pub account_id: AccountId,
    pub amount: Money,
    pub cadence: Cadence,
    pub start_date: Date,
    /// `None`: open-ended.
    pub count: Option<u32>,
    pub mandate_id: Option<MandateId>,
}

/// `start_date`: required, a calendar date (`date`), `today` or later
/// (`in_the_past`).
fn start_date(problems: &mut Problems, raw: Option<&str>, today: Date) -> Option<Date> {
    let date = problems.required_parsed("start_date", raw, "date", |raw| {
        Date::parse(raw, CALENDAR_DATE).ok()
    })?;
    if date >= today {
        return Some(date);
    }
    problems.push("start_date", "in_the_past");
    None
}

/// Every field's rule at once, `today` being the date on the caller's
/// clock.
pub fn check(request: &ScheduleRequest, today: Date) -> Result<CheckedSchedule, Vec<Problem>> {
    let mut problems = Problems::new();
    let account_id = request_fields::account_id(&mut problems, request.account_id.as_deref());
    let amount = request_fields::amount(&mut problems, request.amount_pence.as_ref());
    let cadence = problems.required_parsed(
        "cadence",
        request.cadence.as_deref(),
        "one_of",
        Cadence::parse,
    );
    let start_date = start_date(&mut problems, request.start_date.as_deref(), today);
    let count = match &request.count {
        None | Some(Value::Null) => None,
        Some(v) => problems
            .whole_within("count", v, 1, i64::from(MAX_COUNT))
            .and_then(|n| u32::try_from(n).ok()),
    };
    let mandate_id = problems.parsed(
        "mandate_id",
        request.mandate_id.as_deref(),
        "pattern",
        MandateId::parse,
    );
    let checked = account_id.zip(amount).zip(cadence).zip(start_date).map(
        |(((account_id, amount), cadence), start_date)| CheckedSchedule {
            account_id,
            amount,
            cadence,
            start_date,
            count,
            mandate_id,
        },
    );
    problems.finish(checked)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;
    use time::macros::date;

    const TODAY: Date = date!(2026 - 11 - 25);

    fn request() -> ScheduleRequest {
        ScheduleRequest {
            account_id: Some("acc_01KQ3V1Y2C8WZ3R5T6Y7X819D0".into()),
            amount_pence: Some(json!(46_589)),
            cadence: Some("monthly".into()),
            start_date: Some("2026-11-25".into()),
            ..ScheduleRequest::default()
        }
    }

    fn problems(r: ScheduleRequest) -> Vec<Problem> {
        check(&r, TODAY).err().unwrap_or_default()
    }

    #[test]
    fn a_schedule_starting_today_is_open_ended_by_default() {
        let checked = check(&request(), TODAY);
        assert_eq!(
            checked.map(|c| (c.cadence, c.start_date, c.count, c.mandate_id)),
            Ok((Cadence::Monthly, TODAY, None, None))
        );
        let fixed = check(
            &ScheduleRequest {
                count: Some(json!(12)),
                mandate_id: Some("mnd_01KQ3V1Y2C8WZ3R5T6Y7X819D0".into()),
                ..request()
            },
            TODAY,
        );
        assert_eq!(
            fixed.map(|c| (c.count, c.mandate_id.is_some())),
            Ok((Some(12), true))
        );
        let null = check(
            &ScheduleRequest {
                count: Some(Value::Null),
                ..request()
            },
            TODAY,
        );
        assert_eq!(null.map(|c| c.count), Ok(None));
    }

    #[test]
    fn every_problem_is_named_in_field_order() {
        let names = |ps: Vec<Problem>| {
            ps.into_iter()
                .map(|p| (p.field, p.reason))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            names(problems(ScheduleRequest {
                count: Some(json!("twelve")),
                mandate_id: Some("acc_01KQ3V1Y2C8WZ3R5T6Y7X819D0".into()),
                ..ScheduleRequest::default()
            })),
            vec![
                ("account_id".to_owned(), "required"),
                ("amount_pence".to_owned(), "required"),
                ("cadence".to_owned(), "required"),
                ("start_date".to_owned(), "required"),
                ("count".to_owned(), "integer"),
                ("mandate_id".to_owned(), "pattern"),
            ]
        );
        assert_eq!(
            problems(ScheduleRequest {
                cadence: Some("daily".into()),
                start_date: Some("2026-11-24".into()),
                count: Some(json!(0)),
                ..request()
            }),
            vec![
                Problem::new("cadence", "one_of"),
                Problem::new("start_date", "in_the_past"),
                Problem::bounded("count", "min_value", 1),
            ]
        );
        assert_eq!(
            problems(ScheduleRequest {
                start_date: Some("2026-W48-3".into()),
                count: Some(json!(MAX_COUNT + 1)),
                ..request()
            }),
            vec![
                Problem::new("start_date", "date"),
                Problem::bounded("count", "max_value", i64::from(MAX_COUNT)),
            ]
        );
    }

    proptest! {
        #[test]
        fn a_count_is_one_to_the_most(n in -10i64..1_000) {
            let checked = check(&ScheduleRequest { count: Some(json!(n)), ..request() }, TODAY);
            prop_assert_eq!(checked.is_ok(), (1..=i64::from(MAX_COUNT)).contains(&n));
        }
    }
}
