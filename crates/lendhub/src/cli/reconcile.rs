//! `lendhub reconcile --date D [--json]`: asks for a day's reconciliation
//! and prints its report. The run is a row in the database that a running
//! `lendhub serve` takes up (`flows::reconcile`): the server holds the
//! banks' connections (and, in the test environment, the model bank), and
//! a run any instance makes is the same run.

use std::time::Duration;

use anyhow::{Context, bail};
use lendhub_domain::clock::Clock;
use lendhub_domain::ledger::reconciliation::{Report, Resolution};
use lendhub_domain::money::Money;
use lendhub_store::{LedgerWrite, Store, WriteSet};
use lendhub_system::SystemClock;
use time::Date;

use crate::config::Config;

/// How often the report is looked for.
const POLL: Duration = Duration::from_millis(200);

pub async fn reconcile(
    date: &str,
    json: bool,
    wait_secs: u64,
    config: &Config,
) -> anyhow::Result<()> {
    let format = time::macros::format_description!("[year]-[month]-[day]");
    let day = Date::parse(date, format).context("--date: a date, YYYY-MM-DD")?;
    let store = super::database::open_existing_store(config).await?;
    let result = run(store.as_ref(), day, json, Duration::from_secs(wait_secs)).await;
    store.close().await;
    let open = result?;
    if open > 0 {
        std::process::exit(2);
    }
    Ok(())
}

/// How many items `--items` lists.
const LISTED: i64 = 200;

/// `lendhub reconcile --items`: the most recent items, open ones first.
pub async fn items(json: bool, config: &Config) -> anyhow::Result<()> {
    let store = super::database::open_existing_store(config).await?;
    let listed = store.reconciliation_items(LISTED).await;
    store.close().await;
    let listed = listed?;
    if json {
        println!("{}", serde_json::to_string_pretty(&listed)?);
        return Ok(());
    }
    for i in &listed {
        println!(
            "{:<10} {:<4} {:<11} {:<36} {:<15} bank {:>12}  ledger {:>12}  {}",
            i.date,
            i.environment.as_str(),
            i.account.as_str(),
            i.end_to_end_id,
            i.mismatch.as_str(),
            pounds(i.bank_amount),
            pounds(i.ledger_amount),
            i.resolution.as_str()
        );
    }
    println!("{} item(s)", listed.len());
    Ok(())
}

/// Asks for `day`'s run, waits for it and prints it; answers how many
/// items are left open.
async fn run(store: &dyn Store, day: Date, json: bool, wait: Duration) -> anyhow::Result<usize> {
    let at_ms = SystemClock.now_ms();
    let mut writes = WriteSet::default();
    writes.push(LedgerWrite::RequestReconciliation { day, at_ms });
    store.commit(writes).await?;
    let deadline = tokio::time::Instant::now() + wait;
    let report = loop {
        let run = store.reconciliation_run(day).await?;
        if let Some(report) = run
            .filter(|r| r.requested_at_ms == at_ms && r.done_at_ms.is_some())
            .and_then(|r| r.report)
        {
            break report;
        }
        if tokio::time::Instant::now() >= deadline {
            bail!(
                "no server ran the reconciliation of {day} within {} s: is `lendhub serve` running \
                 on this database?",
                wait.as_secs()
            );
        }
        tokio::time::sleep(POLL).await;
    };
    if json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", readable(&report));
    }
    Ok(report.open_items())
}

fn pounds(m: Option<Money>) -> String {
    m.map_or_else(|| "-".to_owned(), |m| m.to_string())
}

fn readable(report: &Report) -> String {
    let mut out = format!("Reconciliation of {}\n", report.date);
    for a in &report.accounts {
        let name = format!("{} {}", a.environment.as_str(), a.account.as_str());
        if !a.read {
            out.push_str(&format!("  {name:<18} not read (no account configured)\n"));
            continue;
        }
        out.push_str(&format!(
            "  {name:<18} bank {:>5}  ledger {:>5}  items {}\n",
            a.bank_movements,
            a.ledger_movements,
            a.items.len()
        ));
        for i in &a.items {
            let done = match &i.resolution {
                Resolution::Posted { what } => format!("posted {what}"),
                Resolution::Suspense { transfer_id } => format!("held in suspense ({transfer_id})"),
                Resolution::Open => "OPEN".to_owned(),
            };
            out.push_str(&format!(
                "    {:<36} {:<15} bank {:>12}  ledger {:>12}  {done}\n",
                i.end_to_end_id,
                i.mismatch.as_str(),
                pounds(i.bank_amount),
                pounds(i.ledger_amount)
            ));
        }
    }
    out.push_str(&format!("{} open item(s)\n", report.open_items()));
    out
}
