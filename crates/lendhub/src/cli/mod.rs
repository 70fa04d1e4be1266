//! The command line: `serve`, `migrate`, and administration of sandbox
//! clients, partners and signing keys.
//! Administration talks to the database directly, so it works while the
//! server runs.

mod accounts;
mod billing;
mod cms;
mod database;
mod ledger;
mod marketplace;
mod models;
mod partner;
mod reconcile;
#[cfg(test)]
mod reference;
mod simulate;
mod sso;
mod staff;
mod status;
mod underwriting;

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{Context, bail};
use clap::{Parser, Subcommand};
use lendhub_domain::clock::Clock;
use lendhub_domain::partner::scope::SandboxScopes;
use lendhub_store::ClientStatus;
use lendhub_system::SystemClock;
use serde_json::json;
use tokio::signal::unix::{SignalKind, signal};

use crate::config::Config;
use crate::keys::IfMissing;
use crate::telemetry::LogFormat;

/// A `--scopes` option's full help: `lead`, then every scope of `S` with
/// what it grants, so the list cannot drift from the scopes that exist.
fn scopes_help<S: lendhub_domain::partner::scope::Scope>(lead: &str) -> String {
    format!("{lead}\n\n{}", lendhub_domain::partner::scope::help::<S>())
}

#[derive(Parser, Debug)]
#[command(
    name = "lendhub",
    version,
    about = "UK business-lending partner platform"
)]
pub struct Args {
    /// TOML configuration file.
    #[arg(long, global = true, env = "LENDHUB_CONFIG")]
    pub config: Option<PathBuf>,
    /// Log line format.
    #[arg(long, global = true, value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,
    /// The directory holding the SQLite database (`data_dir`; default ./data,
    /// relative to where the command runs). Give administrative commands the
    /// server's.
    #[arg(long, global = true, value_name = "DIR")]
    pub data_dir: Option<PathBuf>,
    /// A postgres:// URL (`database.url`): use that PostgreSQL database
    /// instead of SQLite.
    #[arg(long, global = true, value_name = "URL")]
    pub database_url: Option<String>,
    #[command(subcommand)]
    pub command: Command,
}

impl Args {
    pub fn overrides(&self) -> crate::config::Overrides {
        crate::config::Overrides {
            data_dir: self.data_dir.clone(),
            database_url: self.database_url.clone(),
        }
    }
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Run every listener until SIGINT or SIGTERM.
    Serve,
    /// Apply pending database migrations and exit.
    Migrate,
    /// Administer the sandbox.
    Sandbox {
        #[command(subcommand)]
        command: SandboxCommand,
    },
    /// Administer partners on the live partner ring.
    Partner {
        #[command(subcommand)]
        command: partner::PartnerCommand,
    },
    /// Token-signing keys.
    Keys {
        #[command(subcommand)]
        command: partner::KeysCommand,
    },
    /// Content pages of the public ring.
    Cms {
        #[command(subcommand)]
        command: cms::CmsCommand,
    },
    /// Administer the identity provider: its users, clients and keys.
    Sso {
        #[command(subcommand)]
        command: sso::SsoCommand,
    },
    /// Act on servicing accounts: hardship arrangements and write-offs.
    Accounts {
        #[command(subcommand)]
        command: accounts::AccountsCommand,
    },
    /// Settle referred decisions of the REST tier; release a locked one.
    Underwriting {
        #[command(subcommand)]
        command: underwriting::UnderwritingCommand,
    },
    /// Review the marketplace's app listings.
    Marketplace {
        #[command(subcommand)]
        command: marketplace::MarketplaceCommand,
    },
    /// The credit models: which decides, which scores in shadow, and how
    /// they compare.
    Models {
        #[command(subcommand)]
        command: models::ModelsCommand,
    },
    /// The double-entry ledger: its trial balance.
    Ledger {
        #[command(subcommand)]
        command: ledger::LedgerCommand,
    },
    /// Reconcile a day: the bank's statements of the lender's funding and
    /// collection accounts against the ledger. A running `lendhub serve`
    /// does the work (it reaches the banks); this asks for it and prints
    /// the report. Exits 2 when items are left open for a person. With
    /// `--items`, lists the items found so far instead, open ones first.
    Reconcile {
        /// The day (UTC), YYYY-MM-DD.
        #[arg(long, required_unless_present = "items", conflicts_with = "items")]
        date: Option<String>,
        /// List the most recent items (open ones first) instead.
        #[arg(long)]
        items: bool,
        /// The report as one JSON object.
        #[arg(long)]
        json: bool,
        /// How long to wait for a server to run it.
        #[arg(long, default_value_t = 120)]
        wait_secs: u64,
    },
    /// Partners' commercial terms, and closing a month's statements.
    Billing {
        #[command(subcommand)]
        command: billing::BillingCommand,
    },
    /// The status page's incidents and maintenance windows.
    Status {
        #[command(subcommand)]
        command: status::StatusCommand,
    },
    /// Run a model server of a counterparty on its own.
    Simulate {
        #[command(subcommand)]
        command: simulate::SimulateCommand,
    },
}

#[derive(Subcommand, Debug)]
pub enum SandboxCommand {
    /// Sandbox API clients.
    Clients {
        #[command(subcommand)]
        command: ClientsCommand,
    },
}

#[derive(Subcommand, Debug)]
pub enum ClientsCommand {
    /// Create a client; prints {"client_id","client_secret","scopes"} once.
    Create {
        /// A name for the client, shown by `list`.
        #[arg(long)]
        name: String,
        /// Space-separated: sandbox:read, sandbox:write.
        #[arg(long, default_value = "sandbox:read sandbox:write",
              long_help = scopes_help::<lendhub_domain::partner::scope::SandboxScope>(
                  "Space-separated scopes, any of:"))]
        scopes: String,
    },
    /// List clients (never their secrets).
    List,
    /// Revoke a client and every token it holds.
    Revoke {
        /// The client's id (pk_test_…).
        client_id: String,
    },
}

pub async fn run(command: Command, config: Config) -> anyhow::Result<()> {
    match command {
        Command::Serve => serve(config).await,
        Command::Migrate => {
            // The schema only: a deploy step may run this without the secrets.
            crate::server::open_store(&config).await?.close().await;
            println!("migrations applied to {}", config.database_label());
            Ok(())
        }
        Command::Sandbox {
            command: SandboxCommand::Clients { command },
        } => clients(command, &config).await,
        Command::Partner { command } => partner::partner(command, &config).await,
        Command::Keys { command } => partner::keys(command, &config).await,
        Command::Cms { command } => cms::cms(command, &config).await,
        Command::Status { command } => status::status(command, &config).await,
        Command::Sso { command } => sso::sso(command, &config).await,
        Command::Accounts { command } => accounts::accounts(command, &config).await,
        Command::Underwriting { command } => underwriting::underwriting(command, &config).await,
        Command::Marketplace { command } => marketplace::marketplace(command, &config).await,
        Command::Billing { command } => billing::billing(command, &config).await,
        Command::Ledger { command } => ledger::ledger(command, &config).await,
        Command::Models { command } => models::models(command, &config).await,
        Command::Reconcile {
            date,
            items,
            json,
            wait_secs,
        } => match (date, items) {
            (Some(date), false) => reconcile::reconcile(&date, json, wait_secs, &config).await,
            _ => reconcile::items(json, &config).await,
        },
        Command::Simulate { command } => simulate::simulate(command).await,
    }
}

async fn clients(command: ClientsCommand, config: &Config) -> anyhow::Result<()> {
    let store = database::open_existing_store(config).await?;
    let now = SystemClock.now_ms();
    let result = match command {
        ClientsCommand::Create { name, scopes } => {
            let scopes =
                SandboxScopes::parse(&scopes).map_err(|s| anyhow::anyhow!("unknown scope {s}"))?;
            if scopes.is_empty() {
                bail!("--scopes must name at least one scope");
            }
            let key = crate::keys::load_checked(config, store.as_ref(), IfMissing::Refuse).await?;
            let creds =
                lendhub_sandbox::clients::create(store.as_ref(), &key, &name, &scopes, now).await?;
            println!(
                "{}",
                json!({"client_id": creds.client_id, "client_secret": creds.client_secret, "scopes": scopes.render()})
            );
            Ok(())
        }
        ClientsCommand::List => {
            for c in store.list_clients().await? {
                let status = if c.status == ClientStatus::Active {
                    "active"
                } else {
                    "revoked"
                };
                println!(
                    "{}",
                    json!({"client_id": c.client_id, "name": c.name, "scopes": c.scopes, "status": status})
                );
            }
            Ok(())
        }
        ClientsCommand::Revoke { client_id } => {
            if store.revoke_client(&client_id, now).await? {
                println!("{}", json!({"client_id": client_id, "status": "revoked"}));
                Ok(())
            } else {
                Err(anyhow::anyhow!("no active client {client_id}"))
            }
        }
    };
    store.close().await;
    result
}

async fn serve(config: Config) -> anyhow::Result<()> {
    // Handlers go in before anything is announced, so a signal sent the moment
    // the listeners are up still shuts down gracefully.
    let mut terminate =
        signal(SignalKind::terminate()).context("installing the SIGTERM handler")?;
    let mut interrupt = signal(SignalKind::interrupt()).context("installing the SIGINT handler")?;
    let store = crate::server::open_store(&config).await?;
    let fresh = store.list_clients().await?.is_empty();
    let key = crate::keys::load_checked(&config, store.as_ref(), IfMissing::Generate).await?;
    let clock: Arc<dyn Clock> = Arc::new(SystemClock);
    if fresh {
        let creds = lendhub_sandbox::clients::create(
            store.as_ref(),
            &key,
            "demo",
            &SandboxScopes::all(),
            clock.now_ms(),
        )
        .await?;
        println!(
            "A demo sandbox client was created for this new database. Its secret is shown only now:"
        );
        println!("  client_id     {}", creds.client_id);
        println!("  client_secret {}", creds.client_secret.expose());
    }
    let server = crate::server::start(&config, store, key, clock).await?;
    println!(
        "sandbox listening on http://{} (public URL {})",
        server.sandbox_addr, server.sandbox_url
    );
    println!(
        "hub listening on http://{} (public URL {})",
        server.hub_addr, server.hub_url
    );
    println!(
        "sso listening on http://{} (issuer {})",
        server.sso_addr, server.sso_url
    );
    println!(
        "ops listening on http://{} (/metrics, /healthz)",
        server.ops_addr
    );
    println!(
        "status page listening on http://{} (public URL {})",
        server.status_addr, server.status_url
    );
    tokio::select! {
        _ = terminate.recv() => {}
        _ = interrupt.recv() => {}
    }
    tracing::info!("shutting down: finishing in-flight requests and flushing writes");
    server.stop().await;
    Ok(())
}
