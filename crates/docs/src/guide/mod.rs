//! The guide (`docs/guide/src`, built with mdBook in CI) served at
//! `{base_url}/docs/guide/`: the same sources, embedded at build time and
//! rendered on first request, with mdBook's page names and anchors.

mod markdown;
mod summary;

use std::sync::OnceLock;

pub use markdown::Rendered;
use summary::Entry;

mod files {
    include!(concat!(env!("OUT_DIR"), "/guide_files.rs"));
}

pub struct Chapter {
    pub title: String,
    /// Its source, `lending-flow.md`.
    #[cfg_attr(not(test), expect(dead_code, reason = "read by the link check"))]
    pub file: String,
    /// Its page, `lending-flow.html`.
    pub page: String,
    markdown: &'static str,
    rendered: OnceLock<Rendered>,
}

impl Chapter {
    pub fn rendered(&self) -> &Rendered {
        self.rendered
            .get_or_init(|| markdown::render(self.markdown))
    }
}

/// The table of contents as the side bar shows it.
pub enum Contents {
    Part(String),
    /// An index into [`Book::chapters`].
    Chapter(usize),
}

pub struct Book {
    pub chapters: Vec<Chapter>,
    pub contents: Vec<Contents>,
}

fn source(name: &str) -> Option<&'static [u8]> {
    files::FILES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, bytes)| *bytes)
}

impl Book {
    /// The guide as SUMMARY.md lists it. A chapter SUMMARY.md names but the
    /// sources lack is left out here and fails the link check below.
    pub fn load() -> Book {
        let summary = source("SUMMARY.md")
            .and_then(|b| std::str::from_utf8(b).ok())
            .unwrap_or("");
        let mut chapters = Vec::new();
        let mut contents = Vec::new();
        for entry in summary::parse(summary) {
            match entry {
                Entry::Part(title) => contents.push(Contents::Part(title)),
                Entry::Chapter { title, file } => {
                    let Some(markdown) = source(&file).and_then(|b| std::str::from_utf8(b).ok())
                    else {
                        continue;
                    };
                    let page = format!("{}.html", file.trim_end_matches(".md"));
                    contents.push(Contents::Chapter(chapters.len()));
                    chapters.push(Chapter {
                        title,
                        file,
                        page,
                        markdown,
                        rendered: OnceLock::new(),
                    });
                }
            }
        }
        Book { chapters, contents }
    }

    /// The chapter at `page` (`lending-flow.html`), and its place in order.
    pub fn chapter(&self, page: &str) -> Option<(usize, &Chapter)> {
        self.chapters
            .iter()
            .enumerate()
            .find(|(_, c)| c.page == page)
    }

    /// An image or other file the chapters link to, with its media type.
    pub fn asset(&self, path: &str) -> Option<(&'static str, &'static [u8])> {
        let media = match path.rsplit_once('.')?.1 {
            "png" => "image/png",
            "svg" => "image/svg+xml",
            "jpg" | "jpeg" => "image/jpeg",
            _ => return None,
        };
        Some((media, source(path)?))
    }
}

#[cfg(test)]
mod link_check;
