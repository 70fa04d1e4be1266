//! The documentation at `{base_url}/docs`: each OpenAPI document lendhub
//! serves, rendered in the browser by Redoc (issue #18; served from the
//! binary: no CDN, no request leaves the page's origin), beside the guide at
//! `/docs/guide/` (issue #49).

mod guide;
mod moved;
mod pages;

use std::sync::{Arc, OnceLock};

use axum::Router;
use axum::routing::get;

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
    pub guide: guide::Book,
}

/// The routes under `/docs`, on the hub's listener.
pub fn router(references: Vec<Reference>) -> Router {
    let docs = Arc::new(Docs {
        references,
        guide: guide::Book::load(),
    });
    Router::new()
        .route("/docs", get(pages::index))
        .route("/docs/reference/{key}", get(pages::reference))
        .route("/docs/openapi/{file}", get(pages::document))
        .route("/docs/guide", get(pages::guide_root))
        .route("/docs/guide/", get(pages::guide_index))
        .route("/docs/guide/{*path}", get(pages::guide_file))
        .route("/docs/guides/{slug}", get(pages::moved_guide))
        .route("/docs/assets/redoc.standalone.js", get(pages::redoc))
        .route("/docs/assets/docs.js", get(pages::script))
        .with_state(docs)
}
