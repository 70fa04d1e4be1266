//! Each environment's counterparties as configured: a real service's URL
//! and credentials, or the embedded model server speaking its protocol,
//! started here on a loopback port. Either way the hub reaches it through
//! the same adapter, over HTTP.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use lendhub_domain::clock::Clock;
use lendhub_domain::partner::credentials::Environment;
use lendhub_domain::secret::Secret;
use lendhub_hub::counterparties::{
    AccountInformation, BankAdapters, BankConnection, BankMandates, BankPayments, Checks,
    ClearBank, CollectionAccount, CompaniesHouse, CompanyRegister, CreditBureau, CreditReports,
    FundingAccount, MessageSigner, OpenBankingAis, OpenBankingPis, OpenBankingVrp, PayoutRail,
    PerEnvironment, PersonChecks, PersonRegister, Quota,
};

use crate::config::{self, Invalid};

/// The company registers of both environments; the model register is
/// started once, for whichever environments name no register.
pub async fn company_registers(
    config: &config::Counterparties,
    clock: &Arc<dyn Clock>,
) -> anyhow::Result<PerEnvironment<Arc<dyn CompanyRegister>>> {
    let mut model = None;
    let live = company_register("live", &config.live.company_register, clock, &mut model).await?;
    let test = company_register("test", &config.test.company_register, clock, &mut model).await?;
    Ok(PerEnvironment { live, test })
}

/// Where the model register listens and the key it takes.
type Model = (String, Secret<String>);

async fn company_register(
    env: &str,
    c: &config::CompanyRegister,
    clock: &Arc<dyn Clock>,
    model: &mut Option<Model>,
) -> anyhow::Result<Arc<dyn CompanyRegister>> {
    let (url, key, quota) = match (&c.url, &c.api_key) {
        (Some(url), Some(key)) => {
            tracing::info!(environment = env, url = %url, "company register: Companies House");
            (url.clone(), key.clone(), Some(Quota::PUBLISHED))
        }
        (Some(_), None) => {
            return Err(Invalid::new(
                &format!("counterparties.{env}.company_register.api_key"),
                "Companies House needs an API key with the URL",
            )
            .into());
        }
        (None, _) => {
            tracing::warn!(
                environment = env,
                "company register: the embedded model register, not Companies House"
            );
            let (url, key) = match model {
                Some(running) => running.clone(),
                None => model.insert(start_model_register().await?).clone(),
            };
            // The model has no quota of Companies House's to protect.
            (url, key, None)
        }
    };
    let timeout = Duration::from_millis(c.timeout_ms);
    Ok(Arc::new(CompaniesHouse::new(
        &url,
        key,
        timeout,
        clock.clone(),
        quota,
    )?))
}

async fn start_model_register() -> anyhow::Result<Model> {
    let key = lendhub_system::random_token(24);
    let router = lendhub_models::register::router(&key);
    let addr = lendhub_models::spawn(SocketAddr::from(([127, 0, 0, 1], 0)), router).await?;
    tracing::info!(%addr, "the model company register is listening");
    Ok((format!("http://{addr}"), Secret::from(key)))
}

/// Each environment's identity provider and credit bureau: a configured
/// service, or the embedded model server of its kind (started once, for
/// whichever environments name none).
pub async fn checks(config: &config::Counterparties) -> anyhow::Result<Checks> {
    let service = |env: &config::EnvironmentCounterparties| env.identity.clone();
    let people = keyed_services("identity", config, service, lendhub_models::people::router)
        .await?
        .try_map(|(url, key, timeout)| {
            PersonChecks::new(&url, key, timeout).map(|p| Arc::new(p) as Arc<dyn PersonRegister>)
        })?;
    let service = |env: &config::EnvironmentCounterparties| env.credit_bureau.clone();
    let bureau = keyed_services(
        "credit_bureau",
        config,
        service,
        lendhub_models::bureau::router,
    )
    .await?
    .try_map(|(url, key, timeout)| {
        CreditReports::new(&url, key, timeout).map(|b| Arc::new(b) as Arc<dyn CreditBureau>)
    })?;
    Ok(Checks { people, bureau })
}

/// Where a service is reached, with what key, within what time.
type Reached = (String, Secret<String>, Duration);

/// Both environments' `kind` service: as configured, or a model server
/// (`model`, for a key) started once for both.
async fn keyed_services(
    kind: &str,
    config: &config::Counterparties,
    service: impl Fn(&config::EnvironmentCounterparties) -> config::KeyedService,
    model: fn(&str) -> axum::Router,
) -> anyhow::Result<PerEnvironment<Reached>> {
    let mut started: Option<(String, Secret<String>)> = None;
    let mut reach = async |env: &str, c: config::KeyedService| -> anyhow::Result<Reached> {
        let timeout = Duration::from_millis(c.timeout_ms);
        match (c.url, c.api_key) {
            (Some(url), Some(key)) => {
                tracing::info!(environment = env, kind, url = %url, "a configured service");
                Ok((url, key, timeout))
            }
            (Some(_), None) => Err(Invalid::new(
                &format!("counterparties.{env}.{kind}.api_key"),
                "the service needs an API key with the URL",
            )
            .into()),
            (None, _) => {
                tracing::warn!(
                    environment = env,
                    kind,
                    "the embedded model server, not a real service"
                );
                let (url, key) = match &started {
                    Some(running) => running.clone(),
                    None => {
                        let key = lendhub_system::random_token(24);
                        let addr = lendhub_models::spawn(
                            SocketAddr::from(([127, 0, 0, 1], 0)),
                            model(&key),
                        )
                        .await?;
                        tracing::info!(%addr, kind, "a model server is listening");
                        started
                            .insert((format!("http://{addr}"), Secret::from(key)))
                            .clone()
                    }
                };
                Ok((url, key, timeout))
            }
        }
    };
    let live = reach("live", service(&config.live)).await?;
    let test = reach("test", service(&config.test)).await?;
    Ok(PerEnvironment { live, test })
}

/// Each environment's banks, for account information on the hosted
/// journey and payment initiation on the pay page, and its payout rail.
/// The model bank is started once, for whichever environments name no
/// bank or no rail. lendhub's redirect URI at every bank, and where each
/// posts its notifications and webhooks, are below `hub_url`.
pub async fn open_banking(
    config: &config::Config,
    hub_url: &str,
    clock: &Arc<dyn Clock>,
    stop: &tokio_util::sync::CancellationToken,
) -> anyhow::Result<(
    BankAdapters,
    PerEnvironment<Arc<dyn PayoutRail>>,
    Option<tokio::task::JoinHandle<()>>,
)> {
    let hub_url = hub_url.trim_end_matches('/');
    let model_events = format!("{hub_url}{}", lendhub_hub::bank_events::path(MODEL_BANK.0));
    // The model rail's one webhook URL serves both environments: each
    // checks the same model key, and a webhook finds its payment by id.
    let rail_events = format!(
        "{hub_url}{}",
        lendhub_hub::rail_events::path(Environment::Test)
    );
    let place = ModelBankPlace {
        redirect_uri: &format!("{hub_url}/open-banking/callback"),
        events_url: &model_events,
        rail_events_url: &rail_events,
        books: &config.data_dir.join(MODEL_BANK_BOOKS),
        clock,
        stop,
    };
    let mut model = ModelBank::default();
    let c = &config.counterparties;
    let (live_accounts, live_payments, live_mandates) =
        banks("live", &c.live.open_banking, &place, &mut model).await?;
    let (test_accounts, test_payments, test_mandates) =
        banks("test", &c.test.open_banking, &place, &mut model).await?;
    let adapters = BankAdapters {
        accounts: PerEnvironment {
            live: live_accounts,
            test: test_accounts,
        },
        payments: PerEnvironment {
            live: live_payments,
            test: test_payments,
        },
        mandates: PerEnvironment {
            live: live_mandates,
            test: test_mandates,
        },
    };
    let rails = PerEnvironment {
        live: payout_rail("live", &c.live.payout_rail, &place, &mut model).await?,
        test: payout_rail("test", &c.test.payout_rail, &place, &mut model).await?,
    };
    Ok((adapters, rails, model.keeper))
}

/// One environment's payout rail: the configured clearing bank, or the
/// model bank's.
async fn payout_rail(
    env: &str,
    c: &config::PayoutRail,
    place: &ModelBankPlace<'_>,
    model: &mut ModelBank,
) -> anyhow::Result<Arc<dyn PayoutRail>> {
    let timeout = Duration::from_millis(c.timeout_ms);
    let Some(url) = &c.url else {
        tracing::warn!(
            environment = env,
            "payout rail: the embedded model bank's, not a clearing bank"
        );
        let bank = model.started(place).await?;
        let base = bank
            .api_base_url
            .trim_end_matches("/open-banking/v3.1")
            .to_owned();
        let (id, account) = lendhub_models::bank::fps::FUNDING_ACCOUNT;
        let rail = ClearBank::new(
            &base,
            bank.client_secret.clone(),
            (
                FundingAccount {
                    id: id.to_owned(),
                    sort_code_account_number: account.to_owned(),
                    address: "Lendhub (model), 1 Test Street, London, EC1A 1AA".to_owned(),
                },
                Some(lendhub_models::bank::fps::COLLECTION_ACCOUNT.0.to_owned()),
            ),
            Arc::new(
                lendhub_system::RsaSigner::from_pem(lendhub_models::keys::LENDHUB_SIGNING_PEM)
                    .map_err(anyhow::Error::msg)?,
            ),
            Arc::new(
                lendhub_system::Rs256Verifier::from_pem(
                    lendhub_models::keys::MODEL_BANK_SIGNING_PUBLIC_PEM,
                )
                .map_err(anyhow::Error::msg)?,
            ),
            timeout,
        )?;
        return Ok(Arc::new(rail));
    };
    let key = |field: &str| format!("counterparties.{env}.payout_rail.{field}");
    let needed = |field: &str| Invalid::new(&key(field), "the payout rail needs it with the URL");
    let token = c.api_token.clone().ok_or_else(|| needed("api_token"))?;
    let read = |field: &str, path: &Option<std::path::PathBuf>| -> anyhow::Result<String> {
        let path = path.as_ref().ok_or_else(|| needed(field))?;
        std::fs::read_to_string(path)
            .map_err(|e| Invalid::new(&key(field), format!("{}: {e}", path.display())).into())
    };
    let signer =
        lendhub_system::RsaSigner::from_pem(&read("signing_key_file", &c.signing_key_file)?)
            .map_err(|e| Invalid::new(&key("signing_key_file"), e))?;
    let bank_key = lendhub_system::Rs256Verifier::from_pem(&read(
        "bank_public_key_file",
        &c.bank_public_key_file,
    )?)
    .map_err(|e| Invalid::new(&key("bank_public_key_file"), e))?;
    let account = c
        .funding_account
        .as_ref()
        .ok_or_else(|| needed("funding_account"))?;
    let digits = |s: &str, n: usize| s.len() == n && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(&account.sort_code, 6) {
        return Err(Invalid::new(&key("funding_account.sort_code"), "six digits").into());
    }
    if !digits(&account.account_number, 8) {
        return Err(Invalid::new(&key("funding_account.account_number"), "eight digits").into());
    }
    tracing::info!(environment = env, url = %url, "payout rail: a clearing bank");
    Ok(Arc::new(ClearBank::new(
        url,
        token,
        (
            FundingAccount {
                id: account.id.clone(),
                sort_code_account_number: format!(
                    "{}{}",
                    account.sort_code, account.account_number
                ),
                address: account.address.clone(),
            },
            c.collection_account_id.clone(),
        ),
        Arc::new(signer),
        Arc::new(bank_key),
        timeout,
    )?))
}

/// One environment's banks: read, paid at, and holding mandates.
type Banked = (
    Arc<dyn AccountInformation>,
    Arc<dyn BankPayments>,
    Arc<dyn BankMandates>,
);

/// Where the embedded model bank sends payers back and posts its
/// notifications, where it keeps its books, and its clock.
struct ModelBankPlace<'a> {
    redirect_uri: &'a str,
    events_url: &'a str,
    rail_events_url: &'a str,
    books: &'a std::path::Path,
    clock: &'a Arc<dyn Clock>,
    stop: &'a tokio_util::sync::CancellationToken,
}

/// The embedded model bank, once started: how lendhub reaches it, and the
/// task writing its books.
#[derive(Default)]
struct ModelBank {
    running: Option<BankConnection>,
    keeper: Option<tokio::task::JoinHandle<()>>,
}

impl ModelBank {
    /// How lendhub reaches the model bank, started now if it is not yet.
    async fn started(&mut self, place: &ModelBankPlace<'_>) -> anyhow::Result<BankConnection> {
        if let Some(running) = &self.running {
            return Ok(running.clone());
        }
        let (running, keeper) = start_model_bank(place).await?;
        self.keeper = keeper;
        Ok(self.running.insert(running).clone())
    }
}

/// The embedded model bank's books, in the data directory.
pub const MODEL_BANK_BOOKS: &str = "model-bank.json";

async fn banks(
    env: &str,
    c: &config::OpenBanking,
    place: &ModelBankPlace<'_>,
    model: &mut ModelBank,
) -> anyhow::Result<Banked> {
    let clock = place.clock;
    let (banks, signer, collection) = if c.banks.is_empty() {
        tracing::warn!(
            environment = env,
            "open banking: the embedded model bank, not a real bank"
        );
        let bank = model.started(place).await?;
        (vec![bank], model_signer()?, model_collection_account())
    } else {
        let banks = c
            .banks
            .iter()
            .map(|(id, b)| {
                tracing::info!(environment = env, bank = %id, name = %b.name, "open banking: a configured bank");
                BankConnection {
                    id: id.clone(),
                    name: b.name.clone(),
                    discovery_url: b.discovery_url.clone(),
                    api_base_url: b.api_base_url.clone(),
                    client_id: b.client_id.clone(),
                    client_secret: b.client_secret.clone(),
                }
            })
            .collect();
        (banks, signer(env, c)?, collection_account(env, c)?)
    };
    let timeout = Duration::from_millis(c.timeout_ms);
    let accounts = OpenBankingAis::new(
        banks.clone(),
        place.redirect_uri.to_owned(),
        timeout,
        clock.clone(),
    )?;
    let payments = OpenBankingPis::new(
        banks.clone(),
        collection.clone(),
        signer.clone(),
        place.redirect_uri.to_owned(),
        timeout,
        clock.clone(),
    )?;
    let mandates = OpenBankingVrp::new(
        banks,
        collection,
        signer,
        place.redirect_uri.to_owned(),
        timeout,
        clock.clone(),
    )?;
    Ok((Arc::new(accounts), Arc::new(payments), Arc::new(mandates)))
}

/// The key lendhub signs payment requests to a real bank with.
fn signer(env: &str, c: &config::OpenBanking) -> anyhow::Result<MessageSigner> {
    let key = format!("counterparties.{env}.open_banking.message_signing");
    let Some(signing) = &c.message_signing else {
        return Err(Invalid::new(
            &key,
            "a bank is configured: payment requests must be signed",
        )
        .into());
    };
    let pem = std::fs::read_to_string(&signing.key_file).map_err(|e| {
        Invalid::new(
            &format!("{key}.key_file"),
            format!("{}: {e}", signing.key_file.display()),
        )
    })?;
    MessageSigner::from_pem(&pem, signing.kid.clone(), signing.issuer.clone()).map_err(|e| {
        Invalid::new(
            &format!("{key}.key_file"),
            format!("not an RSA private key in PEM: {e}"),
        )
        .into()
    })
}

fn collection_account(env: &str, c: &config::OpenBanking) -> anyhow::Result<CollectionAccount> {
    let key = format!("counterparties.{env}.open_banking.collection_account");
    let Some(account) = &c.collection_account else {
        return Err(Invalid::new(
            &key,
            "a bank is configured: payments need an account to go to",
        )
        .into());
    };
    let digits = |s: &str, n: usize| s.len() == n && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(&account.sort_code, 6) {
        return Err(Invalid::new(&format!("{key}.sort_code"), "six digits").into());
    }
    if !digits(&account.account_number, 8) {
        return Err(Invalid::new(&format!("{key}.account_number"), "eight digits").into());
    }
    if account.name.trim().is_empty() {
        return Err(
            Invalid::new(&format!("{key}.name"), "the payee's name, as banks show it").into(),
        );
    }
    Ok(CollectionAccount {
        name: account.name.clone(),
        sort_code_account_number: format!("{}{}", account.sort_code, account.account_number),
    })
}

/// The model bank verifies requests signed with the model key
/// (`crates/models/keys`), which is public: never for a real bank.
fn model_signer() -> anyhow::Result<MessageSigner> {
    use lendhub_models::keys;
    MessageSigner::from_pem(
        keys::LENDHUB_SIGNING_PEM,
        keys::LENDHUB_SIGNING_KID,
        keys::LENDHUB_SIGNING_ISS,
    )
    .map_err(anyhow::Error::msg)
}

/// The account payments to the model bank are made out to.
fn model_collection_account() -> CollectionAccount {
    let (name, account) = lendhub_models::bank::standing::COLLECTION_ACCOUNT;
    CollectionAccount {
        name: name.to_owned(),
        sort_code_account_number: account.to_owned(),
    }
}

/// The model bank's id and name on the bank choice.
pub const MODEL_BANK: (&str, &str) = ("model_bank", "Model Bank (test)");

/// The model bank, on the server's clock: a test that moves the clock
/// moves the bank's VRP periods and token lifetimes with it.
async fn start_model_bank(
    place: &ModelBankPlace<'_>,
) -> anyhow::Result<(BankConnection, Option<tokio::task::JoinHandle<()>>)> {
    let registration = lendhub_models::bank::Registration::lendhub(
        "lendhub".to_owned(),
        lendhub_system::random_token(24),
        vec![place.redirect_uri.to_owned()],
    )
    .notifying(place.events_url.to_owned())
    .rail_webhooks(place.rail_events_url.to_owned());
    let secret = Secret::from(registration.client_secret.clone());
    // A restart finds the consents, mandates and payments the bank had.
    let opening = lendhub_models::bank::Opening::kept_in(place.books).map_err(|e| {
        anyhow::anyhow!(
            "opening the model bank's books {}: {e}",
            place.books.display()
        )
    })?;
    let (addr, keeper) = lendhub_models::spawn_at(SocketAddr::from(([127, 0, 0, 1], 0)), |base| {
        lendhub_models::bank::router_opening(base, registration, place.clock.clone(), opening)
    })
    .await?;
    // Written once more as the server stops, which waits for it.
    let keeper = keeper.map(|k| tokio::spawn(k.run(place.stop.clone().cancelled_owned())));
    tracing::info!(%addr, "the model bank is listening");
    let base = format!("http://{addr}");
    let connection = BankConnection {
        id: MODEL_BANK.0.to_owned(),
        name: MODEL_BANK.1.to_owned(),
        discovery_url: format!("{base}/.well-known/openid-configuration"),
        api_base_url: format!("{base}/open-banking/v3.1"),
        client_id: "lendhub".to_owned(),
        client_secret: secret,
    };
    Ok((connection, keeper))
}

/// The kinds each environment reaches on a model server, because it names
/// no real service for them.
pub fn model_servers(config: &config::Counterparties) -> PerEnvironment<Vec<&'static str>> {
    let of = |c: &config::EnvironmentCounterparties| {
        let mut kinds = Vec::new();
        if c.company_register.url.is_none() {
            kinds.push("company register");
        }
        if c.open_banking.banks.is_empty() {
            kinds.push("bank");
        }
        if c.identity.url.is_none() {
            kinds.push("identity checks");
        }
        if c.credit_bureau.url.is_none() {
            kinds.push("credit bureau");
        }
        if c.payout_rail.url.is_none() {
            kinds.push("payout rail");
        }
        kinds
    };
    PerEnvironment {
        live: of(&config.live),
        test: of(&config.test),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_environment_runs_on_model_servers_for_what_it_does_not_configure() {
        let mut config = config::Counterparties::default();
        config.live.company_register.url = Some("https://register.example".into());
        config.live.open_banking.banks.insert(
            "acme".into(),
            config::Bank {
                name: "Acme Bank".into(),
                discovery_url: "https://acme.example/.well-known/openid-configuration".into(),
                api_base_url: "https://acme.example/open-banking/v3.1".into(),
                client_id: "c".into(),
                client_secret: Secret::from("s".to_owned()),
            },
        );
        config.live.identity.url = Some("https://kyc.example".into());
        config.live.credit_bureau.url = Some("https://bureau.example".into());
        config.live.payout_rail.url = Some("https://institution-api.clearbank.example".into());
        let models = model_servers(&config);
        assert!(models.live.is_empty());
        assert_eq!(
            models.test,
            [
                "company register",
                "bank",
                "identity checks",
                "credit bureau",
                "payout rail"
            ]
        );
    }

    #[test]
    fn a_real_bank_needs_a_signing_key_and_a_collection_account() {
        let mut ob = config::OpenBanking::default();
        let refused = signer("live", &ob).err().map(|e| e.to_string());
        assert!(
            refused
                .is_some_and(|e| e.starts_with("counterparties.live.open_banking.message_signing")),
        );
        ob.message_signing = Some(config::MessageSigning {
            key_file: "/nonexistent/key.pem".into(),
            kid: "k".into(),
            issuer: "i".into(),
        });
        let refused = signer("live", &ob).err().map(|e| e.to_string());
        assert!(refused.is_some_and(|e| e.contains("message_signing.key_file")));
        let refused = collection_account("live", &ob).err().map(|e| e.to_string());
        assert!(refused.is_some_and(|e| e.contains("collection_account")));
        ob.collection_account = Some(config::CollectionAccount {
            name: "Lender Ltd".into(),
            sort_code: "60-16-13".into(),
            account_number: "31926819".into(),
        });
        let refused = collection_account("live", &ob).err().map(|e| e.to_string());
        assert!(refused.is_some_and(|e| e.contains("collection_account.sort_code")));
        if let Some(account) = &mut ob.collection_account {
            account.sort_code = "601613".into();
        }
        let account = collection_account("live", &ob).ok();
        assert_eq!(
            account.map(|a| a.sort_code_account_number),
            Some("60161331926819".to_owned())
        );
    }
}
