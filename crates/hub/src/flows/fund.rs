//! Funding (issues #15, #47): a signed offer is paid out over the payout
//! rail once it falls due on the owner's clock (`Application::due_at`,
//! taken by the application sweep), and booked only when the rail says
//! the money arrived.
//!
//! 1. The worker claims the disbursement in a commit of its own (from then
//!    a withdrawal is refused: the money is committed), which on the first
//!    claim also holds the drawdown pending in the ledger and records the
//!    payment under its end-to-end id (the intent's id).
//! 2. It sends the payment under that id, the rail's duplicate check, so a
//!    worker that died after the call sends the same payment again, never
//!    a second one.
//! 3. The rail's webhook (`payout_rail_events`), or the worker asking the
//!    rail when the claim lapses (`RESEND_AFTER`) with no word, ends it:
//!    settled, the application is `funded`, its servicing account opens,
//!    the drawdown is posted and `application.funded`, `account.activated`
//!    and `loan.funded` are emitted, in one commit; rejected by the
//!    payee's bank, the drawdown is voided, the signature and the
//!    decision's lock are set aside and the reason stays on the
//!    application. A payment the rail never received is sent again.

use lendhub_domain::billing::statement::{Close, Period};
use lendhub_domain::ids::{AccountId, ApplicationId, HubId};
use lendhub_domain::lending::application::{Application, Decision};
use lendhub_domain::lending::disbursement::State;
use lendhub_domain::partner::credentials::Environment;
use lendhub_domain::payout_rail::{Kind, Outcome, RailPayment, payee_account, reason};
use lendhub_domain::sandbox::events::EventType;
use lendhub_domain::servicing::account::Account;
use lendhub_store::{
    CommercialWrite, CommitError, EventWrite, LedgerWrite, LendingWrite, WriteSet,
};
use time::OffsetDateTime;

use super::FlowError;
use crate::counterparties::{Payout, RailStatus, Sent, WebhookRefused};
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

/// Moves `application`'s payout on at `now`, as the sweep finds it due:
/// a disbursement due is claimed and sent; one claimed earlier whose
/// worker has not been heard of is asked after at the rail first, then
/// booked, left to the rail, or sent again. `Ok(false)` if it is no
/// longer waiting for its money (withdrawn, funded, released, or claimed
/// by another worker meanwhile).
pub async fn disburse(
    cx: &Context,
    application: &Application,
    now: OffsetDateTime,
) -> Result<bool, FlowError> {
    let Some(decision) = signed_decision(cx, application).await? else {
        return Ok(false);
    };
    let Some(offer) = &decision.verdict.offer else {
        return Ok(false);
    };
    let application = application.with_intent(
        lendhub_system::new_hub_id(lendhub_domain::clock::unix_ms(now) as u64),
        offer.amount_pence,
    );
    let rail = cx.rails.for_owner(&application.owner);
    let Some(intent) = application.disbursement.clone() else {
        return Ok(false);
    };
    // A claim that lapsed: the rail may have the payment already.
    let mut resend = true;
    if matches!(intent.state, State::Sending { .. }) {
        match rail
            .status(intent.id.as_str())
            .await
            .map_err(|e| FlowError::Unavailable(e.to_string()))?
        {
            RailStatus::Ended(outcome) => {
                return book(cx, &application, &decision, outcome, now).await;
            }
            RailStatus::InProgress => resend = false,
            RailStatus::Unknown => {}
        }
    }
    let Ok(claimed) = application.claim_disbursement(now) else {
        return Ok(false);
    };
    let mut claim = WriteSet::default();
    claim.push(LendingWrite::UpdateApplication(claimed.clone()));
    // The first claim sends the money: the ledger holds the drawdown
    // pending from then until the rail ends it, and the payment is
    // recorded under its end-to-end id for the rail's word to find.
    if intent.state == State::Due {
        let pending = claimed
            .disbursement
            .as_ref()
            .and_then(|d| d.pending_transfer())
            .ok_or_else(|| FlowError::Internal("a claimed payout with no drawdown".into()))?;
        claim
            .push(LedgerWrite::Post(pending))
            .push(LendingWrite::RecordRailPayment(RailPayment {
                end_to_end_id: intent.id.as_str().to_owned(),
                owner: claimed.owner.clone(),
                kind: Kind::Disbursement,
                subject_id: claimed.id.as_str().to_owned(),
                amount: intent.amount,
                created_at: now,
            }));
    }
    match cx.units.commit(claim).await {
        Ok(()) => {}
        Err(CommitError::Conflict) => return Ok(false),
        Err(e) => return Err(e.into()),
    }
    if !resend {
        return Ok(true);
    }
    lendhub_system::crash_point("payout.claimed");
    let payee = payee_account(&intent.payee_bank)
        .ok_or_else(|| FlowError::Internal(format!("{} names no account to pay", intent.id)))?;
    let sent = rail
        .send(&Payout {
            end_to_end_id: intent.id.as_str(),
            amount: intent.amount,
            payee: &payee,
            payee_name: &claimed.company_name,
            reference: payment_reference(&claimed),
        })
        .await
        .map_err(|e| FlowError::Unavailable(e.to_string()))?;
    lendhub_system::crash_point("payout.sent");
    match sent {
        Sent::Accepted => Ok(true),
        Sent::Refused { code } => {
            let rejected = Outcome::Rejected { code, at: now };
            book(cx, &claimed, &decision, rejected, now).await
        }
    }
}

/// The rail's word (`outcome`) on the payment sent under `end_to_end_id`,
/// as its webhook brings it: the payout it ends is booked. Anything else
/// (a payment not lendhub's, one already booked) changes nothing, so a
/// webhook repeated, late, or crossing the worker's own question is taken
/// once.
pub async fn rail_answered(
    cx: &Context,
    end_to_end_id: &str,
    outcome: Outcome,
) -> Result<bool, FlowError> {
    let Some(payment) = cx.lending.rail_payment(end_to_end_id).await? else {
        tracing::info!(
            end_to_end_id,
            "a payout rail webhook about no payment of lendhub's"
        );
        return Ok(false);
    };
    match payment.kind {
        Kind::Refund => crate::flows::refund_rail::answered(cx, &payment, outcome).await,
        Kind::Payout => crate::flows::share_payout::answered(cx, &payment, outcome).await,
        Kind::Disbursement => {
            let Some(id) = ApplicationId::parse(&payment.subject_id) else {
                return Ok(false);
            };
            let Some(application) = cx.lending.hub_application(&payment.owner, &id).await? else {
                return Ok(false);
            };
            if application
                .disbursement
                .as_ref()
                .is_none_or(|d| d.id.as_str() != end_to_end_id)
            {
                return Ok(false);
            }
            let Some(decision) = signed_decision(cx, &application).await? else {
                return Ok(false);
            };
            let now = cx.now_for(&payment.owner).await?;
            book(cx, &application, &decision, outcome, now).await
        }
    }
}

/// The decision `application` was signed on, if it was.
async fn signed_decision(
    cx: &Context,
    application: &Application,
) -> Result<Option<Decision>, FlowError> {
    let (Some(decision_id), Some(_)) = (&application.decision_id, application.accepted_at) else {
        return Ok(None);
    };
    Ok(cx
        .lending
        .hub_decision(&application.owner, decision_id)
        .await?)
}

/// Books the end of `application`'s payout at `now`: funded, or its
/// failure, over the version read. `Ok(false)` if it was no longer
/// waiting (booked already, or changed meanwhile).
async fn book(
    cx: &Context,
    application: &Application,
    decision: &Decision,
    outcome: Outcome,
    now: OffsetDateTime,
) -> Result<bool, FlowError> {
    let Some(intent) = &application.disbursement else {
        return Ok(false);
    };
    let bank = intent.payee_bank.as_str();
    let render = FlowError::from;
    let mut writes = WriteSet::default();
    match outcome {
        Outcome::Settled { transaction_id, .. } => {
            let payment_id = transaction_id;
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
                Account::open(id, &funded, decision, bank, payment_id, now).ok_or_else(|| {
                    FlowError::Internal("a signed decision without an offer".to_owned())
                })?;
            let owner = &funded.owner;
            let mut transfers = cx.ledger.loan_transfers(&account.id).await?;
            transfers.push(posted.clone());
            let application_view = ApplicationView::new(&funded, &cx.links);
            let account_view = AccountView::new(&account, &transfers, now)?;
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
        Outcome::Rejected { code, .. } => {
            let reason = reason(&code);
            let Ok((failed, released)) = application.disbursement_failed(decision, &reason, now)
            else {
                return Ok(false);
            };
            tracing::info!(application = %failed.id, %reason, "disbursement rejected");
            let voided = failed
                .disbursement
                .as_ref()
                .and_then(|d| d.closing_transfer())
                .ok_or_else(|| FlowError::Internal("a rejected payout with no void".into()))?;
            let view = ApplicationView::new(&failed, &cx.links);
            let owner = &failed.owner;
            writes
                .push(EventWrite::InsertEvent(
                    event(owner, EventType::ApplicationFundingFailed, &view, now)
                        .map_err(render)?,
                ))
                .push(LendingWrite::UpdateApplication(failed.clone()))
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

/// Why a payout rail webhook was not taken.
#[derive(Debug, thiserror::Error)]
pub enum WebhookError {
    #[error(transparent)]
    Refused(#[from] WebhookRefused),
    #[error(transparent)]
    Flow(#[from] FlowError),
}

/// A webhook `env`'s payout rail posted (`body`, its `DigitalSignature`):
/// checked with the rail's key and acted on; lendhub's signed answer (body
/// and `DigitalSignature`), which acknowledges it, once it is committed.
pub async fn rail_webhook(
    cx: &Context,
    env: Environment,
    body: &[u8],
    signature: &str,
) -> Result<(Vec<u8>, String), WebhookError> {
    let rail = cx.rails.get(env);
    let webhook = rail.read_webhook(body, signature)?;
    lendhub_system::crash_point("payout.webhook_received");
    if let Some((end_to_end_id, outcome)) = webhook.about {
        rail_answered(cx, &end_to_end_id, outcome).await?;
    }
    rail.answer(webhook.nonce)
        .map_err(|e| WebhookError::Flow(FlowError::Internal(e.to_string())))
}
