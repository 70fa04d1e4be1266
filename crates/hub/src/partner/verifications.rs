//! The cache of verified access tokens.

use std::sync::Arc;

use lendhub_domain::partner::project::AccessClaims;

/// Tokens whose signature, issuer and audience have been checked, with their
/// claims: a token is presented many times in its 300 s life, and the
/// Ed25519 check is the costliest part of every request. The same bytes
/// always verify the same way, so the cache is exact; only the key's
/// continued presence in the ring is re-checked (a rotation can retire it).
/// Keyed through hashbrown's seeded foldhash: SipHash over a token's 300
/// bytes was 3 % of an MCP request; only verified tokens are ever inserted.
#[derive(Default)]
pub struct Verifications(
    parking_lot::Mutex<hashbrown::HashMap<String, Arc<(String, AccessClaims)>>>,
);

/// Beyond this many entries (about 10 MB) the cache starts again; it
/// refills from use.
const VERIFICATIONS: usize = 10_000;

impl Verifications {
    pub(super) fn get(&self, token: &str) -> Option<Arc<(String, AccessClaims)>> {
        self.0.lock().get(token).cloned()
    }

    pub(super) fn put(&self, token: &str, entry: Arc<(String, AccessClaims)>) {
        let mut map = self.0.lock();
        if map.len() >= VERIFICATIONS {
            map.clear();
        }
        map.insert(token.to_owned(), entry);
    }
}
