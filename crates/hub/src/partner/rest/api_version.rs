//! `Lendhub-Version`: the dated API version a REST-tier request is answered
//! in (issue #49 item 4; hub seed, Versioning). A partner pins it per
//! request with this header and per webhook endpoint with `api_version`;
//! without either, the newest version answers. Every response says which
//! version answered it, so a partner can log what they were sent.

use axum::extract::Request;
use axum::http::HeaderValue;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use lendhub_domain::sandbox::events::{HUB_API_VERSION, HUB_API_VERSIONS};

use crate::partner::error::PartnerError;

pub const HEADER: &str = "lendhub-version";

/// The version `asked` names, the default when none is asked; `None` for a
/// version lendhub has never had.
pub fn chosen(asked: Option<&HeaderValue>) -> Option<&'static str> {
    match asked {
        None => Some(HUB_API_VERSION),
        Some(value) => {
            let value = value.to_str().ok()?.trim();
            HUB_API_VERSIONS.iter().copied().find(|v| *v == value)
        }
    }
}

/// The layer: refuses a version it does not know before anything else
/// reads the request (422, `validation_failed`, field `Lendhub-Version`,
/// reason `unknown_version`, as for a webhook endpoint's `api_version`),
/// and names the version on the answer.
pub async fn pin(request: Request, next: Next) -> Response {
    let Some(version) = chosen(request.headers().get(HEADER)) else {
        let mut refused =
            PartnerError::invalid("Lendhub-Version", "unknown_version").into_response();
        refused
            .headers_mut()
            .insert(HEADER, HeaderValue::from_static(HUB_API_VERSION));
        return refused;
    };
    let mut response = next.run(request).await;
    response
        .headers_mut()
        .insert(HEADER, HeaderValue::from_static(version));
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_known_version_is_kept_and_none_is_the_newest() {
        assert_eq!(chosen(None), Some(HUB_API_VERSION));
        let asked = HeaderValue::from_static(HUB_API_VERSION);
        assert_eq!(chosen(Some(&asked)), Some(HUB_API_VERSION));
        let padded = HeaderValue::from_str(&format!(" {HUB_API_VERSION} ")).unwrap();
        assert_eq!(chosen(Some(&padded)), Some(HUB_API_VERSION));
        for unknown in ["2020-01-01", "", "latest"] {
            assert_eq!(chosen(Some(&HeaderValue::from_static(unknown))), None);
        }
    }
}
