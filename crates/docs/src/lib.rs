//! The API reference at `{base_url}/docs` (issue #18): each OpenAPI document
//! lendhub serves, rendered in the browser by Redoc (served from the binary:
//! no CDN, no request leaves the page's origin), beside the README's
//! walk-throughs as guides.

mod guides;
mod pages;

use std::sync::{Arc, OnceLock};

use axum::Router;
use axum::routing::get;

pub use guides::{Guide, guides};

/// One reference: an OpenAPI document and how it is introduced.
pub struct Reference {
    /// The path segment: `sandbox`, `partner`, `public`.
    pub key: &'static str,
    pub title: &'static str,
    pub summary: &'static str,
    /// Generates the document, as JSON. Run on the first request for it,
    /// not at start-up: most processes never serve their documentation.
    pub document: fn() -> String,
    pub(crate) rendered: OnceLock<String>,
}

impl Reference {
    pub fn new(
        key: &'static str,
        title: &'static str,
        summary: &'static str,
        document: fn() -> String,
    ) -> Self {
        Reference {
            key,
            title,
            summary,
            document,
            rendered: OnceLock::new(),
        }
    }

    pub(crate) fn json(&self) -> &str {
        self.rendered.get_or_init(self.document)
    }
}

pub(crate) struct Docs {
    pub references: Vec<Reference>,
    pub guides: Vec<Guide>,
}

/// The routes under `/docs`, on the hub's listener.
pub fn router(references: Vec<Reference>, guides: Vec<Guide>) -> Router {
    let docs = Arc::new(Docs { references, guides });
    Router::new()
        .route("/docs", get(pages::index))
        .route("/docs/reference/{key}", get(pages::reference))
        .route("/docs/openapi/{file}", get(pages::document))
        .route("/docs/guides/{slug}", get(pages::guide))
        .route("/docs/assets/redoc.standalone.js", get(pages::redoc))
        .route("/docs/assets/docs.js", get(pages::script))
        .with_state(docs)
}
