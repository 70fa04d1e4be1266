//! Request-field rules several REST resources share, each read the same way
//! with the same reasons in `detail`.

use lendhub_http::FieldIssue;

/// A required name: trimmed, not blank (`required`), at most `max`
/// characters (`max_length`, with the bound).
pub fn name<'a>(
    field: &'static str,
    raw: Option<&'a str>,
    max: usize,
    issues: &mut Vec<FieldIssue>,
) -> Option<&'a str> {
    match raw.map(str::trim).filter(|n| !n.is_empty()) {
        None => {
            issues.push(FieldIssue::new(field, "required"));
            None
        }
        Some(n) if n.chars().count() > max => {
            issues.push(FieldIssue::new(field, "max_length").with_bound(max as i64));
            None
        }
        Some(n) => Some(n),
    }
}

/// A required value of a closed set (`required`, or `enum` when `parse`
/// knows no such value).
pub fn one_of<T>(
    field: &'static str,
    raw: Option<&str>,
    parse: impl Fn(&str) -> Option<T>,
    issues: &mut Vec<FieldIssue>,
) -> Option<T> {
    let Some(raw) = raw else {
        issues.push(FieldIssue::new(field, "required"));
        return None;
    };
    let parsed = parse(raw);
    if parsed.is_none() {
        issues.push(FieldIssue::new(field, "enum"));
    }
    parsed
}
