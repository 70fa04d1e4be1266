//! `lendhub marketplace apps list | approve | reject`: the lender reviews
//! the app listings partners register (`POST /marketplace/apps`). Only an
//! approved app may subscribe to events or publish signals; a review is
//! made once, and the partner sees it on `GET /marketplace/apps/{id}`.

use anyhow::bail;
use clap::Subcommand;
use lendhub_domain::clock::Clock;
use lendhub_domain::ids::{HubId, MarketplaceAppId};
use lendhub_domain::marketplace::{App, Review};
use lendhub_store::Store;
use lendhub_system::SystemClock;
use serde_json::{Value, json};

use super::underwriting::whose;
use crate::config::Config;

#[derive(Subcommand, Debug)]
pub enum MarketplaceCommand {
    /// App listings and their review.
    Apps {
        #[command(subcommand)]
        command: AppsCommand,
    },
}

#[derive(Subcommand, Debug)]
pub enum AppsCommand {
    /// Apps in one review state (default: pending_review), oldest first;
    /// one JSON object per line.
    List {
        /// pending_review, approved or rejected.
        #[arg(long, default_value = "pending_review")]
        review: String,
        #[arg(long, default_value_t = 50)]
        limit: u32,
    },
    /// Approve a listing pending review.
    Approve {
        /// The app (`mkt_…`).
        app_id: String,
        /// What was checked (shown to the partner as `review_note`).
        #[arg(long)]
        note: String,
    },
    /// Reject a listing pending review.
    Reject {
        app_id: String,
        /// Why (shown to the partner as `review_note`).
        #[arg(long)]
        reason: String,
    },
}

pub async fn marketplace(command: MarketplaceCommand, config: &Config) -> anyhow::Result<()> {
    let store = super::database::open_existing_store(config).await?;
    let result = run(command, store.as_ref()).await;
    store.close().await;
    result
}

fn shown(a: &App) -> Value {
    json!({
        "app_id": a.id.as_str(), "partner": whose(&a.owner), "name": a.name,
        "category": a.category.as_str(), "webhook_url": a.webhook_url,
        "review_state": a.review.as_str(), "review_note": a.review_note,
    })
}

async fn run(command: MarketplaceCommand, store: &dyn Store) -> anyhow::Result<()> {
    let MarketplaceCommand::Apps { command } = command;
    let (app_id, ruling, note) = match command {
        AppsCommand::List { review, limit } => {
            let Some(review) = Review::parse(&review) else {
                bail!("unknown review state {review}; one of pending_review, approved, rejected");
            };
            for app in store.marketplace_apps_in_review(review, limit).await? {
                println!("{}", shown(&app));
            }
            return Ok(());
        }
        AppsCommand::Approve { app_id, note } => (app_id, Review::Approved, note),
        AppsCommand::Reject { app_id, reason } => (app_id, Review::Rejected, reason),
    };
    if note.trim().is_empty() {
        bail!("a review needs a note (--note) or a reason (--reason)");
    }
    let missing = || anyhow::anyhow!("no marketplace app {app_id}");
    let Some(app_id) = MarketplaceAppId::parse(&app_id) else {
        return Err(missing());
    };
    let app = store
        .marketplace_app_any_owner(&app_id)
        .await?
        .ok_or_else(missing)?;
    let reviewed = app.review(ruling, note.trim(), SystemClock.now())?;
    if !store.review_marketplace_app(&reviewed).await? {
        bail!("the app changed meanwhile; run the command again");
    }
    println!("{}", shown(&reviewed));
    Ok(())
}
