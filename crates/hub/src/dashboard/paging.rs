//! Where a list's page sits among its pages (issue #51 item 4): its number,
//! the rows it shows and the links to the newer and older pages. Lists page
//! by cursor and never count, so the number travels in the links (`page`)
//! and is only ever a label: a tampered one mislabels a page, never shows
//! another owner's rows.

use lendhub_domain::paging::{Page, PageQuery};
use serde::Deserialize;

/// A list's paging parameters, flattened into its query.
#[derive(Deserialize, Default)]
pub struct Cursor {
    starting_after: Option<String>,
    ending_before: Option<String>,
    /// Read as text: a flattened query hands every value over as a string.
    page: Option<String>,
}

impl Cursor {
    /// The store's query for `limit` rows from this cursor, anchored only
    /// on an id `valid` accepts (another kind of id starts at the newest).
    pub fn query(&self, limit: u32, valid: impl Fn(&str) -> bool) -> PageQuery {
        let anchor = |c: &Option<String>| c.clone().filter(|c| valid(c));
        let starting_after = anchor(&self.starting_after);
        PageQuery {
            limit,
            ending_before: starting_after
                .is_none()
                .then(|| anchor(&self.ending_before))
                .flatten(),
            starting_after,
        }
    }

    fn number(&self) -> u32 {
        self.page
            .as_deref()
            .and_then(|p| p.parse().ok())
            .filter(|n| *n >= 1)
            .unwrap_or(1)
    }
}

/// What the page says about where it is.
pub struct Paging {
    pub number: u32,
    /// The first and last rows shown, counted from the newest (`to` is
    /// below `from` on an empty page).
    pub from: u64,
    pub to: u64,
    /// "applications", "accounts", …
    pub noun: &'static str,
    pub newer: Option<String>,
    pub older: Option<String>,
}

impl Paging {
    /// The paging of `page`, read with `query` from `cursor`; the links go
    /// to `list` (a path with its filters' query, ending in a parameter).
    pub fn of<T>(
        cursor: &Cursor,
        query: &PageQuery,
        page: &Page<T>,
        id: impl Fn(&T) -> String,
        list: &str,
        noun: &'static str,
    ) -> Self {
        let (anchor, toward_newer) = query.anchor();
        // Paging newer, `has_more` says there are newer pages still; with
        // none the page is the first whatever its link said.
        let has_newer = if toward_newer {
            page.has_more
        } else {
            anchor.is_some()
        };
        let has_older = if toward_newer { true } else { page.has_more };
        let number = match (has_newer, cursor.number()) {
            (false, _) => 1,
            (true, n) => n.max(2),
        };
        let link = |key: &str, item: Option<&T>, n: u32| {
            item.map(|item| format!("{list}&{key}={}&page={n}", id(item)))
        };
        let shown = page.items.len() as u64;
        let from = u64::from(number - 1) * u64::from(query.limit) + 1;
        Paging {
            number,
            from,
            to: (from + shown).saturating_sub(1),
            noun,
            newer: if has_newer {
                link("ending_before", page.items.first(), number - 1)
            } else {
                None
            },
            older: if has_older {
                link("starting_after", page.items.last(), number + 1)
            } else {
                None
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cursor(after: Option<&str>, before: Option<&str>, page: Option<&str>) -> Cursor {
        Cursor {
            starting_after: after.map(str::to_owned),
            ending_before: before.map(str::to_owned),
            page: page.map(str::to_owned),
        }
    }

    fn paging(c: &Cursor, items: &[&str], has_more: bool) -> Paging {
        let query = c.query(2, |id| id.starts_with("app_"));
        let page = Page {
            items: items.iter().map(|s| (*s).to_owned()).collect(),
            has_more,
        };
        Paging::of(c, &query, &page, Clone::clone, "/l?env=test", "rows")
    }

    #[test]
    fn the_first_page_links_only_to_older_ones() {
        let p = paging(&cursor(None, None, Some("7")), &["app_4", "app_3"], true);
        assert_eq!((p.number, p.from, p.to), (1, 1, 2));
        assert_eq!(p.newer, None);
        assert_eq!(
            p.older.as_deref(),
            Some("/l?env=test&starting_after=app_3&page=2")
        );
    }

    #[test]
    fn a_later_page_links_both_ways_and_the_last_only_newer() {
        let p = paging(&cursor(Some("app_3"), None, Some("2")), &["app_2"], false);
        assert_eq!((p.number, p.from, p.to), (2, 3, 3));
        assert_eq!(
            p.newer.as_deref(),
            Some("/l?env=test&ending_before=app_2&page=1")
        );
        assert_eq!(p.older, None);
    }

    #[test]
    fn paging_back_to_the_newest_is_page_one_whatever_the_link_said() {
        let back = paging(
            &cursor(None, Some("app_2"), Some("5")),
            &["app_4", "app_3"],
            false,
        );
        assert_eq!(back.number, 1);
        assert_eq!(back.newer, None);
        assert!(back.older.is_some());
        let between = paging(&cursor(None, Some("app_2"), Some("x")), &["app_4"], true);
        assert_eq!(between.number, 2, "newer pages remain, so not the first");
    }

    #[test]
    fn a_cursor_of_another_kind_starts_at_the_newest() {
        let c = cursor(Some("acc_1"), Some("app_9"), None);
        let q = c.query(25, |id| id.starts_with("app_"));
        assert_eq!(
            (q.starting_after, q.ending_before.as_deref()),
            (None, Some("app_9"))
        );
    }
}
