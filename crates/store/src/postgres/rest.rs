//! The REST tier's contexts on this backend: empty until their resources
//! land (`crate::context::rest`).

use async_trait::async_trait;

use super::PgStore;
use crate::{CommercialStore, LendingStore, ServicingStore};

#[async_trait]
impl LendingStore for PgStore {}

#[async_trait]
impl ServicingStore for PgStore {}

#[async_trait]
impl CommercialStore for PgStore {}
