//! `lendhub-bench seed-servicing`: funded loans' accounts for the
//! servicing benchmarks (issue #16), written as the service would have
//! written them, fast (batched commits through the store, no HTTP):
//!
//! - `--ledger-entries N`: one account with its drawdown and N small
//!   collections, for `GET /accounts/{id}/transactions` at size;
//! - `--schedules N`: N accounts, each with a mandate and a monthly
//!   schedule whose first instalment is due today, its VRP consent held
//!   by the embedded model bank, for the scheduler;
//! - `--loans N --month YYYY-MM`: N loans funded across that month, for
//!   closing a month's statement at size (issue #17);
//! - `--sending N --ids-out FILE`: N signed loans whose payouts are with
//!   the payout rail (claimed now, the drawdown pending, the payment
//!   recorded by its end-to-end id), for the settlement webhooks' benchmark
//!   (issue #47); FILE lists each end-to-end id and amount in pence;
//! - `--due N`: N loans signed ten minutes ago whose payouts are due and
//!   not yet claimed, for the outbox's disbursements a second (issue #47);
//! - `--postings N`: N postings in the double-entry ledger (the lender's
//!   capital, then interest and fees on a thousand loans each, two postings
//!   a transfer, over the last year), for the trial balance at size.

use std::time::Instant;

use anyhow::{Context, Result, anyhow, bail};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use lendhub_domain::crypto::MasterKey;
use lendhub_domain::ids::{
    AccountId, ApplicationId, DecisionId, DisbursementId, HubId, MandateId, PaymentId, ScheduleId,
};
use lendhub_domain::ledger::book::Position;
use lendhub_domain::ledger::movements;
use lendhub_domain::lending::application::{self, Applicant, Application, Decision, Request};
use lendhub_domain::lending::register;
use lendhub_domain::lending::underwriting::{Banking, CreditFile, Facts, Signals};
use lendhub_domain::money::Money;
use lendhub_domain::open_banking::vrp::PeriodType;
use lendhub_domain::servicing::account::Account;
use lendhub_domain::servicing::mandate::{Limits, Mandate};
use lendhub_domain::servicing::schedule::{Cadence, Schedule};
use lendhub_domain::servicing::statement;
use lendhub_domain::tenant::Tenant;
use lendhub_models::bank::standing::StandingTerms;
use lendhub_store::{LedgerWrite, LendingWrite, Store, Write, WriteSet};
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
    /// Signed loans whose payouts are with the rail, awaiting its word.
    #[arg(long, default_value_t = 0)]
    sending: u64,
    /// Signed loans whose payouts are due, not yet claimed by a worker.
    #[arg(long, default_value_t = 0)]
    due: u64,
    /// Postings to write into the double-entry ledger.
    #[arg(long, default_value_t = 0)]
    postings: u64,
    /// Where `--sending` writes its payouts' end-to-end ids and amounts.
    #[arg(long)]
    ids_out: Option<std::path::PathBuf>,
    /// Rows per commit.
    #[arg(long, default_value_t = 5_000)]
    batch: usize,
    /// The server's data directory, whose master key seals the mandates'
    /// tokens and whose model bank is told of their consents; by default
    /// the directory `--database` is in.
    #[arg(long)]
    data_dir: Option<std::path::PathBuf>,
}

impl SeedServicingArgs {
    fn data_dir(&self) -> Result<std::path::PathBuf> {
        if let Some(dir) = &self.data_dir {
            return Ok(dir.clone());
        }
        std::path::Path::new(&self.database)
            .parent()
            .filter(|_| !self.database.starts_with("postgres"))
            .map(std::path::Path::to_path_buf)
            .ok_or_else(|| anyhow!("--schedules needs --data-dir with a PostgreSQL --database"))
    }
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
        if args.postings > 0 {
            postings(store.as_ref(), args).await?;
            out.insert("postings".into(), args.postings.into());
        }
        if args.sending > 0 {
            let file = args
                .ids_out
                .as_deref()
                .context("--sending needs --ids-out FILE")?;
            sending(store.as_ref(), &owner, args, file).await?;
            out.insert("sending".into(), args.sending.into());
        }
        if args.due > 0 {
            due(store.as_ref(), &owner, args).await?;
            out.insert("due".into(), args.due.into());
        }
        store.close().await;
        out.insert("seconds".into(), started.elapsed().as_secs_f64().into());
        println!("{}", serde_json::Value::Object(out));
        Ok(())
    })
}

/// `--postings` postings, two a transfer: the lender's capital, then an
/// accrual or a fee on one of `postings / 1000` loans (at least one) in
/// turn, a year ago to now, as the transfers of a book that size would be.
async fn postings(store: &dyn Store, args: &SeedServicingArgs) -> Result<()> {
    use lendhub_domain::ledger::movements as m;
    use lendhub_store::LedgerWrite;
    let transfers = args.postings.div_ceil(2);
    let loans: Vec<AccountId> = (0..(args.postings / 1000).max(1))
        .map(|i| AccountId::generate(1, (1 << 48) | u128::from(i)))
        .collect();
    let end = OffsetDateTime::now_utc();
    let start = end - time::Duration::days(365);
    let span = (end - start).whole_milliseconds() as i64;
    let mut writes = WriteSet::default();
    writes.push(LedgerWrite::Post(m::capital(
        "bench_capital",
        Money::pence(1_000_000_000_000),
        start,
    )?));
    for i in 1..transfers {
        let at = start + time::Duration::milliseconds(span * i as i64 / transfers as i64);
        let loan = &loans[i as usize % loans.len()];
        let id = format!("bench_{i}");
        let amount = Money::pence(100 + (i % 900) as i64);
        let transfer = if i % 4 == 0 {
            m::fee(&id, loan, amount, at)?
        } else {
            m::accrual(&id, loan, amount, at)?
        };
        writes.push(LedgerWrite::Post(transfer));
        if writes.writes.len() >= args.batch {
            crate::seed::commit(store, &mut writes).await?;
        }
    }
    crate::seed::commit(store, &mut writes).await?;
    Ok(())
}

/// `--sending` signed loans of £10,000 whose payouts a worker claimed now
/// and sent: each application with its disbursement `sending`, its
/// decision, the pending drawdown and the rail payment, as the first claim
/// commits them; `file` gets "end-to-end id amount" lines.
async fn sending(
    store: &dyn Store,
    owner: &Tenant,
    args: &SeedServicingArgs,
    file: &std::path::Path,
) -> Result<()> {
    use lendhub_domain::payout_rail::{Kind, RailPayment};
    use lendhub_store::LedgerWrite;
    let now = OffsetDateTime::now_utc();
    let mut lines = String::new();
    let mut writes = WriteSet::default();
    for i in 0..args.sending {
        let (signed, locked) = signed(owner, (1 << 40) | i, now)?;
        let claimed = signed
            .claim_disbursement(now)
            .map_err(|e| anyhow!("claiming a bench payout: {e:?}"))?;
        let intent = claimed
            .disbursement
            .clone()
            .context("a signed application carries its payout")?;
        let pending = intent
            .pending_transfer()
            .context("a claimed payout holds its drawdown")?;
        lines.push_str(&format!("{} {}\n", intent.id, intent.amount.as_pence()));
        writes
            .push(LendingWrite::InsertApplication(claimed.clone()))
            .push(LendingWrite::InsertDecision(locked))
            .push(LendingWrite::RecordRailPayment(RailPayment {
                end_to_end_id: intent.id.as_str().to_owned(),
                owner: owner.clone(),
                kind: Kind::Disbursement,
                subject_id: claimed.id.as_str().to_owned(),
                amount: intent.amount,
                created_at: now,
            }))
            .push(LedgerWrite::Post(pending));
        if writes.writes.len() >= args.batch {
            crate::seed::commit(store, &mut writes).await?;
        }
    }
    crate::seed::commit(store, &mut writes).await?;
    std::fs::write(file, lines).with_context(|| format!("writing {}", file.display()))
}

/// `--due` signed loans of £10,000 whose payouts fell due (signed ten
/// minutes ago, past the five the signature waits), as signing commits
/// them: the application with its disbursement due, and its decision.
async fn due(store: &dyn Store, owner: &Tenant, args: &SeedServicingArgs) -> Result<()> {
    let signed_at = OffsetDateTime::now_utc() - time::Duration::minutes(10);
    let mut writes = WriteSet::default();
    for i in 0..args.due {
        let (signed, locked) = signed(owner, (2 << 40) | i, signed_at)?;
        writes
            .push(LendingWrite::InsertApplication(signed))
            .push(LendingWrite::InsertDecision(locked));
        if writes.writes.len() >= args.batch {
            crate::seed::commit(store, &mut writes).await?;
        }
    }
    crate::seed::commit(store, &mut writes).await
}

/// An application of £10,000 over 12 months made, approved and signed at
/// `at`, and its decision, locked.
fn signed(owner: &Tenant, n: u64, at: OffsetDateTime) -> Result<(Application, Decision)> {
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
        Some(Banking::steady(12, 5_000_000, 3_000_000)),
        None,
        Signals::default(),
    );
    let (_, mut decided, decision) = application
        .submit(
            DecisionId::generate(ms, random),
            facts,
            lendhub_domain::credit_model::champion()
                .ok_or_else(|| anyhow!("no credit model is bundled"))?,
            at,
        )
        .map_err(|e| anyhow!("deciding a bench application: {e:?}"))?;
    // Paid, as a connected account would be, to the model bank's `strong`.
    decided.payout_bank = Some("test_bank_strong".into());
    decided
        .accept(
            &decision,
            "Bench".into(),
            DisbursementId::generate(ms, random),
            at,
        )
        .map_err(|e| anyhow!("accepting a bench offer: {e:?}"))
}

/// A funded loan of £10,000 over 12 months made at `at`: its writes
/// (application, decision and account as funding leaves them, and the
/// drawdown) and the account.
fn funded(owner: &Tenant, n: u64, at: OffsetDateTime) -> Result<(Vec<Write>, Account)> {
    let ms = lendhub_domain::clock::unix_ms(at) as u64;
    let random = u128::from(n) << 16;
    let (signed, locked) = signed(owner, n, at)?;
    let account_id = AccountId::generate(ms, random);
    let funded = signed
        .claim_disbursement(at)
        .and_then(|claimed| claimed.fund(account_id.clone(), &format!("fps_bench_{n}"), at))
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
    let dsb = format!("dsb_bench_{}", account.id);
    let held = movements::drawdown(&dsb, &account.id, account.principal(), at)?;
    let posted = held
        .post(format!("{dsb}.settled"), at)
        .context("a drawdown is pending")?;
    Ok((
        vec![
            LendingWrite::InsertApplication(funded).into(),
            LendingWrite::InsertDecision(locked).into(),
            LendingWrite::OpenAccount(account.clone()).into(),
            LedgerWrite::Post(held).into(),
            LedgerWrite::Post(posted).into(),
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
        let payment = format!("pay_bench_{i}");
        let owed = Position {
            principal: account.principal(),
            ..Position::default()
        };
        let held = movements::collection(&payment, &account.id, Money::pence(1), &owed, at)?
            .for_payment(&payment);
        let posted = held
            .post(format!("{payment}.settled"), at)
            .context("a collection is pending")?;
        if i == n / 2 {
            middle = statement::entry_id(posted.id(), at).to_string();
        }
        writes.push(LedgerWrite::Post(held));
        writes.push(LedgerWrite::Post(posted));
        if writes.writes.len() >= args.batch {
            crate::seed::commit(store, &mut writes).await?;
        }
    }
    crate::seed::commit(store, &mut writes).await?;
    Ok((account.id.to_string(), middle))
}

/// `--schedules` accounts, each with a mandate and a monthly schedule of 12
/// whose first instalment is due today: the first account's id.
/// `--schedules` accounts, each with a monthly schedule due today under a
/// mandate its payer authorised at the embedded model bank: the consent
/// and tokens are written into the bank's books in `--data-dir`, and the
/// tokens sealed with that directory's master key, as lendhub keeps them.
async fn schedules(store: &dyn Store, owner: &Tenant, args: &SeedServicingArgs) -> Result<String> {
    let n = args.schedules;
    let now = OffsetDateTime::now_utc();
    // Funded a month ago, so today's instalment is the first.
    let start = now - time::Duration::days(31);
    let today = now.date();
    let data_dir = args.data_dir()?;
    let master_key = master_key(&data_dir)?;
    let mut planned = Vec::with_capacity(n as usize);
    for i in 0..n {
        let at = start + time::Duration::milliseconds(i as i64);
        let (opening, account) = funded(owner, i + 1, at)?;
        let ms = lendhub_domain::clock::unix_ms(at) as u64;
        let random = u128::from(i) << 16 | 1;
        let mandate_id = MandateId::generate(ms, random);
        let schedule = Schedule::new(
            ScheduleId::generate(ms, random),
            owner.clone(),
            account.id.clone(),
            Cadence::Monthly,
            account.terms.monthly_repayment_pence,
            today,
            Some(12),
            Some(mandate_id.clone()),
            at,
        );
        let mandate = Mandate::establish(
            mandate_id,
            owner.clone(),
            account.id.clone(),
            "model_bank",
            PaymentId::generate(ms, random),
            at,
        );
        planned.push((opening, account.id, schedule, mandate));
    }
    let terms: Vec<StandingTerms> = planned
        .iter()
        .map(|(_, _, schedule, _)| {
            let limits = Limits::for_schedule(schedule);
            StandingTerms {
                reference: reference(schedule).to_owned(),
                most_per_payment: limits.most_per_payment,
                most_per_period: limits.most_per_period,
                period: match limits.period {
                    Cadence::Weekly => PeriodType::Week,
                    Cadence::Monthly => PeriodType::Month,
                },
            }
        })
        .collect();
    let books = data_dir.join("model-bank.json");
    let standing = lendhub_models::bank::standing::authorise(&books, &terms, now)
        .with_context(|| format!("writing {}", books.display()))?;
    let first = planned
        .first()
        .map(|(_, account, _, _)| account.to_string())
        .unwrap_or_default();
    let mut writes = WriteSet::default();
    for ((opening, _, schedule, mandate), at_bank) in planned.into_iter().zip(standing) {
        let tokens = serde_json::json!({
            "access_token": at_bank.access_token,
            "refresh_token": at_bank.refresh_token,
            "access_expires_at": at_bank.access_expires_at
                .format(&time::format_description::well_known::Rfc3339)?,
        });
        let sealed = master_key.seal_with_nonce(
            TOKENS_PURPOSE,
            &serde_json::to_vec(&tokens)?,
            rand::random(),
        );
        let mandate = mandate
            .at_bank(
                &at_bank.consent_id,
                reference(&schedule),
                URL_SAFE_NO_PAD.encode(sealed),
            )
            .limited_to(Limits::for_schedule(&schedule));
        for w in opening {
            writes.push(w);
        }
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

/// The master key's purpose for a mandate's tokens (lendhub's
/// `flows/mandate_at_bank.rs`).
const TOKENS_PURPOSE: &str = "mandate-tokens";

/// What a schedule's payments show the payer, as lendhub asks for it.
fn reference(schedule: &Schedule) -> &str {
    schedule
        .reference
        .as_deref()
        .unwrap_or(schedule.id.as_str())
}

/// The master key the server in `data_dir` seals with (it made it on its
/// first start).
fn master_key(data_dir: &std::path::Path) -> Result<MasterKey> {
    let file = data_dir.join("master.key");
    let text = std::fs::read_to_string(&file)
        .with_context(|| format!("{}: start the server once first", file.display()))?;
    MasterKey::from_base64(text.trim()).map_err(|why| anyhow!("{}: {why}", file.display()))
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
