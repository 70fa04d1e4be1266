//! The pages under `/docs`. Redoc renders in the browser, so the reference
//! pages allow this origin's scripts and Redoc's inline styles and blob
//! workers; the guide and the index run no script at all.

use std::sync::Arc;

use askama::Template;
use axum::extract::{Path, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use lendhub_http::problem::{OwnBody, Problem};

use crate::guide::Contents;
use crate::{Docs, moved};

const REDOC: &[u8] = include_bytes!("../assets/redoc.standalone.js");
const SCRIPT: &str = include_str!("../assets/docs.js");

const STRICT: &str = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'";
/// The guide's pages: no script, and the guide's own images.
const GUIDE_POLICY: &str =
    "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; frame-ancestors 'none'";
/// What Redoc needs: its module from this origin, inline styles (it styles
/// with styled-components), blob workers (search), and the document by fetch.
const REDOC_POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; \
     img-src 'self' data:; font-src 'self' data:; connect-src 'self'; worker-src 'self' blob:; frame-ancestors 'none'";

fn nav(docs: &Docs) -> Vec<(&'static str, &'static str)> {
    docs.references.iter().map(|r| (r.key, r.title)).collect()
}

#[derive(Template)]
#[template(path = "index.html")]
struct Index<'a> {
    nav: Vec<(&'static str, &'static str)>,
    references: &'a [crate::Reference],
    chapters: Vec<(&'a str, &'a str)>,
}

#[derive(Template)]
#[template(path = "reference.html")]
struct ReferencePage {
    nav: Vec<(&'static str, &'static str)>,
    key: &'static str,
    title: &'static str,
}

/// A side-bar line: a part's title, or a chapter (title, page, current).
enum Line<'a> {
    Part(&'a str),
    Chapter(&'a str, &'a str, bool),
}

#[derive(Template)]
#[template(path = "chapter.html")]
struct ChapterPage<'a> {
    nav: Vec<(&'static str, &'static str)>,
    title: &'a str,
    contents: Vec<Line<'a>>,
    html: &'a str,
    previous: Option<(&'a str, &'a str)>,
    next: Option<(&'a str, &'a str)>,
}

fn html(page: &impl Template, policy: &'static str) -> Response {
    let mut response = match page.render() {
        Ok(body) => (
            StatusCode::OK,
            [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
            body,
        )
            .into_response(),
        Err(e) => {
            tracing::error!(error = %e, "rendering a documentation page");
            StatusCode::INTERNAL_SERVER_ERROR.into_response()
        }
    };
    response.extensions_mut().insert(OwnBody);
    response.headers_mut().insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(policy),
    );
    nosniff(response)
}

/// Every page and file under `/docs` is what its type says, never sniffed.
fn nosniff(mut response: Response) -> Response {
    response.headers_mut().insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    response
}

fn not_found(what: &str) -> Response {
    Problem::new(
        StatusCode::NOT_FOUND,
        "resource_not_found",
        format!("no such {what} (see /docs)"),
    )
    .into_response()
}

/// `GET /docs`
pub async fn index(State(docs): State<Arc<Docs>>) -> Response {
    html(
        &Index {
            nav: nav(&docs),
            references: &docs.references,
            chapters: docs
                .guide
                .chapters
                .iter()
                .map(|c| (c.page.as_str(), c.title.as_str()))
                .collect(),
        },
        STRICT,
    )
}

/// `GET /docs/reference/{key}`
pub async fn reference(State(docs): State<Arc<Docs>>, Path(key): Path<String>) -> Response {
    match docs.references.iter().find(|r| r.key == key) {
        Some(r) => html(
            &ReferencePage {
                nav: nav(&docs),
                key: r.key,
                title: r.title,
            },
            REDOC_POLICY,
        ),
        None => not_found("reference"),
    }
}

/// `GET /docs/openapi/{key}.json`
pub async fn document(State(docs): State<Arc<Docs>>, Path(file): Path<String>) -> Response {
    let found = file
        .strip_suffix(".json")
        .and_then(|key| docs.references.iter().find(|r| r.key == key));
    match found {
        Some(r) => (
            [(header::CONTENT_TYPE, "application/json")],
            r.json().to_owned(),
        )
            .into_response(),
        None => not_found("document"),
    }
}

/// `GET /docs/guide`: the guide's pages link to each other relatively, so
/// they are read under the folder's address.
pub async fn guide_root() -> Response {
    (
        StatusCode::PERMANENT_REDIRECT,
        [(header::LOCATION, "/docs/guide/")],
    )
        .into_response()
}

/// `GET /docs/guide/`: the first chapter.
pub async fn guide_index(State(docs): State<Arc<Docs>>) -> Response {
    match docs.guide.chapters.first() {
        Some(first) => chapter(&docs, &first.page.clone()),
        None => not_found("chapter"),
    }
}

/// `GET /docs/guide/{page}.html`, or an image a chapter shows.
pub async fn guide_file(State(docs): State<Arc<Docs>>, Path(path): Path<String>) -> Response {
    if path.ends_with(".html") {
        return chapter(&docs, &path);
    }
    match docs.guide.asset(&path) {
        Some((media, bytes)) => {
            let mut response = (
                [
                    (header::CONTENT_TYPE, media),
                    // The binary's version is the image's.
                    (header::CACHE_CONTROL, "public, max-age=3600"),
                ],
                bytes,
            )
                .into_response();
            response.extensions_mut().insert(OwnBody);
            nosniff(response)
        }
        None => not_found("page of the guide"),
    }
}

/// `GET /docs/guides/{slug}`: a README walk-through that became a chapter,
/// served as that chapter until its sunset, saying so.
pub async fn moved_guide(State(docs): State<Arc<Docs>>, Path(slug): Path<String>) -> Response {
    let Some((_, page)) = moved::GUIDES.iter().find(|(old, _)| *old == slug) else {
        return not_found("guide");
    };
    let mut response = chapter(&docs, page);
    let headers = response.headers_mut();
    headers.insert("deprecation", HeaderValue::from_static(moved::DEPRECATION));
    headers.insert("sunset", HeaderValue::from_static(moved::SUNSET));
    if let Ok(link) = HeaderValue::from_str(&moved::link(page)) {
        headers.insert(header::LINK, link);
    }
    response
}

fn chapter(docs: &Docs, page: &str) -> Response {
    let book = &docs.guide;
    let Some((at, chapter)) = book.chapter(page) else {
        return not_found("page of the guide");
    };
    let neighbour = |i: Option<usize>| {
        i.and_then(|i| book.chapters.get(i))
            .map(|c| (c.page.as_str(), c.title.as_str()))
    };
    let contents = book
        .contents
        .iter()
        .filter_map(|entry| match entry {
            Contents::Part(title) => Some(Line::Part(title)),
            Contents::Chapter(i) => book
                .chapters
                .get(*i)
                .map(|c| Line::Chapter(&c.title, &c.page, *i == at)),
        })
        .collect();
    html(
        &ChapterPage {
            nav: nav(docs),
            title: &chapter.title,
            contents,
            html: &chapter.rendered().html,
            previous: neighbour(at.checked_sub(1)),
            next: neighbour(Some(at + 1)),
        },
        GUIDE_POLICY,
    )
}

fn asset(body: impl IntoResponse) -> Response {
    let mut response = body.into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/javascript; charset=utf-8"),
    );
    // The binary's version is the asset's: an hour, revalidated on restart.
    headers.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("public, max-age=3600"),
    );
    nosniff(response)
}

/// `GET /docs/assets/redoc.standalone.js`: Redoc 2.5.4 (MIT, `assets/redoc.LICENSE`).
pub async fn redoc() -> Response {
    asset(REDOC)
}

/// `GET /docs/assets/docs.js`
pub async fn script() -> Response {
    asset(SCRIPT)
}
