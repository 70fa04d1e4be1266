//! Responses kept rendered, each stamped with what it was built from (an
//! event-log position, a record's version): served again only while a
//! cheap probe of the store still answers the same stamp. The store decides
//! freshness, so every instance's copy is correct on its own.

use std::collections::HashMap;
use std::hash::Hash;

use axum::body::Bytes;
use parking_lot::Mutex;

/// Past this many keys the map starts over and refills from use.
const CAPACITY: usize = 4096;

pub struct Rendered<K, S> {
    kept: Mutex<HashMap<K, (S, Bytes)>>,
    /// Off (`read_caches.enabled = false`), nothing is kept and every
    /// request renders from the store.
    on: bool,
}

impl<K, S> Default for Rendered<K, S> {
    fn default() -> Self {
        Self::new(true)
    }
}

impl<K, S> Rendered<K, S> {
    pub fn new(on: bool) -> Self {
        Self {
            kept: Mutex::new(HashMap::new()),
            on,
        }
    }
}

impl<K: Eq + Hash, S: PartialEq> Rendered<K, S> {
    /// Whether anything is kept for `key`: without it, probing the stamp
    /// first is a read wasted (the body must be read anyway).
    pub fn holds(&self, key: &K) -> bool {
        self.on && self.kept.lock().contains_key(key)
    }

    /// Whether anything is kept at all (`read_caches.enabled`).
    pub fn keeps(&self) -> bool {
        self.on
    }

    /// The body kept for `key`, if it was built at `stamp`.
    pub fn get(&self, key: &K, stamp: &S) -> Option<Bytes> {
        let kept = self.kept.lock();
        let (at, body) = kept.get(key)?;
        (at == stamp).then(|| body.clone())
    }

    pub fn put(&self, key: K, stamp: S, body: Bytes) {
        if !self.on {
            return;
        }
        let mut kept = self.kept.lock();
        if kept.len() >= CAPACITY && !kept.contains_key(&key) {
            kept.clear();
        }
        kept.insert(key, (stamp, body));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_body_is_served_only_at_its_stamp() {
        let kept = Rendered::default();
        assert!(!kept.holds(&"app"));
        kept.put("app", 1, Bytes::from_static(b"v1"));
        assert!(kept.holds(&"app"));
        assert_eq!(kept.get(&"app", &1).as_deref(), Some(&b"v1"[..]));
        assert_eq!(kept.get(&"app", &2), None);
    }

    #[test]
    fn switched_off_nothing_is_kept() {
        let kept = Rendered::new(false);
        kept.put("app", 1, Bytes::from_static(b"v1"));
        assert!(!kept.holds(&"app") && !kept.keeps());
        assert_eq!(kept.get(&"app", &1), None);
    }
}
