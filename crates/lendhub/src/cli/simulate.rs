//! `lendhub simulate <kind>`: one model server on its own, speaking its
//! counterparty's protocol (`lendhub_models`), for a lendhub configured to
//! reach it as it would the real service, or for tests that run the live
//! environment against separate processes.

use std::net::SocketAddr;

use anyhow::Context;
use clap::Subcommand;
use tokio::signal::unix::{SignalKind, signal};

#[derive(Subcommand, Debug)]
pub enum SimulateCommand {
    /// The Companies House Public Data API (`GET /company/{number}`).
    Register {
        /// Where to listen; port 0 picks a free one.
        #[arg(long, default_value = "127.0.0.1:9101")]
        addr: SocketAddr,
        /// The API key callers present as HTTP basic user name; read from
        /// LENDHUB_MODEL_API_KEY when not given.
        #[arg(long, env = "LENDHUB_MODEL_API_KEY", hide_env_values = true)]
        api_key: String,
    },
    /// An identity provider over lendhub's person-checks API
    /// (`POST /v1/person-checks`).
    Identity {
        /// Where to listen; port 0 picks a free one.
        #[arg(long, default_value = "127.0.0.1:9103")]
        addr: SocketAddr,
        /// The API key callers present as a bearer token; read from
        /// LENDHUB_MODEL_API_KEY when not given.
        #[arg(long, env = "LENDHUB_MODEL_API_KEY", hide_env_values = true)]
        api_key: String,
    },
    /// A credit bureau over lendhub's credit-report API
    /// (`GET /v1/companies/{number}/credit-report`).
    Bureau {
        /// Where to listen; port 0 picks a free one.
        #[arg(long, default_value = "127.0.0.1:9104")]
        addr: SocketAddr,
        /// The API key callers present as a bearer token; read from
        /// LENDHUB_MODEL_API_KEY when not given.
        #[arg(long, env = "LENDHUB_MODEL_API_KEY", hide_env_values = true)]
        api_key: String,
    },
    /// A bank over the UK Open Banking Read/Write API (account information,
    /// payments, VRP) and its OpenID Connect flows, with its own consent
    /// page; and the lender's clearing bank's payout rail over ClearBank's
    /// API (`POST /v3/payments/fps`), the client's secret its API token.
    Bank {
        /// Where to listen; port 0 picks a free one.
        #[arg(long, default_value = "127.0.0.1:9102")]
        addr: SocketAddr,
        /// The one client registered with the bank.
        #[arg(long, default_value = "lendhub")]
        client_id: String,
        /// Its secret (`client_secret_basic`); read from
        /// LENDHUB_MODEL_CLIENT_SECRET when not given.
        #[arg(long, env = "LENDHUB_MODEL_CLIENT_SECRET", hide_env_values = true)]
        client_secret: String,
        /// Where the consent page may send the payer back: lendhub's
        /// `{hub public_url}/open-banking/callback`. Repeat for more.
        #[arg(long, required = true)]
        redirect_uri: Vec<String>,
        /// Where the bank posts its event notifications for the client:
        /// lendhub's `{hub public_url}/open-banking/events/<bank_id>`, with
        /// the id lendhub's configuration gives this bank. None, none sent.
        #[arg(long)]
        event_notification_url: Option<String>,
        /// Where the payout rail posts its webhooks: lendhub's
        /// `{hub public_url}/payout-rail/events/<environment>`. None, none
        /// sent.
        #[arg(long)]
        rail_webhook_url: Option<String>,
        /// A file the bank keeps its books in (consents, mandates,
        /// payments, tokens), so a restart finds them; none, it starts
        /// empty each time.
        #[arg(long)]
        books: Option<std::path::PathBuf>,
    },
}

pub async fn simulate(command: SimulateCommand) -> anyhow::Result<()> {
    let mut terminate =
        signal(SignalKind::terminate()).context("installing the SIGTERM handler")?;
    let mut interrupt = signal(SignalKind::interrupt()).context("installing the SIGINT handler")?;
    match command {
        SimulateCommand::Register { addr, api_key } => {
            if api_key.is_empty() {
                anyhow::bail!("--api-key must not be empty");
            }
            let router = lendhub_models::register::router(&api_key);
            let bound = lendhub_models::spawn(addr, router)
                .await
                .with_context(|| format!("listening on {addr}"))?;
            // The first line says where: a test or script reads it.
            println!("model company register listening on http://{bound}");
        }
        SimulateCommand::Identity { addr, api_key } => {
            keyed(
                "identity provider",
                addr,
                &api_key,
                lendhub_models::people::router,
            )
            .await?;
        }
        SimulateCommand::Bureau { addr, api_key } => {
            keyed(
                "credit bureau",
                addr,
                &api_key,
                lendhub_models::bureau::router,
            )
            .await?;
        }
        SimulateCommand::Bank {
            addr,
            client_id,
            client_secret,
            redirect_uri,
            event_notification_url,
            rail_webhook_url,
            books,
        } => {
            if client_secret.is_empty() {
                anyhow::bail!("--client-secret must not be empty");
            }
            let mut registration =
                lendhub_models::bank::Registration::lendhub(client_id, client_secret, redirect_uri);
            registration.event_notification_url = event_notification_url;
            registration.rail_webhook_url = rail_webhook_url;
            let opening = match &books {
                Some(file) => lendhub_models::bank::Opening::kept_in(file)
                    .with_context(|| format!("opening the books {}", file.display()))?,
                None => lendhub_models::bank::Opening::default(),
            };
            let clock: std::sync::Arc<dyn lendhub_domain::clock::Clock> =
                std::sync::Arc::new(lendhub_system::SystemClock);
            let (bound, keeper) = lendhub_models::spawn_at(addr, |base| {
                lendhub_models::bank::router_opening(base, registration, clock, opening)
            })
            .await
            .with_context(|| format!("listening on {addr}"))?;
            println!("model bank listening on http://{bound}");
            if let Some(keeper) = keeper {
                // The books are written once more as the bank stops.
                keeper.run(signalled(&mut terminate, &mut interrupt)).await;
                return Ok(());
            }
        }
    }
    signalled(&mut terminate, &mut interrupt).await;
    Ok(())
}

/// Until SIGTERM or SIGINT.
async fn signalled(
    terminate: &mut tokio::signal::unix::Signal,
    interrupt: &mut tokio::signal::unix::Signal,
) {
    tokio::select! {
        _ = terminate.recv() => {}
        _ = interrupt.recv() => {}
    }
}

/// A model server of one of lendhub's own JSON APIs, taking `api_key`.
async fn keyed(
    what: &str,
    addr: SocketAddr,
    api_key: &str,
    router: fn(&str) -> axum::Router,
) -> anyhow::Result<()> {
    if api_key.is_empty() {
        anyhow::bail!("--api-key must not be empty");
    }
    let bound = lendhub_models::spawn(addr, router(api_key))
        .await
        .with_context(|| format!("listening on {addr}"))?;
    // The first line says where: a test or script reads it.
    println!("model {what} listening on http://{bound}");
    Ok(())
}
