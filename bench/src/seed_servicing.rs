//! `lendhub-bench seed-servicing`: funded loans' accounts for the
//! servicing benchmarks (issue #16), written as the service would have
//! written them, fast (batched commits through the store, no HTTP):
//!
//! - `--ledger-entries N`: one account with its drawdown and N small
//!   collections, for `GET /accounts/{id}/transactions` at size;
//! - `--schedules N`: N accounts, each with a mandate and a monthly
//!   schedule whose first instalment is due today, for the scheduler;
//! - `--loans N --month YYYY-MM`: N loans funded across that month, for
//!   closing a month's statement at size (issue #17).

use std::time::Instant;

use anyhow::{Context, Result, anyhow, bail};
use lendhub_domain::ids::{
    AccountId, ApplicationId, DecisionId, HubId, LedgerEntryId, MandateId, PaymentId, ScheduleId,
};
use lendhub_domain::lending::application::{self, Applicant, Application, Request};
use lendhub_domain::lending::register;
use lendhub_domain::lending::underwriting::{Banking, CreditFile, Facts, Signals};
use lendhub_domain::money::Money;
use lendhub_domain::servicing::account::Account;
use lendhub_domain::servicing::ledger::{Entry, EntryKind};
use lendhub_domain::servicing::mandate::Mandate;
use lendhub_domain::servicing::schedule::{Cadence, Schedule};
use lendhub_domain::tenant::Tenant;
use lendhub_store::{LendingWrite, Store, WriteSet};
use time::OffsetDateTime;

#[derive(clap::Args, Debug)]
pub struct SeedServicingArgs {
    /// The server's database: a SQLite file, or a postgres:// URL.
    #[arg(long)]
    database: String,
    /// The partner client whose live environment owns every row.
    #[arg(long)]
    partner: String,
    /// Collections to post to one account's ledger.
    #[arg(long, default_value_t = 0)]
    ledger_entries: u64,
    /// Accounts each with a mandate and a schedule due today.
    #[arg(long, default_value_t = 0)]
    schedules: u64,
    /// Loans funded across `--month`.
    #[arg(long, default_value_t = 0)]
    loans: u64,
    /// The month `--loans` fund in, YYYY-MM.
    #[arg(long)]
    month: Option<String>,
    /// Rows per commit.
    #[arg(long, default_value_t = 5_000)]
    batch: usize,
}

pub fn run(args: &SeedServicingArgs) -> Result<()> {
    if args.batch == 0 {
        bail!("--batch must be at least 1");
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("tokio runtime")?;
    runtime.block_on(async {
        let store = crate::seed::open(&args.database).await?;
        let started = Instant::now();
        let owner = Tenant::partner(&args.partner, true, None);
        let mut out = serde_json::Map::new();
        if args.ledger_entries > 0 {
            let (account, middle) = ledger(store.as_ref(), &owner, args).await?;
            out.insert("account_id".into(), account.into());
            out.insert("middle_entry_id".into(), middle.into());
        }
        if args.schedules > 0 {
            let first = schedules(store.as_ref(), &owner, args).await?;
            out.insert("first_account_id".into(), first.into());
        }
        if args.loans > 0 {
            let period = args
                .month
                .as_deref()
                .and_then(lendhub_domain::billing::statement::Period::parse)
                .context("--loans needs --month YYYY-MM")?;
            loans(store.as_ref(), &owner, period, args).await?;
            out.insert("loans".into(), args.loans.into());
        }
        store.close().await;
        out.insert("seconds".into(), started.elapsed().as_secs_f64().into());
        println!("{}", serde_json::Value::Object(out));
        Ok(())
    })
}

/// A funded loan of £10,000 over 12 months made at `at`: its writes
/// (application, decision and account as funding leaves them, and the
/// drawdown) and the account.
fn funded(owner: &Tenant, n: u64, at: OffsetDateTime) -> Result<(Vec<LendingWrite>, Account)> {
    let ms = lendhub_domain::clock::unix_ms(at) as u64;
    let random = u128::from(n) << 16;
    let checked = application::check(Request {
        company_number: Some("00000401".into()),
        amount_pence: Some(1_000_000),
        term_months: Some(12),
        applicant: Applicant {
            email: Some("bench@example.test".into()),
            first_name: None,
        },
        ..Request::default()
    })
    .map_err(|e| anyhow!("a bench application: {e:?}"))?;
    let company = register::synthetic("00000401").context("the register's 00000401")?;
    let application = Application::new(
        ApplicationId::generate(ms, random),
        owner.clone(),
        owner.as_str(),
        checked,
        &company,
        at,
    );
    let facts = Facts::new(
        &company,
        1_000_000,
        12,
        CreditFile::synthetic("00000401"),
        Some(Banking {
            months: 12,
            average_monthly_inflow_pence: 5_000_000,
            average_monthly_outflow_pence: 3_000_000,
        }),
        None,
        Signals::default(),
    );
    let (_, decided, decision) = application
        .submit(DecisionId::generate(ms, random), facts, at)
        .map_err(|e| anyhow!("deciding a bench application: {e:?}"))?;
    let (signed, locked) = decided
        .accept(&decision, "Bench".into(), at)
        .map_err(|e| anyhow!("accepting a bench offer: {e:?}"))?;
    let account_id = AccountId::generate(ms, random);
    let funded = signed
        .fund(account_id.clone(), at)
        .map_err(|e| anyhow!("funding a bench loan: {e:?}"))?;
    let account = Account::open(
        account_id,
        &funded,
        &locked,
        "test_bank_strong",
        format!("fps_bench_{n}"),
        at,
    )
    .context("the decision carries an offer")?;
    let drawdown = Entry::new(
        LedgerEntryId::generate(ms, random),
        &account,
        EntryKind::Drawdown,
        Money::pence(-1_000_000),
        None,
        Some(format!("Faster Payments fps_bench_{n}")),
        at,
    )?;
    Ok((
        vec![
            LendingWrite::InsertApplication(funded),
            LendingWrite::InsertDecision(locked),
            LendingWrite::OpenAccount(account.clone()),
            LendingWrite::PostEntry(drawdown),
        ],
        account,
    ))
}

/// One account and `--ledger-entries` collections of a penny, a
/// millisecond apart, ending now: (account id, a middle entry's id).
async fn ledger(
    store: &dyn Store,
    owner: &Tenant,
    args: &SeedServicingArgs,
) -> Result<(String, String)> {
    let n = args.ledger_entries;
    let start = OffsetDateTime::now_utc() - time::Duration::milliseconds(n as i64 + 1);
    let (opening, account) = funded(owner, 0, start)?;
    let mut writes = WriteSet::default();
    for w in opening {
        writes.push(w);
    }
    let mut middle = String::new();
    for i in 0..n {
        let at = start + time::Duration::milliseconds(i as i64 + 1);
        let id = LedgerEntryId::generate(lendhub_domain::clock::unix_ms(at) as u64, u128::from(i));
        if i == n / 2 {
            middle = id.to_string();
        }
        let entry = Entry::new(
            id,
            &account,
            EntryKind::Collection,
            Money::pence(1),
            None,
            None,
            at,
        )?;
        writes.push(LendingWrite::PostEntry(entry));
        if writes.writes.len() >= args.batch {
            crate::seed::commit(store, &mut writes).await?;
        }
    }
    crate::seed::commit(store, &mut writes).await?;
    Ok((account.id.to_string(), middle))
}

/// `--schedules` accounts, each with a mandate and a monthly schedule of 12
/// whose first instalment is due today: the first account's id.
async fn schedules(store: &dyn Store, owner: &Tenant, args: &SeedServicingArgs) -> Result<String> {
    let n = args.schedules;
    // Funded a month ago, so today's instalment is the first.
    let start = OffsetDateTime::now_utc() - time::Duration::days(31);
    let today = OffsetDateTime::now_utc().date();
    let mut writes = WriteSet::default();
    let mut first = String::new();
    for i in 0..n {
        let at = start + time::Duration::milliseconds(i as i64);
        let (opening, account) = funded(owner, i + 1, at)?;
        if i == 0 {
            first = account.id.to_string();
        }
        for w in opening {
            writes.push(w);
        }
        let ms = lendhub_domain::clock::unix_ms(at) as u64;
        let random = u128::from(i) << 16 | 1;
        let mandate = Mandate::establish(
            MandateId::generate(ms, random),
            owner.clone(),
            account.id.clone(),
            "model_bank",
            PaymentId::generate(ms, random),
            at,
        );
        let schedule = Schedule::new(
            ScheduleId::generate(ms, random),
            owner.clone(),
            account.id.clone(),
            Cadence::Monthly,
            account.terms.monthly_repayment_pence,
            today,
            Some(12),
            Some(mandate.id.clone()),
            at,
        );
        writes
            .push(LendingWrite::InsertMandate(mandate))
            .push(LendingWrite::InsertSchedule(schedule));
        if writes.writes.len() >= args.batch {
            crate::seed::commit(store, &mut writes).await?;
        }
    }
    crate::seed::commit(store, &mut writes).await?;
    Ok(first)
}

/// `--loans` funded loans spread evenly across `period`.
async fn loans(
    store: &dyn Store,
    owner: &Tenant,
    period: lendhub_domain::billing::statement::Period,
    args: &SeedServicingArgs,
) -> Result<()> {
    let n = args.loans;
    let span = (period.end() - period.start()).whole_milliseconds() as i64 - 1;
    // Each partner's ids apart from another's seeded into the same month.
    let salt = owner
        .as_str()
        .bytes()
        .fold(0u64, |h, b| h.wrapping_mul(31).wrapping_add(u64::from(b)))
        & 0xFF_FFFF;
    let mut writes = WriteSet::default();
    for i in 0..n {
        let at = period.start() + time::Duration::milliseconds(span * i as i64 / n as i64);
        let (opening, _) = funded(owner, salt << 32 | (i + 1), at)?;
        for w in opening {
            writes.push(w);
        }
        if writes.writes.len() >= args.batch {
            crate::seed::commit(store, &mut writes).await?;
        }
    }
    crate::seed::commit(store, &mut writes).await?;
    Ok(())
}
