//! Idempotent execution of write operations, for every surface.
//!
//! Correctness rests on the database: the idempotency record commits in the
//! same transaction as everything the request changes, under a unique key, so
//! however many instances race, exactly one request's changes land and the
//! others replay its response. The in-memory set only turns "the same key is
//! running right now on this instance" into a prompt 409 instead of duplicate
//! work. A surface supplies its own errors ([`Refusals`]); everything else —
//! fingerprint, expiry, sealing, replay, the commit — is here, once.

use std::collections::HashSet;
use std::future::Future;
use std::marker::PhantomData;
use std::sync::Arc;

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use lendhub_domain::crypto::MasterKey;
use lendhub_domain::idempotency::fingerprint;
use lendhub_store::{
    CommitError, EventWrite, IdempotencyRecord, StoreError, UnitOfWork, Write, WriteSet,
};
use parking_lot::Mutex;
use tokio::sync::Notify;

use crate::Problem;
use crate::headers::IdempotencyKey;
use lendhub_domain::tenant::Tenant;
use lendhub_system::Seal;

/// A response that could not be rendered, or a stored one that could not be
/// read back: an internal fault, answered as the surface answers those.
#[derive(Debug)]
pub struct Fault(pub String);

/// How a surface answers the runner's refusals, in its own envelope.
pub trait Refusals: From<StoreError> + From<CommitError> + From<Fault> {
    /// The key was used with a different request.
    fn key_reused() -> Self;
    /// A request with the key is still running.
    fn key_in_progress() -> Self;
}

/// What an operation produces: its response and everything it changes.
pub struct Prepared {
    pub status: StatusCode,
    pub body: Vec<u8>,
    pub writes: WriteSet,
    /// When the key is recorded, on the caller's clock, if not the request's
    /// now: an operation that moves the clock records its key at the clock's
    /// new time, so that a retry of it is still recognised afterwards.
    pub recorded_at_ms: Option<i64>,
}

impl Prepared {
    pub fn json(
        status: StatusCode,
        body: &impl serde::Serialize,
        writes: WriteSet,
    ) -> Result<Self, Fault> {
        let body = serde_json::to_vec(body).map_err(|e| Fault(e.to_string()))?;
        Ok(Self::raw(status, body, writes))
    }

    /// A response whose body is already rendered.
    pub fn raw(status: StatusCode, body: Vec<u8>, writes: WriteSet) -> Self {
        Self {
            status,
            body,
            writes,
            recorded_at_ms: None,
        }
    }

    pub fn recorded_at(mut self, at: time::OffsetDateTime) -> Self {
        self.recorded_at_ms = Some(lendhub_domain::clock::unix_ms(at));
        self
    }
}

/// An idempotent write as it arrived: its `Idempotency-Key`, method and path.
/// With the caller and the body it becomes the [`Guarded`] request the runner
/// keys on, so a handler takes this one extractor instead of three.
pub struct Idempotent {
    pub key: String,
    method: String,
    path: String,
}

impl<S: Send + Sync> FromRequestParts<S> for Idempotent {
    type Rejection = Problem;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Problem> {
        let IdempotencyKey(key) = IdempotencyKey::from_request_parts(parts, state).await?;
        Ok(Self {
            key,
            method: parts.method.as_str().to_owned(),
            path: parts.uri.path().to_owned(),
        })
    }
}

/// For writes where the key is optional (the REST tier's, except payments
/// and marketplace): a key, if the request sent one — and a malformed one
/// is still refused.
pub struct MaybeIdempotent(pub Option<Idempotent>);

impl<S: Send + Sync> FromRequestParts<S> for MaybeIdempotent {
    type Rejection = Problem;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Problem> {
        if !parts.headers.contains_key("idempotency-key") {
            return Ok(Self(None));
        }
        Idempotent::from_request_parts(parts, state)
            .await
            .map(|i| Self(Some(i)))
    }
}

impl Idempotent {
    /// The request `owner` makes with `body`, at `now` on the owner's clock.
    pub fn by<'a>(
        &'a self,
        owner: &'a Tenant,
        body: &'a [u8],
        now: time::OffsetDateTime,
    ) -> Guarded<'a> {
        Guarded {
            owner,
            key: &self.key,
            method: &self.method,
            path: &self.path,
            body,
            now_ms: lendhub_domain::clock::unix_ms(now),
        }
    }
}

/// The request an idempotency key guards.
pub struct Guarded<'a> {
    pub owner: &'a Tenant,
    pub key: &'a str,
    pub method: &'a str,
    pub path: &'a str,
    pub body: &'a [u8],
    /// Now on the caller's clock: keys are recorded, and expire, on it.
    pub now_ms: i64,
}

#[derive(Default)]
struct InFlight(Mutex<HashSet<(Tenant, String)>>);

struct Claim<'a> {
    set: &'a InFlight,
    key: (Tenant, String),
}

impl Drop for Claim<'_> {
    fn drop(&mut self) {
        self.set.0.lock().remove(&self.key);
    }
}

impl InFlight {
    fn claim(&self, owner: &Tenant, key: &str) -> Option<Claim<'_>> {
        let k = (owner.clone(), key.to_owned());
        // The guard must be gone before a Claim can exist: dropping a Claim locks.
        let inserted = self.0.lock().insert(k.clone());
        inserted.then(|| Claim { set: self, key: k })
    }
}

/// Whether a record made at `created_at_ms` has expired at `now_ms` (both on
/// its owner's clock): it no longer answers for its key.
fn expired(created_at_ms: i64, now_ms: i64) -> bool {
    let retention = lendhub_domain::idempotency::RETENTION.whole_milliseconds() as i64;
    created_at_ms <= now_ms - retention
}

/// Whether committing `writes` queues webhook deliveries.
fn queues_deliveries(writes: &WriteSet) -> bool {
    writes.writes.iter().any(|w| {
        matches!(
            w,
            Write::Events(EventWrite::InsertEvent(_) | EventWrite::QueueDeliveries { .. })
        )
    })
}

fn respond(status: StatusCode, body: Vec<u8>, replayed: bool) -> Response {
    let mut response = (status, body).into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    if replayed {
        headers.insert("idempotent-replayed", HeaderValue::from_static("true"));
    }
    response
}

/// Stored responses are sealed: one of them holds a webhook signing secret,
/// and secrets are never at rest in clear.
const RESPONSE_PURPOSE: &str = "idempotent-response";

/// Runs writes at most once per (owner, key), answering refusals as the
/// surface's error `E`. One per surface state; cheap to clone.
pub struct Idempotency<E> {
    store: Arc<dyn UnitOfWork>,
    master_key: MasterKey,
    in_flight: Arc<InFlight>,
    /// Woken when a commit queued webhook deliveries.
    outbox_wake: Arc<Notify>,
    surface: PhantomData<fn() -> E>,
}

impl<E> Clone for Idempotency<E> {
    fn clone(&self) -> Self {
        Self {
            store: self.store.clone(),
            master_key: self.master_key.clone(),
            in_flight: self.in_flight.clone(),
            outbox_wake: self.outbox_wake.clone(),
            surface: PhantomData,
        }
    }
}

impl<E: Refusals> Idempotency<E> {
    pub fn new(
        store: Arc<dyn UnitOfWork>,
        master_key: MasterKey,
        outbox_wake: Arc<Notify>,
    ) -> Self {
        Self {
            store,
            master_key,
            in_flight: Arc::default(),
            outbox_wake,
            surface: PhantomData,
        }
    }

    fn replay(&self, record: IdempotencyRecord, fp: &[u8; 32]) -> Result<Response, E> {
        if &record.fingerprint != fp {
            return Err(E::key_reused());
        }
        let status = StatusCode::from_u16(record.status).map_err(|e| Fault(e.to_string()))?;
        let body = self
            .master_key
            .open(RESPONSE_PURPOSE, &record.body)
            .map_err(|e| Fault(e.to_string()))?;
        Ok(respond(status, body, true))
    }

    /// Runs `operation` once per (owner, key) if a key was sent; without one,
    /// runs it and commits what it prepared, with nothing recorded.
    pub async fn run_maybe<F, Fut>(
        &self,
        req: Option<Guarded<'_>>,
        operation: F,
    ) -> Result<Response, E>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<Prepared, E>>,
    {
        match req {
            Some(req) => self.run(req, operation).await,
            None => {
                let prepared = operation().await?;
                let wakes = queues_deliveries(&prepared.writes);
                self.store.commit(prepared.writes).await?;
                if wakes {
                    self.outbox_wake.notify_one();
                }
                Ok(respond(prepared.status, prepared.body, false))
            }
        }
    }

    /// Runs `operation` at most once per (owner, key). Only successful
    /// responses are recorded: a request rejected for bad input may be
    /// corrected and sent again under the same key.
    pub async fn run<F, Fut>(&self, req: Guarded<'_>, operation: F) -> Result<Response, E>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<Prepared, E>>,
    {
        let fp = fingerprint(req.owner.as_str(), req.method, req.path, req.body);
        if let Some(replayed) = self.stored(&req, &fp).await? {
            return replayed;
        }
        let Some(_claim) = self.in_flight.claim(req.owner, req.key) else {
            return Err(E::key_in_progress());
        };
        let prepared = operation().await?;
        self.commit(&req, fp, prepared).await
    }

    /// As [`run`](Self::run), for an operation that only reads and computes
    /// (no counterparty called, nothing sent): it runs before the key is
    /// looked up, and the commit's claim on the key is the check. A new key,
    /// nearly every request, then costs no lookup; a retry costs one
    /// preparation thrown away. Answers are the same as `run`'s: a stored
    /// response wins over the operation's own refusal and over a request
    /// still running with the key.
    pub async fn run_pure<F, Fut>(&self, req: Guarded<'_>, operation: F) -> Result<Response, E>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<Prepared, E>>,
    {
        let fp = fingerprint(req.owner.as_str(), req.method, req.path, req.body);
        let Some(_claim) = self.in_flight.claim(req.owner, req.key) else {
            return match self.stored(&req, &fp).await? {
                Some(replayed) => replayed,
                None => Err(E::key_in_progress()),
            };
        };
        match operation().await {
            Ok(prepared) => self.commit(&req, fp, prepared).await,
            Err(refused) => match self.stored(&req, &fp).await? {
                Some(replayed) => replayed,
                None => Err(refused),
            },
        }
    }

    /// The answer a live record under the key gives, if there is one.
    async fn stored(
        &self,
        req: &Guarded<'_>,
        fp: &[u8; 32],
    ) -> Result<Option<Result<Response, E>>, E> {
        Ok(match self.store.idempotency(req.owner, req.key).await? {
            Some(record) if !expired(record.created_at_ms, req.now_ms) => {
                Some(self.replay(record, fp))
            }
            _ => None,
        })
    }

    /// Commits what the operation prepared with the key's record.
    async fn commit(
        &self,
        req: &Guarded<'_>,
        fp: [u8; 32],
        prepared: Prepared,
    ) -> Result<Response, E> {
        let queues_deliveries = queues_deliveries(&prepared.writes);
        let mut writes = prepared.writes;
        writes.idempotency = Some(IdempotencyRecord {
            owner: req.owner.clone(),
            key: req.key.to_owned(),
            fingerprint: fp,
            status: prepared.status.as_u16(),
            body: self.master_key.seal(RESPONSE_PURPOSE, &prepared.body),
            created_at_ms: prepared.recorded_at_ms.unwrap_or(req.now_ms),
        });
        match self.store.commit(writes).await {
            Ok(()) => {
                if queues_deliveries {
                    self.outbox_wake.notify_one();
                }
                Ok(respond(prepared.status, prepared.body, false))
            }
            // Another instance (or a request that slipped past the in-flight
            // set, or a retry run as `run_pure`) committed first: answer with
            // its response.
            Err(CommitError::IdempotencyKeyTaken) => match self.stored(req, &fp).await? {
                Some(replayed) => replayed,
                None => Err(E::key_in_progress()),
            },
            Err(e) => Err(e.into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_expires_a_day_after_it_was_made_on_the_owners_clock() {
        let day = 86_400_000;
        assert!(!expired(1_000, 1_000 + day - 1));
        assert!(expired(1_000, 1_000 + day));
    }

    #[test]
    fn a_key_is_claimed_once_until_released() {
        let set = InFlight::default();
        let first = set.claim(&Tenant::sandbox_client("pk_a"), "key-1");
        assert!(first.is_some());
        assert!(
            set.claim(&Tenant::sandbox_client("pk_a"), "key-1")
                .is_none(),
            "a second claim is refused"
        );
        assert!(
            set.claim(&Tenant::sandbox_client("pk_a"), "key-1")
                .is_none(),
            "and refusing did not release the first"
        );
        assert!(
            set.claim(&Tenant::sandbox_client("pk_b"), "key-1")
                .is_some(),
            "keys are per client"
        );
        drop(first);
        assert!(
            set.claim(&Tenant::sandbox_client("pk_a"), "key-1")
                .is_some()
        );
    }
}
