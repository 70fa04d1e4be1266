//! Sandbox identifiers: 26 characters of Crockford base32, as the seed requires.
//! They are ULIDs, so they also sort by creation time.
//!
//! Each entity has its own id type (`ApplicationId`, `PaymentId`, `EventId`,
//! `EndpointId`): one shape, told apart by a marker, so an application's id
//! cannot be passed where a payment's is expected.

use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::marker::PhantomData;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// What a [`SandboxId`] identifies.
pub mod kind {
    /// An id whose entity is not known (a cursor, a path segment before lookup).
    #[derive(Debug)]
    pub enum Any {}
    #[derive(Debug)]
    pub enum Application {}
    #[derive(Debug)]
    pub enum Payment {}
    #[derive(Debug)]
    pub enum Event {}
    #[derive(Debug)]
    pub enum Endpoint {}
}

pub type ApplicationId = SandboxId<kind::Application>;
pub type PaymentId = SandboxId<kind::Payment>;
pub type EventId = SandboxId<kind::Event>;
pub type EndpointId = SandboxId<kind::Endpoint>;

pub struct SandboxId<K = kind::Any> {
    text: String,
    kind: PhantomData<fn() -> K>,
}

impl<K> SandboxId<K> {
    fn of(text: String) -> Self {
        Self {
            text,
            kind: PhantomData,
        }
    }

    /// A new id from a millisecond timestamp and 80 random bits.
    pub fn generate(unix_ms: u64, random: u128) -> Self {
        Self::of(ulid::Ulid::from_parts(unix_ms, random).to_string())
    }

    /// Accepts exactly `^[0-9A-HJKMNP-TV-Z]{26}$`.
    pub fn parse(raw: &str) -> Option<Self> {
        let ok = raw.len() == 26 && raw.bytes().all(is_crockford);
        ok.then(|| Self::of(raw.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.text
    }
}

impl<K> Clone for SandboxId<K> {
    fn clone(&self) -> Self {
        Self::of(self.text.clone())
    }
}

impl<K> fmt::Debug for SandboxId<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.text, f)
    }
}

impl<K> PartialEq for SandboxId<K> {
    fn eq(&self, other: &Self) -> bool {
        self.text == other.text
    }
}

impl<K> Eq for SandboxId<K> {}

impl<K> Hash for SandboxId<K> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.text.hash(state)
    }
}

impl<K> PartialOrd for SandboxId<K> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl<K> Ord for SandboxId<K> {
    fn cmp(&self, other: &Self) -> Ordering {
        self.text.cmp(&other.text)
    }
}

impl<K> Serialize for SandboxId<K> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.text)
    }
}

/// Stored documents are trusted to hold ids lendhub wrote; the shape is
/// still checked, so a corrupted document fails loudly.
impl<'de, K> Deserialize<'de> for SandboxId<K> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        Self::parse(&text)
            .ok_or_else(|| serde::de::Error::custom(format!("{text:?} is not a sandbox id")))
    }
}

fn is_crockford(b: u8) -> bool {
    b.is_ascii_digit() || (b.is_ascii_uppercase() && !matches!(b, b'I' | b'L' | b'O' | b'U'))
}

impl<K> fmt::Display for SandboxId<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// The id of an event or a webhook endpoint as its surface published it:
/// the sandbox's 26 Crockford characters or the hub's prefixed form
/// (`evt_…`, `whe_…`). The event log, the outbox and the delivery engine are
/// shared by both surfaces and carry either; each surface parses its own
/// form at its edge and makes new ones of its own kind.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct PublishedId(String);

impl PublishedId {
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// An id read back from storage, where only published ids are written.
    pub fn from_stored(text: String) -> Self {
        Self(text)
    }
}

impl fmt::Display for PublishedId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl<K> From<SandboxId<K>> for PublishedId {
    fn from(id: SandboxId<K>) -> Self {
        Self(id.text)
    }
}

impl From<crate::ids::EventId> for PublishedId {
    fn from(id: crate::ids::EventId) -> Self {
        Self(crate::ids::HubId::as_str(&id).to_owned())
    }
}

impl From<crate::ids::WebhookEndpointId> for PublishedId {
    fn from(id: crate::ids::WebhookEndpointId) -> Self {
        Self(crate::ids::HubId::as_str(&id).to_owned())
    }
}

impl PartialEq<str> for PublishedId {
    fn eq(&self, other: &str) -> bool {
        self.0 == other
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Spread-out 80-bit values without a random generator.
    fn rand_like(i: u128) -> u128 {
        i.wrapping_mul(0x9E37_79B9_7F4A_7C15_F39C_C060_5CED_C835) >> 48
    }

    #[test]
    fn generated_ids_match_the_seed_pattern() {
        for i in 0..1000 {
            let id: SandboxId = SandboxId::generate(1_790_000_000_000, rand_like(i));
            assert!(SandboxId::<kind::Any>::parse(id.as_str()).is_some(), "{id}");
        }
    }

    #[test]
    fn parse_rejects_everything_outside_the_alphabet() {
        assert!(SandboxId::<kind::Any>::parse("01HZY5Q0000000000000000000").is_some());
        for bad in [
            "01HZY5Q000000000000000000",   // 25 chars
            "01HZY5Q00000000000000000000", // 27 chars
            "01HZY5Q000000000000000000I",
            "01HZY5Q000000000000000000L",
            "01HZY5Q000000000000000000O",
            "01HZY5Q000000000000000000U",
            "01hzy5q0000000000000000000",
            "01HZY5Q00000000000000000-0",
        ] {
            assert!(SandboxId::<kind::Any>::parse(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn ids_sort_by_time() {
        let a: SandboxId = SandboxId::generate(1_000, u128::MAX >> 48);
        let b = SandboxId::generate(1_001, 0);
        assert!(a < b);
    }
}
