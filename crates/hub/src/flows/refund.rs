//! Refunding a paid payment: the payment refunded, and the money committed
//! to go back to the account that paid, which the payout rail carries
//! (`refund_rail`). The ledger holds what the collection paid off pending
//! until the rail says the money reached the payer; only then is it owed
//! again, and the account reviewed (reopened if the payment had settled
//! it).

use lendhub_domain::ids::HubId;
use lendhub_domain::ids::RefundId;
use lendhub_domain::ledger::movements;
use lendhub_domain::payout_rail::{Kind, RailPayment};
use lendhub_domain::sandbox::events::EventType;
use lendhub_domain::servicing::collection::PaymentStatus;
use lendhub_domain::servicing::refund_payout::RefundPayout;
use lendhub_domain::servicing::refund_request;
use lendhub_domain::tenant::Tenant;
use lendhub_store::{EventWrite, LedgerWrite, LendingWrite, WriteSet};
use time::OffsetDateTime;

use super::FlowError;
use crate::flows::Context;
use crate::flows::events::event;
use crate::flows::lending::find_payment;
use crate::views::payment::PaymentView;

/// The writes that refund `owner`'s payment `raw_id` for `reason` at `now`
/// (`payment.refunded`),
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
    // The ledger gives back what the collection paid off, pending until
    // the rail says the money reached the payer.
    let mut refunded = refunded;
    let mut writes = WriteSet::default();
    if let Some(held) = refunded.in_ledger.as_mut().filter(|h| h.posted) {
        let pending = movements::refund_of(refund_id.as_str(), &held.transfer, now)
            .map_err(|e| FlowError::Internal(e.to_string()))?
            .known_at_bank_as(refund_id.as_str());
        writes.push(LedgerWrite::Post(pending.clone()));
        held.refund = Some(pending);
    }
    writes.push(LendingWrite::RecordRailPayment(RailPayment {
        end_to_end_id: refund_id.as_str().to_owned(),
        owner: owner.clone(),
        kind: Kind::Refund,
        subject_id: payment.id.as_str().to_owned(),
        amount: payment.amount,
        created_at: now,
    }));
    let view = PaymentView::new(&refunded, &cx.links);
    let announced = event(owner, EventType::PaymentRefunded, &view, now)?;
    writes
        .push(LendingWrite::UpdatePayment(refunded))
        .push(EventWrite::InsertEvent(announced));
    Ok((view, writes))
}
