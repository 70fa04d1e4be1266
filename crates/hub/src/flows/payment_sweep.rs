//! Payments due on their owner's clock (`Payment::due_at`): a scheduled
//! instalment under a mandate is taken at the payer's bank at once (again
//! later if the bank could not be reached); the bank is asked how a
//! payment it accepted stands; a pending link expires; a refund's money is
//! sent back over the payout rail.
//! They ride the application sweep's queue (`applications::sweep`), so one
//! worker, woken when a clock moves, handles everything due.

use lendhub_domain::servicing::collection::PaymentStatus;
use lendhub_store::DuePayment;
use time::OffsetDateTime;

use super::FlowError;
use crate::flows::Context;
use crate::flows::payments;

pub async fn run(cx: &Context, due: &DuePayment, now: OffsetDateTime) -> Result<bool, FlowError> {
    // Dated when it fell due, not when this pass ran: after a long clock
    // advance a payment settles when the bank was due to be asked, not days
    // later with interest accrued meanwhile.
    let now = due.payment.due_at().map_or(now, |at| at.min(now));
    match due.payment.status {
        PaymentStatus::Pending if !due.payment.is_link() => {
            payments::collect_under_mandate(cx, &due.payment, now).await
        }
        PaymentStatus::Processing => payments::ask_bank(cx, &due.payment, now).await,
        PaymentStatus::Pending => payments::expire(cx, &due.payment, now).await,
        PaymentStatus::Refunded => crate::flows::refund_rail::send(cx, &due.payment, now).await,
        _ => Ok(false),
    }
}
