//! Revenue share paid over the payout rail (issue #47 item 4): each
//! sub-account's payout and the partner's own remittance, through the
//! outbox the disbursement and the refund use. Finalizing a month makes
//! each payout owed (the ledger's revenue share payable) and due on the
//! statement's pay date; the sweep claims it, holds the money pending in
//! the ledger, records it under its own id (the rail's end-to-end id and
//! duplicate check, so a resend after a crash is never a second payment)
//! and sends it to the payee's account. Only the rail's word ends it: paid
//! (`payout.paid`, the hold posted) or refused by the receiving bank
//! (`payout.failed`, the hold voided, the share still owed). A payee with
//! no payout account fails unsent.

use lendhub_domain::billing::statement::PayoutRecord;
use lendhub_domain::ids::{HubId, PayoutId};
use lendhub_domain::ledger::movements;
use lendhub_domain::money::Money;
use lendhub_domain::partner::sub_account::PayoutAccount;
use lendhub_domain::payout_rail::{Kind, Outcome, RailPayment, reason};
use lendhub_domain::sandbox::events::EventType;
use lendhub_store::{
    CommercialWrite, CommitError, EventWrite, LedgerWrite, LendingWrite, WriteSet,
};
use time::OffsetDateTime;

use super::FlowError;
use crate::counterparties::{Payout, RailStatus, Sent};
use crate::flows::Context;
use crate::flows::events::event;
use crate::views::payout::PayoutView;

/// Why a payout went unsent: the sub-account named nowhere to pay it.
pub const NO_PAYOUT_ACCOUNT: &str = "no_payout_account";

fn unavailable(e: impl std::fmt::Display) -> FlowError {
    FlowError::Unavailable(e.to_string())
}

fn internal(e: impl std::fmt::Display) -> FlowError {
    FlowError::Internal(e.to_string())
}

/// Moves `payout` on at `now`, as the sweep finds it due: a payout due is
/// claimed and sent; one claimed earlier whose worker has not been heard
/// of is asked after at the rail first. `Ok(false)` if another worker
/// moved it meanwhile.
pub async fn send(
    cx: &Context,
    payout: &PayoutRecord,
    now: OffsetDateTime,
) -> Result<bool, FlowError> {
    let rail = cx.rails.for_owner(&payout.owner);
    let end_to_end_id = payout.end_to_end_id();
    let mut resend = true;
    if payout.sending() {
        match rail.status(&end_to_end_id).await.map_err(unavailable)? {
            RailStatus::Ended(outcome) => return book(cx, payout, outcome, now).await,
            RailStatus::InProgress => resend = false,
            RailStatus::Unknown => {}
        }
    }
    let Some(payee) = payee(cx, payout).await? else {
        let Some(failed) = payout.unpayable(NO_PAYOUT_ACCOUNT, now) else {
            return Ok(false);
        };
        return commit(
            cx,
            failed,
            WriteSet::default(),
            Some(EventType::PayoutFailed),
            now,
        )
        .await;
    };
    let Some(mut claimed) = payout.claim(now) else {
        return Ok(false);
    };
    let mut writes = WriteSet::default();
    if claimed.hold.is_none() {
        // First sent (in this issue): the money is held from the lender's
        // funding account, and the rail's webhook will find the payout by
        // the end-to-end id.
        let amount = Money::pence(payout.gross_pence);
        let hold = movements::payout(&end_to_end_id, amount, now)
            .map_err(internal)?
            .known_at_bank_as(&end_to_end_id);
        writes.push(LedgerWrite::Post(hold.clone()));
        writes.push(LendingWrite::RecordRailPayment(RailPayment {
            end_to_end_id: end_to_end_id.clone(),
            owner: payout.owner.clone(),
            kind: Kind::Payout,
            subject_id: payout.id.to_string(),
            amount,
            created_at: now,
        }));
        claimed.hold = Some(hold);
    }
    if !commit(cx, claimed.clone(), writes, None, now).await? {
        return Ok(false);
    }
    if !resend {
        return Ok(true);
    }
    lendhub_system::crash_point("share_payout.claimed");
    let reference = format!("REVSHARE {}", payout.period);
    let sent = rail
        .send(&Payout {
            end_to_end_id: &end_to_end_id,
            amount: Money::pence(payout.gross_pence),
            payee: &payee.sort_code_account_number,
            payee_name: &payee.name,
            reference: &reference,
        })
        .await
        .map_err(unavailable)?;
    lendhub_system::crash_point("share_payout.sent");
    match sent {
        Sent::Accepted => Ok(true),
        Sent::Refused { code } => {
            book(cx, &claimed, Outcome::Rejected { code, at: now }, now).await
        }
    }
}

/// Where `payout` is paid: its sub-account's payout account, or for the
/// partner's own remittance the account the lender's operator recorded.
async fn payee(cx: &Context, payout: &PayoutRecord) -> Result<Option<PayoutAccount>, FlowError> {
    Ok(match &payout.sub_account_id {
        Some(id) => cx
            .commercial
            .sub_account(&payout.owner, id)
            .await?
            .and_then(|s| s.payout_account),
        None => cx.commercial.partner_payout_account(&payout.owner).await?,
    })
}

/// The rail's word on the payout `sent` records, as its webhook (or the
/// worker's question) brings it. A payout already ended changes nothing.
pub async fn answered(
    cx: &Context,
    sent: &RailPayment,
    outcome: Outcome,
) -> Result<bool, FlowError> {
    let Some(id) = PayoutId::parse(&sent.subject_id) else {
        return Ok(false);
    };
    let Some(payout) = cx.commercial.payout(&sent.owner, &id).await? else {
        return Ok(false);
    };
    if payout.end_to_end_id() != sent.end_to_end_id {
        // An earlier issue's answer, come late: that issue already ended.
        return Ok(false);
    }
    let now = cx.now_for(&payout.owner).await?;
    book(cx, &payout, outcome, now).await
}

/// Ends `payout` as the rail said, with its event and the ledger's close
/// of the hold, in one commit.
async fn book(
    cx: &Context,
    payout: &PayoutRecord,
    outcome: Outcome,
    now: OffsetDateTime,
) -> Result<bool, FlowError> {
    let mut writes = WriteSet::default();
    let no_hold = || FlowError::Internal(format!("payout {} sent with no hold", payout.id));
    let (next, kind) = match outcome {
        Outcome::Settled { transaction_id, at } => {
            let Some(paid) = payout.settle(&transaction_id, at) else {
                return Ok(false);
            };
            let hold = paid.hold.as_ref().ok_or_else(no_hold)?;
            let posted = hold
                .post(format!("{}.settled", hold.id()), now)
                .ok_or_else(no_hold)?;
            writes.push(LedgerWrite::Post(posted));
            (paid, EventType::PayoutPaid)
        }
        Outcome::Rejected { code, at } => {
            let why = reason(&code);
            let Some(failed) = payout.reject(&why, at) else {
                return Ok(false);
            };
            let hold = failed.hold.as_ref().ok_or_else(no_hold)?;
            let voided = hold
                .void(format!("{}.rejected", hold.id()), now)
                .ok_or_else(no_hold)?;
            writes.push(LedgerWrite::Post(voided));
            tracing::info!(payout = %payout.id, reason = %why, "a payout was refused by the receiving bank");
            (failed, EventType::PayoutFailed)
        }
    };
    commit(cx, next, writes, Some(kind), now).await
}

/// Commits `next` (one version on from what was read) with `writes` and
/// its event; `Ok(false)` if another worker moved it first.
async fn commit(
    cx: &Context,
    next: PayoutRecord,
    mut writes: WriteSet,
    announce: Option<EventType>,
    now: OffsetDateTime,
) -> Result<bool, FlowError> {
    if let Some(kind) = announce {
        let announced = event(&next.owner, kind, &PayoutView::new(&next), now)?;
        writes.push(EventWrite::InsertEvent(announced));
    }
    writes.push(CommercialWrite::MovePayout(next));
    match cx.commit(writes).await {
        Ok(()) => Ok(true),
        Err(CommitError::Conflict) => Ok(false),
        Err(e) => Err(e.into()),
    }
}
