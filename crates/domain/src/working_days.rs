//! Working days in England and Wales: Monday to Friday, not a bank
//! holiday. Bank holidays come from GOV.UK's official list
//! (`https://www.gov.uk/bank-holidays.json`, Open Government Licence): a
//! copy ships in the binary (`data/bank-holidays.json`) and an operator can
//! give a newer download in its place (`rest_tier.bank_holidays_file`). Past
//! the list's last year the statutory pattern is computed (Easter by the
//! `computus` crate), so a date never falls off the end of a table; only a
//! one-off holiday announced later (a jubilee, a coronation) needs the
//! newer list.

use std::collections::BTreeSet;

use serde::Deserialize;
use time::{Date, Duration, Month, Weekday};

const BUNDLED: &str = include_str!("../data/bank-holidays.json");

/// The bank holidays of England and Wales, and the working days they leave.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorkingDays {
    listed: BTreeSet<Date>,
    /// The last year the list covers; later years follow the rules.
    listed_through: i32,
}

#[derive(Deserialize)]
struct GovUk {
    #[serde(rename = "england-and-wales")]
    england_and_wales: Division,
}

#[derive(Deserialize)]
struct Division {
    events: Vec<Holiday>,
}

#[derive(Deserialize)]
struct Holiday {
    date: String,
}

impl Default for WorkingDays {
    fn default() -> Self {
        Self::bundled()
    }
}

/// A holiday list that is not GOV.UK's `bank-holidays.json`.
#[derive(Debug, thiserror::Error)]
pub enum HolidaysError {
    #[error("not GOV.UK's bank-holidays.json: {0}")]
    Json(#[from] serde_json::Error),
    #[error("{0:?} is not a date (YYYY-MM-DD)")]
    Date(String),
    #[error("the list has no England and Wales holidays")]
    Empty,
}

impl WorkingDays {
    /// GOV.UK's list as bundled with this build.
    pub fn bundled() -> Self {
        Self::from_govuk_json(BUNDLED)
            .unwrap_or_else(|e| unreachable!("the bundled list is checked by a test: {e}"))
    }

    /// GOV.UK's `bank-holidays.json` (its England and Wales division).
    pub fn from_govuk_json(json: &str) -> Result<Self, HolidaysError> {
        let parsed: GovUk = serde_json::from_str(json)?;
        let format = time::macros::format_description!("[year]-[month]-[day]");
        let listed = parsed
            .england_and_wales
            .events
            .iter()
            .map(|h| Date::parse(&h.date, &format).map_err(|_| HolidaysError::Date(h.date.clone())))
            .collect::<Result<BTreeSet<Date>, _>>()?;
        let listed_through = listed
            .last()
            .map(|d| d.year())
            .ok_or(HolidaysError::Empty)?;
        Ok(Self {
            listed,
            listed_through,
        })
    }

    /// The last year GOV.UK's list covers.
    pub fn listed_through(&self) -> i32 {
        self.listed_through
    }

    pub fn is_bank_holiday(&self, date: Date) -> bool {
        if date.year() <= self.listed_through {
            self.listed.contains(&date)
        } else {
            statutory(date.year()).contains(&date)
        }
    }

    pub fn is_working_day(&self, date: Date) -> bool {
        !matches!(date.weekday(), Weekday::Saturday | Weekday::Sunday)
            && !self.is_bank_holiday(date)
    }

    /// The `n`th working day (from 1) of a month.
    pub fn nth_working_day(&self, year: i32, month: Month, n: u32) -> Option<Date> {
        let mut day = Date::from_calendar_date(year, month, 1).ok()?;
        let mut seen = 0;
        while day.month() == month {
            if self.is_working_day(day) {
                seen += 1;
                if seen == n {
                    return Some(day);
                }
            }
            day = day.next_day()?;
        }
        None
    }
}

fn first_weekday(year: i32, month: Month, weekday: Weekday) -> Option<Date> {
    let first = Date::from_calendar_date(year, month, 1).ok()?;
    let ahead =
        (7 + weekday.number_days_from_monday() - first.weekday().number_days_from_monday()) % 7;
    Some(first + Duration::days(i64::from(ahead)))
}

fn last_weekday(year: i32, month: Month, weekday: Weekday) -> Option<Date> {
    let last =
        Date::from_calendar_date(year, month, time::util::days_in_month(month, year)).ok()?;
    let back =
        (7 + last.weekday().number_days_from_monday() - weekday.number_days_from_monday()) % 7;
    Some(last - Duration::days(i64::from(back)))
}

/// A holiday on a weekend moves to the next weekday not already taken.
fn substitute(date: Date, taken: &BTreeSet<Date>) -> Date {
    let mut day = date;
    while matches!(day.weekday(), Weekday::Saturday | Weekday::Sunday) || taken.contains(&day) {
        day = day.next_day().unwrap_or(day);
    }
    day
}

/// The statutory and customary bank holidays of England and Wales in a
/// year (the Banking and Financial Dealings Act 1971 and the annual royal
/// proclamations' settled pattern), with weekend substitutes.
pub fn statutory(year: i32) -> BTreeSet<Date> {
    let mut days = BTreeSet::new();
    let date = |m: Month, d: u8| Date::from_calendar_date(year, m, d).ok();
    if let Some(new_year) = date(Month::January, 1) {
        let day = substitute(new_year, &days);
        days.insert(day);
    }
    if let Ok(easter) = computus::gregorian(year) {
        let month = Month::try_from(easter.month as u8).unwrap_or(Month::April);
        if let Ok(sunday) = Date::from_calendar_date(year, month, easter.day as u8) {
            days.insert(sunday - Duration::days(2));
            days.insert(sunday + Duration::days(1));
        }
    }
    days.extend(first_weekday(year, Month::May, Weekday::Monday));
    days.extend(last_weekday(year, Month::May, Weekday::Monday));
    days.extend(last_weekday(year, Month::August, Weekday::Monday));
    for d in [25, 26] {
        if let Some(day) = date(Month::December, d) {
            let day = substitute(day, &days);
            days.insert(day);
        }
    }
    days
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::date;

    #[test]
    fn the_bundled_list_is_govuks() {
        let days = WorkingDays::bundled();
        assert!(days.listed_through() >= 2028);
        assert!(
            days.is_bank_holiday(date!(2023 - 05 - 08)),
            "the coronation"
        );
        assert!(
            days.is_bank_holiday(date!(2026 - 12 - 28)),
            "Boxing Day's substitute"
        );
        assert!(!days.is_working_day(date!(2026 - 12 - 26)), "a Saturday");
    }

    /// The rules reproduce GOV.UK's list in every year it covers, but for
    /// the one-off changes announced by proclamation.
    #[test]
    fn the_rules_agree_with_the_official_list() {
        let days = WorkingDays::bundled();
        let announced = [2012, 2020, 2022, 2023];
        let first = days.listed.first().map(|d| d.year()).unwrap_or(2012);
        for year in first..=days.listed_through() {
            let listed: BTreeSet<Date> = days
                .listed
                .iter()
                .filter(|d| d.year() == year)
                .copied()
                .collect();
            if announced.contains(&year) {
                assert!(statutory(year).len() <= listed.len(), "{year}");
            } else {
                assert_eq!(statutory(year), listed, "{year}");
            }
        }
    }

    #[test]
    fn invoices_fall_on_the_second_working_day() {
        let days = WorkingDays::bundled();
        // 1 January 2027 is a Friday (a holiday): Monday the 4th is the first.
        assert_eq!(
            days.nth_working_day(2027, Month::January, 2),
            Some(date!(2027 - 01 - 05))
        );
        assert_eq!(
            days.nth_working_day(2026, Month::December, 2),
            Some(date!(2026 - 12 - 02))
        );
        // Past the list the rules carry on: 1 January 2035 is a Monday.
        assert!(days.is_bank_holiday(date!(2035 - 01 - 01)));
        assert_eq!(
            days.nth_working_day(2035, Month::January, 2),
            Some(date!(2035 - 01 - 03))
        );
        // Christmas 2038 is a Saturday: Monday 27th and Tuesday 28th.
        assert!(days.is_bank_holiday(date!(2038 - 12 - 27)));
        assert!(days.is_bank_holiday(date!(2038 - 12 - 28)));
    }

    #[test]
    fn a_newer_download_replaces_the_bundled_list() {
        let json = r#"{"england-and-wales": {"division": "england-and-wales", "events": [
            {"title": "New Year’s Day", "date": "2040-01-02", "notes": "Substitute day", "bunting": true}]}}"#;
        let days = WorkingDays::from_govuk_json(json).unwrap();
        assert_eq!(days.listed_through(), 2040);
        assert!(days.is_bank_holiday(date!(2040 - 01 - 02)));
        assert!(WorkingDays::from_govuk_json("{}").is_err());
    }
}
