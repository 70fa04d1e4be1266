//! What each scenario sends and which status counts as success.

use anyhow::{Context, Result, bail};
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use bytes::Bytes;
use http_body_util::Full;
use hyper::header::{AUTHORIZATION, CONTENT_TYPE, HOST, HeaderValue};
use hyper::{Method, Request, StatusCode};
use rand::Rng;
use rand::rngs::StdRng;

use crate::target::Target;
use std::sync::atomic::{AtomicUsize, Ordering};

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ScenarioName {
    /// GET /livez, no auth.
    Baseline,
    /// POST /oauth/token, client_credentials with HTTP Basic auth.
    Token,
    /// GET /v1/applications/{app-id} with bearer.
    GetApplication,
    /// POST /v1/applications with bearer and a fresh Idempotency-Key.
    CreateApplication,
    /// GET /v1/events?limit=20 with bearer.
    ListEvents,
    /// POST /partner/v1/oauth/token on the hub, HTTP Basic with live keys.
    PartnerToken,
    /// POST /partner/v1/oauth/introspect on the hub, HTTP Basic, `token=--token`.
    Introspect,
    /// POST /partner/v1/mcp `tools/list` on the hub with bearer.
    McpToolsList,
    /// GET /partner/v1/events?limit=20 on the hub's REST tier with a bearer
    /// API key.
    RestListEvents,
    /// POST /partner/v1/applications with a live API key and a fresh Idempotency-Key.
    RestCreateApplication,
    /// GET /partner/v1/applications/{id} with a live API key.
    RestGetApplication,
    /// GET /partner/v1/accounts/{account-id}/transactions?limit=20 (from
    /// `--cursor` when given) with a live API key.
    RestAccountTransactions,
    /// POST /partner/v1/payments/links for `--account-id` with a live API
    /// key and a fresh Idempotency-Key: a durable write.
    RestCreatePaymentLink,
    /// GET /public/v1/quote/onetime on the hub, no credentials.
    QuoteOnetime,
    /// POST /public/v1/mcp `tools/call GetQuote` on the hub, no credentials.
    PublicMcpGetQuote,
    /// POST /public/v1/enquiries on the hub: a durable write and a queued mail.
    CreateEnquiry,
    /// POST /token on the identity provider, `authorization_code` with PKCE;
    /// each code comes from an unmeasured GET /authorize with `--cookie`.
    SsoCodeExchange,
    /// POST /token on the identity provider, `refresh_token`; each worker
    /// rotates its own chain.
    SsoRefresh,
    /// GET /userinfo on the identity provider with a bearer access token.
    SsoUserinfo,
}

impl ScenarioName {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Baseline => "baseline",
            Self::Token => "token",
            Self::GetApplication => "get-application",
            Self::CreateApplication => "create-application",
            Self::ListEvents => "list-events",
            Self::PartnerToken => "partner-token",
            Self::Introspect => "introspect",
            Self::McpToolsList => "mcp-tools-list",
            Self::RestListEvents => "rest-list-events",
            Self::RestCreateApplication => "rest-create-application",
            Self::RestGetApplication => "rest-get-application",
            Self::RestAccountTransactions => "rest-account-transactions",
            Self::RestCreatePaymentLink => "rest-create-payment-link",
            Self::QuoteOnetime => "quote-onetime",
            Self::PublicMcpGetQuote => "public-mcp-get-quote",
            Self::CreateEnquiry => "create-enquiry",
            Self::SsoCodeExchange => "sso-code-exchange",
            Self::SsoRefresh => "sso-refresh",
            Self::SsoUserinfo => "sso-userinfo",
        }
    }

    /// Scenarios whose requests depend on earlier responses (`crate::sso`).
    pub fn is_sso(self) -> bool {
        matches!(
            self,
            Self::SsoCodeExchange | Self::SsoRefresh | Self::SsoUserinfo
        )
    }
}

/// Credentials and ids a scenario may need, straight from the CLI.
pub struct Inputs<'a> {
    pub token: Option<&'a str>,
    pub app_id: Option<&'a str>,
    /// get-application: ids to ask for in turn, instead of `app_id`.
    pub app_ids: &'a [String],
    /// The servicing scenarios' account.
    pub account_id: Option<&'a str>,
    pub client_id: Option<&'a str>,
    pub client_secret: Option<&'a str>,
    /// The identity provider scenarios: a signed-in browser's cookies and
    /// the client's redirect URI.
    pub cookie: Option<&'a str>,
    pub redirect_uri: Option<&'a str>,
    /// list-events: page from this event id.
    pub cursor: Option<&'a str>,
}

/// A scenario with everything that does not change between requests precomputed.
pub struct Scenario {
    pub name: ScenarioName,
    method: Method,
    path: String,
    /// Paths asked for in turn, one after another across every connection,
    /// instead of `path`.
    rotation: Vec<String>,
    next: AtomicUsize,
    host: HeaderValue,
    auth: Option<HeaderValue>,
    /// A body that is the same on every request, with its content type.
    fixed_body: Option<(&'static str, Bytes)>,
    /// create-payment-link: the account the links collect for.
    account_id: Option<String>,
    /// The identity provider's stateful scenarios build their requests here.
    pub sso: Option<crate::sso::Sso>,
}

impl Scenario {
    pub fn new(name: ScenarioName, target: &Target, inputs: &Inputs<'_>) -> Result<Self> {
        let account_id = || -> Result<&str> {
            let id = inputs
                .account_id
                .context("this scenario needs --account-id")?;
            if !(id.starts_with("acc_") && plain_id(id)) {
                bail!("--account-id {id:?} is not an acc_ id");
            }
            Ok(id)
        };
        let bearer = || -> Result<Option<HeaderValue>> {
            let token = inputs.token.context("this scenario needs --token")?;
            Ok(Some(HeaderValue::from_str(&format!("Bearer {token}"))?))
        };
        let basic = || -> Result<Option<HeaderValue>> {
            let id = inputs
                .client_id
                .context("this scenario needs --client-id")?;
            let secret = inputs
                .client_secret
                .context("this scenario needs --client-secret")?;
            let basic = BASE64.encode(format!("{id}:{secret}"));
            Ok(Some(HeaderValue::from_str(&format!("Basic {basic}"))?))
        };
        const FORM: &str = "application/x-www-form-urlencoded";
        let grant = Some((FORM, Bytes::from_static(b"grant_type=client_credentials")));
        let mut fixed_body = None;
        let mut sso = None;
        let mut rotation = Vec::new();
        let (method, path, auth) = match name {
            ScenarioName::SsoCodeExchange
            | ScenarioName::SsoRefresh
            | ScenarioName::SsoUserinfo => {
                let need = |v: Option<&str>, flag: &str| {
                    v.map(str::to_owned)
                        .with_context(|| format!("the sso scenarios need {flag}"))
                };
                sso = Some(crate::sso::Sso::new(
                    crate::sso::SsoInputs {
                        client_id: need(inputs.client_id, "--client-id")?,
                        client_secret: need(inputs.client_secret, "--client-secret")?,
                        cookie: need(inputs.cookie, "--cookie")?,
                        redirect_uri: need(inputs.redirect_uri, "--redirect-uri")?,
                    },
                    target,
                )?);
                (Method::POST, "/token".to_owned(), None)
            }
            ScenarioName::Baseline => (Method::GET, "/livez".to_owned(), None),
            ScenarioName::Token => {
                fixed_body = grant;
                (Method::POST, "/oauth/token".to_owned(), basic()?)
            }
            ScenarioName::PartnerToken => {
                fixed_body = grant;
                (Method::POST, "/partner/v1/oauth/token".to_owned(), basic()?)
            }
            ScenarioName::Introspect => {
                let token = inputs.token.context("introspect needs --token")?;
                fixed_body = Some((FORM, Bytes::from(format!("token={token}"))));
                (
                    Method::POST,
                    "/partner/v1/oauth/introspect".to_owned(),
                    basic()?,
                )
            }
            ScenarioName::McpToolsList => {
                let list = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
                fixed_body = Some(("application/json", Bytes::from_static(list.as_bytes())));
                (Method::POST, "/partner/v1/mcp".to_owned(), bearer()?)
            }
            ScenarioName::RestListEvents => {
                let path = match inputs.cursor {
                    Some(id) if id.starts_with("evt_") && plain_id(&id[4..]) => {
                        format!("/partner/v1/events?limit=20&starting_after={id}")
                    }
                    Some(id) => bail!("--cursor {id:?} is not an evt_ id"),
                    None => "/partner/v1/events?limit=20".to_owned(),
                };
                (Method::GET, path, bearer()?)
            }
            ScenarioName::RestCreateApplication => (
                Method::POST,
                "/partner/v1/applications".to_owned(),
                bearer()?,
            ),
            ScenarioName::RestGetApplication => {
                let id = inputs
                    .app_id
                    .context("rest-get-application needs --app-id")?;
                if !(id.starts_with("app_") && plain_id(id)) {
                    bail!("--app-id {id:?} is not an app_ id");
                }
                (
                    Method::GET,
                    format!("/partner/v1/applications/{id}"),
                    bearer()?,
                )
            }
            ScenarioName::RestAccountTransactions => {
                let id = account_id()?;
                let path = match inputs.cursor {
                    Some(c) if c.starts_with("txn_") && plain_id(c) => {
                        format!(
                            "/partner/v1/accounts/{id}/transactions?limit=20&starting_after={c}"
                        )
                    }
                    Some(c) => bail!("--cursor {c:?} is not a txn_ id"),
                    None => format!("/partner/v1/accounts/{id}/transactions?limit=20"),
                };
                (Method::GET, path, bearer()?)
            }
            ScenarioName::RestCreatePaymentLink => {
                account_id()?;
                (
                    Method::POST,
                    "/partner/v1/payments/links".to_owned(),
                    bearer()?,
                )
            }
            ScenarioName::GetApplication => {
                let path = |id: &str| format!("{}/v1/applications/{id}", target.prefix);
                for id in inputs.app_ids {
                    if !plain_id(id) {
                        bail!("--app-ids-file holds {id:?}, not a plain id");
                    }
                    rotation.push(path(id));
                }
                let id = match inputs.app_ids.first() {
                    Some(first) => first.as_str(),
                    None => inputs
                        .app_id
                        .context("get-application needs --app-id or --app-ids-file")?,
                };
                if !plain_id(id) {
                    bail!("--app-id {id:?} is not a plain id");
                }
                (Method::GET, format!("/v1/applications/{id}"), bearer()?)
            }
            ScenarioName::CreateApplication => {
                (Method::POST, "/v1/applications".to_owned(), bearer()?)
            }
            ScenarioName::ListEvents => {
                let path = match inputs.cursor {
                    Some(id) if plain_id(id) => format!("/v1/events?limit=20&starting_after={id}"),
                    Some(id) => bail!("--cursor {id:?} is not a plain id"),
                    None => "/v1/events?limit=20".to_owned(),
                };
                (Method::GET, path, bearer()?)
            }
            ScenarioName::QuoteOnetime => (
                Method::GET,
                "/public/v1/quote/onetime?amount=250&term=42&frequency=weekly".to_owned(),
                None,
            ),
            ScenarioName::PublicMcpGetQuote => {
                let call = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"GetQuote","arguments":{"amount":250,"term":42}}}"#;
                fixed_body = Some(("application/json", Bytes::from_static(call.as_bytes())));
                (Method::POST, "/public/v1/mcp".to_owned(), None)
            }
            ScenarioName::CreateEnquiry => (Method::POST, "/public/v1/enquiries".to_owned(), None),
        };
        Ok(Self {
            name,
            method,
            path: format!("{}{path}", target.prefix),
            rotation,
            next: AtomicUsize::new(0),
            host: target.host.clone(),
            auth,
            fixed_body,
            account_id: inputs.account_id.map(str::to_owned),
            sso,
        })
    }

    pub fn expected_status(&self) -> StatusCode {
        match self.name {
            ScenarioName::CreateApplication
            | ScenarioName::CreateEnquiry
            | ScenarioName::RestCreateApplication
            | ScenarioName::RestCreatePaymentLink => StatusCode::CREATED,
            _ => StatusCode::OK,
        }
    }

    /// Builds one request. `conn` and `seq` make the Idempotency-Key unique
    /// within a run; the random suffix makes it unique across runs.
    pub fn request(&self, conn: usize, seq: u64, rng: &mut StdRng) -> Result<Request<Full<Bytes>>> {
        let path = match self.rotation.len() {
            0 => &self.path,
            n => &self.rotation[self.next.fetch_add(1, Ordering::Relaxed) % n],
        };
        let mut builder = Request::builder()
            .method(self.method.clone())
            .uri(path.as_str())
            .header(HOST, self.host.clone());
        if let Some(auth) = &self.auth {
            builder = builder.header(AUTHORIZATION, auth.clone());
        }
        if let Some((content_type, body)) = &self.fixed_body {
            builder = builder.header(CONTENT_TYPE, *content_type);
            return Ok(builder.body(Full::new(body.clone()))?);
        }
        let body = match self.name {
            ScenarioName::CreateApplication => {
                let key = format!("bench-{conn}-{seq}-{:016x}", rng.random::<u64>());
                builder = builder
                    .header(CONTENT_TYPE, "application/json")
                    .header("idempotency-key", key);
                Bytes::from(create_application_body(rng))
            }
            ScenarioName::RestCreateApplication => {
                let key = format!("bench-{conn}-{seq}-{:016x}", rng.random::<u64>());
                builder = builder
                    .header(CONTENT_TYPE, "application/json")
                    .header("idempotency-key", key);
                Bytes::from(rest_application_body(rng))
            }
            ScenarioName::RestCreatePaymentLink => {
                let key = format!("bench-{conn}-{seq}-{:016x}", rng.random::<u64>());
                builder = builder
                    .header(CONTENT_TYPE, "application/json")
                    .header("idempotency-key", key);
                let account = self.account_id.as_deref().unwrap_or_default();
                let pence = rng.random_range(100..=100_000u32);
                Bytes::from(format!(
                    r#"{{"account_id":"{account}","amount_pence":{pence},"reference":"BENCH-{seq}","description":"bench repayment"}}"#
                ))
            }
            ScenarioName::CreateEnquiry => {
                builder = builder.header(CONTENT_TYPE, "application/json");
                Bytes::from(enquiry_body(conn, seq, rng))
            }
            _ => Bytes::new(),
        };
        Ok(builder.body(Full::new(body))?)
    }
}

fn create_application_body(rng: &mut StdRng) -> String {
    let company_number = rng.random_range(0..100_000_000u32);
    let amount_pence = rng.random_range(5_000..=250_000_000u64);
    format!(
        r#"{{"business":{{"company_number":"{company_number:08}"}},"amount_pence":{amount_pence}}}"#
    )
}

/// An application the register accepts: a company number above the
/// synthetic register's magic ones, an amount and term within the seed's bounds.
fn rest_application_body(rng: &mut StdRng) -> String {
    let company_number = rng.random_range(10_000_000..100_000_000u32);
    let amount_pence = rng.random_range(100_000..=25_000_000u64);
    let term_months = rng.random_range(3..=60u32);
    format!(
        r#"{{"business":{{"company_number":"{company_number}"}},"amount_pence":{amount_pence},"term_months":{term_months},"purpose":"working_capital","applicant":{{"email":"bench@example.test"}},"reference":"bench"}}"#
    )
}

/// A realistic enquiry: a few fields and a message of varying length.
fn enquiry_body(conn: usize, seq: u64, rng: &mut StdRng) -> String {
    let words = rng.random_range(5..60usize);
    let message = "please call me back about a loan ".repeat(words / 5 + 1);
    format!(
        r#"{{"form":"contact-us","dept":"support","fields":{{"name":"Bench {conn}-{seq}","email":"bench{conn}.{seq}@example.test","message":"{message}","consent":"yes"}}}}"#
    )
}

/// Safe to put in a path or query string as it is.
fn plain_id(id: &str) -> bool {
    !id.is_empty()
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;

    use super::*;

    #[test]
    fn create_body_is_valid_json_within_bounds() {
        let mut rng = StdRng::seed_from_u64(7);
        for _ in 0..1000 {
            let v: serde_json::Value =
                serde_json::from_str(&create_application_body(&mut rng)).unwrap();
            let number = v["business"]["company_number"].as_str().unwrap();
            assert!(number.len() == 8 && number.bytes().all(|b| b.is_ascii_digit()));
            let amount = v["amount_pence"].as_u64().unwrap();
            assert!((5_000..=250_000_000).contains(&amount));
        }
    }

    /// A bearer token and, for get-application, `app_ids`; nothing else.
    fn bearer_only(app_ids: &[String]) -> Inputs<'_> {
        Inputs {
            token: Some("t"),
            app_id: None,
            app_ids,
            account_id: None,
            client_id: None,
            client_secret: None,
            cookie: None,
            redirect_uri: None,
            cursor: None,
        }
    }

    #[test]
    fn get_application_asks_for_each_listed_id_in_turn() {
        let target = Target::parse("http://127.0.0.1:1").unwrap();
        let ids = ["A1".to_owned(), "B2".to_owned(), "C3".to_owned()];
        let inputs = bearer_only(&ids);
        let s = Scenario::new(ScenarioName::GetApplication, &target, &inputs).unwrap();
        let mut rng = StdRng::seed_from_u64(1);
        let paths: Vec<String> = (0..4)
            .map(|n| s.request(n, 0, &mut rng).unwrap().uri().to_string())
            .collect();
        assert_eq!(
            paths,
            [
                "/v1/applications/A1",
                "/v1/applications/B2",
                "/v1/applications/C3",
                "/v1/applications/A1"
            ]
        );
    }

    #[test]
    fn idempotency_key_length_is_in_bounds() {
        let target = Target::parse("http://127.0.0.1:1").unwrap();
        let inputs = bearer_only(&[]);
        let s = Scenario::new(ScenarioName::CreateApplication, &target, &inputs).unwrap();
        let mut rng = StdRng::seed_from_u64(1);
        let req = s.request(4095, u64::MAX, &mut rng).unwrap();
        let key = req.headers()["idempotency-key"].to_str().unwrap();
        assert!((8..=128).contains(&key.len()), "{key}");
        assert_eq!(s.expected_status(), StatusCode::CREATED);
    }
}
