//! The storage interface, one narrow trait per context, each implemented
//! once (`queries/`) over a dialect-neutral executor (`exec/`) that the
//! SQLite and PostgreSQL backends run.
//!
//! A consumer holds the narrowest trait it needs (`Arc<dyn SandboxStore>`,
//! `Arc<dyn JobStore>`, …); only the server, which wires the surfaces
//! together, holds the whole [`Store`]. Records and write variants live with
//! their context (`context/`); nothing backend-specific crosses this line.
//! `docs/architecture.md` has the map. A request's unit of work is planned
//! once (`unit/`), and the lock order per context is in `unit/mod.rs`.

mod context;
pub mod epoch_cache;
mod error;
pub mod exec;
mod identity;
pub mod plans;
pub mod postgres;
mod public;
pub(crate) mod queries;
mod sql;
pub mod sqlite;
mod unit;

pub use context::brand::*;
pub use context::dashboard::*;
pub use context::events::*;
pub use context::jobs::*;
pub use context::keys::*;
pub use context::ledger::*;
pub use context::maintenance::*;
pub use context::partner::*;
pub use context::rest::*;
pub use context::sandbox::*;
pub use context::status::*;
pub use context::writes::*;
pub use error::{CommitError, StoreError};
pub use identity::*;
pub use lendhub_domain::paging::{self, Page, PageQuery};
pub use public::*;

/// The whole database: every context's trait, for the one place that hands
/// each surface, worker and command the part it needs.
pub trait Store:
    SandboxStore
    + EventStore
    + UnitOfWork
    + JobStore
    + PartnerStore
    + KeyStore
    + IdentityDirectory
    + SignInStore
    + PublicStore
    + LendingStore
    + ServicingStore
    + CommercialStore
    + LedgerStore
    + Maintenance
    + StatusStore
    + DashboardStore
    + BrandStore
    + 'static
{
}

impl<T> Store for T where
    T: SandboxStore
        + EventStore
        + UnitOfWork
        + JobStore
        + PartnerStore
        + KeyStore
        + IdentityDirectory
        + SignInStore
        + PublicStore
        + LendingStore
        + ServicingStore
        + CommercialStore
        + LedgerStore
        + Maintenance
        + StatusStore
        + DashboardStore
        + BrandStore
        + 'static
{
}
