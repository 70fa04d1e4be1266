//! The partner ring's state: its store, clock, keys, URLs, switches, rate
//! limiter and the directory of partner clients.

use std::sync::Arc;

use lendhub_domain::clock::Clock;
use lendhub_domain::crypto::MasterKey;
use lendhub_domain::partner::credentials::Environment;
use lendhub_domain::tenant::Tenant;
use lendhub_http::idempotency::Idempotency;
use lendhub_store::{
    EventStore, KeyStore, LendingStore, Maintenance, PartnerStore, SandboxStore, Store, UnitOfWork,
};
use lendhub_webhooks::sender::Sender;
use tokio::sync::Notify;

use super::error::PartnerError;

use crate::keys::KeyRing;

/// Where the hub is reached; tokens name these as issuer and audience.
#[derive(Clone, Debug)]
pub struct Urls {
    /// The hub's public base URL, e.g. `https://hub.lendhub.example`: the issuer.
    pub base: String,
    partner: String,
    sandbox: String,
    apply: String,
    pay: String,
}

impl Urls {
    pub fn new(base: &str) -> Self {
        let base = base.trim_end_matches('/').to_owned();
        Self {
            partner: format!("{base}/partner/v1"),
            sandbox: format!("{base}/sandbox/v1"),
            apply: format!("{base}/apply"),
            pay: format!("{base}/pay"),
            base,
        }
    }

    pub fn issuer(&self) -> &str {
        &self.base
    }

    /// The partner ring: the audience of partner access tokens and the
    /// protected resource of RFC 9728.
    pub fn partner(&self) -> &str {
        &self.partner
    }

    /// `{apply_url}`: where the hosted application journey runs.
    pub fn apply(&self) -> &str {
        &self.apply
    }

    /// `{pay_url}`: where payers pay payment links.
    pub fn pay(&self) -> &str {
        &self.pay
    }

    /// Where the REST tier serves an environment: the partner ring for live,
    /// `/sandbox/v1` for test. Also the audience of that environment's tokens.
    pub fn environment(&self, env: Environment) -> &str {
        match env {
            Environment::Live => &self.partner,
            Environment::Test => &self.sandbox,
        }
    }
}

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
    /// Where company numbers are looked up.
    pub register: Arc<dyn crate::counterparties::CompanyRegister>,
    /// Where people are checked (identity, sanctions, PEP, directorship).
    pub people: Arc<dyn crate::counterparties::PersonRegister>,
    /// Where connected business accounts are read.
    pub banks: Arc<dyn crate::counterparties::OpenBanking>,
    /// Where companies' credit files are read.
    pub bureau: Arc<dyn crate::counterparties::CreditBureau>,
    /// Where signed loans are paid out.
    pub rail: Arc<dyn crate::counterparties::FasterPayments>,
    /// Where payers authorise collections.
    pub pisp: Arc<dyn crate::counterparties::PaymentInitiation>,
    /// Signs payment links (`{pay_url}/{id}.{token}`).
    pub pay_link_key: lendhub_domain::crypto::DerivedKey,
    /// The hosted journey's registration at the identity provider.
    pub journey_rp: Option<crate::relying_party::RelyingParty>,
    /// Keys the hosted journey's form tokens (CSRF).
    pub journey_csrf_key: lendhub_domain::crypto::DerivedKey,
    /// Signs applications' handoff links (`lending::handoff_token`).
    pub handoff_key: lendhub_domain::crypto::DerivedKey,
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
    pub urls: Urls,
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
}

impl PartnerState {
    /// Now on `owner`'s clock: the service clock, moved by the owner's test
    /// clock in the test environment. For work outside a partner's request
    /// (the hosted pages, operator acts), which has no `RestCaller`.
    pub async fn now_for(
        &self,
        owner: &lendhub_domain::tenant::Tenant,
    ) -> Result<time::OffsetDateTime, lendhub_store::StoreError> {
        let offset = self.sandbox.clock_offset(owner).await?;
        Ok(lendhub_domain::sandbox::test_clock::ClientClock::new(offset).now(self.clock.now()))
    }

    /// Takes the whole store and keeps of it only the contexts the ring uses.
    pub fn new(
        store: Arc<dyn Store>,
        clock: Arc<dyn Clock>,
        master_key: MasterKey,
        keys: Arc<KeyRing>,
        urls: Urls,
        settings: PartnerSettings,
        webhooks: (Sender, Arc<Notify>),
    ) -> Self {
        let (sender, outbox_wake) = webhooks;
        let limiter = Arc::new(super::limits::RateLimiter::new(
            settings.shared_limits.clone(),
        ));
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
            register: Arc::new(crate::counterparties::SyntheticRegister),
            people: Arc::new(crate::counterparties::SyntheticPeople),
            banks: Arc::new(crate::counterparties::SyntheticBanks),
            bureau: Arc::new(crate::counterparties::SyntheticBureau),
            rail: Arc::new(crate::counterparties::SyntheticFasterPayments),
            pisp: Arc::new(crate::counterparties::SyntheticPaymentInitiation),
            pay_link_key: master_key.derive("pay-link"),
            journey_rp: settings.journey.clone(),
            journey_csrf_key: master_key.derive("apply-csrf"),
            handoff_key: master_key.derive("handoff-link"),
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
            urls,
            settings,
            limiter,
            traffic: Arc::default(),
            verifications: Arc::default(),
            directory: Arc::default(),
        }))
    }
}
