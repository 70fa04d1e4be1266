//! The REST tier's contexts on this backend: empty until their resources
//! land (`crate::context::rest`).

use async_trait::async_trait;

use super::SqliteStore;
use crate::{CommercialStore, LendingStore, ServicingStore};

#[async_trait]
impl LendingStore for SqliteStore {}

#[async_trait]
impl ServicingStore for SqliteStore {}

#[async_trait]
impl CommercialStore for SqliteStore {}
