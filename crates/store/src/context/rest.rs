//! Homes for the hub's REST tier (issues #14–#17). Each is empty until its
//! resources land; a resource adds its methods and records here, its SQL to
//! each backend's module of the same name, and its cases to the conformance
//! suite's module of the same name (`docs/architecture.md`, "Adding a REST
//! resource").

use async_trait::async_trait;

/// Applications, decisions and the hosted journey (issue #15).
#[async_trait]
pub trait LendingStore: Send + Sync {}

/// Servicing accounts, the ledger, payment links and schedules (issue #16).
#[async_trait]
pub trait ServicingStore: Send + Sync {}

/// The marketplace and partner economics (issue #17).
#[async_trait]
pub trait CommercialStore: Send + Sync {}
