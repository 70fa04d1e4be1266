//! `lendhub partner clients …` and `lendhub keys rotate`: partner projects
//! and the keys that sign their tokens. Like every administrative command,
//! these work on the database directly, beside running servers.

use anyhow::bail;
use clap::Subcommand;
use lendhub_domain::clock::Clock;
use lendhub_domain::partner::{PartnerStatus, Tier};
use lendhub_domain::scope::PartnerScopes;
use lendhub_hub::partner::clients;
use lendhub_store::PartnerClientChange;
use lendhub_system::SystemClock;
use serde_json::json;

use crate::config::Config;
use crate::keys::IfMissing;

#[derive(Subcommand, Debug)]
pub enum PartnerCommand {
    /// Partner projects on the live partner ring.
    Clients {
        #[command(subcommand)]
        command: PartnerClientsCommand,
    },
}

#[derive(Subcommand, Debug)]
pub enum PartnerClientsCommand {
    /// Create a partner; prints {"client_id","client_secret","scopes","tier"} once.
    Create {
        /// The partner project's name.
        #[arg(long)]
        name: String,
        /// Space-separated: mcp.read, ops.read, account.read, owner.read.
        #[arg(long)]
        scopes: String,
        /// The rate-limit tier (seed: build 10/s, launch 25/s, scale 100/s,
        /// platform negotiated).
        #[arg(long, default_value = "build", value_parser = ["build", "launch", "scale", "platform"])]
        tier: String,
        /// The project's sandbox client (pk_test_…): the MCP tools explain
        /// the decisions of its applications.
        #[arg(long)]
        sandbox_client_id: Option<String>,
    },
    /// List partners (never their secrets).
    List,
    /// Suspend a partner: its tokens stop working and it gets no new ones.
    Suspend {
        /// The partner's client id (pk_live_…).
        client_id: String,
    },
    /// Replace a partner's secret; prints the new one once. The old one stops working.
    RotateSecret {
        /// The partner's client id (pk_live_…).
        client_id: String,
    },
}

#[derive(Subcommand, Debug)]
pub enum KeysCommand {
    /// Make a new partner token-signing key current. Tokens signed by the
    /// key it replaces keep verifying until they expire.
    Rotate,
}

pub async fn partner(command: PartnerCommand, config: &Config) -> anyhow::Result<()> {
    let PartnerCommand::Clients { command } = command;
    let store = crate::cli::open_existing_store(config).await?;
    let now = SystemClock.now_ms();
    let result = match command {
        PartnerClientsCommand::Create {
            name,
            scopes,
            tier,
            sandbox_client_id,
        } => {
            let scopes =
                PartnerScopes::parse(&scopes).map_err(|s| anyhow::anyhow!("unknown scope {s}"))?;
            if scopes.is_empty() {
                bail!("--scopes must name at least one scope");
            }
            let tier = Tier::parse(&tier).ok_or_else(|| anyhow::anyhow!("unknown tier {tier}"))?;
            if let Some(id) = &sandbox_client_id
                && store.client(id).await?.is_none()
            {
                bail!("no sandbox client {id}");
            }
            let key = crate::keys::load_checked(config, store.as_ref(), IfMissing::Refuse).await?;
            let sandbox = sandbox_client_id.as_deref();
            let created =
                clients::create(store.as_ref(), &key, &name, &scopes, tier, sandbox, now).await?;
            println!(
                "{}",
                json!({"client_id": created.client_id, "client_secret": created.client_secret,
                       "scopes": scopes.render(), "tier": tier.as_str()})
            );
            Ok(())
        }
        PartnerClientsCommand::List => {
            for c in store.list_partner_clients().await? {
                println!(
                    "{}",
                    json!({"client_id": c.client_id, "name": c.name, "scopes": c.scopes,
                           "tier": c.tier.as_str(), "status": c.status.as_str()})
                );
            }
            Ok(())
        }
        PartnerClientsCommand::Suspend { client_id } => {
            let change = PartnerClientChange::Status(PartnerStatus::Suspended);
            if store.update_partner_client(&client_id, change, now).await? {
                println!("{}", json!({"client_id": client_id, "status": "suspended"}));
                Ok(())
            } else {
                Err(anyhow::anyhow!("no partner client {client_id}"))
            }
        }
        PartnerClientsCommand::RotateSecret { client_id } => {
            let key = crate::keys::load_checked(config, store.as_ref(), IfMissing::Refuse).await?;
            match clients::rotate_secret(store.as_ref(), &key, &client_id, now).await? {
                Some(secret) => {
                    println!(
                        "{}",
                        json!({"client_id": client_id, "client_secret": secret})
                    );
                    Ok(())
                }
                None => Err(anyhow::anyhow!("no partner client {client_id}")),
            }
        }
    };
    store.close().await;
    result
}

pub async fn keys(command: KeysCommand, config: &Config) -> anyhow::Result<()> {
    let KeysCommand::Rotate = command;
    let store = crate::cli::open_existing_store(config).await?;
    let key = crate::keys::load_checked(config, store.as_ref(), IfMissing::Refuse).await?;
    let now = SystemClock.now_ms();
    // A fresh database gets its first key, then the rotation proper.
    lendhub_hub::KeyRing::load(store.as_ref(), &key, now).await?;
    let kid = lendhub_hub::keys::rotate(store.as_ref(), &key, now).await?;
    let ring = store.signing_keys(lendhub_hub::PARTNER_KEYS).await?;
    let kids: Vec<_> = ring
        .iter()
        .map(|k| json!({"kid": k.kid, "state": k.state.as_str()}))
        .collect();
    println!("{}", json!({"current": kid, "keys": kids}));
    store.close().await;
    Ok(())
}
