//! The public ring's protection: a fixed window of requests per client
//! address (seed: 60 per 60 seconds), on the injectable clock, kept in this
//! instance's memory or, with `limits.shared_url`, in the Valkey/Redis
//! server every instance shares (without it, N instances give an address up
//! to N× the window; see docs/guide/src/deployment.md). Every response carries the
//! RateLimit headers.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Arc;

use crate::shared_limits::SharedLimits;

use parking_lot::Mutex;

/// Past this many addresses, counts of finished windows are dropped.
const PRUNE_AT: usize = 100_000;

#[derive(Clone, Copy, Debug)]
pub struct WindowPolicy {
    pub requests: u32,
    pub window_ms: i64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Standing {
    pub allowed: bool,
    pub remaining: u32,
    /// Until the window ends.
    pub reset_ms: i64,
}

pub struct FixedWindow {
    policy: WindowPolicy,
    counts: Mutex<HashMap<IpAddr, (i64, u32)>>,
    shared: Option<Arc<SharedLimits>>,
}

impl FixedWindow {
    pub fn new(policy: WindowPolicy, shared: Option<Arc<SharedLimits>>) -> Self {
        Self {
            policy,
            counts: Mutex::default(),
            shared,
        }
    }

    pub fn policy(&self) -> WindowPolicy {
        self.policy
    }

    /// Counts one request from `ip` at `now_ms` without awaiting, when this
    /// instance decides alone: no shared window, or one it cannot reach now.
    /// `None` when the shared window has to be asked ([`Self::hit`]).
    pub fn hit_if_alone(&self, ip: IpAddr, now_ms: i64) -> Option<Standing> {
        let shared = self.shared.as_ref().is_some_and(|s| s.reachable(now_ms));
        (!shared).then(|| self.hit_here(ip, now_ms))
    }

    /// Counts one request from `ip` at `now_ms`, in the shared window when
    /// there is one (this instance's own while it cannot be reached).
    pub async fn hit(&self, ip: IpAddr, now_ms: i64) -> Standing {
        let WindowPolicy {
            requests,
            window_ms,
        } = self.policy;
        if let Some(shared) = self.shared.as_ref().filter(|s| s.reachable(now_ms)) {
            let window = now_ms.div_euclid(window_ms);
            match shared.hit(&ip.to_string(), window, window_ms).await {
                Ok(count) => {
                    return Standing {
                        allowed: count <= requests,
                        remaining: requests.saturating_sub(count),
                        reset_ms: (window + 1) * window_ms - now_ms,
                    };
                }
                Err(e) => shared.failed(&e, now_ms),
            }
        }
        self.hit_here(ip, now_ms)
    }

    /// Counts one request from `ip` at `now_ms` in this instance's memory.
    fn hit_here(&self, ip: IpAddr, now_ms: i64) -> Standing {
        let WindowPolicy {
            requests,
            window_ms,
        } = self.policy;
        let window = now_ms.div_euclid(window_ms);
        let reset_ms = (window + 1) * window_ms - now_ms;
        let mut counts = self.counts.lock();
        if counts.len() >= PRUNE_AT {
            counts.retain(|_, (w, _)| *w == window);
        }
        let entry = counts.entry(ip).or_insert((window, 0));
        if entry.0 != window {
            *entry = (window, 0);
        }
        if entry.1 >= requests {
            return Standing {
                allowed: false,
                remaining: 0,
                reset_ms,
            };
        }
        entry.1 += 1;
        Standing {
            allowed: true,
            remaining: requests - entry.1,
            reset_ms,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sixty_a_minute_then_a_fresh_window() {
        let w = FixedWindow::new(
            WindowPolicy {
                requests: 60,
                window_ms: 60_000,
            },
            None,
        );
        let a: IpAddr = "192.0.2.1".parse().unwrap();
        let b: IpAddr = "192.0.2.2".parse().unwrap();
        for i in 0..60 {
            let s = w.hit_here(a, 1_000);
            assert!(s.allowed);
            assert_eq!(s.remaining, 59 - i);
        }
        let refused = w.hit_here(a, 30_000);
        assert_eq!(
            refused,
            Standing {
                allowed: false,
                remaining: 0,
                reset_ms: 30_000
            }
        );
        assert!(w.hit_here(b, 30_000).allowed, "per address");
        let next = w.hit_here(a, 60_000);
        assert!(next.allowed && next.remaining == 59, "a new window");
    }
}
