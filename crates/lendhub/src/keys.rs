//! The master key that seals secrets at rest and peppers credential hashes.
//! Configured explicitly (`secrets.master_key`, required when several
//! instances share a database) or generated once into the data directory.

use std::io::Write;
use std::path::Path;

use anyhow::{Context, bail};
use lendhub_domain::crypto::MasterKey;
use lendhub_store::KeyStore;
use lendhub_system::GenerateKey;
use subtle::ConstantTimeEq;

use crate::config::{Config, Invalid};

/// What to do when neither `secrets.master_key` nor `<data_dir>/master.key`
/// exists: `serve` sets a new database up and generates one; an
/// administrative command must use the server's key, so it refuses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IfMissing {
    Generate,
    Refuse,
}

pub fn load(config: &Config, if_missing: IfMissing) -> anyhow::Result<MasterKey> {
    if let Some(encoded) = &config.secrets.master_key {
        return MasterKey::from_base64(encoded.expose())
            .map_err(|why| Invalid::new("secrets.master_key", why).into());
    }
    let path = config.data_dir.join("master.key");
    if path.exists() {
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("reading {}", path.display()))?;
        return MasterKey::from_base64(&text)
            .map_err(|why| anyhow::anyhow!("{} is not a valid key: {why}", path.display()));
    }
    if if_missing == IfMissing::Refuse {
        bail!(
            "no master key: {} does not exist and secrets.master_key is not set; pass the server's \
             --data-dir, or set secrets.master_key (LENDHUB_SECRETS__MASTER_KEY) as the server has it \
             (`lendhub serve` makes the file on its first start)",
            std::path::absolute(&path).unwrap_or(path).display()
        );
    }
    let key = MasterKey::generate();
    write_new(&path, &key.to_base64()).with_context(|| format!("writing {}", path.display()))?;
    Ok(key)
}

/// The master key, checked against the database: the first instance records a
/// value derived from its key, and an instance with any other key refuses to
/// start rather than seal secrets the others cannot open.
pub async fn load_checked(
    config: &Config,
    store: &dyn KeyStore,
    if_missing: IfMissing,
) -> anyhow::Result<MasterKey> {
    let key = load(config, if_missing)?;
    let check = key.derive(CHECK_PURPOSE).into_exposed();
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
