//! `lendhub billing terms set | show`, `payout-account`, `adjust` and
//! `close`: a partner's commercial terms (the integration fee, or the
//! revenue share), where its own share is remitted, corrections, and the
//! month's close run by hand. The server closes each month by
//! itself on its owner's clock (drafted when it ends, finalized on the 2nd
//! working day of the next month); this command closes one again — a
//! draft is recomputed, a finalized statement is only compared with what
//! its facts give now, since it never changes.

use anyhow::bail;
use clap::{Subcommand, ValueEnum};
use lendhub_domain::billing::statement::{Period, STRATEGIC_MIN_BPS, Terms, agreement};
use lendhub_domain::clock::Clock;
use lendhub_domain::partner::sub_account::AccountRequest;
use lendhub_domain::sandbox::test_clock::ClientClock;
use lendhub_domain::tenant::Tenant;
use lendhub_hub::flows::FlowError;
use lendhub_hub::flows::agree_terms::agree;
use lendhub_hub::flows::close_month::{CloseError, Closed, Ledgers, close};
use lendhub_hub::flows::payout_account::change_partners;
use lendhub_store::{CommercialWrite, Store, Write};
use lendhub_system::SystemClock;
use serde_json::json;

use super::underwriting::whose;
use crate::config::Config;

#[derive(Subcommand, Debug)]
pub enum BillingCommand {
    /// A partner's commercial terms.
    Terms {
        #[command(subcommand)]
        command: TermsCommand,
    },
    /// Correct a finalized month (which never changes): an adjustment
    /// settled with the partner's statement for the month now open on its
    /// clock. One JSON line.
    Adjust {
        /// The partner's client id.
        #[arg(long)]
        client_id: String,
        /// live or test.
        #[arg(long)]
        environment: String,
        /// The finalized month it corrects, YYYY-MM.
        #[arg(long)]
        corrects: String,
        /// Signed pence: positive when the partner owes more (a fee
        /// under-billed, a share over-paid), negative when less.
        #[arg(long, allow_hyphen_values = true)]
        amount_pence: i64,
        /// Why (shown on the statement and the invoice).
        #[arg(long)]
        reason: String,
    },
    /// Where a partner's own remittances are paid (its revenue share, on
    /// each statement the lender pays): checked as a payment to it would
    /// be (the modulus check), and its failed remittances sent again to
    /// it. One JSON line.
    PayoutAccount {
        /// The partner's client id.
        #[arg(long)]
        client_id: String,
        /// live or test.
        #[arg(long)]
        environment: String,
        /// The account holder's name, as the bank holds it.
        #[arg(long)]
        name: String,
        /// Six digits (hyphens allowed).
        #[arg(long)]
        sort_code: String,
        /// Eight digits.
        #[arg(long)]
        account_number: String,
    },
    /// Close a month for every partner with loans funded in it: draft its
    /// statement, or finalize it from its invoice date. One JSON line per
    /// partner and environment.
    Close {
        /// The month, YYYY-MM.
        #[arg(long)]
        period: String,
    },
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum Model {
    /// The partner pays a fee per funded origination.
    IntegrationFee,
    /// The lender pays the partner a share of net margin.
    RevenueShare,
}

#[derive(Subcommand, Debug)]
pub enum TermsCommand {
    /// Agree a partner's terms from a month on, and mail the partner the
    /// written notice. A price rise needs 60 days' notice; anything else
    /// may start from any month (a finalized statement never changes).
    Set {
        /// The partner's client id.
        client_id: String,
        #[arg(long, value_enum)]
        model: Model,
        /// Integration fee: the rate per origination above 10 m GBP of
        /// trailing volume, in pence (default: the 10 m tier's, 2400).
        #[arg(long)]
        custom_fee_pence: Option<i64>,
        /// Revenue share: the Strategic tier's share in basis points (at
        /// least 2200, the default).
        #[arg(long)]
        strategic_share_bps: Option<u32>,
        /// The first day of the first month they rate, YYYY-MM-01. Default:
        /// the earliest month from which they are the terms going forward —
        /// this month, or the latest agreement's if later (replacing it),
        /// or for a price rise the first month at least 60 days away.
        #[arg(long)]
        effective_from: Option<String>,
    },
    /// A partner's terms in effect today (the integration fee unless others
    /// were agreed), and every agreement by the month it rates from.
    Show { client_id: String },
}

pub async fn billing(command: BillingCommand, config: &Config) -> anyhow::Result<()> {
    let days = config.rest_tier.working_days()?;
    let store = super::database::open_existing_store(config).await?;
    let result = run(command, store.as_ref(), &days).await;
    store.close().await;
    result
}

async fn run(
    command: BillingCommand,
    store: &dyn Store,
    days: &lendhub_domain::working_days::WorkingDays,
) -> anyhow::Result<()> {
    match command {
        BillingCommand::Terms {
            command:
                TermsCommand::Set {
                    client_id,
                    model,
                    custom_fee_pence,
                    strategic_share_bps,
                    effective_from,
                },
        } => {
            let Some(client) = store.partner_client(&client_id).await? else {
                bail!("no partner client {client_id}");
            };
            let effective_from = effective_from.as_deref().map(first_of_month).transpose()?;
            let terms = match model {
                Model::IntegrationFee => {
                    if strategic_share_bps.is_some() {
                        bail!("--strategic-share-bps is for the revenue share");
                    }
                    if custom_fee_pence.is_some_and(|p| p <= 0) {
                        bail!("--custom-fee-pence must be a positive number of pence");
                    }
                    Terms::IntegrationFee { custom_fee_pence }
                }
                Model::RevenueShare => {
                    if custom_fee_pence.is_some() {
                        bail!("--custom-fee-pence is for the integration fee");
                    }
                    let bps = strategic_share_bps.unwrap_or(STRATEGIC_MIN_BPS);
                    if !(STRATEGIC_MIN_BPS..=10_000).contains(&bps) {
                        bail!("--strategic-share-bps must be from {STRATEGIC_MIN_BPS} to 10000");
                    }
                    Terms::RevenueShare {
                        strategic_share_bps: bps,
                    }
                }
            };
            let agreed = agree(
                store,
                store,
                &client_id,
                terms,
                effective_from,
                SystemClock.now(),
            )
            .await?;
            let line = json!({
                "client_id": client_id,
                "terms": agreed.agreement.terms,
                "effective_from": agreed.agreement.effective_from.first_day().to_string(),
                "replaces": agreed.replaces,
                "price_rise": agreed.rise,
                "notice_mailed_to": client.contact_email,
            });
            println!("{line}");
        }
        BillingCommand::Terms {
            command: TermsCommand::Show { client_id },
        } => {
            let agreements = store.partner_agreements(&client_id).await?;
            let today = Period::of(SystemClock.now());
            let listed: Vec<_> = agreements
                .iter()
                .map(|a| {
                    json!({"effective_from": a.effective_from.first_day().to_string(),
                                "terms": a.terms})
                })
                .collect();
            let line = json!({"client_id": client_id,
                              "terms": agreement::in_effect(&agreements, today),
                              "agreements": listed});
            println!("{line}");
        }
        BillingCommand::Adjust {
            client_id,
            environment,
            corrects,
            amount_pence,
            reason,
        } => {
            adjust(
                store,
                &client_id,
                &environment,
                &corrects,
                amount_pence,
                &reason,
            )
            .await?
        }
        BillingCommand::PayoutAccount {
            client_id,
            environment,
            name,
            sort_code,
            account_number,
        } => {
            let owner = Tenant::partner(&client_id, livemode(&environment)?, None);
            if store.partner_client(&client_id).await?.is_none() {
                bail!("no partner client {client_id}");
            }
            let request = AccountRequest {
                name: Some(name),
                sort_code: Some(sort_code),
                account_number: Some(account_number),
            };
            let now = ClientClock::new(store.clock_offset(&owner).await?).now(SystemClock.now());
            let (account, writes) = match change_partners(store, &owner, &request, now).await {
                Ok(changed) => changed,
                Err(FlowError::Validation(problems)) => {
                    let why: Vec<String> = problems
                        .iter()
                        .map(|p| format!("{}: {}", p.field, p.reason))
                        .collect();
                    bail!("the payout account was refused ({})", why.join(", "))
                }
                Err(e) => return Err(e.into()),
            };
            let reissued: Vec<String> = writes
                .writes
                .iter()
                .filter_map(|w| match w {
                    Write::Commercial(CommercialWrite::MovePayout(p)) => Some(p.id.to_string()),
                    _ => None,
                })
                .collect();
            store.commit(writes).await?;
            let line = json!({"partner": whose(&owner),
                "payout_account": {"name": account.name, "sort_code": account.sort_code(),
                                   "last4": account.last4()},
                "reissued_payouts": reissued});
            println!("{line}");
        }
        BillingCommand::Close { period } => {
            let Some(period) = Period::parse(&period) else {
                bail!("--period must be a month, YYYY-MM");
            };
            let books = Ledgers {
                commercial: store,
                units: store,
                days,
            };
            let (from, to) = (period.start(), period.end());
            let owners = store
                .billing_owners(
                    lendhub_domain::clock::unix_ms(from),
                    lendhub_domain::clock::unix_ms(to),
                )
                .await?;
            for owner in owners {
                let now =
                    ClientClock::new(store.clock_offset(&owner).await?).now(SystemClock.now());
                // Always through the month's waiting close (made here if the
                // month has none and is not finalized): of this and any
                // other close of the same month, one commits.
                let waiting = waiting_close(store, &owner, period).await?;
                let outcome = match close(&books, &owner, period, now, waiting.as_ref()).await {
                    Ok(outcome) => outcome,
                    Err(CloseError::Conflict) => {
                        let line = json!({"partner": whose(&owner), "period": period.to_string(),
                                          "result": "conflict"});
                        println!("{line}");
                        continue;
                    }
                    Err(e) => return Err(e.into()),
                };
                let (result, statement) = match &outcome {
                    Closed::NotOver => ("not_over", None),
                    Closed::Drafted(s) => ("drafted", Some(s)),
                    Closed::Finalized(s) => ("finalized", Some(s)),
                    Closed::Unchanged(s) => ("unchanged", Some(s)),
                    Closed::Differs { finalized, .. } => {
                        ("differs_from_finalized", Some(finalized))
                    }
                };
                let mut line = json!({"partner": whose(&owner), "period": period.to_string(), "result": result});
                if let Some(s) = statement {
                    line["statement_id"] = json!(s.id.to_string());
                    line["status"] = json!(s.status.as_str());
                    line["payable_pence"] = json!(s.payable_pence);
                }
                if let Closed::Differs { now, .. } = &outcome {
                    line["payable_pence_now"] = json!(now.payable_pence);
                }
                println!("{line}");
            }
        }
    }
    Ok(())
}

/// The month's waiting close, made (due at the month's end) if the month
/// has none and its statement is not finalized: a finalized month is only
/// compared, never written, so it needs none.
async fn waiting_close(
    store: &dyn Store,
    owner: &lendhub_domain::tenant::Tenant,
    period: Period,
) -> anyhow::Result<Option<lendhub_domain::billing::statement::Close>> {
    use lendhub_domain::billing::statement::{Close, Status};
    use lendhub_store::{CommercialWrite, WriteSet};
    let key = period.to_string();
    if let Some(waiting) = store.waiting_close(owner, &key).await? {
        return Ok(Some(waiting));
    }
    let finalized = store
        .statement_for(owner, &key)
        .await?
        .is_some_and(|s| s.status == Status::Finalized);
    if finalized {
        return Ok(None);
    }
    let mut writes = WriteSet::default();
    writes.push(CommercialWrite::ScheduleClose(Close {
        owner: owner.clone(),
        period: key.clone(),
        due_at_ms: lendhub_domain::clock::unix_ms(period.end()),
        version: 0,
    }));
    store.commit(writes).await?;
    Ok(store.waiting_close(owner, &key).await?)
}

/// `--environment`: whether the partner's live or test books.
fn livemode(environment: &str) -> anyhow::Result<bool> {
    match environment {
        "live" => Ok(true),
        "test" => Ok(false),
        _ => bail!("--environment must be live or test"),
    }
}

/// The largest correction one adjustment makes: ten billion pounds.
const MAX_ADJUSTMENT_PENCE: i64 = 1_000_000_000_000;

async fn adjust(
    store: &dyn Store,
    client_id: &str,
    environment: &str,
    corrects: &str,
    amount_pence: i64,
    reason: &str,
) -> anyhow::Result<()> {
    use lendhub_domain::billing::statement::{Adjustment, Close, Status};
    use lendhub_store::WriteSet;
    let livemode = livemode(environment)?;
    let Some(corrected) = Period::parse(corrects) else {
        bail!("--corrects must be a month, YYYY-MM");
    };
    if amount_pence == 0 || amount_pence.unsigned_abs() > MAX_ADJUSTMENT_PENCE as u64 {
        bail!("--amount-pence must be other than 0 and at most {MAX_ADJUSTMENT_PENCE} either way");
    }
    if reason.trim().is_empty() {
        bail!("an adjustment needs a reason");
    }
    let owner = Tenant::partner(client_id, livemode, None);
    let statement = store.statement_for(&owner, &corrected.to_string()).await?;
    match statement {
        Some(s) if s.status == Status::Finalized => {}
        Some(_) => bail!("{corrects} is still a draft: close it again instead (billing close)"),
        None => bail!("{client_id} has no {environment} statement for {corrects}"),
    }
    let now = ClientClock::new(store.clock_offset(&owner).await?).now(SystemClock.now());
    let open = Period::of(now);
    // The month it settles with must still be open to take it.
    if store
        .statement_for(&owner, &open.to_string())
        .await?
        .is_some_and(|s| s.status == Status::Finalized)
    {
        bail!("{open} is already finalized on the partner's clock; adjust again in a moment");
    }
    let adjustment = Adjustment {
        id: lendhub_system::new_hub_id(lendhub_domain::clock::unix_ms(now) as u64),
        owner: owner.clone(),
        corrects: corrected.to_string(),
        applies_to: open.to_string(),
        amount_pence,
        reason: reason.trim().to_owned(),
        created_at: now,
    };
    let mut writes = WriteSet::default();
    writes
        .push(CommercialWrite::InsertAdjustment(adjustment.clone()))
        // The open month closes even if no loan funds in it.
        .push(CommercialWrite::ScheduleClose(Close {
            owner: owner.clone(),
            period: open.to_string(),
            due_at_ms: lendhub_domain::clock::unix_ms(open.end()),
            version: 0,
        }));
    store.commit(writes).await?;
    println!(
        "{}",
        json!({"adjustment_id": adjustment.id.to_string(), "partner": whose(&owner),
               "corrects": adjustment.corrects, "applies_to": adjustment.applies_to,
               "amount_pence": amount_pence})
    );
    Ok(())
}

/// `--effective-from`: the first day of a month, since statements are
/// monthly and each month is rated under one agreement.
fn first_of_month(raw: &str) -> anyhow::Result<Period> {
    let format = time::macros::format_description!("[year]-[month]-[day]");
    let day = time::Date::parse(raw, format)
        .map_err(|_| anyhow::anyhow!("--effective-from must be a date, YYYY-MM-DD"))?;
    if day.day() != 1 {
        bail!("--effective-from must be the first day of a month: terms rate whole months");
    }
    Ok(Period::of_date(day))
}
