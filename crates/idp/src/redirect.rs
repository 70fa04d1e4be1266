//! Redirects: to a client's registered URI with the response parameters added
//! to its query (RFC 6749 §4.1.2; any query it already has is kept), and
//! between the provider's own pages.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

/// `uri` with `pairs` appended to its query.
pub fn with_query(uri: &str, pairs: &[(&str, String)]) -> String {
    if pairs.is_empty() {
        // Unchanged: no stray `?` on a URI the client registered.
        return uri.to_owned();
    }
    match url::Url::parse(uri) {
        Ok(mut url) => {
            {
                let mut query = url.query_pairs_mut();
                for (name, value) in pairs {
                    query.append_pair(name, value);
                }
            }
            url.to_string()
        }
        // Registered URIs are validated as absolute URLs when the client is
        // created, so this only serves a relative path of our own.
        Err(_) => {
            let mut query = form_urlencoded::Serializer::new(String::new());
            for (name, value) in pairs {
                query.append_pair(name, value);
            }
            let sep = if uri.contains('?') { '&' } else { '?' };
            format!("{uri}{sep}{}", query.finish())
        }
    }
}

fn to(status: StatusCode, location: &str) -> Response {
    match HeaderValue::from_str(location) {
        Ok(v) => (status, [(header::LOCATION, v)]).into_response(),
        Err(_) => StatusCode::INTERNAL_SERVER_ERROR.into_response(),
    }
}

/// Back to the client. 302 from `/authorize` (a GET) and 303 after a form
/// POST would both end as a GET; 303 says so explicitly, so it is used for both.
pub fn to_client(redirect_uri: &str, pairs: &[(&str, String)]) -> Response {
    to(StatusCode::SEE_OTHER, &with_query(redirect_uri, pairs))
}

/// To one of our own pages.
pub fn to_page(path: &str, pairs: &[(&str, String)]) -> Response {
    to(StatusCode::SEE_OTHER, &with_query(path, pairs))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_are_appended_to_an_existing_query() {
        assert_eq!(
            with_query(
                "https://rp.example/cb?x=1",
                &[("code", "a b".into()), ("state", "s&t".into())]
            ),
            "https://rp.example/cb?x=1&code=a+b&state=s%26t"
        );
        assert_eq!(
            with_query("/sign-in", &[("ticket", "t".into())]),
            "/sign-in?ticket=t"
        );
    }
}
