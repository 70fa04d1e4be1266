//! The master key that seals secrets at rest and peppers credential hashes.
//! Configured explicitly (`secrets.master_key`, required when several
//! instances share a database) or generated once into the data directory.

use std::io::Write;
use std::path::Path;

use anyhow::{Context, bail};
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use lendhub_domain::crypto::MasterKey;
use lendhub_store::Store;
use subtle::ConstantTimeEq;

use crate::config::Config;

pub fn load(config: &Config) -> anyhow::Result<MasterKey> {
    if let Some(encoded) = &config.secrets.master_key {
        return decode(encoded).context("secrets.master_key");
    }
    let path = config.data_dir.join("master.key");
    if path.exists() {
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("reading {}", path.display()))?;
        return decode(text.trim())
            .with_context(|| format!("{} is not a valid key", path.display()));
    }
    let key = MasterKey::generate();
    write_new(&path, &STANDARD.encode(key.as_bytes()))
        .with_context(|| format!("writing {}", path.display()))?;
    Ok(key)
}

/// The master key, checked against the database: the first instance records a
/// value derived from its key, and an instance with any other key refuses to
/// start rather than seal secrets the others cannot open.
pub async fn load_checked(config: &Config, store: &dyn Store) -> anyhow::Result<MasterKey> {
    let key = load(config)?;
    let check = key.derive(CHECK_PURPOSE);
    let recorded = store
        .bind_setting("master_key_check", &check)
        .await
        .context("reading the master-key check")?;
    if !bool::from(recorded.as_slice().ct_eq(&check[..])) {
        bail!(
            "{} was set up with a different master key; every instance must use the same secrets.master_key",
            config.database_label()
        );
    }
    Ok(key)
}

const CHECK_PURPOSE: &str = "lendhub/master-key-check/v1";

fn decode(encoded: &str) -> anyhow::Result<MasterKey> {
    let bytes = STANDARD.decode(encoded.trim()).context("not base64")?;
    let Ok(bytes) = <[u8; 32]>::try_from(bytes.as_slice()) else {
        bail!("must decode to exactly 32 bytes")
    };
    Ok(MasterKey::from_bytes(bytes))
}

/// Created with mode 0600 and never overwritten.
fn write_new(path: &Path, contents: &str) -> std::io::Result<()> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options.open(path)?;
    file.write_all(contents.as_bytes())?;
    file.sync_all()
}
