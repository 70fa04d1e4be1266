//! The database an administrative command opens.

use std::sync::Arc;

use anyhow::{Context, bail};
use lendhub_store::Store;

use crate::config::Config;

/// The database an administrative command works on: the server's, found
/// with the same configuration `serve` reads. It must exist already, so a
/// command run from the wrong directory fails instead of quietly creating a
/// database the server never sees; it is named on stderr (stdout stays JSON).
pub(super) async fn open_existing_store(config: &Config) -> anyhow::Result<Arc<dyn Store>> {
    let exists = match &config.database.url {
        Some(_) => {
            let options = crate::server::pg_options(config);
            lendhub_store::postgres::is_initialised(&options)
                .await
                .with_context(|| format!("opening {}", config.database_label()))?
        }
        None => config.database_path().exists(),
    };
    let database = config.database_description();
    if !exists {
        bail!(
            "no lendhub database at {database}. Run this where `lendhub serve` runs, or pass the \
             server's --data-dir DIR (or --database-url URL); `lendhub migrate` creates a new database"
        );
    }
    eprintln!("lendhub: using the database at {database}");
    crate::server::open_store(config).await
}
