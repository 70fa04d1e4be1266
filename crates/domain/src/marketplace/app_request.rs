//! `POST /marketplace/apps` as received, and the rules a listing's fields
//! keep (its `webhook_url` goes on to the network policy afterwards).

use crate::marketplace::{Category, MAX_NAME, MAX_REDIRECT_URIS};
use crate::problem::{Problem, Problems};

/// A redirect URI, at most (bytes).
pub const MAX_URI: usize = 2048;

#[derive(Clone, Debug, Default)]
pub struct AppRequest {
    pub name: Option<String>,
    pub category: Option<String>,
    pub redirect_uris: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckedApp {
    pub name: String,
    pub category: Category,
    pub redirect_uris: Vec<String>,
}

/// Where a vendor's own flows may return applicants: an absolute URI
/// without a fragment, HTTPS, or HTTP to the developer's own machine.
pub fn redirect_uri_issue(raw: &str) -> Option<&'static str> {
    if raw.len() > MAX_URI {
        return Some("max_length");
    }
    let Ok(uri) = url::Url::parse(raw) else {
        return Some("uri");
    };
    let loopback = matches!(uri.host_str(), Some("localhost" | "127.0.0.1" | "[::1]"));
    match uri.scheme() {
        _ if uri.fragment().is_some() => Some("fragment_not_allowed"),
        "https" => None,
        "http" if loopback => None,
        _ => Some("https_required"),
    }
}

/// The name, the category (`enum` when unknown), how many redirect URIs
/// (`max_items`) and each of them, named by its index; all at once.
pub fn check(request: &AppRequest) -> Result<CheckedApp, Vec<Problem>> {
    let mut problems = Problems::new();
    let name = problems.name("name", request.name.as_deref(), MAX_NAME);
    let category = problems.required_parsed(
        "category",
        request.category.as_deref(),
        "enum",
        Category::parse,
    );
    if request.redirect_uris.len() > MAX_REDIRECT_URIS {
        problems.push_bounded("redirect_uris", "max_items", MAX_REDIRECT_URIS as i64);
    }
    for (i, uri) in request.redirect_uris.iter().enumerate() {
        if let Some(reason) = redirect_uri_issue(uri) {
            problems.push(format!("redirect_uris[{i}]"), reason);
        }
    }
    let checked = name.zip(category).map(|(name, category)| CheckedApp {
        name: name.to_owned(),
        category,
        redirect_uris: request.redirect_uris.clone(),
    });
    problems.finish(checked)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request() -> AppRequest {
        AppRequest {
            name: Some(" Fraudscope ".into()),
            category: Some("fraud".into()),
            redirect_uris: vec!["https://v.example/return".into()],
        }
    }

    fn reasons(r: AppRequest) -> Vec<(String, &'static str)> {
        check(&r)
            .err()
            .unwrap_or_default()
            .into_iter()
            .map(|p| (p.field, p.reason))
            .collect()
    }

    #[test]
    fn redirect_uris_are_absolute_https_without_fragments() {
        assert_eq!(redirect_uri_issue("https://v.example/return"), None);
        assert_eq!(redirect_uri_issue("http://localhost:8080/cb"), None);
        assert_eq!(redirect_uri_issue("http://127.0.0.1/cb"), None);
        assert_eq!(
            redirect_uri_issue("http://v.example/return"),
            Some("https_required")
        );
        assert_eq!(
            redirect_uri_issue("https://v.example/r#x"),
            Some("fragment_not_allowed")
        );
        assert_eq!(redirect_uri_issue("/relative"), Some("uri"));
        let long = format!("https://v.example/{}", "a".repeat(MAX_URI));
        assert_eq!(redirect_uri_issue(&long), Some("max_length"));
    }

    #[test]
    fn a_listing_keeps_its_trimmed_name_and_category() {
        assert_eq!(
            check(&request()),
            Ok(CheckedApp {
                name: "Fraudscope".into(),
                category: Category::Fraud,
                redirect_uris: vec!["https://v.example/return".into()],
            })
        );
    }

    #[test]
    fn every_problem_is_named_in_field_order() {
        assert_eq!(
            reasons(AppRequest {
                name: None,
                category: None,
                redirect_uris: vec!["x".into(); MAX_REDIRECT_URIS + 1],
            }),
            [
                vec![
                    ("name".to_owned(), "required"),
                    ("category".to_owned(), "required"),
                    ("redirect_uris".to_owned(), "max_items"),
                ],
                (0..=MAX_REDIRECT_URIS)
                    .map(|i| (format!("redirect_uris[{i}]"), "uri"))
                    .collect(),
            ]
            .concat()
        );
        assert_eq!(
            reasons(AppRequest {
                name: Some("n".repeat(MAX_NAME + 1)),
                category: Some("astrology".into()),
                ..request()
            }),
            vec![
                ("name".to_owned(), "max_length"),
                ("category".to_owned(), "enum")
            ]
        );
        let bound = check(&AppRequest {
            redirect_uris: vec!["https://v.example/".into(); MAX_REDIRECT_URIS + 1],
            ..request()
        });
        assert_eq!(
            bound,
            Err(vec![Problem::bounded("redirect_uris", "max_items", 10)])
        );
    }
}
