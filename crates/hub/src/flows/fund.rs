//! Funding (issue #15): a signed offer is paid out by Faster Payments as
//! soon as it falls due on the owner's clock (`Application::due_at`, taken
//! by the application sweep). Settled: the application is `funded`, its
//! servicing account opens, and `application.funded`, `account.activated`
//! and `loan.funded` are emitted in one commit. Rejected by the receiving
//! bank: no loan and no fee; the signature and the decision's lock are set
//! aside and the reason stays on the application. The rail unreachable:
//! the disbursement stays claimed and is sent again under the same
//! idempotency key (its intent's id, `lending::disbursement`) once the
//! claim lapses, so a retry is the same payment.

use lendhub_domain::billing::statement::{Close, Period};
use lendhub_domain::ids::{AccountId, HubId};
use lendhub_domain::lending::application::Application;
use lendhub_domain::sandbox::events::EventType;
use lendhub_domain::servicing::account::Account;
use lendhub_domain::servicing::ledger::Entry;
use lendhub_store::{
    CommercialWrite, CommitError, EventWrite, LedgerWrite, LendingWrite, WriteSet,
};
use time::OffsetDateTime;

use super::FlowError;
use crate::counterparties::Disbursed;
use crate::flows::Context;
use crate::flows::events::event;
use crate::views::account::AccountView;
use crate::views::application::ApplicationView;

/// A Faster Payments reference is at most 18 characters: the random end of
/// the application's id.
fn payment_reference(a: &Application) -> &str {
    let id = a.id.as_str();
    &id[id.len().saturating_sub(18)..]
}

/// Pays out `application`'s signed offer at `now`: claims its disbursement
/// (a commit of its own, after which a withdrawal is refused), sends it
/// under the intent's id as the rail's idempotency key, and books what the
/// rail answered over the claim's version. `Ok(false)` if it is no longer
/// waiting for its money (withdrawn, funded, released, or claimed by
/// another worker meanwhile). A worker that dies after the claim leaves it
/// `sending`; it falls due again `RESEND_AFTER` later and is sent again
/// under the same key, which the rail answers with the same payment.
pub async fn disburse(
    cx: &Context,
    application: &Application,
    now: OffsetDateTime,
) -> Result<bool, FlowError> {
    let (Some(decision_id), Some(_)) = (&application.decision_id, application.accepted_at) else {
        return Ok(false);
    };
    let Some(decision) = cx
        .lending
        .hub_decision(&application.owner, decision_id)
        .await?
    else {
        return Ok(false);
    };
    let Some(offer) = &decision.verdict.offer else {
        return Ok(false);
    };
    let application = application.with_intent(
        lendhub_system::new_hub_id(lendhub_domain::clock::unix_ms(now) as u64),
        offer.amount_pence,
    );
    let Ok(claimed) = application.claim_disbursement(now) else {
        return Ok(false);
    };
    let mut claim = WriteSet::default();
    claim.push(LendingWrite::UpdateApplication(claimed.clone()));
    // The first claim sends the money: the ledger holds the drawdown
    // pending from then until the rail answers (a claim taken again sends
    // the same payment, already held).
    let first_claim = application
        .disbursement
        .as_ref()
        .is_some_and(|d| d.state == lendhub_domain::lending::disbursement::State::Due);
    if first_claim {
        let pending = claimed
            .disbursement
            .as_ref()
            .and_then(|d| d.pending_transfer())
            .ok_or_else(|| FlowError::Internal("a claimed payout with no drawdown".into()))?;
        claim.push(LedgerWrite::Post(pending));
    }
    match cx.units.commit(claim).await {
        Ok(()) => {}
        Err(CommitError::Conflict) => return Ok(false),
        Err(e) => return Err(e.into()),
    }
    let Some(intent) = &claimed.disbursement else {
        return Ok(false);
    };
    let paid = cx
        .rail
        .pay(
            &intent.payee_bank,
            intent.amount,
            payment_reference(&claimed),
            intent.id.as_str(),
        )
        .await
        .map_err(|e| FlowError::Unavailable(e.to_string()))?;
    let application = &claimed;
    let bank = intent.payee_bank.as_str();
    let render = FlowError::from;
    let mut writes = WriteSet::default();
    match paid {
        Disbursed::Settled { payment_id } => {
            let id: AccountId = intent
                .account_id()
                .ok_or_else(|| FlowError::Internal(format!("{} names no account", intent.id)))?;
            let Ok(funded) = application.fund(id.clone(), &payment_id, now) else {
                return Ok(false);
            };
            let posted = funded
                .disbursement
                .as_ref()
                .and_then(|d| d.closing_transfer())
                .ok_or_else(|| FlowError::Internal("a settled payout with no posting".into()))?;
            let account =
                Account::open(id, &funded, &decision, bank, payment_id, now).ok_or_else(|| {
                    FlowError::Internal("a signed decision without an offer".to_owned())
                })?;
            let owner = &funded.owner;
            let drawdown = Entry::drawdown(
                lendhub_system::new_hub_id(lendhub_domain::clock::unix_ms(now) as u64),
                &account,
                now,
            )
            .map_err(|e| FlowError::Internal(format!("{e:?}")))?;
            let application_view = ApplicationView::new(&funded, &cx.links);
            let account_view = AccountView::new(&account, std::slice::from_ref(&drawdown), now)?;
            writes
                .push(LendingWrite::UpdateApplication(funded.clone()))
                // Its month is closed once it ends on the owner's clock.
                .push(CommercialWrite::ScheduleClose(Close {
                    owner: owner.clone(),
                    period: Period::of(now).to_string(),
                    due_at_ms: lendhub_domain::clock::unix_ms(Period::of(now).end()),
                    version: 0,
                }))
                .push(LendingWrite::OpenAccount(account))
                .push(LendingWrite::PostEntry(drawdown))
                .push(LedgerWrite::Post(posted))
                .push(EventWrite::InsertEvent(
                    event(owner, EventType::ApplicationFunded, &application_view, now)
                        .map_err(render)?,
                ))
                .push(EventWrite::InsertEvent(
                    event(owner, EventType::AccountActivated, &account_view, now)
                        .map_err(render)?,
                ))
                .push(EventWrite::InsertEvent(
                    event(owner, EventType::LoanFunded, &account_view, now).map_err(render)?,
                ));
        }
        Disbursed::Rejected { reason } => {
            let Ok((failed, released)) = application.disbursement_failed(&decision, &reason, now)
            else {
                return Ok(false);
            };
            tracing::info!(application = %failed.id, %reason, "disbursement rejected");
            let voided = failed
                .disbursement
                .as_ref()
                .and_then(|d| d.closing_transfer())
                .ok_or_else(|| FlowError::Internal("a rejected payout with no void".into()))?;
            writes
                .push(LendingWrite::UpdateApplication(failed))
                .push(LendingWrite::UpdateDecision(released))
                .push(LedgerWrite::Post(voided));
        }
    }
    match cx.units.commit(writes).await {
        Ok(()) => Ok(true),
        Err(CommitError::Conflict) => Ok(false),
        Err(e) => Err(e.into()),
    }
}
