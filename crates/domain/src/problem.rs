//! What a request got wrong, field by field: the one answer every domain
//! check gives, which each surface renders as its 422's `detail` (the
//! field's dotted path, a stable reason, and the limit it broke).
//!
//! A check reads each field in the order the answer lists them, pushing
//! onto a [`Problems`], and finishes with [`Problems::finish`]: every
//! problem at once, or the checked value.

use serde_json::Value;
use time::OffsetDateTime;

/// The limit a reason refers to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Bound {
    /// In the field's own unit (pence, characters, items, seconds).
    Int(i64),
    /// A moment, such as when a cooling-off ends; rendered as RFC 3339.
    Moment(OffsetDateTime),
}

/// One field the request got wrong, and how.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    pub field: String,
    pub reason: &'static str,
    pub bound: Option<Bound>,
}

impl Problem {
    pub fn new(field: impl Into<String>, reason: &'static str) -> Self {
        Self {
            field: field.into(),
            reason,
            bound: None,
        }
    }

    pub fn bounded(field: impl Into<String>, reason: &'static str, bound: i64) -> Self {
        Self {
            bound: Some(Bound::Int(bound)),
            ..Self::new(field, reason)
        }
    }

    pub fn until(field: impl Into<String>, reason: &'static str, moment: OffsetDateTime) -> Self {
        Self {
            bound: Some(Bound::Moment(moment)),
            ..Self::new(field, reason)
        }
    }

    /// This problem alone, as a check's refusal.
    pub fn alone<T>(self) -> Result<T, Vec<Problem>> {
        Err(vec![self])
    }
}

/// The problems a check has found so far, in the order it read the fields.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Problems(Vec<Problem>);

impl Problems {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn push(&mut self, field: impl Into<String>, reason: &'static str) {
        self.0.push(Problem::new(field, reason));
    }

    pub fn push_bounded(&mut self, field: impl Into<String>, reason: &'static str, bound: i64) {
        self.0.push(Problem::bounded(field, reason, bound));
    }

    pub fn extend(&mut self, problems: impl IntoIterator<Item = Problem>) {
        self.0.extend(problems);
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn into_vec(self) -> Vec<Problem> {
        self.0
    }

    /// Every problem found, or else `checked`, which a check builds from
    /// the values it read (each `None` among them was reported as a
    /// problem, so the list is never empty when `checked` is `None`).
    pub fn finish<T>(self, checked: Option<T>) -> Result<T, Vec<Problem>> {
        match checked {
            Some(value) if self.0.is_empty() => Ok(value),
            _ => Err(self.0),
        }
    }

    /// A value that must be given (`required`).
    pub fn required<T>(&mut self, field: &str, value: Option<T>) -> Option<T> {
        if value.is_none() {
            self.push(field, "required");
        }
        value
    }

    /// Text that, when given, must read as a `T` (`reason` when it does
    /// not): an id's pattern, a filter's closed set, a timestamp.
    pub fn parsed<T>(
        &mut self,
        field: &str,
        raw: Option<&str>,
        reason: &'static str,
        parse: impl FnOnce(&str) -> Option<T>,
    ) -> Option<T> {
        let parsed = raw.and_then(parse);
        if raw.is_some() && parsed.is_none() {
            self.push(field, reason);
        }
        parsed
    }

    /// Text that must be given (`required`) and read as a `T` (`reason`).
    pub fn required_parsed<T>(
        &mut self,
        field: &str,
        raw: Option<&str>,
        reason: &'static str,
        parse: impl FnOnce(&str) -> Option<T>,
    ) -> Option<T> {
        self.required(field, raw)
            .and_then(|raw| self.parsed(field, Some(raw), reason, parse))
    }

    /// A given integer from `min` to `max` inclusive (`required`, or
    /// `min_value`/`max_value` with the bound broken).
    pub fn within(&mut self, field: &str, value: Option<i64>, min: i64, max: i64) -> Option<i64> {
        match self.required(field, value)? {
            v if v < min => self.push_bounded(field, "min_value", min),
            v if v > max => self.push_bounded(field, "max_value", max),
            v => return Some(v),
        }
        None
    }

    /// A JSON value given for an integer from `min` to `max` inclusive:
    /// `min_value`/`max_value` with the bound, or `integer` for anything
    /// that is not a whole number an `i64` holds. (Absence and `null` are
    /// the caller's: each field has its own default.)
    pub fn whole_within(&mut self, field: &str, raw: &Value, min: i64, max: i64) -> Option<i64> {
        match raw.as_i64() {
            Some(n) if n < min => self.push_bounded(field, "min_value", min),
            Some(n) if n > max => self.push_bounded(field, "max_value", max),
            Some(n) => return Some(n),
            None => self.push(field, "integer"),
        }
        None
    }

    /// Text of at most `max` characters (`max_length` with the bound);
    /// whether it fits.
    pub fn max_length(&mut self, field: &str, value: Option<&str>, max: usize) -> bool {
        let fits = value.is_none_or(|v| v.chars().count() <= max);
        if !fits {
            self.push_bounded(field, "max_length", max as i64);
        }
        fits
    }

    /// A name that must be given: trimmed, not blank (`required`), at most
    /// `max` characters (`max_length` with the bound).
    pub fn name<'a>(&mut self, field: &str, raw: Option<&'a str>, max: usize) -> Option<&'a str> {
        let name = self.required(field, raw.map(str::trim).filter(|n| !n.is_empty()))?;
        self.max_length(field, Some(name), max).then_some(name)
    }

    /// A consent, which only `true` gives (`consent_required`).
    pub fn consent(&mut self, field: &str, given: Option<bool>) {
        if given != Some(true) {
            self.push(field, "consent_required");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    fn reasons(p: Problems) -> Vec<(String, &'static str, Option<Bound>)> {
        p.into_vec()
            .into_iter()
            .map(|p| (p.field, p.reason, p.bound))
            .collect()
    }

    #[test]
    fn required_and_parsed_name_the_field_and_the_reason() {
        let mut p = Problems::new();
        assert_eq!(p.required("a", Some(1)), Some(1));
        assert_eq!(p.required::<i64>("b", None), None);
        assert_eq!(p.parsed("c", None, "pattern", |_| Some(1)), None);
        assert_eq!(p.parsed("d", Some("x"), "pattern", |_| None::<i64>), None);
        assert_eq!(
            p.parsed("e", Some("7"), "pattern", |s| s.parse().ok()),
            Some(7)
        );
        assert_eq!(p.required_parsed("f", None, "one_of", |_| Some(1)), None);
        assert_eq!(
            p.required_parsed("g", Some("x"), "one_of", |_| None::<i64>),
            None
        );
        assert_eq!(
            reasons(p),
            vec![
                ("b".into(), "required", None),
                ("d".into(), "pattern", None),
                ("f".into(), "required", None),
                ("g".into(), "one_of", None),
            ]
        );
    }

    #[test]
    fn within_reports_the_bound_it_broke() {
        let mut p = Problems::new();
        assert_eq!(p.within("a", None, 1, 9), None);
        assert_eq!(p.within("b", Some(0), 1, 9), None);
        assert_eq!(p.within("c", Some(10), 1, 9), None);
        assert_eq!(p.within("d", Some(1), 1, 9), Some(1));
        assert_eq!(p.within("e", Some(9), 1, 9), Some(9));
        assert_eq!(
            reasons(p),
            vec![
                ("a".into(), "required", None),
                ("b".into(), "min_value", Some(Bound::Int(1))),
                ("c".into(), "max_value", Some(Bound::Int(9))),
            ]
        );
    }

    #[test]
    fn a_whole_number_is_an_i64_within_its_bounds() {
        let mut p = Problems::new();
        assert_eq!(p.whole_within("a", &json!(3), 0, 5), Some(3));
        assert_eq!(p.whole_within("b", &json!(-1), 0, 5), None);
        assert_eq!(p.whole_within("c", &json!(6), 0, 5), None);
        assert_eq!(p.whole_within("d", &json!(1.5), 0, 5), None);
        assert_eq!(p.whole_within("e", &json!("3"), 0, 5), None);
        assert_eq!(p.whole_within("f", &json!(u64::MAX), 0, 5), None);
        assert_eq!(
            reasons(p),
            vec![
                ("b".into(), "min_value", Some(Bound::Int(0))),
                ("c".into(), "max_value", Some(Bound::Int(5))),
                ("d".into(), "integer", None),
                ("e".into(), "integer", None),
                ("f".into(), "integer", None),
            ]
        );
    }

    #[test]
    fn a_name_is_trimmed_and_counted_in_characters() {
        let mut p = Problems::new();
        assert_eq!(p.name("a", Some("  Ada "), 3), Some("Ada"));
        assert_eq!(p.name("b", Some("   "), 3), None);
        assert_eq!(p.name("c", None, 3), None);
        assert_eq!(p.name("d", Some("ééé"), 3), Some("ééé"));
        assert_eq!(p.name("e", Some("Adam"), 3), None);
        assert!(p.max_length("f", None, 0));
        assert!(!p.max_length("g", Some("ab"), 1));
        p.consent("h", Some(true));
        p.consent("i", Some(false));
        p.consent("j", None);
        assert_eq!(
            reasons(p),
            vec![
                ("b".into(), "required", None),
                ("c".into(), "required", None),
                ("e".into(), "max_length", Some(Bound::Int(3))),
                ("g".into(), "max_length", Some(Bound::Int(1))),
                ("i".into(), "consent_required", None),
                ("j".into(), "consent_required", None),
            ]
        );
    }

    #[test]
    fn finish_answers_the_value_only_when_nothing_was_found() {
        assert_eq!(Problems::new().finish(Some(1)), Ok(1));
        let mut p = Problems::new();
        p.push("a", "required");
        assert_eq!(p.clone().finish(Some(1)), Err(p.into_vec()));
        assert_eq!(
            Problem::until("a", "cooling_off", OffsetDateTime::UNIX_EPOCH).alone::<()>(),
            Err(vec![Problem {
                field: "a".into(),
                reason: "cooling_off",
                bound: Some(Bound::Moment(OffsetDateTime::UNIX_EPOCH)),
            }])
        );
    }

    proptest! {
        #[test]
        fn within_accepts_exactly_the_closed_range(v in -1_000i64..1_000, min in -500i64..0, max in 0i64..500) {
            let mut p = Problems::new();
            let ok = p.within("f", Some(v), min, max);
            prop_assert_eq!(ok.is_some(), (min..=max).contains(&v));
            prop_assert_eq!(p.is_empty(), ok.is_some());
            let mut w = Problems::new();
            prop_assert_eq!(w.whole_within("f", &serde_json::json!(v), min, max), ok);
        }
    }
}
