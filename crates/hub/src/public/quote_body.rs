//! The quote's JSON, written directly: byte for byte what `serde_json`
//! makes of [`Quote`], at a quarter of the cost. Serialising a quote was a
//! quarter of `GET /quote/onetime`'s CPU, most of it serde_json escaping the
//! same forty-odd member names on every answer; here the names are written
//! as the constants they are, and only the values are encoded (strings
//! through serde_json unless nothing in them needs escaping).

use lendhub_domain::public::quote::{Instalment, Quote};

/// A quote's JSON: an answer of six instalments is about 1.2 KB.
pub fn render(q: &Quote) -> Vec<u8> {
    let mut out = Vec::with_capacity(512 + 160 * q.schedule.len());
    text(&mut out, b"{\"object\":", q.object);
    text(&mut out, b",\"product\":", q.product);
    text(&mut out, b",\"pricing_version\":", &q.pricing_version);
    text(&mut out, b",\"currency\":", q.currency);
    number(&mut out, b",\"amount_pence\":", q.amount_pence);
    number(&mut out, b",\"term_days\":", q.term_days);
    text(&mut out, b",\"frequency\":", q.frequency.as_str());
    text(&mut out, b",\"start_date\":", &q.start_date);
    text(
        &mut out,
        b",\"daily_interest_rate_percent\":",
        &q.daily_interest_rate_percent,
    );
    number(&mut out, b",\"fees_pence\":", q.fees_pence);
    number(&mut out, b",\"interest_pence\":", q.interest_pence);
    number(&mut out, b",\"total_cost_pence\":", q.total_cost_pence);
    number(
        &mut out,
        b",\"total_repayable_pence\":",
        q.total_repayable_pence,
    );
    let cap = &q.cost_cap;
    number(
        &mut out,
        b",\"cost_cap\":{\"cap_percent\":",
        cap.cap_percent,
    );
    number(&mut out, b",\"cap_pence\":", cap.cap_pence);
    out.extend_from_slice(if cap.applied {
        b",\"applied\":true"
    } else {
        b",\"applied\":false"
    });
    number(&mut out, b",\"waived_pence\":", cap.waived_pence);
    out.extend_from_slice(b"},\"apr_percent\":");
    // ryu's shortest form, and `null` for a non-finite value, as serde_json.
    let _ = serde_json::to_writer(&mut out, &q.apr_percent);
    out.extend_from_slice(b",\"schedule\":[");
    for (i, instalment) in q.schedule.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_instalment(&mut out, instalment);
    }
    out.extend_from_slice(b"]}");
    out
}

fn write_instalment(out: &mut Vec<u8>, i: &Instalment) {
    number(out, b"{\"number\":", i.number);
    text(out, b",\"due_date\":", &i.due_date);
    number(out, b",\"days_from_start\":", i.days_from_start);
    number(out, b",\"principal_pence\":", i.principal_pence);
    number(out, b",\"interest_pence\":", i.interest_pence);
    number(out, b",\"fee_pence\":", i.fee_pence);
    number(out, b",\"amount_pence\":", i.amount_pence);
    out.push(b'}');
}

/// `key` (the member's name with its punctuation) and the integer `n`.
fn number(out: &mut Vec<u8>, key: &[u8], n: impl itoa::Integer) {
    out.extend_from_slice(key);
    out.extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
}

/// `key` and the string `s`.
fn text(out: &mut Vec<u8>, key: &[u8], s: &str) {
    out.extend_from_slice(key);
    string(out, s);
}

/// Dates, versions and names need no escaping; anything that does goes
/// through serde_json.
fn string(out: &mut Vec<u8>, s: &str) {
    if s.bytes().all(|b| b >= 0x20 && b != b'"' && b != b'\\') {
        out.push(b'"');
        out.extend_from_slice(s.as_bytes());
        out.push(b'"');
    } else {
        let _ = serde_json::to_writer(out, s);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lendhub_domain::public::pricing::{Frequency, PricingConfig};
    use lendhub_domain::public::quote;

    fn pricing() -> PricingConfig {
        PricingConfig::parse(crate::public::DEFAULT_PRICING).unwrap()
    }

    #[test]
    fn every_quote_is_written_as_serde_json_writes_it() {
        let c = pricing();
        let loan = &c.business_loan;
        let start = time::Date::from_calendar_date(2026, time::Month::January, 31).unwrap();
        let mut checked = 0;
        for frequency in Frequency::ALL {
            for term in (i64::from(loan.term_min_days)..=i64::from(loan.term_max_days)).step_by(3) {
                for amount in [
                    loan.principal_min_pence,
                    loan.principal_min_pence + 1,
                    123_457,
                    loan.principal_max_pence,
                ] {
                    let Ok(q) = quote::business_loan(&c, amount, term, frequency, start) else {
                        continue;
                    };
                    assert_eq!(
                        String::from_utf8(render(&q)).unwrap(),
                        serde_json::to_string(&q).unwrap(),
                        "{amount} pence over {term} days, {frequency:?}"
                    );
                    checked += 1;
                }
            }
        }
        assert!(checked > 200, "only {checked} quotes checked");
    }

    #[test]
    fn strings_that_need_escaping_go_through_serde_json() {
        let mut q = quote::flex_example(
            &pricing(),
            time::Date::from_calendar_date(2026, time::Month::March, 1).unwrap(),
        );
        q.pricing_version = "v\"2\"\\\n\u{1}é".to_owned();
        q.apr_percent = f64::NAN;
        assert_eq!(
            String::from_utf8(render(&q)).unwrap(),
            serde_json::to_string(&q).unwrap()
        );
    }
}
