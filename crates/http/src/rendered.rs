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

pub struct Rendered<K, S>(Mutex<HashMap<K, (S, Bytes)>>);

impl<K, S> Default for Rendered<K, S> {
    fn default() -> Self {
        Self(Mutex::new(HashMap::new()))
    }
}

impl<K: Eq + Hash, S: PartialEq> Rendered<K, S> {
    /// The body kept for `key`, if it was built at `stamp`.
    pub fn get(&self, key: &K, stamp: &S) -> Option<Bytes> {
        let kept = self.0.lock();
        let (at, body) = kept.get(key)?;
        (at == stamp).then(|| body.clone())
    }

    pub fn put(&self, key: K, stamp: S, body: Bytes) {
        let mut kept = self.0.lock();
        if kept.len() >= CAPACITY && !kept.contains_key(&key) {
            kept.clear();
        }
        kept.insert(key, (stamp, body));
    }
}
