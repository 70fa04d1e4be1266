//! Configuration: built-in defaults → optional TOML file (`--config` or
//! `LENDHUB_CONFIG`) → `LENDHUB_…` environment variables, nested keys split on
//! `__` (`LENDHUB_SANDBOX__ADDR=127.0.0.1:9000`). Unknown keys and bad values
//! stop start-up with a message naming the key.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use figment::Figment;
use figment::providers::{Env, Format, Serialized, Toml};
use ipnet::IpNet;
use lendhub_domain::secret::Secret;
use serde::{Deserialize, Deserializer, Serialize};

/// A configuration value found unusable after loading (a key that does not
/// decode, a file that does not parse). `lendhub` exits 2 on it, naming the
/// key, exactly as for a value the loader itself refuses.
#[derive(Debug)]
pub struct Invalid(String);

impl Invalid {
    pub fn new(key: &str, reason: impl std::fmt::Display) -> Self {
        Self(format!("{key}: {reason}"))
    }

    /// For a message that already names its key.
    pub fn named(message: impl Into<String>) -> Self {
        Self(message.into())
    }
}

impl std::fmt::Display for Invalid {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Invalid {}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Listener {
    /// The address it listens on. Port `0` picks a free port.
    pub addr: SocketAddr,
    /// Its public base URL, as clients reach it behind a load balancer or
    /// TLS terminator. Unset: `http://<bound address>`.
    pub public_url: Option<url::Url>,
}

impl Listener {
    fn on(addr: [u8; 4], port: u16) -> Self {
        Self {
            addr: SocketAddr::from((addr, port)),
            public_url: None,
        }
    }

    pub fn public_url(&self, bound: SocketAddr) -> String {
        self.public_url.as_ref().map_or_else(
            || format!("http://{bound}"),
            |u| u.as_str().trim_end_matches('/').to_owned(),
        )
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sandbox {
    /// Sandbox listener address. Port `0` picks a free port.
    pub addr: SocketAddr,
    /// The sandbox's public base URL, shown at start-up.
    pub public_url: Option<url::Url>,
    /// Access-token lifetime. Must be positive.
    pub token_ttl_seconds: i64,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Webhooks {
    /// When `false`, `http://` endpoint URLs are allowed too (for development).
    pub https_only: bool,
    /// CIDRs that webhooks may reach even though they are private or loopback,
    /// e.g. `127.0.0.0/8`. Takes a TOML list or a comma-separated string.
    #[serde(deserialize_with = "cidr_list")]
    pub allow_private_networks: Vec<IpNet>,
    /// How long a delivery worker's claim on a delivery lasts, in real seconds,
    /// before another worker may take it over (this matters only if a worker
    /// dies mid-attempt). Must be positive. When several instances share the
    /// outbox, keep it above the 10 s delivery timeout.
    pub lease_seconds: u64,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Limits {
    /// A Valkey or Redis server (`redis://host:6379/0`) where every instance
    /// keeps the partner ring's token buckets and concurrency caps and the
    /// public ring's per-address window, so they hold across instances; unset,
    /// each instance keeps its own (exact for one instance). If the server does
    /// not answer within 250 ms, an instance decides alone for that request.
    /// [deployment.md](deployment.md) measures what it costs.
    pub shared_url: Option<Secret<String>>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Instance {
    /// Names this instance's leases on background jobs, so that after a
    /// restart it takes back at once what it was attempting when it stopped.
    /// Must be stable across restarts and distinct between instances sharing
    /// a PostgreSQL database (a pod or host name). Unset: `embedded` on
    /// SQLite (one process serves it); a fresh name per start on PostgreSQL,
    /// where a dead run's leases then lapse instead (`webhooks.lease_seconds`).
    pub id: Option<String>,
}

impl Config {
    /// The name this run's job leases are held under (see [`Instance::id`]).
    pub fn lease_holder(&self) -> String {
        match (&self.instance.id, &self.database.url) {
            (Some(id), _) => id.clone(),
            (None, None) => "embedded".to_owned(),
            (None, Some(_)) => format!("run-{}", lendhub_system::random_token(9).to_lowercase()),
        }
    }
}

/// What one client connection may hold of a listener, on every listener
/// (`[connections]`; `LENDHUB_CONNECTIONS__…`). A client that opens a
/// connection and trickles its request in, or holds it open doing nothing,
/// costs a task and a socket: these bound how long and how many.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Connections {
    /// Every listener: how long a client has to send a request's whole head
    /// (request line and headers), from the connection's opening or from the
    /// head's first byte; past it the connection is closed.
    pub header_read_timeout_ms: u64,
    /// How long a kept-alive connection may wait between requests, with
    /// nothing in flight and no byte arriving. Longer than the 60 s idle
    /// timeout of the usual load balancers, so a balancer never sends a
    /// request down a connection this end is closing.
    pub idle_timeout_ms: u64,
    /// Connections each listener holds at once; the next is accepted only when
    /// one closes (it waits in the kernel's backlog meanwhile, unanswered).
    pub max_per_listener: usize,
    /// The largest request head, 8192 at least; a larger one is answered `431`
    /// (by hyper, before any route runs: no JSON envelope) and the connection
    /// closed. See [deployment.md](deployment.md#configuration).
    pub max_header_bytes: usize,
}

impl Default for Connections {
    fn default() -> Self {
        Self {
            header_read_timeout_ms: 10_000,
            idle_timeout_ms: 75_000,
            max_per_listener: 4_096,
            max_header_bytes: 16 * 1024,
        }
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReadCaches {
    /// Repeated reads answered from memory, each re-checked by a probe of
    /// the store: the kept application bodies and newest events pages, and
    /// on SQLite the remembered versions and log positions behind those
    /// probes. Off, every such request reads the database: for measuring
    /// the storage itself (`bench/growth.sh`) or ruling the caches out while
    /// chasing a fault. Credentials (token verifications, the partner
    /// directory) are cached either way.
    pub enabled: bool,
}

impl Default for ReadCaches {
    fn default() -> Self {
        Self { enabled: true }
    }
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Secrets {
    /// Base64 of exactly 32 bytes. If unset, a key is generated once into
    /// `<data_dir>/master.key` (mode 0600) and reused. Set it explicitly, the
    /// same on every instance, when several instances share a database: an
    /// instance whose key differs from the one the database was set up with
    /// refuses to start.
    pub master_key: Option<Secret<String>>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Database {
    /// A `postgres://` URL selects PostgreSQL (several instances may share it;
    /// see [deployment.md](deployment.md)). Unset: the embedded SQLite database
    /// in `data_dir`. Never logged. `sslmode=require` is refused (no TLS to the
    /// database yet). A multi-host URL with `target_session_attrs=read-write`
    /// (`postgres://u@db-a,db-b/lendhub?target_session_attrs=read-write`)
    /// follows a failover by itself; see the tested set-up in
    /// [deployment.md](deployment.md). `LENDHUB_DATABASE_URL` sets it too.
    pub url: Option<Secret<String>>,
    /// PostgreSQL connections per instance. At least 2.
    pub pool_size: usize,
    /// PostgreSQL: connecting or waiting for a free connection gives up after
    /// this, and the request answers `503 service_unavailable`.
    pub timeout_ms: u64,
    /// PostgreSQL: the server cancels a statement running longer than this (the
    /// request answers 503).
    pub statement_timeout_ms: u64,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Mcp {
    /// Browser origins the partner MCP endpoint accepts in `Origin`; requests
    /// without `Origin` are always accepted. List or comma-separated string.
    #[serde(deserialize_with = "string_list")]
    pub allowed_origins: Vec<String>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RestTier {
    /// The REST tier (`/partner/v1`, and its test environment `/sandbox/v1`)
    /// answers 503 on every path while this is off; on, every path the hub
    /// document plans is live.
    pub enabled: bool,
    /// A newer download of GOV.UK's `bank-holidays.json` than the copy in
    /// the binary, for the statements' invoice dates (its England and
    /// Wales holidays; past its last year the statutory rules apply).
    #[serde(default)]
    pub bank_holidays_file: Option<PathBuf>,
}

impl RestTier {
    /// England and Wales working days: from `bank_holidays_file` when set,
    /// the bundled GOV.UK list otherwise.
    pub fn working_days(&self) -> anyhow::Result<lendhub_domain::working_days::WorkingDays> {
        use anyhow::Context;
        match &self.bank_holidays_file {
            None => Ok(lendhub_domain::working_days::WorkingDays::bundled()),
            Some(path) => {
                let json = std::fs::read_to_string(path).with_context(|| {
                    format!("reading rest_tier.bank_holidays_file {}", path.display())
                })?;
                lendhub_domain::working_days::WorkingDays::from_govuk_json(&json).map_err(|e| {
                    anyhow::anyhow!("rest_tier.bank_holidays_file {}: {e}", path.display())
                })
            }
        }
    }
}

/// The status page (`{status_url}`): its own listener, so it answers while
/// the surfaces it reports on do not.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StatusPage {
    /// The status page's listener.
    pub addr: SocketAddr,
    /// `{status_url}`: the page's links, feed ids and `summary.json`'s
    /// `page.url`.
    pub public_url: Option<url::Url>,
    /// The name the page and `summary.json` carry.
    pub name: String,
    /// Seconds between probe rounds; `0` probes only when asked (the tests).
    pub probe_interval_seconds: u64,
    /// A probe that takes longer than this has failed.
    pub probe_timeout_ms: u64,
}

impl Default for StatusPage {
    fn default() -> Self {
        Self {
            addr: SocketAddr::from(([127, 0, 0, 1], 8083)),
            public_url: None,
            name: "lendhub".into(),
            probe_interval_seconds: 10,
            probe_timeout_ms: 5_000,
        }
    }
}

impl StatusPage {
    pub fn public_url(&self, bound: SocketAddr) -> String {
        self.public_url.as_ref().map_or_else(
            || format!("http://{bound}"),
            |u| u.as_str().trim_end_matches('/').to_owned(),
        )
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Public {
    /// CIDRs of proxies whose `X-Forwarded-For` is believed for the client
    /// address: the public ring's per-address window, the REST tier's buckets
    /// for callers without a credential, and the identity provider's sign-in
    /// throttle.
    #[serde(deserialize_with = "cidr_list")]
    pub trusted_proxies: Vec<IpNet>,
    /// Browser origins that may post enquiries (sites embedding the support
    /// widget). Reads are open to every origin.
    #[serde(deserialize_with = "string_list")]
    pub enquiry_origins: Vec<String>,
    /// Requests per window per client address (the seed: 60 per 60 s).
    pub rate_limit_requests: u32,
    /// The fixed window's length.
    pub rate_limit_window_seconds: u32,
    /// A pricing configuration (JSON, the shape of `GET
    /// /public/v1/config/pricing`) replacing the shipped
    /// `crates/hub/data/pricing.json`. Validated at start-up.
    pub pricing_file: Option<PathBuf>,
    /// Whether `GET /public/v1/slice/billers` answers (off: `403
    /// capability_denied`).
    pub slice_billers: bool,
}

impl Default for Public {
    fn default() -> Self {
        Self {
            trusted_proxies: Vec::new(),
            enquiry_origins: Vec::new(),
            rate_limit_requests: 60,
            rate_limit_window_seconds: 60,
            pricing_file: None,
            slice_billers: true,
        }
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Enquiries {
    /// Where enquiries without a department (or without a department inbox) go.
    pub default_inbox: String,
    /// Per department: `support`, `payments`, `hardship`, `complaints`.
    pub inboxes: std::collections::BTreeMap<String, String>,
}

impl Default for Enquiries {
    fn default() -> Self {
        Self {
            default_inbox: "enquiries@localhost".into(),
            inboxes: std::collections::BTreeMap::new(),
        }
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Log {
    /// A `tracing` filter, e.g. `info` or `lendhub=debug,info`. A bare word
    /// must be a level (`off`, `error`, `warn`, `info`, `debug`, `trace`); a
    /// target is written `target=level`. Anything else stops start-up (exit 2).
    pub level: String,
}

/// Settings the command line gives beside the configuration file.
#[derive(Clone, Debug, Default)]
pub struct Overrides {
    pub data_dir: Option<PathBuf>,
    pub database_url: Option<String>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// Holds the SQLite database (`lendhub.db`, plus its `-wal`/`-shm` files)
    /// and, unless `secrets.master_key` is set, `master.key`. Created on start.
    pub data_dir: PathBuf,
    pub database: Database,
    pub sandbox: Sandbox,
    /// The hub's listener: the partner ring (`/partner/v1`, `/sandbox/v1`),
    /// the public ring, the hosted journey, the dashboard and `/docs`. Its
    /// `public_url` is the issuer of partner tokens (their audience is
    /// `<public_url>/partner/v1`) and the base of every link lendhub sends:
    /// the same on every instance.
    pub hub: Listener,
    pub rest_tier: RestTier,
    pub mcp: Mcp,
    pub public: Public,
    pub smtp: lendhub_mail::SmtpSettings,
    pub enquiries: Enquiries,
    /// The identity provider's listener. Its `public_url` is the issuer (`iss`
    /// of ID tokens, the base of every endpoint in discovery): the same on
    /// every instance. Its cookies are `Secure` when it is `https://`.
    pub sso: Listener,
    /// Prometheus metrics (`/metrics`) and health (`/healthz`) for operators,
    /// off the partner-facing ports; its `public_url` is not used.
    pub ops: Listener,
    pub status: StatusPage,
    pub webhooks: Webhooks,
    pub instance: Instance,
    pub limits: Limits,
    pub read_caches: ReadCaches,
    pub connections: Connections,
    pub secrets: Secrets,
    pub log: Log,
    pub counterparties: Counterparties,
    pub reconciliation: Reconciliation,
    pub model_monitoring: ModelMonitoring,
    pub lender: Lender,
}

/// The lender who runs lendhub: who the documents and every page's footer
/// name, and who its own people are.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Lender {
    /// The e-mail addresses of the lender's operators: a person who signs
    /// in to the identity provider with one of these, verified, may use
    /// the operations console (`/dashboard/operations`). Compared without
    /// regard to case; empty, the console admits no one.
    pub operators: Vec<String>,
    /// The lender's legal name: a party to every loan agreement.
    pub legal_name: String,
    /// Its registered office, on one line.
    pub address: String,
    /// Where and under what number it is registered (and, once
    /// authorised, its regulator's reference).
    pub registration: String,
    /// Where a complaint goes: an e-mail address.
    pub complaints: String,
}

impl Default for Lender {
    /// An evidently made-up lender: a deployment names its own.
    fn default() -> Self {
        let party = lendhub_domain::lending::agreement::Lender::default();
        Self {
            operators: Vec::new(),
            legal_name: party.legal_name,
            address: party.address,
            registration: party.registration,
            complaints: party.complaints,
        }
    }
}

impl Lender {
    /// The parties' details the documents state.
    pub fn party(&self) -> lendhub_domain::lending::agreement::Lender {
        lendhub_domain::lending::agreement::Lender {
            legal_name: self.legal_name.clone(),
            address: self.address.clone(),
            registration: self.registration.clone(),
            complaints: self.complaints.clone(),
        }
    }
}

/// The credit model's weekly monitoring (docs/guide/src/model-card.md,
/// "Monitoring").
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ModelMonitoring {
    /// Monitor each week (Monday to Sunday, UTC) two hours after it ends.
    /// Off, a week is monitored only when `lendhub models monitor --week`
    /// asks.
    pub weekly: bool,
    /// The fewest decisions a model must have scored in a week for its
    /// drift to alert: a stability index over a handful is noise.
    pub min_decisions: u64,
}

impl Default for ModelMonitoring {
    fn default() -> Self {
        Self {
            weekly: true,
            min_decisions: 100,
        }
    }
}

/// Daily reconciliation of the lender's bank accounts against the ledger
/// (docs/guide/src/ledger.md).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Reconciliation {
    /// Reconcile each day an hour after it ends (UTC). Off, a day is
    /// reconciled only when `lendhub reconcile --date` asks.
    pub daily: bool,
}

impl Default for Reconciliation {
    fn default() -> Self {
        Self { daily: true }
    }
}

/// Who the hub reaches beyond its database, for each environment: a real
/// service's URL and credentials, or (unset) the embedded model server
/// speaking the same protocol (docs/guide/src/counterparties.md).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Counterparties {
    pub live: EnvironmentCounterparties,
    pub test: EnvironmentCounterparties,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct EnvironmentCounterparties {
    pub company_register: CompanyRegister,
    pub open_banking: OpenBanking,
    /// Identity and AML checks of applicants (a KYC provider).
    pub identity: KeyedService,
    /// Companies' credit reports (a credit reference agency).
    pub credit_bureau: KeyedService,
    /// Payouts by Faster Payments from the lender's clearing bank.
    pub payout_rail: PayoutRail,
}

/// The lender's clearing bank, over ClearBank's Institution API
/// (`[counterparties.<env>.payout_rail]`); no URL: the embedded model
/// bank's rail. Its webhooks are registered with the bank as
/// `{hub.public_url}/payout-rail/events/<env>`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PayoutRail {
    /// e.g. `https://institution-api.clearbank.co.uk`.
    pub url: Option<String>,
    /// The API token the bank's portal issued.
    pub api_token: Option<Secret<String>>,
    /// lendhub's RSA private key (PEM), whose public half the bank holds:
    /// signs every request and every webhook answer (`DigitalSignature`).
    pub signing_key_file: Option<PathBuf>,
    /// The bank's RSA public key (PEM): every webhook must verify with it.
    pub bank_public_key_file: Option<PathBuf>,
    /// The lender's funding account payouts are paid from.
    pub funding_account: Option<FundingAccount>,
    /// The id (a GUID) in the bank's API of the lender's collection
    /// account, which payers' payments are made into: reconciliation reads
    /// its statement beside the funding account's. Unset, only the funding
    /// account is reconciled.
    pub collection_account_id: Option<String>,
    /// Each request gives up after this.
    pub timeout_ms: u64,
}

impl Default for PayoutRail {
    fn default() -> Self {
        Self {
            url: None,
            api_token: None,
            signing_key_file: None,
            bank_public_key_file: None,
            funding_account: None,
            collection_account_id: None,
            timeout_ms: 10_000,
        }
    }
}

/// `[counterparties.<env>.payout_rail.funding_account]`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FundingAccount {
    /// Its id in the bank's API (a GUID).
    pub id: String,
    /// Six digits.
    pub sort_code: String,
    /// Eight digits.
    pub account_number: String,
    /// The payer's address the scheme carries.
    pub address: String,
}

/// A service over one of lendhub's own JSON APIs (person checks, credit
/// reports: docs/guide/src/counterparties.md), reached at `url` with `api_key` as a
/// bearer token; no URL, the embedded model server.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct KeyedService {
    /// The provider's base URL. Unset: the embedded model server.
    pub url: Option<String>,
    /// Sent as a bearer token with every request.
    pub api_key: Option<Secret<String>>,
    /// Each request gives up after this and the request answers 503.
    pub timeout_ms: u64,
}

impl Default for KeyedService {
    fn default() -> Self {
        Self {
            url: None,
            api_key: None,
            timeout_ms: 5_000,
        }
    }
}

/// The banks lendhub reads accounts at and collects through, over the UK
/// Open Banking Read/Write API; none: the embedded model bank.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct OpenBanking {
    /// The banks, each under an id of your choosing (the `bank` an
    /// applicant picks). None: the embedded model bank.
    pub banks: std::collections::BTreeMap<String, Bank>,
    /// Each request to a bank gives up after this.
    pub timeout_ms: u64,
    /// How lendhub signs its payment requests (`x-jws-signature`): needed
    /// as soon as a bank is configured.
    pub message_signing: Option<MessageSigning>,
    /// Where payers' payments go: needed as soon as a bank is configured.
    pub collection_account: Option<CollectionAccount>,
}

impl Default for OpenBanking {
    fn default() -> Self {
        Self {
            banks: std::collections::BTreeMap::new(),
            timeout_ms: 10_000,
            message_signing: None,
            collection_account: None,
        }
    }
}

/// The key lendhub signs payment requests with, as its Open Banking
/// Directory registration names it
/// (`[counterparties.<env>.open_banking.message_signing]`).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MessageSigning {
    /// The RSA private key, PEM (PKCS#8 or PKCS#1), signing with PS256.
    pub key_file: PathBuf,
    /// The key's id in the directory's JWKS for lendhub.
    pub kid: String,
    /// `http://openbanking.org.uk/iss`: `{org id}/{software statement id}`.
    pub issuer: String,
}

/// The lender's account payers pay into
/// (`[counterparties.<env>.open_banking.collection_account]`).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CollectionAccount {
    /// As the payer's bank shows the payee (Confirmation of Payee).
    pub name: String,
    /// Six digits.
    pub sort_code: String,
    /// Eight digits.
    pub account_number: String,
}

/// One bank (`[counterparties.<env>.open_banking.banks.<bank_id>]`).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Bank {
    /// Shown on the journey's and the pay page's bank choice.
    pub name: String,
    /// The bank's `/.well-known/openid-configuration`.
    pub discovery_url: String,
    /// e.g. `https://bank.example/open-banking/v3.1` (`aisp/`, `pisp/` below it).
    pub api_base_url: String,
    /// lendhub's client id at the bank, from its dynamic client registration.
    pub client_id: String,
    /// `client_secret_basic`.
    pub client_secret: Secret<String>,
}

/// The Companies House Public Data API
/// (`https://api.company-information.service.gov.uk`) and its key.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CompanyRegister {
    /// e.g. `https://api.company-information.service.gov.uk`. Unset: the
    /// embedded model register.
    pub url: Option<String>,
    /// The API key Companies House issued (HTTP Basic, as its API asks).
    pub api_key: Option<Secret<String>>,
    /// Each request gives up after this and the request answers 503.
    pub timeout_ms: u64,
}

impl Default for CompanyRegister {
    fn default() -> Self {
        Self {
            url: None,
            api_key: None,
            timeout_ms: 5_000,
        }
    }
}

impl Default for Config {
    fn default() -> Self {
        Self {
            data_dir: PathBuf::from("./data"),
            database: Database {
                url: None,
                pool_size: 16,
                timeout_ms: 2_000,
                statement_timeout_ms: 10_000,
            },
            sandbox: Sandbox {
                addr: SocketAddr::from(([127, 0, 0, 1], 8081)),
                public_url: None,
                token_ttl_seconds: 3600,
            },
            hub: Listener::on([127, 0, 0, 1], 8080),
            rest_tier: RestTier::default(),
            mcp: Mcp::default(),
            public: Public::default(),
            smtp: lendhub_mail::SmtpSettings::default(),
            enquiries: Enquiries::default(),
            sso: Listener::on([127, 0, 0, 1], 8082),
            ops: Listener::on([127, 0, 0, 1], 9464),
            status: StatusPage::default(),
            webhooks: Webhooks {
                https_only: true,
                allow_private_networks: Vec::new(),
                lease_seconds: 60,
            },
            instance: Instance::default(),
            limits: Limits::default(),
            read_caches: ReadCaches::default(),
            connections: Connections::default(),
            secrets: Secrets::default(),
            log: Log {
                level: "info".into(),
            },
            counterparties: Counterparties::default(),
            reconciliation: Reconciliation::default(),
            model_monitoring: ModelMonitoring::default(),
            lender: Lender::default(),
        }
    }
}

/// Accepts a list or a comma-separated string, as environment variables give.
fn string_list<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Raw {
        One(String),
        Many(Vec<String>),
    }
    Ok(match Raw::deserialize(d)? {
        Raw::One(s) => s
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect(),
        Raw::Many(v) => v,
    })
}

fn cidr_list<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<IpNet>, D::Error> {
    let items = string_list(d)?;
    items
        .iter()
        .map(|s| {
            s.parse::<IpNet>()
                .map_err(|e| serde::de::Error::custom(format!("{s}: {e}")))
        })
        .collect()
}

impl Config {
    pub fn figment(file: Option<&Path>) -> Figment {
        let mut figment = Figment::from(Serialized::defaults(Config::default()));
        if let Some(path) = file {
            figment = figment.merge(Toml::file_exact(path));
        }
        figment
            .merge(
                Env::prefixed("LENDHUB_")
                    .split("__")
                    // LENDHUB_CONFIG names the file; LENDHUB_LOG is the log
                    // filter; LENDHUB_DATABASE_URL is handled below;
                    // LENDHUB_MODEL_API_KEY and LENDHUB_MODEL_CLIENT_SECRET
                    // are `lendhub simulate`'s; LENDHUB_CRASH_AT is the
                    // crash tests' (`lendhub_system::crash_point`).
                    .ignore(&[
                        "config",
                        "log",
                        "database_url",
                        "model_api_key",
                        "model_client_secret",
                        "crash_at",
                    ]),
            )
            // The conventional spelling, beside LENDHUB_DATABASE__URL.
            .merge(
                Env::prefixed("LENDHUB_")
                    .only(&["database_url"])
                    .map(|_| "database.url".into()),
            )
    }

    pub fn load(file: Option<&Path>) -> Result<Self, Box<figment::Error>> {
        Self::load_with(file, &Overrides::default())
    }

    /// `load`, with the command line's `--data-dir` and `--database-url` on top.
    pub fn load_with(
        file: Option<&Path>,
        overrides: &Overrides,
    ) -> Result<Self, Box<figment::Error>> {
        let mut figment = Self::figment(file);
        if let Some(dir) = &overrides.data_dir {
            figment = figment.merge(("data_dir", dir));
        }
        if let Some(url) = &overrides.database_url {
            figment = figment.merge(("database.url", url));
        }
        let config: Config = figment.extract().map_err(Box::new)?;
        let invalid = |message: &str| Err(Box::new(figment::Error::from(message.to_owned())));
        if let Some(key) = &config.secrets.master_key
            && let Err(why) = lendhub_domain::crypto::MasterKey::from_base64(key.expose())
        {
            return invalid(&format!(
                "secrets.master_key: {why} (base64 of exactly 32 random bytes, e.g. from `openssl rand -base64 32`)"
            ));
        }
        if config.webhooks.lease_seconds == 0 {
            return invalid("webhooks.lease_seconds must be positive");
        }
        if let Some(url) = &config.database.url
            && !(url.expose().starts_with("postgres://")
                || url.expose().starts_with("postgresql://"))
        {
            return invalid(
                "database.url must be a postgres:// URL (leave it unset for the embedded SQLite database)",
            );
        }
        if config.database.pool_size < 2 {
            return invalid("database.pool_size must be at least 2");
        }
        if config.sandbox.token_ttl_seconds <= 0 {
            return invalid("sandbox.token_ttl_seconds must be positive");
        }
        if config.public.rate_limit_requests == 0 || config.public.rate_limit_window_seconds == 0 {
            return invalid(
                "public.rate_limit_requests and public.rate_limit_window_seconds must be positive",
            );
        }
        if let Some(dept) = config
            .enquiries
            .inboxes
            .keys()
            .find(|d| lendhub_domain::public::enquiry::Dept::parse(d).is_none())
        {
            return Err(Box::new(figment::Error::from(format!(
                "enquiries.inboxes.{dept}: not a department (support, payments, hardship, complaints)"
            ))));
        }
        Ok(config)
    }

    /// The database as the operator should read it: the SQLite file's
    /// absolute path, or PostgreSQL's host, port and database.
    pub fn database_description(&self) -> String {
        match &self.database.url {
            Some(_) => self.database_label(),
            None => std::path::absolute(self.database_path())
                .unwrap_or_else(|_| self.database_path())
                .display()
                .to_string(),
        }
    }

    pub fn database_path(&self) -> PathBuf {
        self.data_dir.join("lendhub.db")
    }

    /// Where the data lives, for messages: never the password.
    pub fn database_label(&self) -> String {
        match self
            .database
            .url
            .as_ref()
            .map(|u| url::Url::parse(u.expose()))
        {
            Some(Ok(u)) => format!(
                "PostgreSQL {}:{}{}",
                u.host_str().unwrap_or("localhost"),
                u.port().unwrap_or(5432),
                u.path()
            ),
            Some(Err(_)) => "PostgreSQL".to_owned(),
            None => self.database_path().display().to_string(),
        }
    }
}

#[cfg(test)]
mod reference;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[expect(
        clippy::result_large_err,
        reason = "figment's Jail API fixes the closure's error type"
    )]
    fn layers_and_errors() {
        figment::Jail::expect_with(|jail| {
            jail.create_file("lendhub.toml", "[sandbox]\naddr = \"127.0.0.1:7000\"\n")?;
            jail.set_env(
                "LENDHUB_WEBHOOKS__ALLOW_PRIVATE_NETWORKS",
                "127.0.0.0/8, 10.0.0.0/8",
            );
            jail.set_env("LENDHUB_WEBHOOKS__HTTPS_ONLY", "false");
            jail.set_env("LENDHUB_DATA_DIR", "/tmp/x");
            let c = Config::load(Some(Path::new("lendhub.toml"))).map_err(|e| *e)?;
            assert_eq!(c.sandbox.addr.port(), 7000);
            assert_eq!(c.webhooks.allow_private_networks.len(), 2);
            assert!(!c.webhooks.https_only);
            assert_eq!(c.data_dir, PathBuf::from("/tmp/x"));
            assert!(c.database.url.is_none());
            assert!(c.lender.operators.is_empty(), "no operators unless named");
            jail.set_env(
                "LENDHUB_LENDER__OPERATORS",
                r#"["ops@lender.example", "Finance@Lender.example"]"#,
            );
            let c = Config::load(Some(Path::new("lendhub.toml"))).map_err(|e| *e)?;
            assert_eq!(
                c.lender.operators,
                ["ops@lender.example", "Finance@Lender.example"]
            );
            jail.set_env("LENDHUB_DATABASE__URL", "postgresql://db/x");
            let c = Config::load(Some(Path::new("lendhub.toml"))).map_err(|e| *e)?;
            assert_eq!(
                c.database.url.as_ref().map(|u| u.expose().as_str()),
                Some("postgresql://db/x")
            );
            jail.set_env("LENDHUB_DATABASE_URL", "postgres://u:pw@db:6543/lendhub");
            let c = Config::load(Some(Path::new("lendhub.toml"))).map_err(|e| *e)?;
            assert_eq!(
                c.database.url.as_ref().map(|u| u.expose().as_str()),
                Some("postgres://u:pw@db:6543/lendhub")
            );
            assert_eq!(c.database_label(), "PostgreSQL db:6543/lendhub");
            assert!(
                !format!("{c:?}").contains("pw"),
                "the password never prints"
            );
            jail.set_env("LENDHUB_DATABASE_URL", "mysql://db/lendhub");
            let err = Config::load(Some(Path::new("lendhub.toml")))
                .map(|_| ())
                .unwrap_err();
            assert!(err.to_string().contains("database.url"), "{err}");
            jail.set_env("LENDHUB_SANDBOX__ADDR", "not-an-address");
            let err = Config::load(Some(Path::new("lendhub.toml")))
                .map(|_| ())
                .unwrap_err()
                .to_string();
            assert!(err.to_lowercase().contains("sandbox.addr"), "{err}");
            Ok(())
        });
    }

    #[test]
    #[expect(
        clippy::result_large_err,
        reason = "figment's Jail API fixes the closure's error type"
    )]
    fn unknown_keys_are_named() {
        figment::Jail::expect_with(|jail| {
            jail.create_file("bad.toml", "[sandbox]\nadress = \"127.0.0.1:7000\"\n")?;
            let err = Config::load(Some(Path::new("bad.toml")))
                .map(|_| ())
                .unwrap_err()
                .to_string();
            assert!(err.contains("adress"), "{err}");
            Ok(())
        });
    }
}
