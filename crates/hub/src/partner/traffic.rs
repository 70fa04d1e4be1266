//! REST-tier requests counted per partner environment and UTC day (on the
//! environment's clock) for the dashboard's charts. Each instance counts in
//! memory — a lock per shard, no allocation once a partner has been seen —
//! and adds its counts to the store every [`FLUSH_INTERVAL`], and once more
//! when it stops. Counts a crash loses are at most one interval's: these
//! are charts, not the ledger.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use lendhub_domain::billing::usage::Metric;
use lendhub_domain::tenant::Tenant;
use lendhub_store::{DashboardStore, UsageCount};
use parking_lot::Mutex;
use time::Date;

pub const FLUSH_INTERVAL: Duration = Duration::from_secs(5);

const SHARDS: usize = 8;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Counts {
    requests: i64,
    client_errors: i64,
    server_errors: i64,
}

impl Counts {
    fn add(&mut self, other: Counts) {
        self.requests += other.requests;
        self.client_errors += other.client_errors;
        self.server_errors += other.server_errors;
    }
}

/// One partner's counts: per environment (live, test) and day.
#[derive(Default)]
struct Partner {
    days: Vec<(bool, Date, Counts)>,
}

#[derive(Default)]
pub struct Traffic {
    shards: [Mutex<HashMap<Arc<str>, Partner>>; SHARDS],
}

fn shard_of(client_id: &str) -> usize {
    let h = client_id.bytes().fold(0usize, |h, b| {
        h.wrapping_mul(31).wrapping_add(usize::from(b))
    });
    h % SHARDS
}

impl Traffic {
    /// One request of `client_id`'s environment on `day`, answered `status`.
    pub fn record(&self, client_id: &str, livemode: bool, day: Date, status: u16) {
        let mut shard = self.shards[shard_of(client_id)].lock();
        let partner = match shard.get_mut(client_id) {
            Some(p) => p,
            None => shard.entry(Arc::from(client_id)).or_default(),
        };
        let counts = match partner
            .days
            .iter_mut()
            .find(|(live, d, _)| *live == livemode && *d == day)
        {
            Some((_, _, c)) => c,
            None => {
                partner.days.push((livemode, day, Counts::default()));
                match partner.days.last_mut() {
                    Some((_, _, c)) => c,
                    None => return,
                }
            }
        };
        counts.requests += 1;
        match Metric::error_of(status) {
            Some(Metric::ClientErrors) => counts.client_errors += 1,
            Some(Metric::ServerErrors) => counts.server_errors += 1,
            _ => {}
        }
    }

    /// Everything counted since the last drain, as the store keeps it.
    pub fn drain(&self) -> Vec<UsageCount> {
        let mut out = Vec::new();
        for shard in &self.shards {
            let taken = std::mem::take(&mut *shard.lock());
            for (client_id, partner) in taken {
                for (livemode, day, counts) in partner.days {
                    let owner = Tenant::partner(&client_id, livemode, None);
                    let day = day.to_string();
                    for (metric, n) in [
                        (Metric::Requests, counts.requests),
                        (Metric::ClientErrors, counts.client_errors),
                        (Metric::ServerErrors, counts.server_errors),
                    ] {
                        if n > 0 {
                            out.push(UsageCount {
                                owner: owner.as_str().to_owned(),
                                day: day.clone(),
                                metric: metric.as_str().to_owned(),
                                count: n,
                            });
                        }
                    }
                }
            }
        }
        out
    }

    /// Gives back counts the store did not take, to be added next time.
    fn restore(&self, counts: Vec<UsageCount>) {
        for c in counts {
            let Some((client_id, livemode)) = owner_parts(&c.owner) else {
                continue;
            };
            let Ok(day) = Date::parse(&c.day, &time::format_description::well_known::Iso8601::DATE)
            else {
                continue;
            };
            let mut back = Counts::default();
            match Metric::parse(&c.metric) {
                Some(Metric::Requests) => back.requests = c.count,
                Some(Metric::ClientErrors) => back.client_errors = c.count,
                Some(Metric::ServerErrors) => back.server_errors = c.count,
                _ => continue,
            }
            let mut shard = self.shards[shard_of(client_id)].lock();
            let partner = shard.entry(Arc::from(client_id)).or_default();
            match partner
                .days
                .iter_mut()
                .find(|(l, d, _)| *l == livemode && *d == day)
            {
                Some((_, _, counts)) => counts.add(back),
                None => partner.days.push((livemode, day, back)),
            }
        }
    }

    /// Adds what was counted to the store; kept for the next try if the
    /// store is unavailable.
    pub async fn flush(&self, store: &dyn DashboardStore) {
        let counts = self.drain();
        if counts.is_empty() {
            return;
        }
        if let Err(e) = store.add_usage(counts.clone()).await {
            tracing::warn!(error = %e, "could not store request counts; kept for the next flush");
            self.restore(counts);
        }
    }

    /// Flushes every [`FLUSH_INTERVAL`] until `stop`, then once more.
    pub async fn run(
        self: Arc<Self>,
        store: Arc<dyn DashboardStore>,
        stop: impl Future<Output = ()>,
    ) {
        let mut tick = tokio::time::interval(FLUSH_INTERVAL);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        tokio::pin!(stop);
        loop {
            tokio::select! {
                _ = tick.tick() => self.flush(store.as_ref()).await,
                () = &mut stop => break,
            }
        }
        self.flush(store.as_ref()).await;
    }
}

/// `client_id/live` or `client_id/test`.
fn owner_parts(owner: &str) -> Option<(&str, bool)> {
    let (client_id, env) = owner.rsplit_once('/')?;
    match env {
        "live" => Some((client_id, true)),
        "test" => Some((client_id, false)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_are_counted_per_environment_and_day_and_drained_once() {
        let t = Traffic::default();
        let day = time::macros::date!(2026 - 11 - 26);
        let next = time::macros::date!(2026 - 11 - 27);
        for status in [200, 201, 404, 422, 503] {
            t.record("pk_live_a", true, day, status);
        }
        t.record("pk_live_a", false, day, 200);
        t.record("pk_live_a", true, next, 200);
        let mut drained = t.drain();
        drained.sort_by(|a, b| (&a.owner, &a.day, &a.metric).cmp(&(&b.owner, &b.day, &b.metric)));
        let row = |owner: &str, day: &str, metric: &str, count| UsageCount {
            owner: owner.into(),
            day: day.into(),
            metric: metric.into(),
            count,
        };
        assert_eq!(
            drained,
            [
                row("pk_live_a/live", "2026-11-26", "client_errors", 2),
                row("pk_live_a/live", "2026-11-26", "requests", 5),
                row("pk_live_a/live", "2026-11-26", "server_errors", 1),
                row("pk_live_a/live", "2026-11-27", "requests", 1),
                row("pk_live_a/test", "2026-11-26", "requests", 1),
            ]
        );
        assert!(t.drain().is_empty(), "drained once");
        t.restore(drained.clone());
        t.record("pk_live_a", false, day, 500);
        let mut again = t.drain();
        again.sort_by(|a, b| (&a.owner, &a.day, &a.metric).cmp(&(&b.owner, &b.day, &b.metric)));
        assert_eq!(
            again.len(),
            6,
            "what the store did not take, and the new: {again:?}"
        );
        assert!(again.contains(&row("pk_live_a/test", "2026-11-26", "requests", 2)));
        assert!(again.contains(&row("pk_live_a/test", "2026-11-26", "server_errors", 1)));
    }
}
