//! The sign-in throttle (issue #19): attempts counted per account (the
//! normalised email, known or not, so the throttle says nothing about
//! which accounts exist) and per client address, with the domain's back-off
//! (`lendhub_domain::throttle`). Held in this instance's memory, as the
//! partner ring's rate limits are: with several instances an attacker gets
//! each instance's free attempts, and the back-off still doubles on every
//! one (docs/decisions.md).

use std::collections::HashMap;
use std::net::IpAddr;

use lendhub_domain::throttle::{ACCOUNT, ADDRESS, Count, Policy};
use parking_lot::Mutex;

/// Keys held at most; past it, those quiet long enough to be forgotten go.
const CAPACITY: usize = 100_000;

#[derive(Default)]
pub struct SignInThrottle {
    counts: Mutex<HashMap<Key, Count>>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Key {
    Account(String),
    Address(IpAddr),
}

impl Key {
    fn policy(&self) -> &'static Policy {
        match self {
            Key::Account(_) => &ACCOUNT,
            Key::Address(_) => &ADDRESS,
        }
    }
}

/// An attempt let through, counted as a failure until `succeeded`.
pub struct Attempt {
    account: Key,
    address: Option<Key>,
}

impl SignInThrottle {
    /// Lets an attempt at `email` from `address` through, counting it, or
    /// says how many milliseconds to wait. Both keys must be ready; only
    /// then is either counted.
    pub fn attempt(
        &self,
        email: &str,
        address: Option<IpAddr>,
        now_ms: i64,
    ) -> Result<Attempt, i64> {
        let account = Key::Account(email.to_owned());
        let address = address.map(Key::Address);
        let mut counts = self.counts.lock();
        if counts.len() >= CAPACITY {
            counts.retain(|k, c| now_ms - c.last_ms < k.policy().forget_after_ms);
        }
        let keys: Vec<&Key> = std::iter::once(&account).chain(address.as_ref()).collect();
        let mut next = Vec::with_capacity(keys.len());
        for key in &keys {
            let count = counts.get(*key).copied().unwrap_or_default();
            next.push(key.policy().attempt(count, now_ms)?);
        }
        for (key, count) in keys.into_iter().zip(next) {
            counts.insert(key.clone(), count);
        }
        Ok(Attempt { account, address })
    }

    /// The attempt was good: the account starts again, and the address gets
    /// back the attempt it lent (a right password is not a guess).
    pub fn succeeded(&self, attempt: Attempt) {
        let mut counts = self.counts.lock();
        counts.remove(&attempt.account);
        if let Some(address) = attempt.address
            && let Some(count) = counts.get_mut(&address)
        {
            count.failures = count.failures.saturating_sub(1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_account_is_throttled_whatever_the_address_and_a_success_resets_it() {
        let t = SignInThrottle::default();
        let ip = |n: u8| Some(IpAddr::from([10, 0, 0, n]));
        for n in 0..5 {
            assert!(t.attempt("ada@example.com", ip(n), 0).is_ok());
        }
        assert_eq!(t.attempt("ada@example.com", ip(9), 0).err(), Some(1_000));
        let good = t.attempt("ada@example.com", ip(9), 1_000).expect("waited");
        t.succeeded(good);
        assert!(t.attempt("ada@example.com", ip(9), 1_000).is_ok(), "reset");
    }

    #[test]
    fn an_address_is_throttled_across_accounts() {
        let t = SignInThrottle::default();
        let ip = Some(IpAddr::from([192, 0, 2, 1]));
        for n in 0..20 {
            assert!(t.attempt(&format!("user{n}@example.com"), ip, 0).is_ok());
        }
        assert!(t.attempt("another@example.com", ip, 0).is_err());
        assert!(
            t.attempt("another@example.com", Some(IpAddr::from([192, 0, 2, 2])), 0)
                .is_ok(),
            "another address"
        );
    }
}
