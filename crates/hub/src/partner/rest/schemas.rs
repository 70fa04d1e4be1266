//! Field schemas the derive cannot state: a closed set of strings and a
//! boolean that must be `true`. Each names the rule the server enforces, so
//! the document refuses what the handler refuses (issue #44 item 13).

use lendhub_domain::marketplace::{Category, Verdict};
use utoipa::openapi::schema::{Array, ArrayBuilder, Object, ObjectBuilder, SchemaType, Type};

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

/// A bank account holder's name, as Faster Payments carries it.
pub fn holder_name() -> Object {
    name(lendhub_domain::partner::sub_account::MAX_HOLDER)
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

/// A host an `https` URL may name: DNS labels whose last is not a number
/// (which a URL parser reads as an IPv4 address), or a dotted IPv4 address.
const HOST: &str = "([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\\.(?![0-9]+([:/]|$))(?!0[xX][0-9A-Fa-f]*([:/]|$))[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?|(25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])(\\.(25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])){3})";

/// An app's redirect URI: absolute `https` (`http` on a loopback host),
/// without a fragment.
pub fn redirect_uri() -> Object {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .max_length(Some(2048))
        .pattern(Some(format!(
            "^(https://{HOST}|http://(localhost|127\\.0\\.0\\.1|\\[::1\\]))(:[0-9]{{1,4}})?(/[!-\"$-~]*)?$"
        )))
        .description(Some(
            "Absolute `https` (`http` on localhost, 127.0.0.1 or [::1]), no fragment.",
        ))
        .build()
}

/// Where an app's subscriptions deliver: `https`, on a public address
/// (checked when it is registered and again at each delivery); `null` is
/// none.
pub fn public_https_url() -> Object {
    ObjectBuilder::new()
        .schema_type(SchemaType::from_iter([Type::String, Type::Null]))
        .max_length(Some(2048))
        .pattern(Some(format!("^https://{HOST}(:[0-9]{{1,4}})?(/[!-~]*)?$")))
        .description(Some(
            "HTTPS, on a public address: where its subscriptions' events are \
             delivered. Needed before it can subscribe.",
        ))
        .examples(["https://fraudscope.example/hooks/lendhub"])
        .build()
}

/// An app's redirect URIs, at most `max`.
pub fn redirect_uris(max: usize) -> Array {
    ArrayBuilder::new()
        .items(redirect_uri())
        .max_items(Some(max))
        .examples([serde_json::json!(["https://fraudscope.example/return"])])
        .description(Some(format!(
            "Up to {max} absolute `https` URIs (`http` on a loopback host), no fragment: \
             where the vendor's own flows return applicants."
        )))
        .build()
}
