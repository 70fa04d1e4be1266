//! The answer of every list of the tier that reads its page from the
//! store: the page in the one envelope, its cursor continuing the way the
//! caller is paging.

use axum::http::header;
use axum::response::{IntoResponse, Response};
use lendhub_domain::partner::credentials::Environment;
use lendhub_http::list;
use lendhub_store::{Page, PageQuery};
use serde::Serialize;

use super::events::list_url;
use crate::partner::error::PartnerError;

/// `page` of the list at `path` (in `env`), each item shown as `view`
/// shows it and named by `id`.
pub fn respond<T, V: Serialize>(
    env: Environment,
    path: &str,
    asked: &PageQuery,
    page: &Page<T>,
    id: impl Fn(&T) -> String,
    view: impl Fn(&T) -> V,
) -> Result<Response, PartnerError> {
    let rendered = render(page.items.iter().map(view))?;
    Ok(answer(env, path, asked, page, id, &rendered))
}

/// `respond` for a page of objects already shown as the caller may see them.
pub fn respond_shown<V: Serialize>(
    env: Environment,
    path: &str,
    asked: &PageQuery,
    page: &Page<V>,
    id: impl Fn(&V) -> String,
) -> Result<Response, PartnerError> {
    let rendered = render(page.items.iter())?;
    Ok(answer(env, path, asked, page, id, &rendered))
}

fn render<V: Serialize>(views: impl Iterator<Item = V>) -> Result<Vec<String>, PartnerError> {
    views
        .map(|v| serde_json::to_string(&v))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| PartnerError::Internal(e.to_string()))
}

fn answer<T>(
    env: Environment,
    path: &str,
    asked: &PageQuery,
    page: &Page<T>,
    id: impl Fn(&T) -> String,
    rendered: &[String],
) -> Response {
    let first = page.items.first().map(&id);
    let last = page.items.last().map(&id);
    let next = list::next_cursor(asked, first.as_deref(), last.as_deref(), page.has_more);
    let body = list::envelope(
        &list_url(env, path),
        rendered.iter().map(String::as_str),
        page.has_more,
        next,
    );
    ([(header::CONTENT_TYPE, "application/json")], body).into_response()
}
