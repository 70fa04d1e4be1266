//! A refund's money back to the account that paid, over the payout rail
//! (issue #47 item 4): the outbox the disbursement uses. The refund's
//! commit holds the money pending in the ledger and records the payout; the
//! sweep claims it and sends it under its own id (the rail's end-to-end id
//! and duplicate check, so a resend after a crash is never a second
//! payment); only the rail's word ends it: paid (`payment.refund_paid`, the
//! ledger's hold posted) or refused by the payer's bank
//! (`payment.refund_failed`, the hold voided, the payment `paid` again,
//! since the lender still has the money).

use lendhub_domain::ids::HubId;
use lendhub_domain::ids::PaymentId;
use lendhub_domain::lending::disbursement::State;
use lendhub_domain::payout_rail::{Outcome, RailPayment, reason};
use lendhub_domain::sandbox::events::EventType;
use lendhub_domain::servicing::collection::Payment;
use lendhub_store::{LedgerWrite, WriteSet};
use time::OffsetDateTime;

use super::FlowError;
use crate::counterparties::{Payout, RailStatus, Sent};
use crate::flows::Context;
use crate::flows::payments::commit_announcing;

fn unavailable(e: impl std::fmt::Display) -> FlowError {
    FlowError::Unavailable(e.to_string())
}

/// Moves `payment`'s refund on at `now`, as the sweep finds it due: a
/// refund due is claimed and sent; one claimed earlier whose worker has
/// not been heard of is asked after at the rail first. `Ok(false)` if
/// another worker moved it meanwhile.
pub async fn send(cx: &Context, payment: &Payment, now: OffsetDateTime) -> Result<bool, FlowError> {
    let Some(payout) = &payment.refund_payout else {
        return Ok(false);
    };
    let rail = cx.rails.for_owner(&payment.owner);
    let mut resend = true;
    if matches!(payout.state, State::Sending { .. }) {
        match rail.status(payout.id.as_str()).await.map_err(unavailable)? {
            RailStatus::Ended(outcome) => return book(cx, payment, outcome, now).await,
            RailStatus::InProgress => resend = false,
            RailStatus::Unknown => {}
        }
    }
    let Some(claimed) = payment.refund_claimed(now) else {
        return Ok(false);
    };
    let Some(claimed) = commit_announcing(cx, claimed, WriteSet::default(), &[], now).await? else {
        return Ok(false);
    };
    if !resend {
        return Ok(true);
    }
    lendhub_system::crash_point("refund.claimed");
    let account = cx
        .lending
        .hub_account(&claimed.owner, &claimed.account_id)
        .await?
        .ok_or_else(|| FlowError::Internal(format!("payment {} names no account", claimed.id)))?;
    let id = claimed.id.as_str();
    let reference = claimed
        .reference
        .as_deref()
        .unwrap_or(&id[id.len().saturating_sub(18)..]);
    let sent = rail
        .send(&Payout {
            end_to_end_id: payout.id.as_str(),
            amount: payout.amount,
            payee: &payout.payee,
            payee_name: &account.company_name,
            reference,
        })
        .await
        .map_err(unavailable)?;
    lendhub_system::crash_point("refund.sent");
    match sent {
        Sent::Accepted => Ok(true),
        Sent::Refused { code } => {
            let rejected = Outcome::Rejected { code, at: now };
            book(cx, &claimed, rejected, now).await
        }
    }
}

/// The rail's word on the refund `sent` records, as its webhook (or the
/// worker's question) brings it. A refund already ended changes nothing.
pub async fn answered(
    cx: &Context,
    sent: &RailPayment,
    outcome: Outcome,
) -> Result<bool, FlowError> {
    let Some(id) = PaymentId::parse(&sent.subject_id) else {
        return Ok(false);
    };
    let Some(payment) = cx.servicing.payment(&sent.owner, &id).await? else {
        return Ok(false);
    };
    if payment
        .refund_payout
        .as_ref()
        .is_none_or(|r| r.id.as_str() != sent.end_to_end_id)
    {
        return Ok(false);
    }
    let now = cx.now_for(&payment.owner).await?;
    book(cx, &payment, outcome, now).await
}

/// Ends `payment`'s refund as the rail said, with its event and the
/// ledger's close of the hold, in one commit.
async fn book(
    cx: &Context,
    payment: &Payment,
    outcome: Outcome,
    now: OffsetDateTime,
) -> Result<bool, FlowError> {
    let internal = |what: &str| FlowError::Internal(format!("{what} for {}", payment.id));
    let mut writes = WriteSet::default();
    let (next, kind) = match outcome {
        Outcome::Settled { transaction_id, at } => {
            let Some(paid) = payment.refund_paid(&transaction_id, at) else {
                return Ok(false);
            };
            if let Some(hold) = paid.in_ledger.as_ref().and_then(|l| l.refund.clone()) {
                let posted = hold
                    .post(format!("{}.settled", hold.id()), now)
                    .ok_or_else(|| internal("a refund's hold is not pending"))?;
                // Owed again now the money has gone back: a settled account
                // the refunded payment settled reopens (`account.updated`).
                let account = cx
                    .lending
                    .hub_account(&payment.owner, &payment.account_id)
                    .await?
                    .ok_or_else(|| internal("no account"))?;
                let mut transfers = cx.ledger.loan_transfers(&account.id).await?;
                transfers.push(posted.clone());
                writes = crate::flows::review_account::writes(&account, &transfers, now)?;
                writes.push(LedgerWrite::Post(posted));
            }
            (paid, EventType::PaymentRefundPaid)
        }
        Outcome::Rejected { code, at } => {
            let why = reason(&code);
            let Some(mut failed) = payment.refund_failed(&why, at) else {
                return Ok(false);
            };
            if let Some(hold) = failed.in_ledger.as_mut().and_then(|h| h.refund.take()) {
                let voided = hold
                    .void(format!("{}.rejected", hold.id()), now)
                    .ok_or_else(|| internal("a refund's hold is not pending"))?;
                writes.push(LedgerWrite::Post(voided));
            }
            tracing::info!(payment = %payment.id, reason = %why, "a refund was refused by the payer's bank");
            (failed, EventType::PaymentRefundFailed)
        }
    };
    Ok(commit_announcing(cx, next, writes, &[kind], now)
        .await?
        .is_some())
}
