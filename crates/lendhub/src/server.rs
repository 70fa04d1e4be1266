//! Wires the surfaces to their listeners and runs the background work:
//! the webhook outbox, the referral reviews and the retention pruner. `start` is what `lendhub serve`
//! runs and what the tests run in-process.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use axum::Router;
use axum::middleware::from_fn;
use lendhub_domain::clock::Clock;
use lendhub_domain::crypto::MasterKey;
use lendhub_http::Edge;
use lendhub_http::around::Around;
use lendhub_jobs::{Queue, Settings, Worker};
use lendhub_store::postgres::{PgOptions, PgStore};
use lendhub_store::sqlite::SqliteStore;
use lendhub_store::{Maintenance, Store};
use lendhub_webhooks::policy::NetworkPolicy;
use lendhub_webhooks::sender::Sender;
use lendhub_webhooks::worker::Deliveries;
use tokio::net::TcpListener;
use tokio::sync::Notify;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;
use tower::ServiceBuilder;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::timeout::TimeoutLayer;

use crate::config::{Config, Invalid};

pub struct Server {
    pub sandbox_addr: SocketAddr,
    pub hub_addr: SocketAddr,
    /// The identity provider's listener.
    pub sso_addr: SocketAddr,
    pub ops_addr: SocketAddr,
    /// The status page's listener.
    pub status_addr: SocketAddr,
    /// The status page's public base URL (`{status_url}`).
    pub status_url: String,
    /// Starts a status probe round now (tests, after stopping something).
    pub status_wake: Arc<Notify>,
    pub sandbox_url: String,
    /// The hub's public base URL: the issuer of partner tokens.
    pub hub_url: String,
    /// The identity provider's public base URL: the issuer of ID tokens.
    pub sso_url: String,
    /// Wakes the outbox worker (tests poke it after moving the clock).
    pub outbox_wake: Arc<Notify>,
    /// Runs the retention job now (tests, after moving the clock).
    pub prune_wake: Arc<Notify>,
    /// Wakes the referral worker (likewise).
    pub referrals_wake: Arc<Notify>,
    /// Wakes the application-expiry worker (likewise).
    pub expiry_wake: Arc<Notify>,
    /// Wakes the enquiry-notification worker.
    pub mail_wake: Arc<Notify>,
    pub store: Arc<dyn Store>,
    pub master_key: MasterKey,
    stop: CancellationToken,
    tasks: Vec<JoinHandle<()>>,
}

/// No request may hang: past this a request answers 503 (retryable; writes
/// are idempotent, so a retry with the same key is safe).
const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

/// The layers every surface shares, outermost first: the edge (request id,
/// panic → 500, error envelope, access log, metrics), then timeout → 503. Added
/// with one `Router::layer` call: each call wraps every route in another
/// boxed service that is cloned per request.
pub fn surface(router: Router, edge: Edge) -> Router {
    router.layer(ServiceBuilder::new().layer(edge).layer(timeout()))
}

fn timeout() -> TimeoutLayer {
    TimeoutLayer::with_status_code(axum::http::StatusCode::SERVICE_UNAVAILABLE, REQUEST_TIMEOUT)
}

/// The hub's layers: as `surface`, inside the one that sets the hub's id
/// headers, so that it sees every response, timeouts included.
fn hub_surface(router: Router) -> Router {
    router.layer(
        ServiceBuilder::new()
            .layer(Around(lendhub_hub::HubIdHeaders))
            .layer(Edge::new("hub", lendhub_hub::render_problem))
            .layer(timeout()),
    )
}

/// The identity provider's layers: as `surface`, except that its errors are
/// RFC 6749 bodies and HTML pages rather than an envelope, rendered by the
/// provider itself (`finish_errors` gives a body to those that have none,
/// so panics are caught inside it).
fn sso_surface(router: Router) -> Router {
    router.layer(
        ServiceBuilder::new()
            .layer(Edge::without_envelope("sso"))
            .layer(from_fn(lendhub_idp::finish_errors))
            .layer(CatchPanicLayer::new())
            .layer(timeout()),
    )
}

fn ops_router(store: Arc<dyn Maintenance>) -> Router {
    use axum::routing::get;
    let metrics = || async {
        crate::telemetry::metrics()
            .map(|h| h.render())
            .unwrap_or_default()
    };
    let health = move || {
        let store = store.clone();
        async move {
            match store.ping().await {
                Ok(()) => (
                    axum::http::StatusCode::OK,
                    axum::Json(serde_json::json!({"status": "ok", "database": "ok"})),
                ),
                Err(_) => (
                    axum::http::StatusCode::SERVICE_UNAVAILABLE,
                    axum::Json(serde_json::json!({"status": "degraded", "database": "down"})),
                ),
            }
        }
    };
    Router::new()
        .route("/metrics", get(metrics))
        .route("/healthz", get(health))
}

/// Opens the configured backend and applies pending migrations. The rest of
/// the program sees only `Store`.
pub async fn open_store(config: &Config) -> anyhow::Result<Arc<dyn Store>> {
    if config.database.url.is_some() {
        let options = pg_options(config);
        let store = PgStore::connect(&options)
            .await
            .with_context(|| format!("opening {}", config.database_label()))?;
        return Ok(Arc::new(store));
    }
    std::fs::create_dir_all(&config.data_dir)
        .with_context(|| format!("creating data directory {}", config.data_dir.display()))?;
    let store = SqliteStore::open(&config.database_path())
        .with_context(|| format!("opening {}", config.database_label()))?;
    if !config.read_caches.enabled {
        return Ok(Arc::new(store.forgetting_reads()));
    }
    Ok(Arc::new(store))
}

/// The PostgreSQL connection settings; `database.url` must be set.
pub(crate) fn pg_options(config: &Config) -> PgOptions {
    PgOptions {
        url: config
            .database
            .url
            .as_ref()
            .map(|u| u.expose().clone())
            .unwrap_or_default(),
        pool_size: config.database.pool_size,
        timeout: Duration::from_millis(config.database.timeout_ms),
        statement_timeout: Duration::from_millis(config.database.statement_timeout_ms),
    }
}

/// What every surface and worker is built from.
#[derive(Clone)]
struct Core {
    store: Arc<dyn Store>,
    clock: Arc<dyn Clock>,
    master_key: MasterKey,
    /// The job workers' defaults: this instance's lease holder, one-second
    /// idle polls.
    jobs: Settings,
}

impl Core {
    fn worker<Q: Queue>(&self, queue: Q, wake: Arc<Notify>, settings: Settings) -> Worker<Q> {
        Worker::new(Arc::new(queue), self.clock.clone(), wake, settings)
    }
}

async fn bind(addr: SocketAddr, key: &str) -> anyhow::Result<TcpListener> {
    TcpListener::bind(addr)
        .await
        .with_context(|| format!("binding {key} {addr}"))
}

/// A listener with its router and the URL it is known by.
struct Listening {
    listener: TcpListener,
    router: Router,
    addr: SocketAddr,
    url: String,
}

/// The sandbox surface, and its state for the referral worker.
async fn sandbox(
    config: &Config,
    core: &Core,
    sender: Sender,
    outbox_wake: Arc<Notify>,
) -> anyhow::Result<(Listening, lendhub_sandbox::SandboxState)> {
    let state = lendhub_sandbox::SandboxState::new(
        core.store.clone(),
        core.clock.clone(),
        core.master_key.clone(),
        sender,
        outbox_wake,
        config.sandbox.token_ttl_seconds,
        config.read_caches.enabled,
    );
    let router = surface(
        lendhub_sandbox::router(state.clone()),
        Edge::new("sandbox", lendhub_sandbox::render_problem),
    );
    let listener = bind(config.sandbox.addr, "sandbox.addr").await?;
    let addr = listener.local_addr()?;
    let url = config.sandbox.public_url.as_ref().map_or_else(
        || format!("http://{addr}"),
        |u| u.as_str().trim_end_matches('/').to_owned(),
    );
    let listening = Listening {
        listener,
        router,
        addr,
        url,
    };
    Ok((listening, state))
}

/// The hub (partner and public rings), and its tasks: the one that keeps its
/// partner directory in step with the store, and the expiry of open
/// applications (woken by `expiry_wake` when a clock moves).
async fn hub(
    config: &Config,
    core: &Core,
    mail_wake: Arc<Notify>,
    webhooks: (Sender, Arc<Notify>),
    (sso_url, people): (&str, Arc<crate::people::IdpPeople>),
    stop: &CancellationToken,
) -> anyhow::Result<(Listening, Vec<JoinHandle<()>>, Arc<Notify>)> {
    let listener = bind(config.hub.addr, "hub.addr").await?;
    let addr = listener.local_addr()?;
    let url = config.hub.public_url(addr);
    let keys =
        lendhub_hub::KeyRing::load(core.store.as_ref(), &core.master_key, core.clock.now_ms())
            .await
            .context("loading the partner token-signing keys")?;
    let shared_limits = match &config.limits.shared_url {
        None => None,
        Some(url) => Some(Arc::new(
            lendhub_hub::shared_limits::SharedLimits::new(url.expose())
                .map_err(|e| crate::config::Invalid::named(e.to_string()))?,
        )),
    };
    let mut public_settings = public_settings(config)?;
    public_settings.shared_limits = shared_limits.clone();
    let public = lendhub_hub::public::PublicRing::new(public_settings, mail_wake)?;
    let settings = lendhub_hub::PartnerSettings {
        rest_tier_enabled: config.rest_tier.enabled,
        shared_limits,
        mcp_origins: config.mcp.allowed_origins.clone(),
        trusted_proxies: config.public.trusted_proxies.clone(),
        journey: register_journey(core, sso_url, &url).await,
        dashboard: register_dashboard(core, sso_url, &url).await,
        operators: config
            .lender
            .operators
            .iter()
            .map(|e| e.trim().to_lowercase())
            .collect(),
        people: Some(people),
        working_days: Arc::new(config.rest_tier.working_days()?),
        read_caches: config.read_caches.enabled,
        lender: Arc::new(config.lender.party()),
    };
    let (banks, rails, model_bank_books) =
        crate::counterparties::open_banking(config, &url, &core.clock, stop).await?;
    let state = lendhub_hub::HubState {
        partner: lendhub_hub::PartnerState::new(
            core.store.clone(),
            core.clock.clone(),
            core.master_key.clone(),
            Arc::new(keys),
            lendhub_hub::Urls::new(&url),
            settings,
            webhooks,
            lendhub_hub::counterparties::Counterparties::new(
                crate::counterparties::company_registers(&config.counterparties, &core.clock)
                    .await?,
                rails,
                banks,
                crate::counterparties::checks(&config.counterparties).await?,
                crate::counterparties::model_servers(&config.counterparties),
            ),
        ),
        public: lendhub_hub::PublicState::new(
            core.store.clone(),
            core.clock.clone(),
            public,
            core.master_key.clone(),
        ),
    };
    let directory_sync = tokio::spawn(
        state
            .partner
            .directory
            .clone()
            .run(core.store.clone(), stop.clone().cancelled_owned()),
    );
    let traffic = tokio::spawn(
        state
            .partner
            .traffic
            .clone()
            .run(core.store.clone(), stop.clone().cancelled_owned()),
    );
    let expiry_wake = state.partner.expiry_wake.clone();
    let expiries = core.worker(
        lendhub_hub::flows::sweep::Sweep::new(
            state.partner.flows.clone(),
            config.reconciliation.daily,
            lendhub_hub::flows::monitor_models::Settings {
                weekly: config.model_monitoring.weekly,
                min_decisions: config.model_monitoring.min_decisions,
                operators: state.partner.settings.operators.clone(),
            },
        ),
        expiry_wake.clone(),
        core.jobs.clone(),
    );
    let expiries = tokio::spawn(expiries.run(stop.clone()));
    let router = hub_surface(lendhub_hub::router(state).merge(docs()));
    let listening = Listening {
        listener,
        router,
        addr,
        url,
    };
    let mut tasks = vec![directory_sync, traffic, expiries];
    tasks.extend(model_bank_books);
    Ok((listening, tasks, expiry_wake))
}

/// The API reference at `{base_url}/docs`: the three documents lendhub
/// serves, and the README's walk-throughs as guides.
fn docs() -> Router {
    use lendhub_docs::Reference;
    fn json(spec: utoipa::openapi::OpenApi) -> String {
        spec.to_json().unwrap_or_default()
    }
    let references = vec![
        Reference::new(
            "sandbox",
            "Sandbox API",
            "the sandbox partner API: tokens, applications, payments, webhooks, events and test helpers.",
            || json(lendhub_sandbox::openapi()),
        ),
        Reference::new(
            "partner",
            "Partner API",
            "the partner ring: OAuth tokens, introspection, MCP, and the REST tier (applications, decisions, accounts, payments, webhooks, events, marketplace, billing, sub-accounts).",
            || json(lendhub_hub::openapi()),
        ),
        Reference::new(
            "public",
            "Public API",
            "the public ring: pricing, products, quotes, billers, content pages, enquiries and the public MCP server.",
            || json(lendhub_hub::public_openapi()),
        ),
    ];
    lendhub_docs::router(references)
}

/// Registers the hosted journey at the identity provider under its fixed
/// client id, with this hub's callback address. A hub address the provider
/// cannot accept as a redirect URI (plain HTTP off loopback) leaves the
/// journey switched off, which is logged rather than fatal: the rest of the
/// hub works.
async fn register_journey(
    core: &Core,
    sso_url: &str,
    hub_url: &str,
) -> Option<lendhub_hub::relying_party::RelyingParty> {
    let apply_url = lendhub_hub::Urls::new(hub_url).apply().to_owned();
    let rp = lendhub_hub::relying_party::RelyingParty::new(sso_url, &apply_url, &core.master_key);
    register_own(
        core,
        rp,
        lendhub_hub::relying_party::JOURNEY_CLIENT_NAME,
        "the hosted application journey",
    )
    .await
}

/// Registers the partner dashboard at the identity provider, as the journey.
async fn register_dashboard(
    core: &Core,
    sso_url: &str,
    hub_url: &str,
) -> Option<lendhub_hub::relying_party::RelyingParty> {
    let rp =
        lendhub_hub::relying_party::RelyingParty::dashboard(sso_url, hub_url, &core.master_key);
    register_own(
        core,
        rp,
        lendhub_hub::relying_party::DASHBOARD_CLIENT_NAME,
        "the partner dashboard",
    )
    .await
}

/// One of lendhub's own relying parties registered (or brought up to date)
/// at its identity provider; `None`, logged, when that cannot be done.
async fn register_own(
    core: &Core,
    rp: Result<lendhub_hub::relying_party::RelyingParty, lendhub_hub::relying_party::ClientError>,
    name: &'static str,
    what: &str,
) -> Option<lendhub_hub::relying_party::RelyingParty> {
    let rp = rp
        .map_err(|e| tracing::warn!(error = %e, "{what} is off"))
        .ok()?;
    let client = lendhub_idp::clients::OwnClient {
        client_id: rp.client_id,
        name,
        redirect_uri: &rp.redirect_uri,
        post_logout_redirect_uris: &rp.post_logout_redirect_uris,
        secret: rp.client_secret.expose(),
    };
    let registered = lendhub_idp::clients::register_own(
        core.store.as_ref(),
        &core.master_key,
        client,
        core.clock.now_ms(),
    )
    .await;
    match registered {
        Ok(()) => Some(rp),
        Err(e) => {
            tracing::warn!(error = %e, "{what} is off: the identity provider cannot register it");
            None
        }
    }
}

/// The identity provider, and the task that keeps its remembered access
/// grants in step with the store.
async fn sso(
    config: &Config,
    core: &Core,
    stop: &CancellationToken,
) -> anyhow::Result<(Listening, JoinHandle<()>, Arc<lendhub_idp::grants::Grants>)> {
    let listener = bind(config.sso.addr, "sso.addr").await?;
    let addr = listener.local_addr()?;
    let url = config.sso.public_url(addr);
    let keys =
        lendhub_idp::KeyRing::load(core.store.as_ref(), &core.master_key, core.clock.now_ms())
            .await
            .context("loading the ID-token signing keys")?;
    let state = lendhub_idp::IdpState::new(
        core.store.clone(),
        core.clock.clone(),
        &core.master_key,
        Arc::new(keys),
        lendhub_idp::Urls::new(&url),
        config.public.trusted_proxies.clone(),
    );
    let grants_sync = tokio::spawn(
        state
            .grants
            .clone()
            .run(core.store.clone(), stop.clone().cancelled_owned()),
    );
    let grants = state.grants.clone();
    let router = sso_surface(lendhub_idp::router(state));
    let listening = Listening {
        listener,
        router,
        addr,
        url,
    };
    Ok((listening, grants_sync, grants))
}

/// The sandbox's job workers: webhook delivery, woken when a commit queues
/// deliveries, and referral reviews, woken when a clock moves; and the task
/// that keeps its remembered clients in step with the store.
fn sandbox_workers(
    core: &Core,
    sandbox: lendhub_sandbox::SandboxState,
    sender: Sender,
    mail_wake: Arc<Notify>,
    stop: &CancellationToken,
) -> [JoinHandle<()>; 3] {
    let clients_sync = tokio::spawn(
        sandbox
            .clients
            .clone()
            .run(core.store.clone(), stop.clone().cancelled_owned()),
    );
    let outbox_wake = sandbox.outbox_wake.clone();
    let deliveries = core.worker(
        Deliveries {
            jobs: core.store.clone(),
            writes: core.store.clone(),
            sender,
            master_key: core.master_key.clone(),
            wake: outbox_wake.clone(),
            mail_wake,
            endpoint_events: Arc::new(lendhub_webhooks::worker::BySurface {
                sandbox: Arc::new(lendhub_sandbox::EndpointEventRenderer),
                hub: Arc::new(lendhub_hub::flows::endpoint_disabled::EndpointEventRenderer),
            }),
        },
        outbox_wake,
        core.jobs.clone(),
    );
    let referrals_wake = sandbox.referrals_wake.clone();
    let reviews = core.worker(
        lendhub_sandbox::referrals::Reviews { state: sandbox },
        referrals_wake,
        core.jobs.clone(),
    );
    [
        tokio::spawn(deliveries.run(stop.clone())),
        tokio::spawn(reviews.run(stop.clone())),
        clients_sync,
    ]
}

/// The enquiry-notification worker, when there is an SMTP server to send to.
fn mail_worker(
    config: &Config,
    core: &Core,
    wake: Arc<Notify>,
    stop: &CancellationToken,
) -> anyhow::Result<Option<JoinHandle<()>>> {
    let Some(mailer) =
        lendhub_mail::Mailer::new(&config.smtp).map_err(|e| Invalid::named(e.to_string()))?
    else {
        tracing::warn!(
            "smtp.host is not set: enquiry notifications are kept in the outbox until it is"
        );
        return Ok(None);
    };
    let notifications = lendhub_mail::Notifications {
        jobs: core.store.clone(),
        mailer,
    };
    let settings = Settings {
        // Outlives the SMTP timeout, so a live worker's send is never taken over.
        lease: Duration::from_secs(60),
        batch: 16,
        concurrency: 1,
        ..core.jobs.clone()
    };
    let mail = core.worker(notifications, wake, settings);
    Ok(Some(tokio::spawn(mail.run(stop.clone()))))
}

pub async fn start(
    config: &Config,
    store: Arc<dyn Store>,
    master_key: MasterKey,
    clock: Arc<dyn Clock>,
) -> anyhow::Result<Server> {
    if crate::telemetry::metrics().is_some() {
        lendhub_webhooks::worker::register_metrics();
        lendhub_mail::worker::register_metrics();
    }
    let core = Core {
        store: store.clone(),
        clock: clock.clone(),
        master_key: master_key.clone(),
        jobs: Settings {
            holder: config.lease_holder(),
            lease: Duration::from_secs(config.webhooks.lease_seconds),
            batch: 64,
            concurrency: 64,
            idle_poll: Duration::from_secs(1),
        },
    };
    tracing::info!(holder = %core.jobs.holder, "job leases are held under this name");
    let policy = NetworkPolicy {
        https_only: config.webhooks.https_only,
        allow_private_networks: config.webhooks.allow_private_networks.clone(),
    };
    let sender = Sender::new(policy).context("building the webhook HTTP client")?;
    let outbox_wake = Arc::new(Notify::new());
    let mail_wake = Arc::new(Notify::new());
    let prune_wake = Arc::new(Notify::new());
    let stop = CancellationToken::new();

    let (sandbox, sandbox_state) =
        sandbox(config, &core, sender.clone(), outbox_wake.clone()).await?;
    let webhooks = (sender.clone(), outbox_wake.clone());
    // The identity provider first: the hub's hosted journey signs in there.
    let (sso, grants_sync, grants) = sso(config, &core, &stop).await?;
    let people = Arc::new(crate::people::IdpPeople {
        grants,
        store: core.store.clone(),
        clock: core.clock.clone(),
    });
    let (hub, hub_tasks, expiry_wake) = hub(
        config,
        &core,
        mail_wake.clone(),
        webhooks,
        (&sso.url, people),
        &stop,
    )
    .await?;
    // The lender's legal footer on the provider's and the status page's
    // pages too, linking the documents on the hub.
    let footer = lendhub_hub::legal_footer(&config.lender.party(), &hub.url);
    let with_footer = |router: Router| {
        router.layer(axum::middleware::map_response_with_state(
            footer.clone(),
            lendhub_hub::with_footer,
        ))
    };
    let ops_listener = bind(config.ops.addr, "ops.addr").await?;
    let ops_addr = ops_listener.local_addr()?;
    let status = status_page(config, &core, (&sandbox, &hub, &sso)).await?;
    let status_wake = status.state.wake();
    let referrals_wake = sandbox_state.referrals_wake.clone();
    let serve = |listener, router| {
        crate::listener::serve(listener, router, config.connections.clone(), stop.clone())
    };
    let mut tasks = vec![
        serve(sandbox.listener, sandbox.router),
        serve(hub.listener, hub.router),
        serve(sso.listener, with_footer(sso.router)),
        serve(ops_listener, ops_router(store.clone())),
        serve(
            status.listening.listener,
            with_footer(status.listening.router),
        ),
        tokio::spawn(lendhub_status::prober::run(status.state, stop.clone())),
        grants_sync,
        tokio::spawn(prune(
            store.clone(),
            clock.clone(),
            prune_wake.clone(),
            stop.clone(),
        )),
        tokio::spawn(crate::telemetry::metrics_upkeep(stop.clone())),
    ];
    tasks.extend(sandbox_workers(
        &core,
        sandbox_state,
        sender,
        mail_wake.clone(),
        &stop,
    ));
    tasks.extend(hub_tasks);
    tasks.extend(mail_worker(config, &core, mail_wake.clone(), &stop)?);
    Ok(Server {
        sandbox_addr: sandbox.addr,
        sandbox_url: sandbox.url,
        hub_addr: hub.addr,
        hub_url: hub.url,
        sso_addr: sso.addr,
        sso_url: sso.url,
        ops_addr,
        status_addr: status.listening.addr,
        status_url: status.listening.url,
        status_wake,
        outbox_wake,
        referrals_wake,
        expiry_wake,
        mail_wake,
        prune_wake,
        store,
        master_key,
        stop,
        tasks,
    })
}

struct StatusPage {
    listening: Listening,
    state: lendhub_status::StatusState,
}

/// The status page: its listener, and the probes it makes of each surface's
/// listener (by its bound address, as a monitor beside the process would).
async fn status_page(
    config: &Config,
    core: &Core,
    (sandbox, hub, sso): (&Listening, &Listening, &Listening),
) -> anyhow::Result<StatusPage> {
    use lendhub_domain::status::Component;
    use lendhub_status::Target;
    let listener = bind(config.status.addr, "status.addr").await?;
    let addr = listener.local_addr()?;
    let url = config.status.public_url(addr);
    let target = |component, base: &Listening, path: &str, expect| Target {
        component,
        url: format!("http://{}{path}", base.addr),
        expect,
    };
    let mut targets = vec![
        target(Component::Sandbox, sandbox, "/livez", 200),
        target(
            Component::PartnerRing,
            hub,
            "/.well-known/oauth-authorization-server",
            200,
        ),
        target(Component::PublicRing, hub, "/public/v1/config/pricing", 200),
        target(
            Component::IdentityProvider,
            sso,
            "/.well-known/openid-configuration",
            200,
        ),
    ];
    // The tier answers an unauthenticated list with its documented 401 when
    // it serves, 503 when it is off (and then it is not on the page).
    if config.rest_tier.enabled {
        targets.push(target(
            Component::RestTier,
            hub,
            "/partner/v1/applications",
            401,
        ));
    }
    let interval = match config.status.probe_interval_seconds {
        0 => None,
        s => Some(Duration::from_secs(s)),
    };
    let state = lendhub_status::StatusState::new(
        lendhub_status::Settings {
            url: url.clone(),
            name: config.status.name.clone(),
            interval,
            timeout: Duration::from_millis(config.status.probe_timeout_ms.max(1)),
        },
        targets,
        core.store.clone(),
        core.store.clone(),
        core.clock.clone(),
    )
    .context("building the status probe's HTTP client")?;
    let router = surface(
        lendhub_status::router(state.clone()),
        Edge::new("status", lendhub_hub::render_problem),
    );
    Ok(StatusPage {
        listening: Listening {
            listener,
            router,
            addr,
            url,
        },
        state,
    })
}

/// The public ring's settings from the configuration: the pricing file (or
/// the shipped one), inboxes, the rate window and the switches.
fn public_settings(config: &Config) -> anyhow::Result<lendhub_hub::public::PublicSettings> {
    use lendhub_domain::public::enquiry::Dept;
    use lendhub_domain::public::pricing::PricingConfig;
    let pricing = match &config.public.pricing_file {
        Some(path) => {
            let invalid = |why: &dyn std::fmt::Display| {
                Invalid::new("public.pricing_file", format!("{}: {why}", path.display()))
            };
            let text = std::fs::read_to_string(path).map_err(|e| invalid(&e))?;
            PricingConfig::parse(&text).map_err(|e| invalid(&e))?
        }
        None => PricingConfig::parse(lendhub_hub::public::DEFAULT_PRICING)
            .context("the shipped pricing configuration")?,
    };
    let by_dept = config
        .enquiries
        .inboxes
        .iter()
        .filter_map(|(dept, inbox)| Some((Dept::parse(dept)?, inbox.clone())))
        .collect();
    Ok(lendhub_hub::public::PublicSettings {
        pricing,
        trusted_proxies: config.public.trusted_proxies.clone(),
        enquiry_origins: config.public.enquiry_origins.clone(),
        window: lendhub_hub::public::window::WindowPolicy {
            requests: config.public.rate_limit_requests,
            window_ms: i64::from(config.public.rate_limit_window_seconds) * 1000,
        },
        shared_limits: None,
        inboxes: lendhub_hub::public::Inboxes {
            default: config.enquiries.default_inbox.clone(),
            by_dept,
        },
        slice_billers: config.public.slice_billers,
    })
}

/// Idempotency records are kept 24 h (by the business clock), then pruned;
/// expired tokens are pruned an hour after expiry.
async fn prune(
    store: Arc<dyn Store>,
    clock: Arc<dyn Clock>,
    wake: Arc<Notify>,
    stop: CancellationToken,
) {
    loop {
        let now = clock.now();
        let keys_before =
            lendhub_domain::clock::unix_ms(now - lendhub_domain::idempotency::RETENTION);
        let tokens_before = lendhub_domain::clock::unix_ms(now - time::Duration::hours(1));
        let events_before =
            lendhub_domain::clock::unix_ms(now - lendhub_domain::sandbox::events::RETENTION);
        match store
            .prune(lendhub_store::Retention {
                idempotency_before_ms: keys_before,
                tokens_expired_before_ms: tokens_before,
                events_before_ms: events_before,
                journeys_before_ms: lendhub_domain::clock::unix_ms(
                    now - lendhub_domain::lending::journey::RETENTION,
                ),
            })
            .await
        {
            Ok(n) if n > 0 => {
                tracing::info!(
                    rows = n,
                    "pruned expired idempotency records, tokens, events and journeys"
                )
            }
            Ok(_) => {}
            Err(e) => tracing::warn!(error = %e, "pruning failed"),
        }
        // The identity provider's tickets, codes, sessions and tokens, an
        // hour after they ended.
        match store.prune_identity(tokens_before).await {
            Ok(n) if n > 0 => tracing::info!(rows = n, "pruned identity-provider records"),
            Ok(_) => {}
            Err(e) => tracing::warn!(error = %e, "pruning identity-provider records failed"),
        }
        // Every ten minutes, or at once when the clock moved.
        tokio::select! {
            _ = tokio::time::sleep(Duration::from_secs(600)) => {}
            () = wake.notified() => {}
            _ = stop.cancelled() => return,
        }
    }
}

impl Server {
    /// Graceful stop: listeners stop accepting and finish in-flight requests,
    /// the outbox finishes its attempts, then pending writes are flushed.
    pub async fn stop(self) {
        self.stop.cancel();
        for task in self.tasks {
            let _ = task.await;
        }
        self.store.close().await;
    }
}
