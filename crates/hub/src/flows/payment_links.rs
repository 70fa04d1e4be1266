//! A payment link: a one-off collection from an account, which the payer
//! authorises on the pay page (`payment.created`). It may collect at most
//! what settles the account.

use lendhub_domain::ids::PaymentId;
use lendhub_domain::sandbox::events::EventType;
use lendhub_domain::servicing::collection::Payment;
use lendhub_domain::servicing::link_request::CheckedLink;
use lendhub_domain::tenant::Tenant;
use lendhub_store::{EventWrite, LendingWrite, WriteSet};
use time::OffsetDateTime;

use crate::flows::Context;
use crate::flows::collectable;
use crate::flows::error::FlowError;
use crate::flows::events::event;
use crate::views::payment::PaymentView;

/// A new link on one of `owner`'s accounts, and its writes.
pub async fn create(
    cx: &Context,
    owner: &Tenant,
    link: CheckedLink,
    now: OffsetDateTime,
) -> Result<(PaymentView, WriteSet), FlowError> {
    let account = collectable::account(cx, owner, &link.account_id).await?;
    collectable::refuse_overpayment(cx, &account, link.amount, now).await?;
    let id: PaymentId = lendhub_system::new_hub_id(lendhub_domain::clock::unix_ms(now) as u64);
    let payment = Payment::link(
        id,
        owner.clone(),
        link.account_id,
        link.amount,
        link.reference,
        link.description,
        link.redirect_url,
        link.expires_at,
        now,
    );
    let view = PaymentView::new(&payment, &cx.links);
    let created = event(owner, EventType::PaymentCreated, &view, now)?;
    let mut writes = WriteSet::default();
    writes
        .push(LendingWrite::InsertPayment(payment))
        .push(EventWrite::InsertEvent(created));
    Ok((view, writes))
}
