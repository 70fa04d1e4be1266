//! A payment's state changes outside a partner's request: a scheduled
//! instalment's initiation under its mandate, what the payer's bank says of
//! a payment it accepted, settlement, and a link's expiry on the clock
//! (the pay page's steps are `pay_at_bank`). Each commits the payment's next version with its event (and, on
//! settlement, the ledger's collection) or nothing: `Ok(false)` when
//! another instance or request moved the payment first.

use lendhub_domain::sandbox::events::EventType;
use lendhub_domain::servicing::collection::{FailureReason, Payment};
use lendhub_store::{CommitError, EventWrite, LendingWrite, WriteSet};
use time::OffsetDateTime;

use super::FlowError;
use crate::flows::Context;
use crate::flows::collection_ledger;
use crate::flows::events::event;
use crate::flows::schedule_follow::follow;
use crate::views::payment::PaymentView;
use lendhub_domain::open_banking::pis::Progress;

/// Commits `next` with its event, `writes`, what the ledger does in step
/// (`collection_ledger::follow`) and what its schedule does
/// (`schedules::follow`): the payment as committed, or `None` if
/// another instance or request moved it (or its schedule) first.
pub(super) async fn commit(
    cx: &Context,
    next: Payment,
    writes: WriteSet,
    kind: EventType,
    now: OffsetDateTime,
) -> Result<Option<Payment>, FlowError> {
    commit_announcing(cx, next, writes, &[kind], now).await
}

/// `commit`, announcing the payment under each of `kinds`.
pub(super) async fn commit_announcing(
    cx: &Context,
    mut next: Payment,
    mut writes: WriteSet,
    kinds: &[EventType],
    now: OffsetDateTime,
) -> Result<Option<Payment>, FlowError> {
    let ledger = collection_ledger::follow(cx, &mut next, now).await?;
    writes.writes.extend(ledger.writes);
    let schedule = follow(cx, &mut next, now).await?;
    let view = PaymentView::new(&next, &cx.links);
    writes.push(LendingWrite::UpdatePayment(next.clone()));
    for kind in kinds {
        let announced = event(&next.owner, *kind, &view, now)?;
        writes.push(EventWrite::InsertEvent(announced));
    }
    writes.writes.extend(schedule.writes);
    match cx.commit(writes).await {
        Ok(()) => Ok(Some(next)),
        Err(CommitError::Conflict) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// A schedule's instalment under its mandate, taken at the payer's bank
/// (`mandate_at_bank::collect`).
pub async fn collect_under_mandate(
    cx: &Context,
    payment: &Payment,
    now: OffsetDateTime,
) -> Result<bool, FlowError> {
    let Some(mandate_id) = &payment.mandate_id else {
        return Ok(false);
    };
    let mandate = cx
        .servicing
        .mandate(&payment.owner, mandate_id)
        .await?
        .ok_or_else(|| FlowError::Internal(format!("payment {} names no mandate", payment.id)))?;
    crate::flows::mandate_at_bank::collect(cx, payment, &mandate, now).await
}

/// Funds settled: paid (`payment.paid`), and the collection posted to the
/// ledger in the same commit, with the account reviewed against it.
pub async fn settle(
    cx: &Context,
    payment: &Payment,
    now: OffsetDateTime,
) -> Result<bool, FlowError> {
    let Ok(mut paid) = payment.settled(now) else {
        return Ok(false);
    };
    let Some(account) = cx
        .lending
        .hub_account(&payment.owner, &payment.account_id)
        .await?
    else {
        return Err(FlowError::Internal(format!(
            "payment {} names no account",
            payment.id
        )));
    };
    // The account moves with the money: out of arrears, or settled.
    let ledger = collection_ledger::follow(cx, &mut paid, now).await?;
    let mut transfers = cx.ledger.loan_transfers(&account.id).await?;
    transfers.extend(collection_ledger::posted_by(&ledger).cloned());
    let mut writes =
        crate::flows::review_account::writes_for_collection(&account, &transfers, now)?;
    writes.writes.extend(ledger.writes);
    // The seed names the moment twice (`payment.paid` in the payments API,
    // `payment.settled` in the event catalogue): both are sent, in one
    // commit, with the same payment, so a subscription to either hears it.
    let kinds = [EventType::PaymentPaid, EventType::PaymentSettled];
    if commit_announcing(cx, paid, writes, &kinds, now)
        .await?
        .is_none()
    {
        return Ok(false);
    }
    // Two payments of one account settling at once each judged the account
    // by a ledger without the other's collection; whichever commits last
    // sees both here, so the account ends as its whole ledger says
    // (settled, say) rather than as either half did.
    if let Some(fresh) = cx
        .lending
        .hub_account(&payment.owner, &payment.account_id)
        .await?
    {
        crate::flows::review_account::review(cx, &fresh, now).await?;
    }
    Ok(true)
}

/// A payment the payer's bank accepted: asked how it stands, it is paid
/// when the bank settled it, failed when the bank rejected it, and
/// otherwise asked about again later (as when the bank cannot be reached).
pub async fn ask_bank(
    cx: &Context,
    payment: &Payment,
    now: OffsetDateTime,
) -> Result<bool, FlowError> {
    let (Some(bank), Some(bank_payment_id)) = (&payment.payer_bank, &payment.bank_payment_id)
    else {
        return Ok(false);
    };
    // An instalment was paid under its mandate (VRP), a link as a single
    // payment: each API answers for its own.
    let read = if payment.mandate_id.is_some() {
        let banks = cx.mandates.for_owner(&payment.owner);
        banks.collection_status(bank, bank_payment_id).await
    } else {
        let banks = cx.payments.for_owner(&payment.owner);
        banks.payment_status(bank, bank_payment_id).await
    };
    let progress = match read {
        Ok(read) => read.progress,
        Err(e) => {
            tracing::warn!(payment = %payment.id, bank, error = %e, "the bank could not say how a payment stands");
            Progress::InProgress
        }
    };
    heard_from_bank(cx, payment, progress, now).await
}

/// What `payment`'s bank said of it (asked, or in its notification): paid
/// when settled, failed when rejected, and otherwise asked again later.
/// `Ok(false)` if it had already moved.
pub async fn heard_from_bank(
    cx: &Context,
    payment: &Payment,
    progress: Progress,
    now: OffsetDateTime,
) -> Result<bool, FlowError> {
    match progress {
        Progress::Settled => settle(cx, payment, now).await,
        Progress::Failed(reason) => {
            let Ok(failed) = payment.failed(reason, None) else {
                return Ok(false);
            };
            Ok(commit(
                cx,
                failed,
                WriteSet::default(),
                EventType::PaymentFailed,
                now,
            )
            .await?
            .is_some())
        }
        Progress::InProgress => {
            let Ok(asked) = payment.still_in_progress(now) else {
                return Ok(false);
            };
            Ok(commit_announcing(cx, asked, WriteSet::default(), &[], now)
                .await?
                .is_some())
        }
    }
}

/// A link nobody paid before `expires_at`: failed, `link_expired`.
pub async fn expire(
    cx: &Context,
    payment: &Payment,
    now: OffsetDateTime,
) -> Result<bool, FlowError> {
    let Some(lapsed) = payment.expire(now) else {
        return Ok(false);
    };
    debug_assert_eq!(lapsed.failure_reason, Some(FailureReason::LinkExpired));
    Ok(commit(
        cx,
        lapsed,
        WriteSet::default(),
        EventType::PaymentFailed,
        now,
    )
    .await?
    .is_some())
}
