//! The pages under `/docs`. Redoc renders in the browser, so the reference
//! pages allow this origin's scripts and Redoc's inline styles and blob
//! workers; the guides and the index run no script at all.

use std::sync::Arc;

use askama::Template;
use axum::extract::{Path, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use lendhub_http::problem::{OwnBody, Problem};

use crate::Docs;

const REDOC: &[u8] = include_bytes!("../assets/redoc.standalone.js");
const SCRIPT: &str = include_str!("../assets/docs.js");

const STRICT: &str = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'";
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
    guides: Vec<(&'static str, &'static str)>,
}

#[derive(Template)]
#[template(path = "reference.html")]
struct ReferencePage {
    nav: Vec<(&'static str, &'static str)>,
    key: &'static str,
    title: &'static str,
}

#[derive(Template)]
#[template(path = "guide.html")]
struct GuidePage<'a> {
    nav: Vec<(&'static str, &'static str)>,
    title: &'static str,
    html: &'a str,
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
            guides: docs.guides.iter().map(|g| (g.slug, g.title)).collect(),
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

/// `GET /docs/guides/{slug}`
pub async fn guide(State(docs): State<Arc<Docs>>, Path(slug): Path<String>) -> Response {
    match docs.guides.iter().find(|g| g.slug == slug) {
        Some(g) => html(
            &GuidePage {
                nav: nav(&docs),
                title: g.title,
                html: &g.html,
            },
            STRICT,
        ),
        None => not_found("guide"),
    }
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
    response
}

/// `GET /docs/assets/redoc.standalone.js`: Redoc 2.5.4 (MIT, `assets/redoc.LICENSE`).
pub async fn redoc() -> Response {
    asset(REDOC)
}

/// `GET /docs/assets/docs.js`
pub async fn script() -> Response {
    asset(SCRIPT)
}
