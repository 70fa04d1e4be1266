//! Sandbox identifiers: 26 characters of Crockford base32, as the seed requires.
//! They are ULIDs, so they also sort by creation time.

use std::fmt;

use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct SandboxId(String);

impl SandboxId {
    /// A new id from a millisecond timestamp and 80 random bits.
    pub fn generate(unix_ms: u64, random: u128) -> Self {
        let id = ulid::Ulid::from_parts(unix_ms, random);
        Self(id.to_string())
    }

    pub fn new_random(unix_ms: u64) -> Self {
        Self::generate(unix_ms, rand::random())
    }

    /// Accepts exactly `^[0-9A-HJKMNP-TV-Z]{26}$`.
    pub fn parse(raw: &str) -> Option<Self> {
        let ok = raw.len() == 26 && raw.bytes().all(is_crockford);
        ok.then(|| Self(raw.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

fn is_crockford(b: u8) -> bool {
    b.is_ascii_digit() || (b.is_ascii_uppercase() && !matches!(b, b'I' | b'L' | b'O' | b'U'))
}

impl fmt::Display for SandboxId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_ids_match_the_seed_pattern() {
        for _ in 0..1000 {
            let id = SandboxId::new_random(1_790_000_000_000);
            assert!(SandboxId::parse(id.as_str()).is_some(), "{id}");
        }
    }

    #[test]
    fn parse_rejects_everything_outside_the_alphabet() {
        assert!(SandboxId::parse("01HZY5Q0000000000000000000").is_some());
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
            assert!(SandboxId::parse(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn ids_sort_by_time() {
        let a = SandboxId::generate(1_000, u128::MAX >> 48);
        let b = SandboxId::generate(1_001, 0);
        assert!(a < b);
    }
}
