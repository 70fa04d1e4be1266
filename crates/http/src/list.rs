//! The one list envelope every surface answers with (hub seed, Limits →
//! Pagination): `{object: "list", data, has_more, url, next_cursor}`,
//! `data` newest first. The query is read by [`lendhub_wire::list_query`]
//! (re-exported here) and the page by the store's [`PageQuery`].

use lendhub_store::PageQuery;

pub use lendhub_wire::list_query::{DEFAULT_LIMIT, ListRequest, MAX_LIMIT, parse};

/// The cursor that continues the way the caller is paging: the oldest id
/// shown (for `starting_after`) when paging older, the newest (for
/// `ending_before`) when paging newer; none at the end.
pub fn next_cursor<'a>(
    page: &PageQuery,
    newest: Option<&'a str>,
    oldest: Option<&'a str>,
    has_more: bool,
) -> Option<&'a str> {
    if !has_more {
        return None;
    }
    if page.anchor().1 { newest } else { oldest }
}

/// The envelope around items already rendered as JSON, joined as they are.
pub fn envelope<'a>(
    url: &str,
    items: impl IntoIterator<Item = &'a str>,
    has_more: bool,
    next_cursor: Option<&str>,
) -> String {
    let mut body = String::with_capacity(256);
    body.push_str(r#"{"object":"list","data":["#);
    for (i, item) in items.into_iter().enumerate() {
        if i > 0 {
            body.push(',');
        }
        body.push_str(item);
    }
    body.push_str(r#"],"has_more":"#);
    body.push_str(if has_more { "true" } else { "false" });
    body.push_str(r#","url":"#);
    body.push_str(&serde_json::Value::from(url).to_string());
    body.push_str(r#","next_cursor":"#);
    match next_cursor {
        Some(c) => body.push_str(&serde_json::Value::from(c).to_string()),
        None => body.push_str("null"),
    }
    body.push('}');
    body
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_envelope_joins_items_and_names_the_next_cursor() {
        let body = envelope(
            "/v1/events",
            [r#"{"id":"b"}"#, r#"{"id":"a"}"#],
            true,
            Some("a"),
        );
        let v: serde_json::Value = serde_json::from_str(&body).unwrap_or_default();
        assert_eq!(
            v,
            serde_json::json!({"object": "list", "data": [{"id": "b"}, {"id": "a"}],
                "has_more": true, "url": "/v1/events", "next_cursor": "a"})
        );
        let older = PageQuery::default();
        assert_eq!(next_cursor(&older, Some("b"), Some("a"), true), Some("a"));
        assert_eq!(next_cursor(&older, Some("b"), Some("a"), false), None);
        let newer = PageQuery {
            ending_before: Some("z".into()),
            ..PageQuery::default()
        };
        assert_eq!(next_cursor(&newer, Some("b"), Some("a"), true), Some("b"));
    }
}
