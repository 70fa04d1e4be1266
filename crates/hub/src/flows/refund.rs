//! Refunding a paid payment: the payment refunded, the money owed again on
//! the ledger, and the account reopened if the payment had settled it.

use lendhub_domain::sandbox::events::EventType;
use lendhub_domain::servicing::ledger::{Entry, EntryKind};
use lendhub_domain::servicing::refund_request;
use lendhub_domain::tenant::Tenant;
use lendhub_store::{EventWrite, LendingWrite, WriteSet};
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
    let refunded = payment
        .refunded(reason.clone(), now)
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
    let view = PaymentView::new(&refunded, &cx.links);
    let announced = event(owner, EventType::PaymentRefunded, &view, now)?;
    // Owed again once the money goes back: a settled account the refunded
    // payment settled reopens (`account.updated`).
    let mut entries = cx.servicing.ledger(owner, &account.id).await?;
    entries.push(entry.clone());
    let mut writes = review_account::writes(&account, &entries, now)?;
    writes
        .push(LendingWrite::UpdatePayment(refunded))
        .push(LendingWrite::PostEntry(entry))
        .push(EventWrite::InsertEvent(announced));
    Ok((view, writes))
}
