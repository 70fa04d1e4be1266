//! Per-route request metrics with no allocation and no shared lock on the
//! request path: each runtime thread keeps the handles it has used, keyed by
//! (surface, route, method, status), and recording is an atomic add.
//!
//! `metrics::counter!` with dynamic labels would build a key (five strings)
//! and look it up in the recorder's registry on every request; here that
//! happens once per key and thread.

use std::cell::RefCell;
use std::hash::{Hash, Hasher};
use std::time::Duration;

use axum::http::Method;
use hashbrown::hash_map::RawEntryMut;
use hashbrown::{Equivalent, HashMap};
use metrics::{Counter, Histogram};

pub const REQUESTS: &str = "http_requests_total";
pub const DURATION: &str = "http_request_duration_seconds";

/// One request's labels, borrowed.
struct Labels<'a> {
    surface: &'static str,
    route: &'a str,
    method: &'static str,
    status: u16,
}

/// The same labels, owned by the cache.
struct Key {
    surface: &'static str,
    route: Box<str>,
    method: &'static str,
    status: u16,
}

// Both hash the same fields in the same order, so a `Labels` finds its `Key`.
impl Hash for Labels<'_> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        (self.surface, self.route, self.method, self.status).hash(state);
    }
}

impl Hash for Key {
    fn hash<H: Hasher>(&self, state: &mut H) {
        (self.surface, &*self.route, self.method, self.status).hash(state);
    }
}

impl PartialEq for Key {
    fn eq(&self, other: &Self) -> bool {
        Labels::from(self).equivalent(other)
    }
}

impl Eq for Key {}

impl Equivalent<Key> for Labels<'_> {
    fn equivalent(&self, key: &Key) -> bool {
        self.surface == key.surface
            && self.route == &*key.route
            && self.method == key.method
            && self.status == key.status
    }
}

impl<'a> From<&'a Key> for Labels<'a> {
    fn from(key: &'a Key) -> Self {
        Labels {
            surface: key.surface,
            route: &key.route,
            method: key.method,
            status: key.status,
        }
    }
}

struct Handles {
    requests: Counter,
    duration: Histogram,
}

impl Handles {
    fn register(labels: &Labels<'_>) -> Self {
        let route = labels.route.to_owned();
        let status = labels.status.to_string();
        let by_route = [
            ("surface", labels.surface.to_owned()),
            ("route", route),
            ("method", labels.method.to_owned()),
        ];
        let with_status = [
            by_route[0].clone(),
            by_route[1].clone(),
            by_route[2].clone(),
            ("status", status),
        ];
        Self {
            requests: metrics::counter!(REQUESTS, &with_status),
            duration: metrics::histogram!(DURATION, &by_route),
        }
    }
}

thread_local! {
    static HANDLES: RefCell<HashMap<Key, Handles>> = RefCell::new(HashMap::new());
}

/// A label for the method that cannot grow without bound: a client may send
/// any token as a method, and each would otherwise be a new time series.
fn method_label(method: &Method) -> &'static str {
    match *method {
        Method::GET => "GET",
        Method::POST => "POST",
        Method::PUT => "PUT",
        Method::PATCH => "PATCH",
        Method::DELETE => "DELETE",
        Method::HEAD => "HEAD",
        Method::OPTIONS => "OPTIONS",
        _ => "other",
    }
}

/// Counts one request and records its duration.
pub fn record(surface: &'static str, route: &str, method: &Method, status: u16, took: Duration) {
    let labels = Labels {
        surface,
        route,
        method: method_label(method),
        status,
    };
    HANDLES.with_borrow_mut(|handles| {
        let handles = match handles.raw_entry_mut().from_key(&labels) {
            RawEntryMut::Occupied(found) => found.into_mut(),
            RawEntryMut::Vacant(vacant) => {
                let key = Key {
                    surface,
                    route: route.into(),
                    method: labels.method,
                    status,
                };
                vacant.insert(key, Handles::register(&labels)).1
            }
        };
        handles.requests.increment(1);
        handles.duration.record(took.as_secs_f64());
    });
}
