//! The README's walk-throughs, cut at their `## ` headings and rendered once
//! from Markdown: the guides are the README, so they cannot drift from it.

use pulldown_cmark::{Options, Parser, html};

/// The README sections that are guides, in reading order.
const SECTIONS: [(&str, &str); 8] = [
    ("quick-start", "Quick start"),
    (
        "sandbox-walk-through",
        "Walk-through: the seven-step sandbox flow",
    ),
    ("test-helpers", "Test helpers"),
    ("partner-ring", "The partner ring (hub)"),
    ("rest-tier", "The REST tier (hub)"),
    ("public-ring", "The public ring (hub)"),
    (
        "identity-provider",
        "The identity provider (OpenID Connect)",
    ),
    ("status-page", "The status page"),
];

pub struct Guide {
    pub slug: &'static str,
    pub title: &'static str,
    /// Rendered HTML (the README is ours: its HTML comments pass through).
    pub html: String,
}

/// The guides in `readme`, each section from its heading to the next `## `.
pub fn guides(readme: &str) -> Vec<Guide> {
    SECTIONS
        .iter()
        .filter_map(|(slug, title)| {
            let heading = format!("## {title}\n");
            let start = readme.find(&heading)? + heading.len();
            let rest = &readme[start..];
            let end = rest.find("\n## ").map_or(rest.len(), |i| i + 1);
            let mut out = String::new();
            let parser = Parser::new_ext(&rest[..end], Options::ENABLE_TABLES);
            html::push_html(&mut out, parser);
            Some(Guide {
                slug,
                title,
                html: out,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_guide_is_its_section_and_no_more() {
        let readme = "# x\n## Quick start\nRun `serve`.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n## The status page\nStatus.\n## Other routes\nNo.\n";
        let g = guides(readme);
        assert_eq!(g.len(), 2);
        assert_eq!(g[0].slug, "quick-start");
        assert!(g[0].html.contains("<code>serve</code>"));
        assert!(g[0].html.contains("<table>"), "{}", g[0].html);
        assert!(!g[0].html.contains("Status."));
        assert_eq!(g[1].html, "<p>Status.</p>\n");
    }
}
