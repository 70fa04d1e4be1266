//! The newest page of an owner's events, kept rendered (the sandbox's and
//! the REST tier's lists share it). Partners poll this page
//! far more often than anything changes it; serving it costs one index probe
//! (is the newest event still the one the page was built at?) instead of
//! reading every event on the page. The store decides freshness, so every
//! instance's copy is correct on its own.

use axum::body::Bytes;
use lendhub_domain::tenant::Tenant;
use lendhub_store::LogPosition;

use crate::rendered::Rendered;

/// (owner, limit) → the page, stamped with the event-log position it was
/// built at.
#[derive(Default)]
pub struct EventPages(Rendered<(Tenant, u32), Option<LogPosition>>);

impl EventPages {
    /// Pages kept (`on`) or every one built from the store.
    pub fn new(on: bool) -> Self {
        Self(Rendered::new(on))
    }

    /// Whether pages are kept at all: off (`read_caches.enabled = false`),
    /// the position need not be read.
    pub fn keeps(&self) -> bool {
        self.0.keeps()
    }

    /// The page for (owner, limit), if it was built at `position`.
    pub fn get(&self, owner: &Tenant, limit: u32, position: Option<LogPosition>) -> Option<Bytes> {
        self.0.get(&(owner.clone(), limit), &position)
    }

    /// Keeps a page built after `position` was read: if newer events slipped
    /// into it, the next probe sees a later position and rebuilds it.
    pub fn put(&self, owner: &Tenant, limit: u32, position: Option<LogPosition>, body: Bytes) {
        self.0.put((owner.clone(), limit), position, body);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(newest: i64) -> LogPosition {
        LogPosition { newest, oldest: 1 }
    }

    #[test]
    fn a_page_is_served_only_at_the_position_it_was_built() {
        let pages = EventPages::default();
        pages.put(
            &Tenant::sandbox_client("pk_a"),
            20,
            Some(at(7)),
            Bytes::from_static(b"page"),
        );
        assert_eq!(
            pages
                .get(&Tenant::sandbox_client("pk_a"), 20, Some(at(7)))
                .as_deref(),
            Some(&b"page"[..])
        );
        assert!(
            pages
                .get(&Tenant::sandbox_client("pk_a"), 20, Some(at(8)))
                .is_none(),
            "a newer event makes it stale"
        );
        assert!(
            pages
                .get(&Tenant::sandbox_client("pk_a"), 20, None)
                .is_none(),
            "removed events make it stale"
        );
        assert!(
            pages
                .get(&Tenant::sandbox_client("pk_a"), 10, Some(at(7)))
                .is_none(),
            "pages are per limit"
        );
        assert!(
            pages
                .get(&Tenant::sandbox_client("pk_b"), 20, Some(at(7)))
                .is_none(),
            "and per client"
        );
    }
}
