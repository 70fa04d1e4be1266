//! The partner ring's state: its store, clock, keys, URLs, switches, rate
//! limiter and the directory of partner clients.

use std::sync::Arc;

use lendhub_domain::clock::Clock;
use lendhub_domain::crypto::MasterKey;
use lendhub_domain::tenant::Tenant;
use lendhub_http::idempotency::Idempotency;
use lendhub_store::{
    EventStore, KeyStore, LendingStore, Maintenance, PartnerStore, SandboxStore, Store, UnitOfWork,
};
use lendhub_webhooks::sender::Sender;
use tokio::sync::Notify;

use super::error::PartnerError;

use super::mcp::state::{Mcp, McpState};
use crate::counterparties::Counterparties;
use crate::flows::{Context, Stores};
use crate::keys::KeyRing;
use crate::links::Links;
pub use crate::links::Urls;
use axum::extract::FromRef;

/// What every partner-ring handler shares; cloned per request, so one `Arc`.
#[derive(Clone)]
pub struct PartnerState(Arc<Partner>);

impl std::ops::Deref for PartnerState {
    type Target = Partner;

    fn deref(&self) -> &Partner {
        &self.0
    }
}

pub struct Partner {
    /// Partner projects and revoked tokens.
    pub partners: Arc<dyn PartnerStore>,
    /// The token-signing keys the key ring reads.
    pub key_store: Arc<dyn KeyStore>,
    /// Sandbox clients and applications: a linked sandbox client's
    /// decisions are what the MCP tools explain today.
    pub sandbox: Arc<dyn SandboxStore>,
    /// Answers the status tool's database probe.
    pub health: Arc<dyn Maintenance>,
    /// The REST tier's event log and webhook endpoints.
    pub events: Arc<dyn EventStore>,
    /// The REST tier's applications.
    pub lending: Arc<dyn LendingStore>,
    /// Sub-accounts, and the partner economics to come.
    pub commercial: Arc<dyn lendhub_store::CommercialStore>,
    /// Partner staff and their dashboard sessions.
    pub dashboard: Arc<dyn lendhub_store::DashboardStore>,
    /// The delivery queue, as the dashboard shows an endpoint's deliveries.
    pub jobs: Arc<dyn lendhub_store::JobStore>,
    /// Servicing accounts' ledgers.
    pub servicing: Arc<dyn lendhub_store::ServicingStore>,
    /// Commits writes outside a request (expiries).
    pub units: Arc<dyn UnitOfWork>,
    /// Wakes the expiry sweep: after a test clock moves, expiries may be due.
    pub expiry_wake: Arc<Notify>,
    /// The steps the REST tier shares with the hosted pages, MCP and the CLI.
    pub flows: Context,
    /// Where company numbers are looked up.
    pub register:
        crate::counterparties::PerEnvironment<Arc<dyn crate::counterparties::CompanyRegister>>,
    /// What each environment reaches through stand-ins, not the real
    /// services.
    pub stand_ins: crate::counterparties::PerEnvironment<crate::counterparties::StandIns>,
    /// The test banks a white-label submission names.
    pub banks: Arc<dyn crate::counterparties::OpenBanking>,
    /// Where an applicant on the hosted journey connects their account.
    pub accounts:
        crate::counterparties::PerEnvironment<Arc<dyn crate::counterparties::AccountInformation>>,
    /// Where payers authorise collections (the pay page lists its banks).
    pub payments:
        crate::counterparties::PerEnvironment<Arc<dyn crate::counterparties::BankPayments>>,
    /// The hub's addresses and the links that carry their own credential.
    pub links: Links,
    /// What the MCP tier's handlers hold.
    mcp: McpState,
    /// The REST tier's writes, each at most once per Idempotency-Key.
    pub idempotency: Idempotency<PartnerError>,
    /// Checks webhook URLs; replays deliver through it.
    pub sender: Sender,
    /// Wakes the delivery worker: after a test clock moves, retries may be due.
    pub outbox_wake: Arc<Notify>,
    /// Applications as `GET /applications/{id}` answers them, kept
    /// rendered at their version.
    pub application_pages: Arc<lendhub_http::rendered::Rendered<(Tenant, String), i64>>,
    /// Each environment's newest events page, kept rendered.
    pub event_pages: Arc<lendhub_http::event_pages::EventPages>,
    pub clock: Arc<dyn Clock>,
    pub master_key: MasterKey,
    /// Peppers partner client-secret hashes.
    pub secret_pepper: lendhub_domain::crypto::DerivedKey,
    pub keys: Arc<KeyRing>,
    pub settings: PartnerSettings,
    pub limiter: Arc<super::limits::RateLimiter>,
    /// REST-tier requests counted for the dashboard's charts.
    pub traffic: Arc<super::traffic::Traffic>,
    pub verifications: Arc<super::verifications::Verifications>,
    /// Partner clients and revocations, remembered between store changes.
    pub directory: Arc<super::directory::Directory>,
}

/// The partner ring's switches.
#[derive(Clone, Debug, Default)]
pub struct PartnerSettings {
    /// The REST tier answers 503 until this is switched on.
    pub rest_tier_enabled: bool,
    /// Where the rate limits are kept when instances share them.
    pub shared_limits: Option<Arc<crate::shared_limits::SharedLimits>>,
    /// Browser origins the MCP endpoint accepts (a request without `Origin`
    /// is a server-to-server call and always accepted).
    pub mcp_origins: Vec<String>,
    /// The hosted journey's registration at the identity provider; without
    /// one (no provider, or one that refused the hub's callback address) the
    /// journey answers that applications are not open.
    pub journey: Option<crate::relying_party::RelyingParty>,
    /// The partner dashboard's registration at the identity provider;
    /// without one the dashboard answers that it is not available.
    pub dashboard: Option<crate::relying_party::RelyingParty>,
    /// The lender's operators' addresses (lower-cased): who may use the
    /// operations console.
    pub operators: Arc<[String]>,
    /// Proxies whose `X-Forwarded-For` is believed when a REST-tier call
    /// without credentials is bucketed by address (the public ring's setting).
    pub trusted_proxies: Vec<ipnet::IpNet>,
    /// lendhub's identity provider, which proves a person's access token
    /// (a person reading their company's accounts); without it only
    /// partners' credentials are accepted.
    pub people: Option<Arc<dyn super::people::PersonTokens>>,
    /// England and Wales working days: statements are invoiced on the 2nd
    /// of the month after.
    pub working_days: Arc<lendhub_domain::working_days::WorkingDays>,
    /// Keep rendered application bodies and newest events pages
    /// (`read_caches.enabled`).
    pub read_caches: bool,
    /// Who lends: a party to every agreement, named in every page's footer.
    pub lender: Arc<lendhub_domain::lending::agreement::Lender>,
}

impl PartnerState {
    /// Now on `owner`'s clock (`flows::Context::now_for`).
    pub async fn now_for(
        &self,
        owner: &lendhub_domain::tenant::Tenant,
    ) -> Result<time::OffsetDateTime, lendhub_store::StoreError> {
        self.flows.now_for(owner).await
    }

    /// Takes the whole store and keeps of it only the contexts the ring uses.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        store: Arc<dyn Store>,
        clock: Arc<dyn Clock>,
        master_key: MasterKey,
        keys: Arc<KeyRing>,
        urls: Urls,
        settings: PartnerSettings,
        webhooks: (Sender, Arc<Notify>),
        counterparties: Counterparties,
    ) -> Self {
        let (sender, outbox_wake) = webhooks;
        let limiter = Arc::new(super::limits::RateLimiter::new(
            settings.shared_limits.clone(),
        ));
        let links = Links::new(urls, &master_key);
        let flows = Context::new(
            Stores {
                lending: store.clone(),
                servicing: store.clone(),
                commercial: store.clone(),
                ledger: store.clone(),
                events: store.clone(),
                brands: store.clone(),
                test_clocks: store.clone(),
                units: store.clone(),
                outbox_wake: outbox_wake.clone(),
            },
            master_key.clone(),
            &counterparties,
            links.clone(),
            clock.clone(),
            settings.working_days.clone(),
            settings.lender.clone(),
        );
        let mcp = McpState::new(Mcp {
            lending: store.clone(),
            sandbox: store.clone(),
            health: store.clone(),
            limiter: limiter.clone(),
            origins: settings.mcp_origins.clone(),
            links: links.clone(),
            clock: clock.clone(),
        });
        Self(Arc::new(Partner {
            secret_pepper: super::secrets::pepper(&master_key),
            partners: store.clone(),
            key_store: store.clone(),
            sandbox: store.clone(),
            events: store.clone(),
            lending: store.clone(),
            servicing: store.clone(),
            commercial: store.clone(),
            dashboard: store.clone(),
            jobs: store.clone(),
            units: store.clone(),
            expiry_wake: Arc::default(),
            flows,
            mcp,
            register: counterparties.register,
            stand_ins: counterparties.stand_ins,
            banks: counterparties.banks,
            accounts: counterparties.accounts,
            payments: counterparties.payments,
            links,
            idempotency: Idempotency::new(store.clone(), master_key.clone(), outbox_wake.clone()),
            sender,
            outbox_wake,
            event_pages: Arc::new(lendhub_http::event_pages::EventPages::new(
                settings.read_caches,
            )),
            application_pages: Arc::new(lendhub_http::rendered::Rendered::new(
                settings.read_caches,
            )),
            health: store,
            clock,
            master_key,
            keys,
            settings,
            limiter,
            traffic: Arc::default(),
            verifications: Arc::default(),
            directory: Arc::default(),
        }))
    }
}

impl FromRef<PartnerState> for McpState {
    fn from_ref(ring: &PartnerState) -> Self {
        ring.mcp.clone()
    }
}
