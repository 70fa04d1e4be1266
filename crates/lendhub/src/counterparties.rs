//! Each environment's counterparties as configured: a real service's URL
//! and credentials, or the embedded model server speaking its protocol,
//! started here on a loopback port. Either way the hub reaches it through
//! the same adapter, over HTTP.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use lendhub_domain::clock::Clock;
use lendhub_domain::secret::Secret;
use lendhub_hub::counterparties::{
    AccountInformation, BankConnection, CompaniesHouse, CompanyRegister, OpenBankingAis,
    PerEnvironment, Quota,
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

/// Each environment's banks for account information; the model bank is
/// started once, for whichever environments name no bank. `redirect_uri`
/// is lendhub's at every bank.
pub async fn account_information(
    config: &config::Counterparties,
    redirect_uri: &str,
    clock: &Arc<dyn Clock>,
) -> anyhow::Result<PerEnvironment<Arc<dyn AccountInformation>>> {
    let mut model = None;
    let live = banks(
        "live",
        &config.live.open_banking,
        redirect_uri,
        clock,
        &mut model,
    )
    .await?;
    let test = banks(
        "test",
        &config.test.open_banking,
        redirect_uri,
        clock,
        &mut model,
    )
    .await?;
    Ok(PerEnvironment { live, test })
}

async fn banks(
    env: &str,
    c: &config::OpenBanking,
    redirect_uri: &str,
    clock: &Arc<dyn Clock>,
    model: &mut Option<BankConnection>,
) -> anyhow::Result<Arc<dyn AccountInformation>> {
    let banks = if c.banks.is_empty() {
        tracing::warn!(
            environment = env,
            "open banking: the embedded model bank, not a real bank"
        );
        let bank = match model {
            Some(running) => running.clone(),
            None => model.insert(start_model_bank(redirect_uri).await?).clone(),
        };
        vec![bank]
    } else {
        c.banks
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
            .collect()
    };
    let timeout = Duration::from_millis(c.timeout_ms);
    Ok(Arc::new(OpenBankingAis::new(
        banks,
        redirect_uri.to_owned(),
        timeout,
        clock.clone(),
    )?))
}

/// The model bank's id and name on the bank choice.
pub const MODEL_BANK: (&str, &str) = ("model_bank", "Model Bank (test)");

async fn start_model_bank(redirect_uri: &str) -> anyhow::Result<BankConnection> {
    let registration = lendhub_models::bank::Registration::lendhub(
        "lendhub".to_owned(),
        lendhub_system::random_token(24),
        vec![redirect_uri.to_owned()],
    );
    let secret = Secret::from(registration.client_secret.clone());
    let addr = lendhub_models::spawn_at(SocketAddr::from(([127, 0, 0, 1], 0)), |base| {
        lendhub_models::bank::router(base, registration)
    })
    .await?;
    tracing::info!(%addr, "the model bank is listening");
    let base = format!("http://{addr}");
    Ok(BankConnection {
        id: MODEL_BANK.0.to_owned(),
        name: MODEL_BANK.1.to_owned(),
        discovery_url: format!("{base}/.well-known/openid-configuration"),
        api_base_url: format!("{base}/open-banking/v3.1"),
        client_id: "lendhub".to_owned(),
        client_secret: secret,
    })
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
        let models = model_servers(&config);
        assert!(models.live.is_empty());
        assert_eq!(models.test, ["company register", "bank"]);
    }
}
