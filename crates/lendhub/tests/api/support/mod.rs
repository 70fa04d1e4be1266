//! The test harness: a real server per test, a client for it, and a webhook
//! receiver that records what it is sent.

pub mod clearing_bank;
pub mod database;
pub mod load;
pub mod oidc;
pub mod process;
pub mod receiver;
pub mod relay;
pub mod smtp;

use std::sync::Arc;

pub use database::Site;

use lendhub::config::Config;
use lendhub::server::{Server, open_store, start};
use lendhub_domain::partner::scope::SandboxScopes;
use lendhub_system::ShiftedClock;
use reqwest::StatusCode;
use serde_json::{Value, json};

pub struct Client {
    pub id: String,
    pub secret: String,
}

pub struct App {
    pub server: Option<Server>,
    pub base: String,
    /// Where the hub listener is reached (its public URL, the token issuer,
    /// is `server().hub_url`: the same unless `hub.public_url` is set).
    pub hub: String,
    /// Where the identity provider's listener is reached (its issuer is
    /// `server().sso_url`).
    pub sso: String,
    pub http: reqwest::Client,
    pub clock: Arc<ShiftedClock>,
    pub config: Config,
    pub _site: Site,
}

pub struct Reply {
    pub status: StatusCode,
    pub headers: reqwest::header::HeaderMap,
    pub body: Value,
}

pub fn test_config(site: &Site) -> Config {
    let mut config = Config {
        data_dir: site.path().to_path_buf(),
        ..Config::default()
    };
    config.database.url = site.database_url.clone().map(Into::into);
    config.database.pool_size = 8;
    config.sandbox.addr = "127.0.0.1:0".parse().unwrap();
    config.hub.addr = "127.0.0.1:0".parse().unwrap();
    config.sso.addr = "127.0.0.1:0".parse().unwrap();
    config.ops.addr = "127.0.0.1:0".parse().unwrap();
    config.status.addr = "127.0.0.1:0".parse().unwrap();
    // Probe rounds only when a test asks (`server().status_wake`): no test
    // waits on a timer, and no probe spends a public-ring window another
    // test counts.
    config.status.probe_interval_seconds = 0;
    // A day is reconciled when a test asks (`lendhub reconcile`): a
    // scheduled run reads the model bank, which a test may be failing.
    config.reconciliation.daily = false;
    config.lender.operators = vec![oidc::OPERATOR.to_uppercase()];
    config.webhooks.https_only = false;
    config.webhooks.allow_private_networks = vec!["127.0.0.0/8".parse().unwrap()];
    config
}

impl App {
    pub async fn spawn() -> App {
        let site = Site::new().await;
        Self::spawn_with(test_config(&site), site).await
    }

    pub async fn spawn_with(config: Config, site: Site) -> App {
        let clock = ShiftedClock::new();
        let server = boot(&config, clock.clone()).await;
        App {
            base: format!("http://{}", server.sandbox_addr),
            hub: format!("http://{}", server.hub_addr),
            sso: format!("http://{}", server.sso_addr),
            server: Some(server),
            http: reqwest::Client::new(),
            clock,
            config,
            _site: site,
        }
    }

    pub fn server(&self) -> &Server {
        self.server.as_ref().unwrap()
    }

    /// Stops and starts the server on the same data directory.
    pub async fn restart(&mut self) {
        self.server.take().unwrap().stop().await;
        let server = boot(&self.config, self.clock.clone()).await;
        self.base = format!("http://{}", server.sandbox_addr);
        self.hub = format!("http://{}", server.hub_addr);
        self.sso = format!("http://{}", server.sso_addr);
        self.server = Some(server);
    }

    /// Another instance on the same database and clock: a second process
    /// behind the same balancer, in miniature (PostgreSQL sites).
    /// A second instance of the app over its database and clock, on a
    /// port of its own (its public URL stays the first's, as behind a load
    /// balancer).
    pub async fn another_instance(&self) -> Server {
        let mut config = self.config.clone();
        config.hub.addr = std::net::SocketAddr::from(([127, 0, 0, 1], 0));
        boot(&config, self.clock.clone()).await
    }

    pub fn advance(&self, by: time::Duration) {
        self.clock.advance(by);
        self.server().outbox_wake.notify_one();
        self.server().referrals_wake.notify_one();
        self.server().expiry_wake.notify_one();
        self.server().mail_wake.notify_one();
        self.server().prune_wake.notify_one();
    }

    pub async fn client(&self, scopes: &str) -> Client {
        let server = self.server();
        let creds = lendhub_sandbox::clients::create(
            server.store.as_ref(),
            &server.master_key,
            "test",
            &SandboxScopes::parse(scopes).unwrap(),
            0,
        )
        .await
        .unwrap();
        Client {
            id: creds.client_id,
            secret: creds.client_secret.into_exposed(),
        }
    }

    pub async fn token_for(&self, client: &Client) -> String {
        let r = self
            .http
            .post(self.url("/oauth/token"))
            .basic_auth(&client.id, Some(&client.secret))
            .form(&[("grant_type", "client_credentials")])
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
        r.json::<Value>().await.unwrap()["access_token"]
            .as_str()
            .unwrap()
            .to_owned()
    }

    /// A fresh client with every scope, and its token.
    pub async fn caller(&self) -> String {
        let c = self.client("sandbox:read sandbox:write").await;
        self.token_for(&c).await
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    pub async fn get(&self, token: &str, path: &str) -> Reply {
        reply(
            self.http
                .get(self.url(path))
                .bearer_auth(token)
                .send()
                .await
                .unwrap(),
        )
        .await
    }

    pub async fn post(&self, token: &str, path: &str, key: &str, body: Value) -> Reply {
        reply(
            self.http
                .post(self.url(path))
                .bearer_auth(token)
                .header("Idempotency-Key", key)
                .json(&body)
                .send()
                .await
                .unwrap(),
        )
        .await
    }

    /// A write under a fresh Idempotency-Key.
    pub async fn write(&self, token: &str, path: &str, body: Value) -> Reply {
        self.post(token, path, &format!("key-{}", uuidish()), body)
            .await
    }

    pub async fn create_application(&self, token: &str, company: &str, amount: i64) -> Reply {
        let key = format!("app-{}", uuidish());
        self.post(
            token,
            "/v1/applications",
            &key,
            json!({"business": {"company_number": company}, "amount_pence": amount}),
        )
        .await
    }

    pub async fn funded_application(&self, token: &str) -> Value {
        let app = self.create_application(token, "00000401", 1_000_000).await;
        assert_eq!(app.status, 201, "{}", app.body);
        let id = app.body["id"].as_str().unwrap().to_owned();
        let accepted = self
            .post(
                token,
                &format!("/v1/applications/{id}/accept"),
                &format!("acc-{}", uuidish()),
                json!({"bank_account": "bank_settle"}),
            )
            .await;
        assert_eq!(accepted.status, 200, "{}", accepted.body);
        accepted.body
    }

    pub async fn events(&self, token: &str, query: &str) -> Vec<Value> {
        let r = self.get(token, &format!("/v1/events{query}")).await;
        assert_eq!(r.status, 200, "{}", r.body);
        r.body["data"].as_array().unwrap().clone()
    }
}

async fn boot(config: &Config, clock: Arc<ShiftedClock>) -> Server {
    let store = open_store(config).await.unwrap();
    let key =
        lendhub::keys::load_checked(config, store.as_ref(), lendhub::keys::IfMissing::Generate)
            .await
            .unwrap();
    start(config, store, key, clock).await.unwrap()
}

impl Reply {
    /// A response header as text ("" when absent).
    pub fn header(&self, name: &str) -> &str {
        self.headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
    }
}

pub async fn reply(r: reqwest::Response) -> Reply {
    let status = r.status();
    let headers = r.headers().clone();
    let text = r.text().await.unwrap();
    let body = serde_json::from_str(&text).unwrap_or(Value::String(text));
    Reply {
        status,
        headers,
        body,
    }
}

pub fn uuidish() -> String {
    lendhub_system::random_token(12)
}

/// The error envelope every non-2xx must carry.
pub fn assert_error(r: &Reply, status: u16, code: &str) {
    assert_eq!(r.status.as_u16(), status, "{}", r.body);
    assert_eq!(r.body["error"]["code"], code, "{}", r.body);
    assert!(
        r.body["error"]["message"]
            .as_str()
            .is_some_and(|m| !m.is_empty())
    );
    let id = r
        .headers
        .get("x-service-request-id")
        .unwrap()
        .to_str()
        .unwrap();
    assert_eq!(r.body["error"]["request_id"], id);
}

/// Polls `check` until it holds; time-driven work happens off the request path.
/// `eventually`, for a condition that needs to await (an HTTP read).
pub async fn eventually_async<F, Fut>(what: &str, check: F)
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    for _ in 0..400 {
        if check().await {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    panic!("{what} was not seen within 10 s");
}

pub async fn eventually<F: FnMut() -> bool>(what: &str, mut check: F) {
    for _ in 0..400 {
        if check() {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    panic!("timed out waiting for {what}");
}

/// Polls `check` until it holds, within the bound on how late an instance
/// may see a change made elsewhere to what it remembers (the partner
/// directory's sync interval, which the sandbox's tokens and the identity
/// provider's grants share, with room for a loaded machine).
pub async fn propagated<F, Fut>(what: &str, mut check: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let bound = lendhub_hub::partner::directory::SYNC_INTERVAL * 30;
    let started = std::time::Instant::now();
    while started.elapsed() < bound {
        if check().await {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    panic!("{what} was not seen within {bound:?}");
}

/// Waits until the sandbox at `base` refuses `token` (its client was
/// revoked behind the server's back, by the CLI or another instance), within
/// one poll of the sandbox epoch as `propagated` bounds it.
pub async fn sandbox_token_refused(http: &reqwest::Client, base: &str, token: &str) {
    propagated(&format!("the revocation on {base}"), || async {
        let r = http
            .get(format!("{base}/v1/fixtures"))
            .bearer_auth(token)
            .send()
            .await
            .unwrap();
        r.status() == 401
    })
    .await;
}

/// Runs one of `tests/*.py` with the test virtualenv's Python and `env`;
/// returns its stdout as JSON. Exit code 3 means a library is missing. A
/// walk through pages checks each with axe-core (`tests/pagecheck.py`,
/// `TEST_AXE` or the copy scripts/test.sh installs) and saves screenshots
/// when `SCREENSHOTS` names a directory; its `audit` must be clean.
pub async fn python_json(script: &str, env: Vec<(&'static str, String)>) -> Value {
    let python = std::env::var("TEST_PYTHON").unwrap_or_else(|_| "python3".into());
    let root = format!("{}/../..", env!("CARGO_MANIFEST_DIR"));
    let path = format!("{root}/tests/{script}");
    let axe = std::env::var("TEST_AXE")
        .unwrap_or_else(|_| format!("{root}/.tools/axe/node_modules/axe-core/axe.min.js"));
    let out = tokio::task::spawn_blocking(move || {
        std::process::Command::new(python)
            .arg(path)
            .env("AXE_JS", axe)
            .envs(env)
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    assert_ne!(
        out.status.code(),
        Some(3),
        "{script} needs its Python libraries (scripts/test.sh installs them): {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let walked: Value = serde_json::from_slice(&out.stdout).unwrap();
    if let Some(audit) = walked.get("audit") {
        assert_accessible(script, audit);
    }
    walked
}

/// Every page a walk checked has no serious or critical axe-core violation
/// at 375 or 1280 px and does not scroll sideways at 320, 375 or 1280 px.
fn assert_accessible(script: &str, audit: &Value) {
    let pages = audit.as_array().unwrap();
    assert!(!pages.is_empty(), "{script} checked no page");
    for page in pages {
        let name = &page["name"];
        assert_eq!(
            page["violations"],
            serde_json::json!([]),
            "{script}: {name} at {}",
            page["url"]
        );
        for (width, overflow) in page["overflow"].as_object().unwrap() {
            assert!(
                overflow.as_i64().unwrap() <= 0,
                "{script}: {name} scrolls sideways by {overflow} px at {width} px"
            );
        }
    }
}

/// The standard's verdict on what a model bank exchanged (`exchanges`, as
/// `GET /_model/exchanges` lists them) against its OpenAPI document `spec`
/// (a file under `crates/models/spec/open-banking-v3.1.11r5/`):
/// `{problems, operations}` from `tests/open_banking_conformance.py`.
/// `spec`: one document under the vendored folder, or several separated
/// by `:`.
pub async fn open_banking_conformance(
    dir: &std::path::Path,
    exchanges: &Value,
    spec: &str,
) -> Value {
    let file = dir.join("exchanges.json");
    std::fs::write(&file, exchanges.to_string()).unwrap();
    let spec = spec
        .split(':')
        .map(|one| {
            format!(
                "{}/../models/spec/open-banking-v3.1.11r5/{one}",
                env!("CARGO_MANIFEST_DIR")
            )
        })
        .collect::<Vec<_>>()
        .join(":");
    python_json(
        "open_banking_conformance.py",
        vec![("EXCHANGES", file.display().to_string()), ("SPECS", spec)],
    )
    .await
}

/// A loopback port free now, for a listener that another process will
/// bind later (a browser's callback, a hub whose URL a bank must know
/// first). It is chosen below the kernel's ephemeral range (32768 up), so
/// no test binding port 0 meanwhile can be handed it; a random start keeps
/// two of these apart.
pub fn unclaimed_port() -> u16 {
    let start = 20_000 + (rand_u16() % 12_000);
    (0..12_000u16)
        .map(|i| 20_000 + (start - 20_000 + i) % 12_000)
        .find(|port| std::net::TcpListener::bind(("127.0.0.1", *port)).is_ok())
        .expect("a free loopback port below the ephemeral range")
}

fn rand_u16() -> u16 {
    let token = lendhub_system::random_token(8);
    token
        .bytes()
        .fold(0u16, |h, b| h.wrapping_mul(31).wrapping_add(u16::from(b)))
}

/// A tester at a model bank's consent page `authorisation_url` answers
/// `decision` (`approve` or `decline`), sharing `account` (`strong`, `low`,
/// …): the address the bank sends them back to (lendhub's callback).
pub async fn consent_at_bank(authorisation_url: &str, decision: &str, account: &str) -> String {
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let page = http.get(authorisation_url).send().await.unwrap();
    assert_eq!(page.status(), 200, "the bank's consent page");
    let token = consent_form_token(&page.text().await.unwrap());
    let bank = url::Url::parse(authorisation_url)
        .unwrap()
        .origin()
        .ascii_serialization();
    let back = http
        .post(format!("{bank}/authorize"))
        .form(&[
            ("page", token.as_str()),
            ("decision", decision),
            ("account", account),
        ])
        .send()
        .await
        .unwrap();
    assert!(back.status().is_redirection(), "{}", back.status());
    back.headers()["location"].to_str().unwrap().to_owned()
}

/// The one-time token of a model bank's consent form, in its page.
pub fn consent_form_token(page: &str) -> String {
    page.split("name=\"page\" value=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .unwrap_or_else(|| panic!("no consent form: {page}"))
        .to_owned()
}
