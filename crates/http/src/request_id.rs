//! Every request gets an id, returned in `x-service-request-id` and quoted in
//! every error body and log line.

use std::fmt;

pub const HEADER: &str = "x-service-request-id";

const PREFIX: &[u8; 4] = b"req_";
const LEN: usize = PREFIX.len() + ulid::ULID_LEN;

/// `req_` and a ULID, held inline: assigning one costs no allocation.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct RequestId([u8; LEN]);

impl RequestId {
    pub fn generate() -> Self {
        Self::from_ulid(ulid::Ulid::new())
    }

    fn from_ulid(ulid: ulid::Ulid) -> Self {
        let mut text = [0u8; LEN];
        text[..PREFIX.len()].copy_from_slice(PREFIX);
        let mut tail = [0u8; ulid::ULID_LEN];
        ulid.array_to_str(&mut tail);
        text[PREFIX.len()..].copy_from_slice(&tail);
        Self(text)
    }

    pub fn as_str(&self) -> &str {
        // Only ASCII is ever written (the prefix and Crockford base32).
        std::str::from_utf8(&self.0).unwrap_or("req_")
    }

    /// The id without its `req_` prefix.
    pub fn unique(&self) -> &str {
        &self.as_str()[PREFIX.len()..]
    }
}

/// Stands in where a response is rendered outside any request (it cannot be
/// confused with a real id: ULIDs of the zero instant are never issued).
impl Default for RequestId {
    fn default() -> Self {
        Self::from_ulid(ulid::Ulid::nil())
    }
}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("RequestId").field(&self.as_str()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_prefixed_ulids_and_distinct() {
        let (a, b) = (RequestId::generate(), RequestId::generate());
        assert_ne!(a, b);
        assert!(a.as_str().starts_with("req_"));
        assert_eq!(a.as_str().len(), 30);
        assert!(ulid::Ulid::from_string(a.unique()).is_ok());
        assert_eq!(
            RequestId::default().as_str(),
            "req_00000000000000000000000000"
        );
    }
}
