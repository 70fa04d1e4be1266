//! `lendhub ledger trial-balance [--json] [--as-of DATE]`: every ledger
//! account's posted debits, credits and balance, and the totals, which a
//! sound ledger makes equal (docs/guide/src/ledger.md, "Reading a trial balance").
//! Now, from the running totals; as of a day, from the postings of the
//! transfers made before that day ended (UTC).

use anyhow::{Context, bail};
use clap::Subcommand;
use lendhub_domain::ledger::book::TrialBalance;
use lendhub_domain::ledger::chart::Normal;
use lendhub_store::Store;
use serde_json::json;
use time::Date;

use crate::config::Config;

#[derive(Subcommand, Debug)]
pub enum LedgerCommand {
    /// Each ledger account's posted debits, credits and balance, then the
    /// totals. Exits non-zero if the totals differ.
    TrialBalance {
        /// One JSON object: `accounts`, `total_debits_pence`,
        /// `total_credits_pence`, `balanced`.
        #[arg(long)]
        json: bool,
        /// As at the end of this day (UTC), YYYY-MM-DD; now if not given.
        #[arg(long)]
        as_of: Option<String>,
    },
}

pub async fn ledger(command: LedgerCommand, config: &Config) -> anyhow::Result<()> {
    let store = super::database::open_existing_store(config).await?;
    let result = run(command, store.as_ref()).await;
    store.close().await;
    result
}

async fn run(command: LedgerCommand, store: &dyn Store) -> anyhow::Result<()> {
    let LedgerCommand::TrialBalance { json, as_of } = command;
    let totals = match &as_of {
        None => store
            .ledger_totals()
            .await?
            .into_iter()
            .map(|t| (t.account, t.posted))
            .collect::<Vec<_>>(),
        Some(day) => {
            let format = time::macros::format_description!("[year]-[month]-[day]");
            let day = Date::parse(day, format).context("--as-of: a date, YYYY-MM-DD")?;
            let end = day
                .next_day()
                .context("--as-of: a date before the end of time")?
                .midnight()
                .assume_utc();
            store
                .ledger_totals_before(lendhub_domain::clock::unix_ms(end))
                .await?
        }
    };
    let trial = TrialBalance::of(totals).context("the ledger's totals overflow")?;
    let balanced = trial.total_debits == trial.total_credits;
    if json {
        let accounts: Vec<_> = trial
            .lines
            .iter()
            .map(|l| {
                json!({
                    "account": l.account.to_string(),
                    "normal": match l.account.normal() { Normal::Debit => "debit", Normal::Credit => "credit" },
                    "debits_pence": l.debits.as_pence(),
                    "credits_pence": l.credits.as_pence(),
                    "balance_pence": l.balance.as_pence(),
                })
            })
            .collect();
        println!(
            "{}",
            json!({
                "as_of": as_of,
                "accounts": accounts,
                "total_debits_pence": trial.total_debits.as_pence(),
                "total_credits_pence": trial.total_credits.as_pence(),
                "balanced": balanced,
            })
        );
    } else {
        let width = trial
            .lines
            .iter()
            .map(|l| l.account.to_string().len())
            .max()
            .unwrap_or(0)
            .max("account".len());
        println!(
            "{:<width$}  {:>16}  {:>16}  {:>16}",
            "account", "debits", "credits", "balance"
        );
        for l in &trial.lines {
            println!(
                "{:<width$}  {:>16}  {:>16}  {:>16}",
                l.account.to_string(),
                l.debits.to_string(),
                l.credits.to_string(),
                l.balance.to_string()
            );
        }
        println!(
            "{:<width$}  {:>16}  {:>16}",
            "total",
            trial.total_debits.to_string(),
            trial.total_credits.to_string()
        );
    }
    if !balanced {
        bail!(
            "the ledger does not balance: debits {} and credits {}",
            trial.total_debits,
            trial.total_credits
        );
    }
    Ok(())
}
