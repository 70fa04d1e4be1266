//! One chapter's Markdown as HTML, the way mdBook renders it: every heading
//! gets mdBook's (and GitHub's) anchor id, and a link to another chapter
//! (`lending-flow.md#funding`) points at its page (`lending-flow.html#funding`),
//! so the served guide and the built book have the same addresses.

use std::collections::HashSet;

use pulldown_cmark::{CowStr, Event, Options, Parser, Tag, TagEnd, html};

pub struct Rendered {
    pub html: String,
    /// Every heading's id, in order.
    #[cfg_attr(not(test), expect(dead_code, reason = "read by the link check"))]
    pub ids: Vec<String>,
    /// Every link and image target, as written in the chapter.
    #[cfg_attr(not(test), expect(dead_code, reason = "read by the link check"))]
    pub targets: Vec<String>,
}

/// mdBook's `normalize_id`: letters and digits lower-cased, `_` and `-`
/// kept, whitespace as `-`, everything else dropped.
pub fn anchor(heading: &str) -> String {
    heading
        .chars()
        .filter_map(|c| {
            if c.is_alphanumeric() || c == '_' || c == '-' {
                Some(c.to_ascii_lowercase())
            } else if c.is_whitespace() {
                Some('-')
            } else {
                None
            }
        })
        .collect()
}

/// Whether a target leaves the guide (another site, a mail link) or stays
/// on its page.
pub fn is_external(target: &str) -> bool {
    target.starts_with('#')
        || target.starts_with('/')
        || target.split_once(':').is_some_and(|(scheme, _)| {
            !scheme.is_empty()
                && scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "+.-".contains(c))
        })
}

/// `file.md#x` as the page it becomes, `file.html#x`.
fn page_link(target: &str) -> Option<String> {
    if is_external(target) {
        return None;
    }
    let (path, fragment) = target
        .split_once('#')
        .map_or((target, None), |(p, f)| (p, Some(f)));
    let page = path.strip_suffix(".md")?;
    Some(match fragment {
        Some(f) => format!("{page}.html#{f}"),
        None => format!("{page}.html"),
    })
}

pub fn render(markdown: &str) -> Rendered {
    let options = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH;
    let mut events: Vec<Event> = Parser::new_ext(markdown, options).collect();
    let mut ids = Vec::new();
    let mut seen = HashSet::new();
    let mut targets = Vec::new();
    let mut i = 0;
    while i < events.len() {
        match &mut events[i] {
            Event::Start(Tag::Heading { .. }) => {
                let mut text = String::new();
                for event in &events[i + 1..] {
                    match event {
                        Event::End(TagEnd::Heading(_)) => break,
                        Event::Text(t) | Event::Code(t) => text.push_str(t),
                        _ => {}
                    }
                }
                let base = anchor(&text);
                let mut id = base.clone();
                let mut n = 1;
                while !seen.insert(id.clone()) {
                    id = format!("{base}-{n}");
                    n += 1;
                }
                ids.push(id.clone());
                if let Event::Start(Tag::Heading { id: slot, .. }) = &mut events[i] {
                    *slot = Some(CowStr::from(id));
                }
            }
            Event::Start(Tag::Link { dest_url, .. })
            | Event::Start(Tag::Image { dest_url, .. }) => {
                targets.push(dest_url.to_string());
                if let Some(page) = page_link(dest_url) {
                    *dest_url = CowStr::from(page);
                }
            }
            _ => {}
        }
        i += 1;
    }
    let mut out = String::new();
    html::push_html(&mut out, events.into_iter());
    Rendered {
        html: out,
        ids,
        targets,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headings_get_mdbooks_ids_and_chapter_links_their_pages() {
        let r = render(
            "# The lending flow\n\n## 1. Get a token\n\n## Servicing account (hub, issue #16)\n\n## 1. Get a token\n\n\
             See [funding](lending-flow.md#funding), [Stripe](https://stripe.com/a.md) and ![x](screenshots/a.png).\n",
        );
        assert_eq!(
            r.ids,
            [
                "the-lending-flow",
                "1-get-a-token",
                "servicing-account-hub-issue-16",
                "1-get-a-token-1"
            ]
        );
        assert!(r.html.contains(r#"<h2 id="1-get-a-token">"#), "{}", r.html);
        assert!(
            r.html.contains(r#"href="lending-flow.html#funding""#),
            "{}",
            r.html
        );
        assert!(
            r.html.contains(r#"href="https://stripe.com/a.md""#),
            "{}",
            r.html
        );
        assert!(r.html.contains(r#"src="screenshots/a.png""#), "{}", r.html);
        assert_eq!(
            r.targets,
            [
                "lending-flow.md#funding",
                "https://stripe.com/a.md",
                "screenshots/a.png"
            ]
        );
    }

    #[test]
    fn code_in_a_heading_counts_toward_its_id() {
        assert_eq!(
            render("## The `serve` command\n").ids,
            ["the-serve-command"]
        );
    }
}
