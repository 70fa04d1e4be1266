//! The quote's JSON, written directly: byte for byte what `serde_json`
//! makes of [`Quote`], at a quarter of the cost. Serialising a quote was a
//! quarter of `GET /quote/onetime`'s CPU, most of it serde_json escaping the
//! same forty-odd member names on every answer; here the names are written
//! as the constants they are, and only the values are encoded (strings
//! through serde_json unless nothing in them needs escaping).

use lendhub_domain::quote::{Instalment, Quote};

/// A quote's JSON: an answer of six instalments is about 1.2 KB.
pub fn render(q: &Quote) -> Vec<u8> {
    let mut out = Vec::with_capacity(512 + 160 * q.schedule.len());
    out.extend_from_slice(b"{\"object\":");
    string(&mut out, q.object);
    out.extend_from_slice(b",\"product\":");
    string(&mut out, q.product);
    out.extend_from_slice(b",\"pricing_version\":");
    string(&mut out, &q.pricing_version);
    out.extend_from_slice(b",\"currency\":");
    string(&mut out, q.currency);
    out.extend_from_slice(b",\"amount_pence\":");
    integer(&mut out, q.amount_pence);
    out.extend_from_slice(b",\"term_days\":");
    integer(&mut out, q.term_days);
    out.extend_from_slice(b",\"frequency\":");
    string(&mut out, q.frequency.as_str());
    out.extend_from_slice(b",\"start_date\":");
    string(&mut out, &q.start_date);
    out.extend_from_slice(b",\"daily_interest_rate_percent\":");
    string(&mut out, &q.daily_interest_rate_percent);
    out.extend_from_slice(b",\"fees_pence\":");
    integer(&mut out, q.fees_pence);
    out.extend_from_slice(b",\"interest_pence\":");
    integer(&mut out, q.interest_pence);
    out.extend_from_slice(b",\"total_cost_pence\":");
    integer(&mut out, q.total_cost_pence);
    out.extend_from_slice(b",\"total_repayable_pence\":");
    integer(&mut out, q.total_repayable_pence);
    let cap = &q.cost_cap;
    out.extend_from_slice(b",\"cost_cap\":{\"cap_percent\":");
    integer(&mut out, cap.cap_percent);
    out.extend_from_slice(b",\"cap_pence\":");
    integer(&mut out, cap.cap_pence);
    out.extend_from_slice(if cap.applied {
        b",\"applied\":true,\"waived_pence\":"
    } else {
        b",\"applied\":false,\"waived_pence\":"
    });
    integer(&mut out, cap.waived_pence);
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
    out.extend_from_slice(b"{\"number\":");
    integer(out, i.number);
    out.extend_from_slice(b",\"due_date\":");
    string(out, &i.due_date);
    out.extend_from_slice(b",\"days_from_start\":");
    integer(out, i.days_from_start);
    out.extend_from_slice(b",\"principal_pence\":");
    integer(out, i.principal_pence);
    out.extend_from_slice(b",\"interest_pence\":");
    integer(out, i.interest_pence);
    out.extend_from_slice(b",\"fee_pence\":");
    integer(out, i.fee_pence);
    out.extend_from_slice(b",\"amount_pence\":");
    integer(out, i.amount_pence);
    out.push(b'}');
}

fn integer(out: &mut Vec<u8>, n: impl itoa::Integer) {
    out.extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
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
    use lendhub_domain::pricing::{Frequency, PricingConfig};
    use lendhub_domain::quote;

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
