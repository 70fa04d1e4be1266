//! Idempotency keys: their syntax and the fingerprint of the request they guard.

use sha2::{Digest, Sha256};

/// First responses are kept at least this long.
pub const RETENTION: time::Duration = time::Duration::hours(24);

/// 8–128 printable ASCII characters without spaces.
pub fn valid_key(key: &str) -> bool {
    (8..=128).contains(&key.len()) && key.bytes().all(|b| b.is_ascii_graphic())
}

/// What "the same request" means: caller, method, path and body bytes.
pub fn fingerprint(caller: &str, method: &str, path: &str, body: &[u8]) -> [u8; 32] {
    let mut h = Sha256::new();
    for part in [caller.as_bytes(), method.as_bytes(), path.as_bytes()] {
        h.update((part.len() as u64).to_be_bytes());
        h.update(part);
    }
    h.update(body);
    h.finalize().into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_bounds() {
        assert!(!valid_key("1234567"));
        assert!(valid_key("12345678"));
        assert!(valid_key(&"k".repeat(128)));
        assert!(!valid_key(&"k".repeat(129)));
        assert!(!valid_key("has space"));
        assert!(!valid_key("naïve-key-1"));
    }

    #[test]
    fn fingerprint_separates_fields() {
        assert_ne!(
            fingerprint("a", "POST", "/b", b""),
            fingerprint("a", "POST", "/", b"b")
        );
        assert_eq!(
            fingerprint("a", "POST", "/b", b"{}"),
            fingerprint("a", "POST", "/b", b"{}")
        );
    }
}
