//! Field schemas the derive cannot state: a closed set of strings and a
//! boolean that must be `true`. Each names the rule the server enforces, so
//! the document refuses what the handler refuses (issue #44 item 13).

use lendhub_domain::marketplace::{Category, Verdict};
use utoipa::openapi::schema::{Object, ObjectBuilder, Type};

fn one_of(description: &str, values: impl IntoIterator<Item = &'static str>) -> Object {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .enum_values(Some(values))
        .description(Some(description))
        .build()
}

/// A name the server trims, requires and bounds by `max` characters.
pub fn name(max: usize) -> Object {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .min_length(Some(1))
        .max_length(Some(max))
        .pattern(Some(lendhub_http::openapi::NOT_BLANK))
        .description(Some(format!(
            "At most {max} characters, not all white space."
        )))
        .build()
}

/// An app's or a sub-account's name.
pub fn name_200() -> Object {
    name(200)
}

/// A marketplace category: an app's, or the kind of check a signal reports.
pub fn category() -> Object {
    one_of(
        "open_banking, identity, e_sign, accounting or fraud.",
        Category::ALL.map(Category::as_str),
    )
}

/// A signal's verdict.
pub fn verdict() -> Object {
    one_of(
        "pass, review or fail. A `fraud` signal that fails with a score of at \
         least 0.9 declines the application; any other signal moves its annual \
         rate: `pass` down by up to 0.5 points, `review` up by up to 0.5, `fail` \
         up by up to 1 (scaled by the score; 2 points at most in all).",
        Verdict::ALL.map(Verdict::as_str),
    )
}

/// A consent or an acceptance: only `true` is accepted.
pub fn must_be_true() -> Object {
    ObjectBuilder::new()
        .schema_type(Type::Boolean)
        .enum_values(Some([true]))
        .description(Some("Must be `true`."))
        .build()
}
