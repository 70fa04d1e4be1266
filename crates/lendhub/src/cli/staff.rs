//! `lendhub partner staff …`: who may use a partner's dashboard, and as
//! what. Staff are people of lendhub's identity provider (`lendhub sso
//! users create`); owners also manage staff from the dashboard.

use anyhow::{Context, bail};
use clap::Subcommand;
use lendhub_domain::clock::Clock;
use lendhub_domain::partner::dashboard::Role;
use lendhub_store::{StaffMember, StaffRecord, Store};
use lendhub_system::SystemClock;
use serde_json::{Value, json};

use crate::config::Config;

#[derive(Subcommand, Debug)]
pub enum StaffCommand {
    /// Give a person a role at a partner (or change their role); prints the member.
    Add {
        /// The partner's client id (pk_live_…).
        client_id: String,
        /// The person's e-mail at the identity provider.
        #[arg(long)]
        email: String,
        /// owner, developer, finance or read_only.
        #[arg(long)]
        role: String,
    },
    /// A partner's staff, one JSON object a line.
    List { client_id: String },
    /// Take a person off a partner's staff; their dashboard sessions end.
    Remove {
        client_id: String,
        #[arg(long)]
        email: String,
    },
}

fn view(m: &StaffMember) -> Value {
    json!({
        "client_id": m.staff.partner_client_id,
        "partner": m.partner_name,
        "user_id": m.staff.user_id,
        "email": m.email,
        "role": m.staff.role,
    })
}

pub async fn staff(command: StaffCommand, config: &Config) -> anyhow::Result<()> {
    let store = super::database::open_existing_store(config).await?;
    let result = run(command, store.as_ref()).await;
    store.close().await;
    result
}

async fn person(store: &dyn Store, email: &str) -> anyhow::Result<String> {
    let user = store
        .sso_user_by_email(&email.trim().to_lowercase())
        .await?
        .with_context(|| {
            format!("no person {email} at the identity provider (lendhub sso users create)")
        })?;
    Ok(user.user_id)
}

async fn run(command: StaffCommand, store: &dyn Store) -> anyhow::Result<()> {
    match command {
        StaffCommand::Add {
            client_id,
            email,
            role,
        } => {
            let role = Role::parse(&role).with_context(|| {
                format!("{role:?} is not a role (owner, developer, finance, read_only)")
            })?;
            if store.partner_client(&client_id).await?.is_none() {
                bail!("no partner client {client_id}");
            }
            let user_id = person(store, &email).await?;
            store
                .put_staff(StaffRecord {
                    partner_client_id: client_id.clone(),
                    user_id: user_id.clone(),
                    role: role.as_str().to_owned(),
                    created_at_ms: SystemClock.now_ms(),
                })
                .await?;
            let member = store
                .staff_of_partner(&client_id)
                .await?
                .into_iter()
                .find(|m| m.staff.user_id == user_id)
                .context("the member just added")?;
            println!("{}", view(&member));
        }
        StaffCommand::List { client_id } => {
            for m in store.staff_of_partner(&client_id).await? {
                println!("{}", view(&m));
            }
        }
        StaffCommand::Remove { client_id, email } => {
            let user_id = person(store, &email).await?;
            if !store
                .remove_staff(&client_id, &user_id, SystemClock.now_ms())
                .await?
            {
                bail!("{email} is not on the staff of {client_id}");
            }
            println!(
                "{}",
                json!({"client_id": client_id, "email": email, "removed": true})
            );
        }
    }
    Ok(())
}
