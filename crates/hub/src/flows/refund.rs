//! Refunding a paid payment: the payment refunded, the money owed again on
//! the ledger, the account reopened if the payment had settled it, and the
//! money committed to go back to the account that paid, which the payout
//! rail carries (`refund_rail`).

use lendhub_domain::ids::HubId;
use lendhub_domain::ids::RefundId;
use lendhub_domain::ledger::movements;
use lendhub_domain::payout_rail::{Kind, RailPayment};
use lendhub_domain::sandbox::events::EventType;
use lendhub_domain::servicing::collection::PaymentStatus;
use lendhub_domain::servicing::ledger::{Entry, EntryKind};
use lendhub_domain::servicing::refund_payout::RefundPayout;
use lendhub_domain::servicing::refund_request;
use lendhub_domain::tenant::Tenant;
use lendhub_store::{EventWrite, LedgerWrite, LendingWrite, WriteSet};
use time::OffsetDateTime;

use super::FlowError;
use crate::flows::Context;
use crate::flows::events::event;
use crate::flows::lending::find_payment;
use crate::flows::review_account;
use crate::views::payment::PaymentView;

/// The writes that refund `owner`'s payment `raw_id` for `reason` at `now`
/// (`payment.refunded`, and `account.updated` when the account reopens),
/// and the payment as it then reads.
pub async fn refund(
    cx: &Context,
    owner: &Tenant,
    raw_id: &str,
    reason: Option<&str>,
    now: OffsetDateTime,
) -> Result<(PaymentView, WriteSet), FlowError> {
    let reason = refund_request::check(reason)?;
    let payment = find_payment(cx, owner, raw_id).await?;
    if payment.status != PaymentStatus::Paid {
        return Err(FlowError::Conflict("only a paid payment can be refunded"));
    }
    let payee = payment.payer_account.clone().ok_or(FlowError::Conflict(
        "the payer's bank did not say which account paid, so the money cannot be sent back",
    ))?;
    let refund_id: RefundId =
        lendhub_system::new_hub_id(lendhub_domain::clock::unix_ms(now) as u64);
    let payout = RefundPayout::new(refund_id.clone(), payment.amount, &payee, now);
    let refunded = payment
        .refunded_through(reason.clone(), payout, now)
        .map_err(|_| FlowError::Conflict("only a paid payment can be refunded"))?;
    let account = cx
        .lending
        .hub_account(owner, &payment.account_id)
        .await?
        .ok_or_else(|| FlowError::Internal(format!("payment {raw_id} names no account")))?;
    let repaid = payment
        .amount
        .checked_neg()
        .ok_or_else(|| FlowError::Internal("an amount out of range".into()))?;
    let entry = Entry::new(
        lendhub_system::new_hub_id(lendhub_domain::clock::unix_ms(now) as u64),
        &account,
        EntryKind::Refund,
        repaid,
        Some(payment.id.to_string()),
        reason,
        now,
    )
    .map_err(|e| FlowError::Internal(e.to_string()))?;
    // The ledger gives back what the collection paid off, pending until
    // the rail says the money reached the payer.
    let mut refunded = refunded;
    let mut ledger = WriteSet::default();
    if let Some(held) = refunded.in_ledger.as_mut().filter(|h| h.posted) {
        let pending = movements::refund_of(refund_id.as_str(), &held.transfer, now)
            .map_err(|e| FlowError::Internal(e.to_string()))?
            .known_at_bank_as(refund_id.as_str());
        ledger.push(LedgerWrite::Post(pending.clone()));
        held.refund = Some(pending);
    }
    ledger.push(LendingWrite::RecordRailPayment(RailPayment {
        end_to_end_id: refund_id.as_str().to_owned(),
        owner: owner.clone(),
        kind: Kind::Refund,
        subject_id: payment.id.as_str().to_owned(),
        amount: payment.amount,
        created_at: now,
    }));
    let view = PaymentView::new(&refunded, &cx.links);
    let announced = event(owner, EventType::PaymentRefunded, &view, now)?;
    // Owed again once the money goes back: a settled account the refunded
    // payment settled reopens (`account.updated`).
    let mut entries = cx.servicing.ledger(owner, &account.id).await?;
    entries.push(entry.clone());
    let mut writes = review_account::writes(&account, &entries, now)?;
    writes.writes.extend(ledger.writes);
    writes
        .push(LendingWrite::UpdatePayment(refunded))
        .push(LendingWrite::PostEntry(entry))
        .push(EventWrite::InsertEvent(announced));
    Ok((view, writes))
}
