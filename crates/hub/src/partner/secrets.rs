//! The key partner client secrets are hashed under.

use lendhub_domain::crypto::{DerivedKey, MasterKey};

/// Derived from the master key, so every instance hashes a presented secret
/// the same way and the database holds only the hash.
pub fn pepper(master_key: &MasterKey) -> DerivedKey {
    master_key.derive("partner-client-secret")
}
