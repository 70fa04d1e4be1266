//! The sign-in throttle (issue #19): attempts counted per account (the
//! normalised email, known or not, so the throttle says nothing about
//! which accounts exist) and per client address, with the domain's back-off
//! (`lendhub_domain::identity::throttle`). Held in this instance's memory, as the
//! partner ring's rate limits are: with several instances an attacker gets
//! each instance's free attempts, and the back-off still doubles on every
//! one (docs/decisions.md).

use std::collections::HashMap;
use std::net::IpAddr;

use lendhub_domain::identity::throttle::{ACCOUNT, ADDRESS, Count, Policy};
use parking_lot::Mutex;
use sha2::Digest;

/// Keys held at most: when full, the forgotten ones go and then, if need
/// be, the longest quiet, so memory stays bounded whatever an attacker
/// sends (about 6 MB at most).
const CAPACITY: usize = 100_000;

#[derive(Default)]
pub struct SignInThrottle {
    counts: Mutex<HashMap<Key, Count>>,
}

/// An account by the SHA-256 of its normalised email (a key of fixed size
/// whatever was typed); an address, IPv6 by its /64 (one subscriber's
/// whole prefix, so rotating within it buys nothing).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Key {
    Account([u8; 32]),
    Address(IpAddr),
}

fn address_key(ip: IpAddr) -> Key {
    let ip = match ip {
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => IpAddr::V6((u128::from(v6) & !((1u128 << 64) - 1)).into()),
        },
        v4 => v4,
    };
    Key::Address(ip)
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
        let account = Key::Account(sha2::Sha256::digest(email.as_bytes()).into());
        let address = address.map(address_key);
        let mut counts = self.counts.lock();
        if counts.len() >= CAPACITY {
            make_room(&mut counts, now_ms);
        }
        let keys: Vec<&Key> = std::iter::once(&account).chain(address.as_ref()).collect();
        let tried: Vec<Result<Count, i64>> = keys
            .iter()
            .map(|key| {
                let count = counts.get(*key).copied().unwrap_or_default();
                key.policy().attempt(count, now_ms)
            })
            .collect();
        // Told to wait as long as the longest of the keys' waits, so the
        // next attempt is not refused again.
        if let Some(wait) = tried.iter().filter_map(|t| t.err()).max() {
            return Err(wait);
        }
        let next = tried.into_iter().flatten();
        for (key, count) in keys.into_iter().zip(next) {
            counts.insert(key.clone(), count);
        }
        Ok(Attempt { account, address })
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.counts.lock().len()
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

/// What a throttled form says, and the `Retry-After` it carries: the wait
/// rounded up to whole seconds.
pub struct Wait {
    seconds: i64,
}

impl Wait {
    pub fn new(wait_ms: i64) -> Self {
        Self {
            seconds: (wait_ms + 999).div_euclid(1000),
        }
    }

    /// `too_many`, then how long to wait, in the form's words.
    pub fn message(&self, too_many: &str) -> String {
        let n = self.seconds;
        let s = if n == 1 { "" } else { "s" };
        format!("{too_many} Wait {n} second{s} and try again.")
    }

    pub fn stamp(&self, mut response: axum::response::Response) -> axum::response::Response {
        response
            .headers_mut()
            .insert(axum::http::header::RETRY_AFTER, self.seconds.into());
        response
    }
}

/// Drops the forgotten keys and, if that is not enough, the quietest
/// tenth of those not made to wait: rare (once per `CAPACITY / 10` new
/// keys at worst). A key in its wait is kept, so flooding the throttle
/// with made-up keys cannot wipe an account's count.
fn make_room(counts: &mut HashMap<Key, Count>, now_ms: i64) {
    counts.retain(|k, c| k.policy().current(*c, now_ms) != Count::default());
    if counts.len() < CAPACITY {
        return;
    }
    let waiting = |k: &Key, c: &Count| k.policy().attempt(*c, now_ms).is_err();
    let mut ages: Vec<i64> = counts
        .iter()
        .filter(|(k, c)| !waiting(k, c))
        .map(|(_, c)| c.last_ms)
        .collect();
    if ages.is_empty() {
        return;
    }
    let tenth = ages.len() / 10;
    ages.select_nth_unstable(tenth);
    let cutoff = ages[tenth];
    counts.retain(|k, c| waiting(k, c) || c.last_ms > cutoff);
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
        // The longer of two waits is the one told: the account's ends at
        // 1 s, the crowded address's (21 failures, the last at 1 s) at 3 s.
        let crowded = Some(IpAddr::from([10, 9, 9, 9]));
        for n in 0..20 {
            let _ = t.attempt(&format!("x{n}@example.com"), crowded, 0);
        }
        assert!(t.attempt("x20@example.com", crowded, 1_000).is_ok());
        assert_eq!(t.attempt("ada@example.com", crowded, 0).err(), Some(3_000));
        let good = t.attempt("ada@example.com", ip(9), 1_000).expect("waited");
        t.succeeded(good);
        assert!(t.attempt("ada@example.com", ip(9), 1_000).is_ok(), "reset");
    }

    #[test]
    fn memory_stays_bounded_and_an_ipv6_prefix_is_one_address() {
        let t = SignInThrottle::default();
        for n in 0..(CAPACITY as u32 + 10) {
            let _ = t.attempt(&format!("user{n}@example.com"), None, i64::from(n));
        }
        assert!(t.len() <= CAPACITY, "{}", t.len());
        // A key in its wait survives a flood of made-up ones.
        let t = SignInThrottle::default();
        for _ in 0..6 {
            let _ = t.attempt("victim@example.com", None, 0);
        }
        for n in 0..(CAPACITY as u32 + 10) {
            let _ = t.attempt(&format!("flood{n}@example.com"), None, 1);
        }
        assert!(
            t.attempt("victim@example.com", None, 2).is_err(),
            "still waiting"
        );
        let t = SignInThrottle::default();
        for n in 0..20u16 {
            let ip = IpAddr::from([0x2001, 0xdb8, 0, 1, 0, 0, 0, n]);
            assert!(t.attempt(&format!("u{n}@example.com"), Some(ip), 0).is_ok());
        }
        let same_prefix = IpAddr::from([0x2001, 0xdb8, 0, 1, 0xffff, 0, 0, 1]);
        assert!(t.attempt("x@example.com", Some(same_prefix), 0).is_err());
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
