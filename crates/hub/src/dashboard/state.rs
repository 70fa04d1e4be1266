//! What the partner dashboard holds: its staff and their sessions, the
//! partner records it manages, the reads behind its pages, its registration
//! at the identity provider, the key that seals its sessions, and the flows
//! its forms run. No counterparty: the dashboard moves no money and checks
//! no one; it only says which environment reaches stand-ins.

use std::sync::Arc;

use lendhub_domain::clock::Clock;
use lendhub_domain::crypto::{DerivedKey, MasterKey};
use lendhub_store::{
    CommercialStore, DashboardStore, EventStore, JobStore, LendingStore, PartnerStore,
    ServicingStore,
};

use crate::counterparties::{PerEnvironment, StandIns};
use crate::flows::Context;
use crate::links::Links;
use crate::partner::directory::Directory;
use crate::partner::traffic::Traffic;
use crate::relying_party::RelyingParty;

#[derive(Clone)]
pub struct DashboardState {
    /// Partner staff, their invitations and dashboard sessions.
    pub dashboard: Arc<dyn DashboardStore>,
    /// Partner clients, their API keys and secrets.
    pub partners: Arc<dyn PartnerStore>,
    /// The pages' reads: applications, accounts and payments, statements,
    /// webhook endpoints and their deliveries.
    pub lending: Arc<dyn LendingStore>,
    pub servicing: Arc<dyn ServicingStore>,
    pub commercial: Arc<dyn CommercialStore>,
    pub events: Arc<dyn EventStore>,
    pub jobs: Arc<dyn JobStore>,
    /// The dashboard's registration at the identity provider; without one
    /// the dashboard answers that it is not available.
    pub rp: Option<RelyingParty>,
    /// Who may use the operations console (lower-cased addresses).
    pub operators: Arc<[String]>,
    /// Seals session cookies and webhook secrets.
    pub master_key: MasterKey,
    /// Peppers partner client-secret hashes.
    pub secret_pepper: DerivedKey,
    /// REST-tier requests counted for the charts.
    pub traffic: Arc<Traffic>,
    /// Partner clients remembered between store changes; told of a change.
    pub directory: Arc<Directory>,
    pub links: Links,
    pub clock: Arc<dyn Clock>,
    pub flows: Context,
    /// What each environment reaches through stand-ins, shown on every page.
    pub stand_ins: PerEnvironment<StandIns>,
}
