//! Dates, times and amounts as a person in the UK reads them (issue #51
//! item 3): "28 December 2026", "16:29 GMT", "−£1,234.56". Pages and
//! e-mails format through these; the API keeps its machine formats.

use time::{Date, Month, OffsetDateTime, UtcOffset, Weekday};

use crate::money::Money;
use crate::sandbox::decisioning::ReasonCode;

/// "28 December 2026".
pub fn date(d: Date) -> String {
    format!("{} {} {}", d.day(), month(d.month()), d.year())
}

/// The UK date `at` falls on: "28 December 2026".
pub fn date_at(at: OffsetDateTime) -> String {
    date(london(at).0.date())
}

/// "Monday 28 December 2026".
pub fn day(d: Date) -> String {
    format!("{} {}", weekday(d.weekday()), date(d))
}

/// "28 December 2026 at 16:29 GMT": the moment in the UK's civil time
/// (Europe/London), with its zone.
pub fn moment(at: OffsetDateTime) -> String {
    let (local, zone) = london(at);
    format!(
        "{} at {:02}:{:02} {zone}",
        date(local.date()),
        local.hour(),
        local.minute()
    )
}

/// `at` in Europe/London, and the zone's abbreviation. British Summer
/// Time runs from 01:00 UTC on the last Sunday of March to 01:00 UTC on
/// the last Sunday of October (the Summer Time Order 2002, in force since
/// 2002 and unchanged since): one rule, so no time-zone database.
pub fn london(at: OffsetDateTime) -> (OffsetDateTime, &'static str) {
    let utc = at.to_offset(UtcOffset::UTC);
    let year = utc.year();
    let starts = last_sunday(year, Month::March);
    let ends = last_sunday(year, Month::October);
    let one_am = |d: Date| d.with_hms(1, 0, 0).map(|t| t.assume_utc());
    let summer = match (one_am(starts), one_am(ends)) {
        (Ok(s), Ok(e)) => utc >= s && utc < e,
        _ => false,
    };
    if summer {
        (utc.to_offset(BST), "BST")
    } else {
        (utc, "GMT")
    }
}

const BST: UtcOffset = time::macros::offset!(+1);

fn last_sunday(year: i32, month: Month) -> Date {
    let last = Date::from_calendar_date(year, month, month.length(year)).unwrap_or(Date::MIN);
    last - time::Duration::days(i64::from(last.weekday().number_days_from_sunday()))
}

/// The first whole UK day that starts at or after `at`: what a person is
/// told when something opens again at `at` ("you can apply again from
/// 31 December 2026"), so the day named is never early.
pub fn first_whole_day(at: OffsetDateTime) -> Date {
    let (local, _) = london(at);
    if local.time() == time::Time::MIDNIGHT {
        local.date()
    } else {
        local.date().next_day().unwrap_or(local.date())
    }
}

/// What a decision's reason code means, in a sentence a person reads: the
/// applicant on the hosted journey, the partner's staff on the dashboard.
pub fn reason(code: ReasonCode) -> &'static str {
    use ReasonCode::*;
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

/// "£1,234.56", "−£12.00" (the minus sign before the symbol, and a real
/// minus, which does not break a line).
pub fn money(m: Money) -> String {
    m.to_string().replacen('-', "\u{2212}", 1)
}

/// An amount a page shows: `money`, as a value a template can print.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pounds(pub Money);

impl std::fmt::Display for Pounds {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&money(self.0))
    }
}

fn month(m: Month) -> &'static str {
    match m {
        Month::January => "January",
        Month::February => "February",
        Month::March => "March",
        Month::April => "April",
        Month::May => "May",
        Month::June => "June",
        Month::July => "July",
        Month::August => "August",
        Month::September => "September",
        Month::October => "October",
        Month::November => "November",
        Month::December => "December",
    }
}

fn weekday(d: Weekday) -> &'static str {
    match d {
        Weekday::Monday => "Monday",
        Weekday::Tuesday => "Tuesday",
        Weekday::Wednesday => "Wednesday",
        Weekday::Thursday => "Thursday",
        Weekday::Friday => "Friday",
        Weekday::Saturday => "Saturday",
        Weekday::Sunday => "Sunday",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::{date, datetime};

    #[test]
    fn dates_read_as_people_write_them() {
        assert_eq!(date(date!(2026 - 12 - 28)), "28 December 2026");
        assert_eq!(date(date!(2027 - 01 - 01)), "1 January 2027");
        assert_eq!(day(date!(2026 - 12 - 28)), "Monday 28 December 2026");
    }

    /// The changes of 2026: 29 March and 25 October, at 01:00 UTC.
    #[test]
    fn times_are_the_uks_with_their_zone() {
        assert_eq!(
            moment(datetime!(2026-11-29 16:29:34.978 UTC)),
            "29 November 2026 at 16:29 GMT"
        );
        assert_eq!(
            moment(datetime!(2026-07-01 12:00 UTC)),
            "1 July 2026 at 13:00 BST"
        );
        assert_eq!(
            moment(datetime!(2026-03-29 00:59 UTC)),
            "29 March 2026 at 00:59 GMT"
        );
        assert_eq!(
            moment(datetime!(2026-03-29 01:00 UTC)),
            "29 March 2026 at 02:00 BST"
        );
        assert_eq!(
            moment(datetime!(2026-10-25 00:59 UTC)),
            "25 October 2026 at 01:59 BST"
        );
        assert_eq!(
            moment(datetime!(2026-10-25 01:00 UTC)),
            "25 October 2026 at 01:00 GMT"
        );
        assert_eq!(
            moment(datetime!(2026-07-01 12:00 +02:00)),
            "1 July 2026 at 11:00 BST"
        );
    }

    #[test]
    fn a_day_named_is_never_early() {
        assert_eq!(
            first_whole_day(datetime!(2026-12-30 14:00 UTC)),
            date!(2026 - 12 - 31)
        );
        assert_eq!(
            first_whole_day(datetime!(2026-12-31 00:00 UTC)),
            date!(2026 - 12 - 31)
        );
        // 23:30 UTC in summer is already the next day in London.
        assert_eq!(
            first_whole_day(datetime!(2026-07-01 23:30 UTC)),
            date!(2026 - 07 - 03)
        );
        assert_eq!(
            first_whole_day(datetime!(2026-06-30 23:00 UTC)),
            date!(2026 - 07 - 01)
        );
    }

    #[test]
    fn money_puts_a_real_minus_before_the_pound_sign() {
        assert_eq!(money(Money::pence(123_456)), "£1,234.56");
        assert_eq!(money(Money::pence(-1_200)), "\u{2212}£12.00");
    }
}
