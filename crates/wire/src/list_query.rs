//! The query every list takes (hub seed, Limits → Pagination): `limit`
//! 1–100; `starting_after` (page toward older) or `ending_before` (toward
//! newer), never both; and the filters the list knows. `lendhub_http::list`
//! writes the answer.

use std::collections::BTreeMap;

use lendhub_domain::paging::PageQuery;

use crate::FieldIssue;

pub const MAX_LIMIT: u32 = 100;
/// The seed's default page: 20, and 25 on the applications list.
pub const DEFAULT_LIMIT: u32 = 20;

/// A list request: the page, and the filters the list knows, as given.
#[derive(Debug, Default)]
pub struct ListRequest {
    pub page: PageQuery,
    pub filters: BTreeMap<&'static str, String>,
}

impl ListRequest {
    pub fn filter(&self, name: &str) -> Option<&str> {
        self.filters.get(name).map(String::as_str)
    }

    /// The `created_after` filter (RFC 3339) as Unix milliseconds; a value
    /// that is not a timestamp is an issue for the caller's 422.
    pub fn created_after_ms(&self) -> Result<Option<i64>, FieldIssue> {
        match self.filter("created_after") {
            None => Ok(None),
            Some(raw) => lendhub_domain::clock::parse_rfc3339_ms(raw)
                .map(Some)
                .ok_or_else(|| FieldIssue::new("created_after", "rfc3339")),
        }
    }

    /// The cursors given, to check they name the list's kind of object.
    pub fn cursors(&self) -> impl Iterator<Item = &str> {
        [&self.page.starting_after, &self.page.ending_before]
            .into_iter()
            .flatten()
            .map(String::as_str)
    }
}

/// Reads `limit`, the cursors and the named `filters` from a query string;
/// other parameters are ignored. Every problem is reported at once.
pub fn parse(
    raw: Option<&str>,
    default_limit: u32,
    filters: &[&'static str],
) -> Result<ListRequest, Vec<FieldIssue>> {
    let mut request = ListRequest {
        page: PageQuery {
            limit: default_limit,
            ..PageQuery::default()
        },
        ..ListRequest::default()
    };
    let mut issues = Vec::new();
    for (name, value) in form_urlencoded::parse(raw.unwrap_or("").as_bytes()) {
        match name.as_ref() {
            "limit" => match value.parse::<u32>() {
                Ok(n) if (1..=MAX_LIMIT).contains(&n) => request.page.limit = n,
                _ => issues.push(FieldIssue::new("limit", "range_1_100")),
            },
            "starting_after" => request.page.starting_after = Some(value.into_owned()),
            "ending_before" => request.page.ending_before = Some(value.into_owned()),
            other => {
                if let Some(name) = filters.iter().find(|f| **f == other) {
                    request.filters.insert(name, value.into_owned());
                }
            }
        }
    }
    if request.page.starting_after.is_some() && request.page.ending_before.is_some() {
        issues.push(FieldIssue::new(
            "ending_before",
            "mutually_exclusive_with_starting_after",
        ));
    }
    if issues.is_empty() {
        Ok(request)
    } else {
        Err(issues)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_list_query_reads_its_page_and_filters_and_reports_every_problem() {
        let r = parse(
            Some("limit=5&type=a.b&starting_after=x&other=1"),
            20,
            &["type"],
        )
        .unwrap_or_default();
        assert_eq!(r.page.limit, 5);
        assert_eq!(r.page.starting_after.as_deref(), Some("x"));
        assert_eq!(r.filter("type"), Some("a.b"));
        assert_eq!(r.filter("other"), None);
        assert_eq!(parse(None, 25, &[]).unwrap_or_default().page.limit, 25);
        let issues = parse(Some("limit=0&starting_after=a&ending_before=b"), 20, &[])
            .err()
            .unwrap_or_default();
        let reasons: Vec<_> = issues.iter().map(|i| i.reason.as_str()).collect();
        assert_eq!(
            reasons,
            ["range_1_100", "mutually_exclusive_with_starting_after"]
        );
        assert!(parse(Some("limit=101"), 20, &[]).is_err());
    }
}
