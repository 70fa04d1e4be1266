//! What an instance may remember of rows that rarely change (partner
//! clients, token revocations, identity grants), kept honest by an epoch:
//! a counter in the database that triggers move whenever those rows change,
//! whoever changes them. The instance polls the epoch and forgets everything
//! when it moves, or when it cannot be read; a change made by the instance
//! itself is forgotten at once (`forget`). So a change is seen at once where
//! it was made and within one poll everywhere else.

use std::borrow::Borrow;
use std::collections::HashMap;
use std::hash::Hash;
use std::time::Duration;

use parking_lot::Mutex;

pub struct EpochCache<K, V> {
    inner: Mutex<Inner<K, V>>,
    capacity: usize,
}

struct Inner<K, V> {
    /// The epoch the memory agrees with; `None` before the first poll and
    /// while the database cannot be read: then nothing is remembered.
    epoch: Option<i64>,
    /// Moves with every forget, so a read that started before a change
    /// cannot put its stale answer back.
    generation: u64,
    map: HashMap<K, V>,
}

/// When a lookup missed: what it then reads may be remembered only if
/// nothing was forgotten in between.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Ticket(Option<i64>, u64);

impl<K: Eq + Hash, V: Clone> EpochCache<K, V> {
    /// Beyond `capacity` entries the memory starts again and refills from use.
    pub fn new(capacity: usize) -> Self {
        Self {
            inner: Mutex::new(Inner {
                epoch: None,
                generation: 0,
                map: HashMap::new(),
            }),
            capacity,
        }
    }

    /// The remembered value, or a ticket for remembering what the caller reads.
    pub fn get<Q>(&self, key: &Q) -> Result<V, Ticket>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        let inner = self.inner.lock();
        match inner.map.get(key) {
            Some(v) if inner.epoch.is_some() => Ok(v.clone()),
            _ => Err(Ticket(inner.epoch, inner.generation)),
        }
    }

    /// The remembered value for `key`, or what `read` finds, remembered if
    /// it exists: absent keys are not remembered, since they cost nothing
    /// to make up.
    pub async fn get_or_read<Q, E, Fut>(
        &self,
        key: &Q,
        read: impl FnOnce() -> Fut,
    ) -> Result<Option<V>, E>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ToOwned<Owned = K> + ?Sized,
        Fut: Future<Output = Result<Option<V>, E>>,
    {
        let ticket = match self.get(key) {
            Ok(value) => return Ok(Some(value)),
            Err(ticket) => ticket,
        };
        let value = read().await?;
        if let Some(v) = &value {
            self.put(ticket, key.to_owned(), v.clone());
        }
        Ok(value)
    }

    /// Remembers `value` if nothing changed since `ticket` was taken.
    pub fn put(&self, ticket: Ticket, key: K, value: V) {
        let mut inner = self.inner.lock();
        if inner.epoch.is_none() || Ticket(inner.epoch, inner.generation) != ticket {
            return;
        }
        if inner.map.len() >= self.capacity {
            inner.map.clear();
        }
        inner.map.insert(key, value);
    }

    /// After this instance changed what is remembered.
    pub fn forget(&self) {
        let mut inner = self.inner.lock();
        inner.generation += 1;
        inner.map.clear();
    }

    /// The epoch just polled (`None`: it could not be read). Returns whether
    /// the memory was dropped.
    pub fn observe(&self, epoch: Option<i64>) -> bool {
        let mut inner = self.inner.lock();
        if inner.epoch == epoch && epoch.is_some() {
            return false;
        }
        inner.epoch = epoch;
        inner.generation += 1;
        inner.map.clear();
        true
    }
}

/// Reads the epoch every `interval` and hands each reading to `observe`
/// (`None` when it could not be read, which `what` names in the debug log),
/// until `stop` resolves: the loop every holder of an [`EpochCache`] runs.
pub async fn poll<R, Fut, E>(
    interval: Duration,
    what: &'static str,
    read: R,
    observe: impl Fn(Option<i64>),
    stop: impl Future<Output = ()>,
) where
    R: Fn() -> Fut,
    Fut: Future<Output = Result<i64, E>>,
    E: std::fmt::Display,
{
    let mut tick = tokio::time::interval(interval);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    tokio::pin!(stop);
    loop {
        tokio::select! {
            _ = tick.tick() => match read().await {
                Ok(epoch) => observe(Some(epoch)),
                Err(e) => {
                    tracing::debug!(error = %e, epoch = what, "cannot read the epoch; lookups read the store");
                    observe(None);
                }
            },
            () = &mut stop => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remembers_until_the_epoch_moves_or_it_forgets() {
        let cache: EpochCache<String, u32> = EpochCache::new(10);
        let t = cache.get("a").unwrap_err();
        cache.put(t, "a".into(), 1);
        assert!(
            cache.get("a").is_err(),
            "nothing is remembered before the first poll"
        );
        cache.observe(Some(7));
        let t = cache.get("a").unwrap_err();
        cache.put(t, "a".into(), 1);
        assert_eq!(cache.get("a"), Ok(1));
        assert!(!cache.observe(Some(7)), "the same epoch keeps the memory");
        assert_eq!(cache.get("a"), Ok(1));
        assert!(cache.observe(Some(8)));
        assert!(cache.get("a").is_err());
        // A read that started before a forget is not remembered.
        let stale = cache.get("a").unwrap_err();
        cache.forget();
        cache.put(stale, "a".into(), 1);
        assert!(cache.get("a").is_err());
        // Unreadable epoch: nothing is trusted.
        let t = cache.get("a").unwrap_err();
        cache.put(t, "a".into(), 2);
        assert_eq!(cache.get("a"), Ok(2));
        cache.observe(None);
        assert!(cache.get("a").is_err());
    }

    #[tokio::test]
    async fn get_or_read_remembers_what_exists_and_reads_again_for_what_does_not() {
        let cache: EpochCache<String, u32> = EpochCache::new(10);
        cache.observe(Some(1));
        let reads = std::cell::Cell::new(0);
        let read = |answer: Option<u32>| {
            reads.set(reads.get() + 1);
            async move { Ok::<_, ()>(answer) }
        };
        assert_eq!(cache.get_or_read("a", || read(Some(5))).await, Ok(Some(5)));
        assert_eq!(cache.get_or_read("a", || read(Some(6))).await, Ok(Some(5)));
        assert_eq!(reads.get(), 1, "the second lookup was answered from memory");
        assert_eq!(cache.get_or_read("b", || read(None)).await, Ok(None));
        assert_eq!(cache.get_or_read("b", || read(Some(7))).await, Ok(Some(7)));
        assert_eq!(reads.get(), 3, "an absent key was read again");
        assert_eq!(cache.get_or_read("c", || async { Err(()) }).await, Err(()));
    }

    #[test]
    fn capacity_starts_it_again() {
        let cache: EpochCache<u32, u32> = EpochCache::new(2);
        cache.observe(Some(1));
        for k in 0..3 {
            let t = cache.get(&k).unwrap_err();
            cache.put(t, k, k);
        }
        assert!(cache.get(&0).is_err() && cache.get(&2).is_ok());
    }
}
