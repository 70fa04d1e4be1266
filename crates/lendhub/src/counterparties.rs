//! Each environment's counterparties as configured: a real service's URL
//! and credentials, or the embedded model server speaking its protocol,
//! started here on a loopback port. Either way the hub reaches it through
//! the same adapter, over HTTP.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use lendhub_domain::clock::Clock;
use lendhub_domain::secret::Secret;
use lendhub_hub::counterparties::{CompaniesHouse, CompanyRegister, PerEnvironment};

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
    let (url, key) = match (&c.url, &c.api_key) {
        (Some(url), Some(key)) => {
            tracing::info!(environment = env, url = %url, "company register: Companies House");
            (url.clone(), key.clone())
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
            match model {
                Some(running) => running.clone(),
                None => model.insert(start_model_register().await?).clone(),
            }
        }
    };
    let timeout = Duration::from_millis(c.timeout_ms);
    Ok(Arc::new(CompaniesHouse::new(
        &url,
        key,
        timeout,
        clock.clone(),
    )?))
}

async fn start_model_register() -> anyhow::Result<Model> {
    let key = lendhub_system::random_token(24);
    let router = lendhub_models::register::router(&key);
    let addr = lendhub_models::spawn(SocketAddr::from(([127, 0, 0, 1], 0)), router).await?;
    tracing::info!(%addr, "the model company register is listening");
    Ok((format!("http://{addr}"), Secret::from(key)))
}
