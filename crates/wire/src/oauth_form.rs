//! The parts of an OAuth 2.0 token-style request every surface parses the
//! same way (RFC 6749 §2.3.1, §3.2): an `application/x-www-form-urlencoded`
//! body whose parameters appear at most once, and client credentials sent
//! either by HTTP Basic or in the body, never both.

use std::borrow::Cow;
use std::collections::HashMap;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use http::{HeaderMap, header};

// The client-credentials token request, as the OpenAPI documents describe
// it; the handlers read the form with `parse` and `client_credentials`. (A
// doc comment here would become the schema's description.)
#[derive(utoipa::ToSchema)]
#[allow(dead_code)]
pub struct TokenForm {
    /// Must be `client_credentials`.
    grant_type: String,
    /// Space-delimited; omitted grants every scope the client holds.
    scope: Option<String>,
    /// With `client_secret`, instead of HTTP Basic (`client_secret_post`).
    client_id: Option<String>,
    client_secret: Option<String>,
}

/// Why a form or its credentials were refused; each surface maps these onto
/// its own error codes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FormError {
    /// Not `application/x-www-form-urlencoded`.
    ContentType,
    /// A parameter appeared more than once.
    Repeated(String),
    /// An `Authorization` header that is not well-formed HTTP Basic.
    MalformedBasic,
    /// Credentials both by HTTP Basic and in the body.
    BothMethods,
    /// No client credentials at all.
    MissingCredentials,
}

/// How the client authenticated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AuthMethod {
    Basic,
    Post,
}

#[derive(Debug, Clone)]
pub struct ClientCredentials {
    pub client_id: String,
    pub client_secret: lendhub_domain::secret::Secret<String>,
    pub method: AuthMethod,
}

/// The form's parameters among `wanted` (others are ignored, as RFC 6749 asks).
pub fn parse(
    headers: &HeaderMap,
    body: &[u8],
    wanted: &[&'static str],
) -> Result<HashMap<&'static str, String>, FormError> {
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let essence = content_type.split(';').next().unwrap_or("").trim();
    if !essence.eq_ignore_ascii_case("application/x-www-form-urlencoded") {
        return Err(FormError::ContentType);
    }
    let mut form = HashMap::new();
    for pair in body.split(|&b| b == b'&').filter(|p| !p.is_empty()) {
        let (name, value) = decode_pair(pair);
        let Some(&key) = wanted.iter().find(|w| **w == name) else {
            continue;
        };
        if form.insert(key, value.into_owned()).is_some() {
            return Err(FormError::Repeated(key.to_owned()));
        }
    }
    Ok(form)
}

/// One `name=value` pair of a form, decoded as `form_urlencoded::parse`
/// decodes it. Tokens, ids and grant types hold neither `+` nor `%`: those
/// are borrowed as they are, instead of being decoded byte by byte (15 k
/// instructions for an introspected token's 300 characters).
fn decode_pair(pair: &[u8]) -> (Cow<'_, str>, Cow<'_, str>) {
    if !pair.iter().any(|&b| b == b'+' || b == b'%')
        && let Ok(text) = std::str::from_utf8(pair)
    {
        let (name, value) = text.split_once('=').unwrap_or((text, ""));
        return (Cow::Borrowed(name), Cow::Borrowed(value));
    }
    form_urlencoded::parse(pair)
        .next()
        .unwrap_or((Cow::Borrowed(""), Cow::Borrowed("")))
}

/// HTTP Basic credentials, if the request carries an `Authorization` header.
pub fn basic(headers: &HeaderMap) -> Result<Option<(String, String)>, FormError> {
    let bad = || FormError::MalformedBasic;
    let mut sent = headers.get_all(header::AUTHORIZATION).iter();
    let Some(value) = sent.next() else {
        return Ok(None);
    };
    // Two sets of credentials: which client is asking is unknowable.
    if sent.next().is_some() {
        return Err(bad());
    }
    let value = value.to_str().map_err(|_| bad())?;
    let (scheme, encoded) = value.split_once(' ').ok_or_else(bad)?;
    if !scheme.eq_ignore_ascii_case("basic") {
        return Err(bad());
    }
    let decoded = STANDARD.decode(encoded.trim()).map_err(|_| bad())?;
    let decoded = String::from_utf8(decoded).map_err(|_| bad())?;
    let (id, secret) = decoded.split_once(':').ok_or_else(bad)?;
    Ok(Some((unescape(id), unescape(secret))))
}

/// RFC 6749 §2.3.1: both parts of HTTP Basic credentials are
/// form-urlencoded before encoding. Most carry nothing escaped, and are
/// taken as they are; the rest are decoded as a form value (which ends at
/// an `&`).
fn unescape(s: &str) -> String {
    if !s.contains(['%', '+', '&']) {
        return s.to_owned();
    }
    form_urlencoded::parse(format!("x={s}").as_bytes())
        .next()
        .map(|(_, v)| v.into_owned())
        .unwrap_or_default()
}

/// The client's credentials from HTTP Basic or from the form's `client_id`
/// and `client_secret` (which the form must have been parsed for).
pub fn client_credentials(
    headers: &HeaderMap,
    form: &mut HashMap<&'static str, String>,
) -> Result<ClientCredentials, FormError> {
    let basic = basic(headers)?;
    let (id, secret) = (form.remove("client_id"), form.remove("client_secret"));
    match (basic, id, secret) {
        (Some(_), Some(_), _) | (Some(_), _, Some(_)) => Err(FormError::BothMethods),
        (Some((client_id, client_secret)), None, None) => Ok(ClientCredentials {
            client_id,
            client_secret: client_secret.into(),
            method: AuthMethod::Basic,
        }),
        (None, Some(client_id), Some(client_secret)) => Ok(ClientCredentials {
            client_id,
            client_secret: client_secret.into(),
            method: AuthMethod::Post,
        }),
        (None, _, _) => Err(FormError::MissingCredentials),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_decode_as_form_urlencoded_decodes_them() {
        for body in [
            "token=eyJhbGciOiJFZERTQSJ9.e30.c2ln",
            "grant_type=client_credentials&scope=mcp.read+ops.read",
            "a=%41%2b%26&b=x%3Dy&novalue&=empty&c=caf%C3%A9&d=%FF&e=%zz&f=caf\u{e9}",
            "&&a=1&&",
        ] {
            let ours: Vec<(String, String)> = body
                .as_bytes()
                .split(|&b| b == b'&')
                .filter(|p| !p.is_empty())
                .map(decode_pair)
                .map(|(n, v)| (n.into_owned(), v.into_owned()))
                .collect();
            let theirs: Vec<(String, String)> = form_urlencoded::parse(body.as_bytes())
                .map(|(n, v)| (n.into_owned(), v.into_owned()))
                .collect();
            assert_eq!(ours, theirs, "{body}");
        }
    }
    use http::HeaderValue;

    fn headers(auth: Option<&str>) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/x-www-form-urlencoded; charset=utf-8"),
        );
        if let Some(a) = auth {
            h.insert(
                header::AUTHORIZATION,
                HeaderValue::from_str(a).unwrap_or(HeaderValue::from_static("")),
            );
        }
        h
    }

    #[test]
    fn basic_credentials_are_form_decoded_when_escaped_and_taken_as_they_are_otherwise() {
        assert_eq!(unescape("pk_test_01ABC"), "pk_test_01ABC");
        assert_eq!(unescape("a%3Ab+c"), "a:b c");
        assert_eq!(unescape("a&b"), "a", "a form value ends at &");
        assert_eq!(unescape(""), "");
    }

    #[test]
    fn basic_and_post_credentials_but_not_both() {
        let wanted = &["grant_type", "client_id", "client_secret"];
        // "a%3Ab:s" — an escaped colon inside the id.
        let auth = format!("Basic {}", STANDARD.encode("a%3Ab:s"));
        let mut form = parse(&headers(Some(&auth)), b"grant_type=x", wanted).unwrap_or_default();
        let c = client_credentials(&headers(Some(&auth)), &mut form);
        assert!(matches!(c, Ok(ref c) if c.client_id == "a:b" && c.method == AuthMethod::Basic));
        let mut form =
            parse(&headers(None), b"client_id=i&client_secret=s", wanted).unwrap_or_default();
        assert!(
            matches!(client_credentials(&headers(None), &mut form), Ok(c) if c.method == AuthMethod::Post)
        );
        let mut form = parse(&headers(Some(&auth)), b"client_id=i", wanted).unwrap_or_default();
        assert_eq!(
            client_credentials(&headers(Some(&auth)), &mut form).err(),
            Some(FormError::BothMethods)
        );
        let mut form = HashMap::new();
        assert_eq!(
            client_credentials(&headers(None), &mut form).err(),
            Some(FormError::MissingCredentials)
        );
        assert_eq!(
            parse(&headers(None), b"grant_type=a&grant_type=b", wanted).err(),
            Some(FormError::Repeated("grant_type".into()))
        );
    }
}
