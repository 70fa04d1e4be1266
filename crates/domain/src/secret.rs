//! A value that must never reach a log: `Debug` prints `<redacted>` and
//! there is no `Display`, so `{:?}`, `tracing`'s `?field` and a derived
//! `Debug` of any struct holding one cannot leak it. Reading it takes
//! `expose`, which is easy to find in review. It serializes as itself,
//! because a secret is deliberately shown once (a new client's secret, an
//! API key) and read from configuration.

use serde::{Deserialize, Serialize};

#[derive(Clone, Default, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Secret<T>(T);

impl<T> Secret<T> {
    pub fn new(value: T) -> Self {
        Self(value)
    }

    /// The value itself: for the one place that uses it.
    pub fn expose(&self) -> &T {
        &self.0
    }

    pub fn into_exposed(self) -> T {
        self.0
    }
}

impl<T> From<T> for Secret<T> {
    fn from(value: T) -> Self {
        Self(value)
    }
}

impl<T> std::fmt::Debug for Secret<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("<redacted>")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug)]
    #[allow(dead_code)]
    struct Settings {
        user: String,
        password: Secret<String>,
    }

    #[test]
    fn debug_never_shows_the_value_however_deep() {
        let s = Settings {
            user: "ops".into(),
            password: Secret::new("hunter2-correct-horse".into()),
        };
        let printed = format!("{s:?} {s:#?} {:?}", Some(&s.password));
        assert!(!printed.contains("hunter2"), "{printed}");
        assert!(printed.contains("<redacted>"), "{printed}");
        assert_eq!(s.password.expose(), "hunter2-correct-horse");
    }

    #[test]
    fn it_reads_and_writes_as_the_bare_value() {
        let s: Secret<String> = serde_json::from_str("\"k3y\"").unwrap();
        assert_eq!(s.expose(), "k3y");
        assert_eq!(serde_json::to_string(&s).unwrap(), "\"k3y\"");
    }
}
