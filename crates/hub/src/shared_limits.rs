//! Limits that hold across instances (issue #19): with `limits.shared_url`
//! set, every instance keeps the partner ring's token buckets, its
//! concurrency caps and the public ring's per-address window in one Valkey
//! or Redis server, so N instances give a partner its tier once, not N
//! times. Each admission is one round trip running one script, atomic on
//! the server. The arithmetic is the domain's (`Verdict::of`); only the
//! bucket's level and time live in the server.
//!
//! When the server cannot answer within [`RESPONSE_TIMEOUT`], the instance
//! falls back to its own memory (the single-instance behaviour) rather than
//! refusing or stalling traffic: a limit is a protection, not a ledger. It
//! then leaves the server alone for [`BACK_OFF_MS`], so that an outage costs
//! each request nothing and is logged once per back-off, not per request.

use std::sync::atomic::{AtomicI64, Ordering};
use std::time::Duration;

use lendhub_domain::partner::project::TierLimits;
use lendhub_domain::partner::ratelimit::Verdict;
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::{RedisError, Script};

/// How long an admission may wait for the server before this instance
/// decides alone.
const RESPONSE_TIMEOUT: Duration = Duration::from_millis(250);

/// After a failed call, how long an instance decides alone before it asks
/// the server again.
const BACK_OFF_MS: i64 = 5_000;

/// A concurrent slot is released when its response is done; if the
/// instance dies first, the slot lapses after this.
pub const SLOT_LEASE_MS: i64 = 60_000;

/// Takes a token from the route's sub-limit bucket (when there is one),
/// then from the project's bucket, then a concurrent slot: the order and
/// the arithmetic of `partner::limits`. Returns `{stage, level}`: stage 0
/// admitted, 1 refused by the sub-limit, 2 by the project's bucket, 3 by
/// the concurrency cap; `level` is the deciding bucket's, in thousandths.
const ADMIT: &str = r"
local function take(key, per, burst, now)
  local state = redis.call('HMGET', key, 'level', 'at')
  local full = burst * 1000
  local level = tonumber(state[1]) or full
  local at = tonumber(state[2]) or now
  level = math.min(level + math.max(now - at, 0) * per, full)
  if now > at then at = now end
  local allowed = level >= 1000
  if allowed then level = level - 1000 end
  redis.call('HSET', key, 'level', level, 'at', at)
  -- Once it would be full again the bucket is no different from no bucket.
  redis.call('PEXPIRE', key, math.ceil((full - level) / per) + 1000)
  return allowed, level
end
local now = tonumber(ARGV[1])
if ARGV[7] == '1' then
  local ok, level = take(KEYS[3], tonumber(ARGV[8]), tonumber(ARGV[8]), now)
  if not ok then return {1, level} end
end
local ok, level = take(KEYS[1], tonumber(ARGV[2]), tonumber(ARGV[3]), now)
if not ok then return {2, level} end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[4]) then return {3, level} end
redis.call('ZADD', KEYS[2], ARGV[5], ARGV[6])
redis.call('PEXPIRE', KEYS[2], ARGV[9])
return {0, level}
";

/// Counts one request in a fixed window; the count so far.
const WINDOW: &str = r"
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return n
";

pub struct SharedLimits {
    connection: ConnectionManager,
    admit: Script,
    window: Script,
    /// Until when (on the service clock) this instance decides alone.
    alone_until_ms: AtomicI64,
}

impl std::fmt::Debug for SharedLimits {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The URL may carry a password: never printed.
        f.write_str("SharedLimits")
    }
}

/// What the shared buckets decided.
pub enum Decision {
    Admitted(Verdict),
    /// Refused by the route's sub-limit.
    SubLimit(Verdict),
    /// Refused by the project's bucket.
    Bucket(Verdict),
    /// The project's bucket had a token, but every concurrent slot is held.
    Concurrency(Verdict),
}

/// A route's own limit, when the request has one: its bucket's name and
/// its rate (per second, with a burst of the same).
pub struct Sub<'a> {
    pub name: &'a str,
    pub per_second: u32,
}

/// `limits.shared_url` names no server the client can use.
#[derive(Debug, thiserror::Error)]
#[error("limits.shared_url: {0}")]
pub struct UrlError(#[from] redis::RedisError);

impl SharedLimits {
    /// Connects lazily: an instance starts whether or not the server is up.
    pub fn new(url: &str) -> Result<Self, UrlError> {
        let client = redis::Client::open(url)?;
        let config = ConnectionManagerConfig::new()
            .set_response_timeout(Some(RESPONSE_TIMEOUT))
            .set_connection_timeout(Some(RESPONSE_TIMEOUT))
            .set_number_of_retries(1)
            .set_max_delay(Duration::from_secs(1));
        let connection = ConnectionManager::new_lazy_with_config(client, config)?;
        Ok(Self {
            connection,
            admit: Script::new(ADMIT),
            window: Script::new(WINDOW),
            alone_until_ms: AtomicI64::new(i64::MIN),
        })
    }

    /// Whether to ask the server at `now_ms`, or decide alone (after a
    /// recent failure).
    pub fn reachable(&self, now_ms: i64) -> bool {
        now_ms >= self.alone_until_ms.load(Ordering::Relaxed)
    }

    /// Notes a failed call at `now_ms`: the first in a while is logged, and
    /// the instance decides alone for the back-off.
    pub fn failed(&self, error: &RedisError, now_ms: i64) {
        let until = now_ms.saturating_add(BACK_OFF_MS);
        if self.alone_until_ms.swap(until, Ordering::Relaxed) < now_ms {
            tracing::warn!(
                error = %error,
                back_off_ms = BACK_OFF_MS,
                "the shared rate limits cannot be reached; this instance decides alone meanwhile"
            );
        }
    }

    /// One admission for `project` (its tier's `limits`), holding the
    /// concurrent slot `slot` until [`Self::release`].
    pub async fn admit(
        &self,
        project: &str,
        limits: TierLimits,
        sub: Option<Sub<'_>>,
        slot: &str,
        now_ms: i64,
    ) -> Result<Decision, RedisError> {
        // One hash tag per project: its keys live on one node of a cluster.
        let key = |what: &str| format!("lendhub:{{{project}}}:{what}");
        let mut call = self.admit.prepare_invoke();
        call.key(key("bucket"))
            .key(key("in-flight"))
            .key(key(&format!("sub:{}", sub.as_ref().map_or("", |s| s.name))))
            .arg(now_ms)
            .arg(limits.per_second)
            .arg(limits.burst)
            .arg(limits.concurrent)
            .arg(now_ms.saturating_add(SLOT_LEASE_MS))
            .arg(slot)
            .arg(if sub.is_some() { "1" } else { "0" })
            .arg(sub.as_ref().map_or(0, |s| s.per_second))
            .arg(SLOT_LEASE_MS * 2);
        let (stage, level): (i64, i64) = call.invoke_async(&mut self.connection.clone()).await?;
        let sub_limits = |per_second| TierLimits {
            per_second,
            burst: per_second,
            concurrent: u32::MAX,
        };
        Ok(match stage {
            0 => Decision::Admitted(Verdict::of(limits, level, true)),
            1 => Decision::SubLimit(Verdict::of(
                sub_limits(sub.map_or(1, |s| s.per_second)),
                level,
                false,
            )),
            2 => Decision::Bucket(Verdict::of(limits, level, false)),
            _ => Decision::Concurrency(Verdict::of(limits, level, true)),
        })
    }

    /// Gives back the concurrent slot `slot` of `project`.
    pub async fn release(&self, project: &str, slot: &str) -> Result<(), RedisError> {
        redis::cmd("ZREM")
            .arg(format!("lendhub:{{{project}}}:in-flight"))
            .arg(slot)
            .exec_async(&mut self.connection.clone())
            .await
    }

    /// Counts a request in `subject`'s window number `window` of
    /// `window_ms`; the count including it.
    pub async fn hit(&self, subject: &str, window: i64, window_ms: i64) -> Result<u32, RedisError> {
        let mut call = self.window.prepare_invoke();
        call.key(format!("lendhub:{{window:{subject}}}:{window}"))
            .arg(window_ms.saturating_mul(2));
        call.invoke_async(&mut self.connection.clone()).await
    }
}
