//! `lendhub accounts …`: the lender's staff act on a servicing account of the
//! REST tier — a hardship arrangement, its end, a write-off. Each act is
//! kept on the account (who, what, why, when) and announced to the partner
//! (`account.updated`, or `account.closed` for a write-off).

use clap::Subcommand;
use lendhub_domain::ids::HubId;
use lendhub_domain::servicing::account::StaffAct;
use lendhub_hub::flows::staff_acts;
use lendhub_system::SystemClock;
use serde_json::json;

use crate::config::Config;

#[derive(Subcommand, Debug)]
pub enum AccountsCommand {
    /// A hardship arrangement: the account becomes forborne and the clock
    /// no longer moves it into arrears.
    Forbear {
        /// The account (`acc_…`).
        account_id: String,
        /// Who agreed it (kept on the account).
        #[arg(long)]
        by: String,
        /// Why (kept on the account).
        #[arg(long)]
        note: String,
    },
    /// The arrangement ends: the account is performing or in arrears again,
    /// as its ledger says.
    EndForbearance {
        account_id: String,
        #[arg(long)]
        by: String,
        #[arg(long)]
        note: String,
    },
    /// Write the account off: closed, and the partner told (account.closed).
    WriteOff {
        account_id: String,
        #[arg(long)]
        by: String,
        #[arg(long)]
        note: String,
    },
}

pub async fn accounts(command: AccountsCommand, config: &Config) -> anyhow::Result<()> {
    let store = super::database::open_existing_store(config).await?;
    let (act, id, by, note) = match &command {
        AccountsCommand::Forbear {
            account_id,
            by,
            note,
        } => (StaffAct::Forbear, account_id, by, note),
        AccountsCommand::EndForbearance {
            account_id,
            by,
            note,
        } => (StaffAct::EndForbearance, account_id, by, note),
        AccountsCommand::WriteOff {
            account_id,
            by,
            note,
        } => (StaffAct::WriteOff, account_id, by, note),
    };
    let result = staff_acts::act(store.as_ref(), &SystemClock, id, act, by, note).await;
    store.close().await;
    let account = result?;
    println!(
        "{}",
        json!({"id": account.id.as_str(), "status": account.status.as_str(),
               "arrangements": account.arrangements.len()})
    );
    Ok(())
}
