//! The one keyset pager every list uses: at most `limit` items, newest
//! first, older than one item (`starting_after`) or newer than it
//! (`ending_before`). Backends fetch `limit + 1` rows in index order from
//! the anchor and hand them to [`PageQuery::page`]; no list counts or skips
//! rows (no `OFFSET`), so a page costs the same at any depth.

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PageQuery {
    pub limit: u32,
    pub starting_after: Option<String>,
    pub ending_before: Option<String>,
}

/// A page of items, newest first, and whether more lie beyond it in the
/// direction it was read.
#[derive(Clone, Debug, PartialEq)]
pub struct Page<T> {
    pub items: Vec<T>,
    pub has_more: bool,
}

impl PageQuery {
    /// The item a page is anchored to, and whether the page runs toward newer
    /// items (`ending_before`) rather than older ones (`starting_after`, which
    /// wins if a caller bypassed the surface's check that they are exclusive).
    pub fn anchor(&self) -> (Option<&str>, bool) {
        match (&self.starting_after, &self.ending_before) {
            (Some(id), _) => (Some(id), false),
            (None, Some(id)) => (Some(id), true),
            (None, None) => (None, false),
        }
    }

    /// How many rows to fetch: one more than the page holds, to know whether
    /// there are more.
    pub fn fetch(&self) -> i64 {
        i64::from(self.limit) + 1
    }

    /// The page made of what was fetched in the statement's order (newest
    /// first when paging older; oldest first when paging newer).
    pub fn page<T>(&self, mut fetched: Vec<T>) -> Page<T> {
        let has_more = fetched.len() > self.limit as usize;
        fetched.truncate(self.limit as usize);
        if self.anchor().1 {
            fetched.reverse();
        }
        Page {
            items: fetched,
            has_more,
        }
    }
}

impl PageQuery {
    /// The page of `items` (all of a small list, newest first) this query
    /// asks for, read as a store would read an index; `None` if the anchor
    /// is not among them.
    pub fn slice<'a, T>(&self, items: &'a [T], id: impl Fn(&T) -> &str) -> Option<Page<&'a T>> {
        let (anchor, newer) = self.anchor();
        let fetched: Vec<&T> = match anchor {
            None => items.iter().take(self.fetch() as usize).collect(),
            Some(a) => {
                let at = items.iter().position(|item| id(item) == a)?;
                if newer {
                    items[..at]
                        .iter()
                        .rev()
                        .take(self.fetch() as usize)
                        .collect()
                } else {
                    items[at + 1..].iter().take(self.fetch() as usize).collect()
                }
            }
        };
        Some(self.page(fetched))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn query(after: Option<&str>, before: Option<&str>) -> PageQuery {
        PageQuery {
            limit: 2,
            starting_after: after.map(str::to_owned),
            ending_before: before.map(str::to_owned),
        }
    }

    #[test]
    fn a_page_keeps_limit_items_newest_first_and_says_whether_more_follow() {
        let older = query(Some("9"), None);
        assert_eq!(older.fetch(), 3);
        assert_eq!(
            older.page(vec![8, 7, 6]),
            Page {
                items: vec![8, 7],
                has_more: true
            }
        );
        assert_eq!(
            older.page(vec![8]),
            Page {
                items: vec![8],
                has_more: false
            }
        );
        let newer = query(None, Some("1"));
        assert_eq!(newer.anchor(), (Some("1"), true));
        assert_eq!(
            newer.page(vec![2, 3, 4]),
            Page {
                items: vec![3, 2],
                has_more: true
            },
            "read oldest first from the anchor, shown newest first"
        );
        assert_eq!(query(Some("a"), Some("b")).anchor(), (Some("a"), false));
    }

    #[test]
    fn a_small_list_pages_like_an_index() {
        let items = ["e", "d", "c", "b", "a"].map(String::from);
        let id = String::as_str;
        let ids = |p: Page<&String>| {
            let shown: Vec<&str> = p.items.into_iter().map(String::as_str).collect();
            (shown.join(""), p.has_more)
        };
        assert_eq!(
            query(None, None).slice(&items, id).map(ids),
            Some(("ed".to_owned(), true))
        );
        assert_eq!(
            query(Some("d"), None).slice(&items, id).map(ids),
            Some(("cb".to_owned(), true))
        );
        assert_eq!(
            query(Some("b"), None).slice(&items, id).map(ids),
            Some(("a".to_owned(), false))
        );
        assert_eq!(
            query(None, Some("b")).slice(&items, id).map(ids),
            Some(("dc".to_owned(), true))
        );
        assert_eq!(query(Some("z"), None).slice(&items, id).map(ids), None);
    }
}
