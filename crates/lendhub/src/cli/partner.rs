//! `lendhub partner clients …`, `lendhub partner api-keys …` and `lendhub
//! keys rotate`: partner projects, their REST-tier API keys and the keys
//! that sign their tokens. Like every administrative command,
//! these work on the database directly, beside running servers.

use anyhow::bail;
use clap::Subcommand;
use lendhub_domain::clock::Clock;
use lendhub_domain::partner::credentials::Environment;
use lendhub_domain::partner::project::{PartnerStatus, Tier};
use lendhub_domain::partner::scope::{PartnerScope, PartnerScopes};
use lendhub_hub::partner::{api_keys, clients, request_keys};
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
    /// Secret API keys for the REST tier (`sk_live_…`, `sk_test_…`).
    ApiKeys {
        #[command(subcommand)]
        command: ApiKeysCommand,
    },
    /// Public keys that sign money-moving requests (the guide's "Request signing").
    RequestKeys {
        #[command(subcommand)]
        command: RequestKeysCommand,
    },
    /// Who may use the partner's dashboard, and in which role.
    Staff {
        #[command(subcommand)]
        command: super::staff::StaffCommand,
    },
}

#[derive(Subcommand, Debug)]
pub enum RequestKeysCommand {
    /// Register an Ed25519 public key; prints {"key_id": "rsk_…", …}.
    Add {
        /// The partner's client id (pk_live_…).
        #[arg(long)]
        client_id: String,
        /// The public key: 32 bytes in base64, or a PEM SubjectPublicKeyInfo
        /// (`--public-key "$(cat public.pem)"`).
        #[arg(long, allow_hyphen_values = true)]
        public_key: String,
    },
    /// A partner's request-signing keys.
    List { client_id: String },
    /// Stop a key verifying signatures, now.
    Revoke { key_id: String },
}

#[derive(Subcommand, Debug)]
pub enum ApiKeysCommand {
    /// Create a key; prints {"id","key","environment","scopes"} — the key once.
    Create {
        /// The partner's client id (pk_live_…).
        #[arg(long)]
        client_id: String,
        /// `live` keys work under /partner/v1, `test` keys under /sandbox/v1.
        #[arg(long, value_parser = ["live", "test"])]
        environment: String,
        /// Space-separated scopes (aliases accepted); default: every scope
        /// the partner holds. Never more than it holds.
        #[arg(long, long_help = super::scopes_help::<PartnerScope>(
            "Space-separated scopes (aliases accepted); default: every scope the partner \
             holds. Never more than it holds."))]
        scopes: Option<String>,
    },
    /// A partner's keys (never the secrets).
    List {
        /// The partner's client id (pk_live_…).
        client_id: String,
    },
    /// Replace a key with a new one of the same environment and scopes; the
    /// old key keeps working for the overlap. Prints the new key once.
    Roll {
        /// The key's id (key_…).
        id: String,
        /// How long the old key keeps working, in hours (0: it stops now).
        #[arg(long, default_value_t = 24)]
        overlap_hours: u32,
    },
    /// Stop a key working now.
    Revoke {
        /// The key's id (key_…).
        id: String,
    },
}

#[derive(Subcommand, Debug)]
pub enum PartnerClientsCommand {
    /// Create a partner; prints {"client_id","client_secret","scopes","tier"} once.
    Create {
        /// The partner project's name.
        #[arg(long)]
        name: String,
        /// Space-separated scopes (aliases accepted); `--help` lists them.
        #[arg(long, long_help = super::scopes_help::<PartnerScope>(
            "Space-separated scopes (aliases accepted), any of:"))]
        scopes: String,
        /// The rate-limit tier (seed: build 10/s, launch 25/s, scale 100/s,
        /// platform negotiated).
        #[arg(long, default_value = "build", value_parser = ["build", "launch", "scale", "platform"])]
        tier: String,
        /// The project's sandbox client (pk_test_…): the MCP tools explain
        /// the decisions of its applications.
        #[arg(long)]
        sandbox_client_id: Option<String>,
        /// Where notices go, e.g. a webhook endpoint disabled after 72 h of
        /// failed deliveries.
        #[arg(long)]
        contact_email: Option<String>,
    },
    /// Set (or, with no address, remove) where a partner's notices go.
    SetContact {
        /// The partner's client id (pk_live_…).
        client_id: String,
        /// An e-mail address.
        email: Option<String>,
    },
    /// Switch white-label journeys on or off for a partner's live
    /// environment (after the data-protection review); the test
    /// environment always allows them.
    SetWhiteLabel {
        /// The partner's client id (pk_live_…).
        client_id: String,
        #[arg(value_parser = ["on", "off"])]
        state: String,
    },
    /// List partners (never their secrets).
    List,
    /// Suspend a partner: its tokens stop working and it gets no new ones.
    Suspend {
        /// The partner's client id (pk_live_…).
        client_id: String,
    },
    /// Replace a partner's secret; prints the new one once. The old one
    /// stops working now, or after `--overlap-hours`.
    RotateSecret {
        /// The partner's client id (pk_live_…).
        client_id: String,
        /// How long the old secret keeps working, in hours (0: it stops now).
        #[arg(long, default_value_t = 0)]
        overlap_hours: u32,
    },
}

#[derive(Subcommand, Debug)]
pub enum KeysCommand {
    /// Make a new partner token-signing key current. Tokens signed by the
    /// key it replaces keep verifying until they expire.
    Rotate,
}

pub async fn partner(command: PartnerCommand, config: &Config) -> anyhow::Result<()> {
    let command = match command {
        PartnerCommand::Clients { command } => command,
        PartnerCommand::ApiKeys { command } => return api_keys_command(command, config).await,
        PartnerCommand::RequestKeys { command } => {
            return request_keys_command(command, config).await;
        }
        PartnerCommand::Staff { command } => return super::staff::staff(command, config).await,
    };
    let store = super::database::open_existing_store(config).await?;
    let now = SystemClock.now_ms();
    let result = match command {
        PartnerClientsCommand::Create {
            name,
            scopes,
            tier,
            sandbox_client_id,
            contact_email,
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
            let contact = contact_email.map(|e| checked_email(&e)).transpose()?;
            let created =
                clients::create(store.as_ref(), &key, &name, &scopes, tier, sandbox, now).await?;
            if contact.is_some() {
                let change = PartnerClientChange::ContactEmail(contact.clone());
                store
                    .update_partner_client(&created.client_id, change, now)
                    .await?;
            }
            let mut shown = json!({"client_id": created.client_id, "client_secret": created.client_secret,
                       "scopes": scopes.render(), "tier": tier.as_str()});
            if let Some(email) = contact {
                shown["contact_email"] = json!(email);
            }
            println!("{shown}");
            Ok(())
        }
        PartnerClientsCommand::List => {
            for c in store.list_partner_clients().await? {
                println!(
                    "{}",
                    json!({"client_id": c.client_id, "name": c.name, "scopes": c.scopes,
                           "tier": c.tier.as_str(), "status": c.status.as_str(),
                           "contact_email": c.contact_email, "white_label": c.white_label})
                );
            }
            Ok(())
        }
        PartnerClientsCommand::SetWhiteLabel { client_id, state } => {
            let on = state == "on";
            let change = PartnerClientChange::WhiteLabel(on);
            if store.update_partner_client(&client_id, change, now).await? {
                println!("{}", json!({"client_id": client_id, "white_label": on}));
                Ok(())
            } else {
                Err(anyhow::anyhow!("no partner client {client_id}"))
            }
        }
        PartnerClientsCommand::SetContact { client_id, email } => {
            let email = email.map(|e| checked_email(&e)).transpose()?;
            let change = PartnerClientChange::ContactEmail(email.clone());
            if store.update_partner_client(&client_id, change, now).await? {
                println!(
                    "{}",
                    json!({"client_id": client_id, "contact_email": email})
                );
                Ok(())
            } else {
                Err(anyhow::anyhow!("no partner client {client_id}"))
            }
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
        PartnerClientsCommand::RotateSecret {
            client_id,
            overlap_hours,
        } => {
            let key = crate::keys::load_checked(config, store.as_ref(), IfMissing::Refuse).await?;
            let until = (overlap_hours > 0).then(|| now + i64::from(overlap_hours) * 3_600_000);
            match clients::rotate_secret(store.as_ref(), &key, &client_id, until, now).await? {
                Some(secret) => {
                    println!(
                        "{}",
                        json!({"client_id": client_id, "client_secret": secret,
                               "previous_secret_expires_at_ms": until})
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

async fn api_keys_command(command: ApiKeysCommand, config: &Config) -> anyhow::Result<()> {
    let store = super::database::open_existing_store(config).await?;
    let now = SystemClock.now_ms();
    let shown = |c: &api_keys::Created| {
        json!({"id": c.id, "key": c.key, "client_id": c.record.client_id,
               "environment": c.record.environment.as_str(), "scopes": c.record.scopes})
    };
    let result: anyhow::Result<()> = async {
        match command {
            ApiKeysCommand::Create {
                client_id,
                environment,
                scopes,
            } => {
                let env = Environment::parse(&environment)
                    .ok_or_else(|| anyhow::anyhow!("unknown environment {environment}"))?;
                let scopes = scopes
                    .map(|s| {
                        PartnerScopes::parse(&s).map_err(|s| anyhow::anyhow!("unknown scope {s}"))
                    })
                    .transpose()?;
                if scopes.as_ref().is_some_and(PartnerScopes::is_empty) {
                    bail!("--scopes must name at least one scope");
                }
                let created =
                    api_keys::create(store.as_ref(), &client_id, env, scopes.as_ref(), now).await?;
                println!("{}", shown(&created));
            }
            ApiKeysCommand::List { client_id } => {
                if store.partner_client(&client_id).await?.is_none() {
                    bail!("no partner client {client_id}");
                }
                for k in store.list_api_keys(&client_id).await? {
                    println!("{}", api_keys::describe(&k));
                }
            }
            ApiKeysCommand::Roll { id, overlap_hours } => {
                let overlap_ms = i64::from(overlap_hours) * 3_600_000;
                let created = api_keys::roll(store.as_ref(), &id, overlap_ms, now).await?;
                let mut out = shown(&created);
                out["replaces"] = json!(id);
                out["replaced_key_expires_at_ms"] = json!(now + overlap_ms);
                println!("{out}");
            }
            ApiKeysCommand::Revoke { id } => {
                api_keys::expire(store.as_ref(), &id, now).await?;
                println!("{}", json!({"id": id, "revoked": true}));
            }
        }
        Ok(())
    }
    .await;
    store.close().await;
    result
}

async fn request_keys_command(command: RequestKeysCommand, config: &Config) -> anyhow::Result<()> {
    let store = super::database::open_existing_store(config).await?;
    let now = SystemClock.now_ms();
    let shown = |k: &lendhub_store::RequestKeyRecord| {
        json!({"key_id": k.key_id, "client_id": k.client_id, "created_at_ms": k.created_at_ms,
               "revoked_at_ms": k.revoked_at_ms})
    };
    let result: anyhow::Result<()> = async {
        match command {
            RequestKeysCommand::Add {
                client_id,
                public_key,
            } => {
                let key =
                    request_keys::register(store.as_ref(), &client_id, &public_key, now).await?;
                println!("{}", shown(&key));
            }
            RequestKeysCommand::List { client_id } => {
                for k in store.list_request_keys(&client_id).await? {
                    println!("{}", shown(&k));
                }
            }
            RequestKeysCommand::Revoke { key_id } => {
                if !store.revoke_request_key(&key_id, now).await? {
                    bail!("no active request key {key_id}");
                }
                println!("{}", json!({"key_id": key_id, "revoked": true}));
            }
        }
        Ok(())
    }
    .await;
    store.close().await;
    result
}

/// An address the mail outbox can send to.
fn checked_email(raw: &str) -> anyhow::Result<String> {
    let email = raw.trim();
    if lendhub_domain::public::enquiry::is_email(email) {
        Ok(email.to_owned())
    } else {
        bail!("{raw} is not an e-mail address")
    }
}

pub async fn keys(command: KeysCommand, config: &Config) -> anyhow::Result<()> {
    let KeysCommand::Rotate = command;
    let store = super::database::open_existing_store(config).await?;
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
