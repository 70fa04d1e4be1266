//! `lendhub sso users create | list | disable`, `lendhub sso clients create
//! | list | disable` and `lendhub sso keys rotate`: the identity provider's
//! people, relying parties and ID-token signing keys. Like every administrative command, these work on
//! the database directly, beside running servers.

use clap::Subcommand;
use lendhub_domain::clock::Clock;
use lendhub_idp::{clients, users};
use lendhub_system::SystemClock;
use serde_json::json;

use crate::config::Config;
use crate::keys::IfMissing;

#[derive(Subcommand, Debug)]
pub enum SsoCommand {
    /// People who sign in.
    Users {
        #[command(subcommand)]
        command: UsersCommand,
    },
    /// Relying parties (OpenID Connect clients).
    Clients {
        #[command(subcommand)]
        command: ClientsCommand,
    },
    /// ID-token signing keys.
    Keys {
        #[command(subcommand)]
        command: KeysCommand,
    },
}

#[derive(Subcommand, Debug)]
pub enum UsersCommand {
    /// Create a user; prints {"sub","email"}. `sub` is what relying parties key users by.
    ///
    /// The password (at least 8 characters; stored only as an argon2id hash)
    /// is never an argument, where `ps` and shell history would show it: it
    /// is asked for twice when standard input is a terminal, and otherwise
    /// read as the first line of standard input.
    Create {
        /// The address they sign in with (compared case-insensitively).
        #[arg(long)]
        email: String,
        /// The `given_name` claim.
        #[arg(long)]
        given_name: String,
        /// The `family_name` claim.
        #[arg(long)]
        family_name: String,
        /// Their company's registration number (the `company_number` claim).
        #[arg(long)]
        company_number: String,
        /// Their company's registered name (the `company_name` claim).
        #[arg(long)]
        company_name: String,
        /// The person's role in the company, e.g. director.
        #[arg(long)]
        company_role: String,
        /// The email address has been verified (the `email_verified` claim);
        /// without this flag it is reported unverified.
        #[arg(long)]
        email_verified: bool,
    },
    /// List people, one JSON object a line, oldest first (never a password).
    List,
    /// Disable a person: they cannot sign in (the sign-in page answers as
    /// for a wrong password), their sessions end, their tokens stop working
    /// and their unredeemed codes are spent. There is no undoing it.
    Disable {
        /// Their `sub` (usr_…) or their email.
        who: String,
    },
}

#[derive(Subcommand, Debug)]
pub enum ClientsCommand {
    /// Register a client; prints {"client_id", "client_secret" (confidential
    /// clients only, shown once), …}.
    Create {
        /// The name shown on the consent page.
        #[arg(long)]
        name: String,
        /// Exact redirect URI (repeat for several): https, or http on loopback.
        #[arg(long = "redirect-uri", required = true)]
        redirect_uris: Vec<String>,
        /// Where end-session may send the browser afterwards (repeatable).
        #[arg(long = "post-logout-redirect-uri")]
        post_logout_redirect_uris: Vec<String>,
        /// A public client (a browser or native app): no secret, PKCE alone.
        #[arg(long)]
        public: bool,
    },
    /// List clients, one JSON object a line, oldest first (never a secret).
    List,
    /// Disable a client: unknown to /authorize and /token from now on, its
    /// tokens stop working and its unredeemed codes are spent. There is no
    /// undoing it: register a new client instead.
    Disable { client_id: String },
}

#[derive(Subcommand, Debug)]
pub enum KeysCommand {
    /// Make a new ID-token signing key current. The key it replaces stays in
    /// the JWKS, so ID tokens it signed keep verifying; a second rotation
    /// removes it.
    Rotate,
}

// One arm per subcommand, each a few lines: split, it would only move the
// match somewhere else.
pub async fn sso(command: SsoCommand, config: &Config) -> anyhow::Result<()> {
    let store = super::database::open_existing_store(config).await?;
    let now = SystemClock.now_ms();
    let result = async {
        match command {
            SsoCommand::Users {
                command:
                    UsersCommand::Create {
                        email,
                        given_name,
                        family_name,
                        company_number,
                        company_name,
                        company_role,
                        email_verified,
                    },
            } => {
                let password = crate::secret_input::password()?;
                let new = users::NewUser {
                    email: &email,
                    password: &password,
                    given_name: &given_name,
                    family_name: &family_name,
                    email_verified,
                    company_number: &company_number,
                    company_name: &company_name,
                    company_role: &company_role,
                };
                let sub = users::create(store.as_ref(), new, now).await?;
                let email = lendhub_domain::identity::claims::normalise_email(&email);
                println!("{}", json!({"sub": sub, "email": email}));
            }
            SsoCommand::Clients {
                command:
                    ClientsCommand::Create {
                        name,
                        redirect_uris,
                        post_logout_redirect_uris,
                        public,
                    },
            } => {
                let key =
                    crate::keys::load_checked(config, store.as_ref(), IfMissing::Refuse).await?;
                let new = clients::NewClient {
                    name: &name,
                    redirect_uris: &redirect_uris,
                    post_logout_redirect_uris: &post_logout_redirect_uris,
                    public,
                };
                let created = clients::create(store.as_ref(), &key, new, now).await?;
                let method = if public {
                    "none"
                } else {
                    "client_secret_basic"
                };
                let mut out = json!({
                    "client_id": created.client_id,
                    "name": name.trim(),
                    "redirect_uris": redirect_uris,
                    "post_logout_redirect_uris": post_logout_redirect_uris,
                    "token_endpoint_auth_method": method,
                });
                if let Some(secret) = created.client_secret {
                    out["client_secret"] = json!(secret);
                }
                println!("{out}");
            }
            SsoCommand::Users {
                command: UsersCommand::List,
            } => {
                for u in store.sso_users().await? {
                    println!(
                        "{}",
                        json!({"sub": u.user_id, "email": u.email, "given_name": u.given_name,
                               "family_name": u.family_name, "company_number": u.company_number,
                               "company_name": u.company_name, "company_role": u.company_role,
                               "created_at_ms": u.created_at_ms, "disabled_at_ms": u.disabled_at_ms})
                    );
                }
            }
            SsoCommand::Users {
                command: UsersCommand::Disable { who },
            } => {
                let email = lendhub_domain::identity::claims::normalise_email(&who);
                let user = store
                    .sso_users()
                    .await?
                    .into_iter()
                    .find(|u| u.user_id == who || u.email == email)
                    .ok_or_else(|| anyhow::anyhow!("no person {who}"))?;
                if !store.disable_sso_user(&user.user_id, now).await? {
                    anyhow::bail!("{who} is already disabled");
                }
                println!("{}", json!({"sub": user.user_id, "status": "disabled"}));
            }
            SsoCommand::Clients {
                command: ClientsCommand::List,
            } => {
                for c in store.sso_clients().await? {
                    let method = if c.confidential {
                        "client_secret_basic"
                    } else {
                        "none"
                    };
                    println!(
                        "{}",
                        json!({"client_id": c.client_id, "name": c.name,
                               "redirect_uris": c.redirect_uris, "token_endpoint_auth_method": method,
                               "created_at_ms": c.created_at_ms, "disabled_at_ms": c.disabled_at_ms})
                    );
                }
            }
            SsoCommand::Clients {
                command: ClientsCommand::Disable { client_id },
            } => {
                if !store.disable_sso_client(&client_id, now).await? {
                    anyhow::bail!("no such client, or already disabled: {client_id}");
                }
                println!("{}", json!({"client_id": client_id, "status": "disabled"}));
            }
            SsoCommand::Keys {
                command: KeysCommand::Rotate,
            } => {
                let key =
                    crate::keys::load_checked(config, store.as_ref(), IfMissing::Refuse).await?;
                // A fresh database gets its first key, then the rotation proper.
                lendhub_idp::KeyRing::load(store.as_ref(), &key, now).await?;
                let kid = lendhub_idp::keys::rotate(store.as_ref(), &key, now).await?;
                let ring = store.signing_keys(lendhub_idp::SSO_KEYS).await?;
                let kids: Vec<_> = ring
                    .iter()
                    .map(|k| json!({"kid": k.kid, "state": k.state.as_str()}))
                    .collect();
                println!("{}", json!({"current": kid, "keys": kids}));
            }
        }
        anyhow::Ok(())
    }
    .await;
    store.close().await;
    result
}
