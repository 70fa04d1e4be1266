//! `GET /public/v1/cms/pages/{key}`: published content pages, written by the
//! operator with `lendhub cms put`. Markdown is rendered to HTML with raw
//! HTML escaped, so a page can never carry script into a partner's site.

use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use lendhub_domain::clock::from_unix_ms;
use pulldown_cmark::{Event, Parser, html};
use serde_json::json;
use time::format_description::well_known::Rfc3339;

use super::error::PublicError;
use crate::public::state::PublicState;

/// Markdown to HTML; raw HTML in the source is shown as text, and what the
/// renderer makes is passed through an allow-list sanitizer: links and
/// images keep only `https`, `http` and `mailto` targets (a
/// `[x](javascript:…)` link loses its `href`), and no element or attribute
/// outside ammonia's safe set survives.
pub fn render_markdown(source: &str) -> String {
    let events = Parser::new(source).map(|event| match event {
        Event::Html(raw) | Event::InlineHtml(raw) => Event::Text(raw),
        other => other,
    });
    let mut out = String::new();
    html::push_html(&mut out, events);
    ammonia::Builder::default()
        .url_schemes(["https", "http", "mailto"].into())
        .url_relative(ammonia::UrlRelative::PassThrough)
        .clean(&out)
        .to_string()
}

/// A published page by its stable key.
#[utoipa::path(get, operation_id = "cms_page", path = "/cms/pages/{key}", tag = "public",
    params(("key" = String, Path, description = "The page's stable key")),
    responses((status = 200, description = "`{object: \"cms_page\", key, title, body_markdown, body_html, version, updated_at}`"),
        (status = 404, description = "cms_page_not_found: unknown or unpublished")))]
pub async fn page(
    State(state): State<PublicState>,
    Path(key): Path<String>,
) -> Result<Response, PublicError> {
    let page = state
        .store
        .cms_page(&key)
        .await?
        .filter(|p| p.published)
        .ok_or(PublicError::CmsPageNotFound)?;
    let updated_at = from_unix_ms(page.updated_at_ms)
        .format(&Rfc3339)
        .unwrap_or_default();
    Ok(axum::Json(json!({
        "object": "cms_page",
        "key": page.key,
        "title": page.title,
        "body_markdown": page.body,
        "body_html": render_markdown(&page.body),
        "version": page.version,
        "updated_at": updated_at,
    }))
    .into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_html_is_escaped() {
        let html =
            render_markdown("# Hi\n\nSome *this* and <b>inline</b>\n\n<script>alert(1)</script>\n");
        assert!(html.contains("<h1>Hi</h1>"));
        assert!(html.contains("&lt;script&gt;"), "{html}");
        assert!(!html.contains("<script>"));
        assert!(html.contains("<em>this</em>"));
        assert!(html.contains("&lt;b&gt;inline"), "{html}");
    }

    /// Every `href` and `src` value in `html`.
    fn targets(html: &str) -> Vec<String> {
        ["href=\"", "src=\""]
            .iter()
            .flat_map(|attr| html.match_indices(attr).map(move |(i, _)| i + attr.len()))
            .map(|start| {
                html[start..]
                    .split('"')
                    .next()
                    .unwrap_or_default()
                    .to_owned()
            })
            .collect()
    }

    #[test]
    fn links_and_images_keep_only_safe_targets() {
        for vector in [
            "[x](javascript:alert(1))",
            "[x](JaVaScRiPt:alert(1))",
            "[x](javascript&#58;alert(1))",
            "[x](&#106;avascript:alert(1))",
            "[x](vbscript:msgbox(1))",
            "[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
            "![x](javascript:alert(1))",
            "<javascript:alert(1)>",
            "[x]: javascript:alert(1)\n\n[y][x]",
            "[x](https://a.example/\"onmouseover=\"alert(1))",
        ] {
            let html = render_markdown(vector);
            for target in targets(&html) {
                assert!(
                    ["https:", "http:", "mailto:"]
                        .iter()
                        .any(|s| target.to_ascii_lowercase().starts_with(s)),
                    "{vector} -> {html}"
                );
            }
            assert!(!html.contains("onmouseover=\""), "{vector} -> {html}");
            assert!(!html.contains("<script"), "{vector} -> {html}");
        }
        let html =
            render_markdown("[docs](https://example.com/a) and [mail](mailto:a@example.com)");
        assert_eq!(
            targets(&html),
            ["https://example.com/a", "mailto:a@example.com"],
            "{html}"
        );
    }
}
