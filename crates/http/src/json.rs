//! The JSON body extractor. It keeps the raw bytes (idempotency fingerprints
//! them) and turns every way a body can be wrong into a precise problem:
//! wrong or missing content type, oversize, malformed JSON, unknown fields,
//! wrong types.

use axum::body::Bytes;
use axum::extract::{FromRequest, Request};
use axum::http::{StatusCode, header};
use serde::de::DeserializeOwned;

use crate::strict_json::StrictError;
use crate::{FieldIssue, Problem};

pub struct JsonBody<T> {
    pub value: T,
    pub raw: Bytes,
}

/// Parses `raw` as `T`. An empty body parses as `{}` when `allow_empty`.
pub fn parse<T: DeserializeOwned>(raw: &[u8], allow_empty: bool) -> Result<T, Problem> {
    let text: &[u8] = if allow_empty && raw.iter().all(u8::is_ascii_whitespace) {
        b"{}"
    } else {
        raw
    };
    let value = crate::strict_json::from_slice(text).map_err(|e| match e.clone() {
        StrictError::Syntax(m) => Problem::new(
            StatusCode::BAD_REQUEST,
            "invalid_json",
            format!("request body is not valid JSON: {m}"),
        ),
        StrictError::Duplicate(path) => Problem::new(
            StatusCode::BAD_REQUEST,
            "invalid_json",
            format!("request body is ambiguous: {e}"),
        )
        .with_detail(vec![FieldIssue::new(path, "duplicate")]),
        StrictError::Character(path) => Problem::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "validation_failed",
            format!("{e}"),
        )
        .with_detail(vec![FieldIssue::new(path, "control_character")]),
    })?;
    if !value.is_object() {
        return Err(Problem::new(
            StatusCode::BAD_REQUEST,
            "invalid_json",
            "request body must be a JSON object",
        ));
    }
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner().to_string();
        if inner.starts_with("unknown field `") {
            // The path already ends at the unknown member.
            let field = path;
            Problem::new(
                StatusCode::BAD_REQUEST,
                "unknown_field",
                format!("unknown field `{field}`"),
            )
            .with_detail(vec![FieldIssue::new(field, "unknown_field")])
        } else if let Some(rest) = inner.strip_prefix("missing field `") {
            let name = rest.split('`').next().unwrap_or_default();
            let field = if path == "." || path.is_empty() {
                name.to_owned()
            } else {
                format!("{path}.{name}")
            };
            Problem::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "validation_failed",
                format!("`{field}` is required"),
            )
            .with_detail(vec![FieldIssue::new(field, "required")])
        } else if inner.starts_with("invalid type: floating point") {
            // An integer member given `100.0` or `1e3`: the same reason the
            // members read by hand give (`integer_pence` for money).
            let reason = if path.ends_with("_pence") {
                "integer_pence"
            } else {
                "integer"
            };
            Problem::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "validation_failed",
                format!(
                    "`{path}` must be a JSON integer, written without a fraction or an exponent"
                ),
            )
            .with_detail(vec![FieldIssue::new(path, reason)])
        } else {
            Problem::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "validation_failed",
                format!("`{path}`: {inner}"),
            )
            .with_detail(vec![FieldIssue::new(path, "invalid_type")])
        }
    })
}

fn is_json(content_type: &str) -> bool {
    let essence = content_type.split(';').next().unwrap_or_default().trim();
    essence.eq_ignore_ascii_case("application/json")
        || (essence.starts_with("application/") && essence.ends_with("+json"))
}

/// Reads the body under the router's size limit and checks its content type.
/// `allow_empty` lets operations whose body is optional take no body at all.
pub async fn read_body<S: Send + Sync>(
    request: Request,
    state: &S,
    allow_empty: bool,
) -> Result<Bytes, Problem> {
    let content_type = request
        .headers()
        .get(header::CONTENT_TYPE)
        .map(|v| v.to_str().unwrap_or("").to_owned());
    let raw = Bytes::from_request(request, state)
        .await
        .map_err(|rejection| {
            let status = rejection.status();
            if status == StatusCode::PAYLOAD_TOO_LARGE {
                Problem::new(
                    status,
                    "payload_too_large",
                    "request body exceeds the size limit",
                )
            } else {
                Problem::new(
                    StatusCode::BAD_REQUEST,
                    "invalid_request",
                    rejection.body_text(),
                )
            }
        })?;
    if raw.is_empty() && allow_empty {
        return Ok(raw);
    }
    match content_type {
        None => Err(Problem::new(
            StatusCode::BAD_REQUEST,
            "missing_content_type",
            "Content-Type: application/json is required",
        )),
        Some(ct) if !is_json(&ct) => Err(Problem::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "unsupported_media_type",
            format!("Content-Type {ct} is not supported; send application/json"),
        )),
        Some(_) => Ok(raw),
    }
}

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for JsonBody<T> {
    type Rejection = Problem;

    async fn from_request(request: Request, state: &S) -> Result<Self, Problem> {
        let raw = read_body(request, state, false).await?;
        Ok(Self {
            value: parse(&raw, false)?,
            raw,
        })
    }
}

/// Like [`JsonBody`] for operations whose body is optional.
pub struct OptionalJsonBody<T> {
    pub value: T,
    pub raw: Bytes,
}

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for OptionalJsonBody<T> {
    type Rejection = Problem;

    async fn from_request(request: Request, state: &S) -> Result<Self, Problem> {
        let raw = read_body(request, state, true).await?;
        Ok(Self {
            value: parse(&raw, true)?,
            raw,
        })
    }
}

/// A JSON response, as axum's `Json`, written into one buffer sized for a
/// typical answer. axum's starts at 128 bytes and grows through every power
/// of two a token or a quote passes: a fifth of the instructions a public
/// quote cost (callgrind, 94.5 k instructions per request before, 76.6 k
/// after).
pub struct Json<T>(pub T);

const TYPICAL: usize = 2048;

impl<T: serde::Serialize> axum::response::IntoResponse for Json<T> {
    fn into_response(self) -> axum::response::Response {
        let mut body = Vec::with_capacity(TYPICAL);
        match serde_json::to_writer(&mut body, &self.0) {
            Ok(()) => (
                [(header::CONTENT_TYPE, "application/json")],
                Bytes::from(body),
            )
                .into_response(),
            Err(e) => Problem::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                "internal_error",
                format!("rendering the response: {e}"),
            )
            .into_response(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Deserialize, Debug)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Body {
        business: Option<Business>,
        amount_pence: Option<i64>,
    }

    #[derive(serde::Deserialize, Debug)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Business {
        company_number: Option<String>,
    }

    #[test]
    fn classifies_body_errors() {
        assert_eq!(
            parse::<Body>(b"{", false).err().map(|p| p.code),
            Some("invalid_json")
        );
        assert_eq!(
            parse::<Body>(b"[]", false).err().map(|p| p.code),
            Some("invalid_json")
        );
        let unknown = parse::<Body>(br#"{"business":{"nope":1}}"#, false).err();
        assert_eq!(unknown.as_ref().map(|p| p.code), Some("unknown_field"));
        assert_eq!(
            unknown.map(|p| p.detail[0].field.clone()),
            Some("business.nope".to_owned())
        );
        let wrong = parse::<Body>(br#"{"amount_pence":5000.5}"#, false).err();
        assert_eq!(wrong.as_ref().map(|p| p.code), Some("validation_failed"));
        assert_eq!(
            wrong.map(|p| p.detail[0].field.clone()),
            Some("amount_pence".to_owned())
        );
        assert!(parse::<Body>(b"", true).is_ok());
        assert!(parse::<Body>(b"", false).is_err());
    }

    #[test]
    fn json_answers_the_body_or_a_500_in_the_envelope() {
        use axum::response::IntoResponse;
        let ok =
            Json(serde_json::json!({"object": "quote", "amount_pence": 25_000})).into_response();
        assert_eq!(ok.status(), StatusCode::OK);
        assert_eq!(ok.headers()[header::CONTENT_TYPE], "application/json");
        // JSON object keys must be strings; a map keyed by pairs cannot be written.
        let unwritable: std::collections::BTreeMap<(u8, u8), u8> = [((1, 2), 3)].into();
        let failed = Json(unwritable).into_response();
        assert_eq!(failed.status(), StatusCode::INTERNAL_SERVER_ERROR);
        assert_eq!(
            failed.extensions().get::<Problem>().map(|p| p.code),
            Some("internal_error")
        );
    }
}
