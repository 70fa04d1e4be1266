//! A schedule's mandate at the payer's bank, a VRP consent: the terms the
//! pay page asks the bank for with the schedule's first instalment, the
//! mandate established from the payer's authorisation, and each instalment
//! then taken under it (`payment.processing`, or `payment.failed`; a
//! consent the payer revoked at their bank is `mandate.revoked` too).

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use lendhub_domain::ids::{HubId, MandateId};
use lendhub_domain::open_banking::pis::Progress;
use lendhub_domain::open_banking::vrp::PeriodType;
use lendhub_domain::sandbox::events::EventType;
use lendhub_domain::servicing::bank_payment::PayerAuthorisation;
use lendhub_domain::servicing::collection::{FailureReason, Payment};
use lendhub_domain::servicing::mandate::{Limits, Mandate};
use lendhub_domain::servicing::schedule::{Cadence, Schedule, ScheduleStatus};
use lendhub_store::{CommitError, LendingWrite, WriteSet};
use lendhub_system::Seal;
use time::OffsetDateTime;

use super::FlowError;
use super::payments::{commit, commit_announcing, settle};
use crate::counterparties::{
    CollectRefused, KeepTokens, MandateAtBank, MandateTerms, PayerTokens, PaymentOrder,
    TokensNotKept,
};
use crate::flows::Context;
use crate::flows::mandates::revoked_writes;

/// The master key's purpose for a mandate's tokens.
const TOKENS_PURPOSE: &str = "mandate-tokens";

/// What `schedule`'s mandate asks the bank for (`Limits::for_schedule`),
/// under the schedule's reference or else its id.
pub fn terms(schedule: &Schedule) -> MandateTerms<'_> {
    let limits = Limits::for_schedule(schedule);
    MandateTerms {
        most_per_payment: limits.most_per_payment,
        most_per_period: limits.most_per_period,
        period: match limits.period {
            Cadence::Weekly => PeriodType::Week,
            Cadence::Monthly => PeriodType::Month,
        },
        reference: schedule
            .reference
            .as_deref()
            .unwrap_or(schedule.id.as_str()),
    }
}

/// The schedule `payment` is an instalment of, if it still wants a
/// mandate: active, and none established yet.
pub async fn schedule_wanting_mandate(
    cx: &Context,
    payment: &Payment,
) -> Result<Option<Schedule>, FlowError> {
    let (Some(instalment), None) = (&payment.schedule, &payment.mandate_id) else {
        return Ok(None);
    };
    Ok(cx
        .servicing
        .schedule(&payment.owner, &instalment.schedule_id)
        .await?
        .filter(|s| s.mandate_id.is_none() && s.status == ScheduleStatus::Active))
}

fn seal(cx: &Context, tokens: &PayerTokens) -> Result<String, FlowError> {
    let plain = serde_json::to_vec(tokens).map_err(|e| FlowError::Internal(e.to_string()))?;
    Ok(URL_SAFE_NO_PAD.encode(cx.master_key.seal(TOKENS_PURPOSE, &plain)))
}

/// The mandate as its bank knows it, if it holds a consent and its
/// tokens open with this master key.
fn at_bank(cx: &Context, mandate: &Mandate) -> Option<MandateAtBank> {
    let sealed = URL_SAFE_NO_PAD
        .decode(mandate.sealed_tokens.as_deref()?)
        .ok()?;
    let plain = cx.master_key.open(TOKENS_PURPOSE, &sealed).ok()?;
    Some(MandateAtBank {
        consent_id: mandate.consent_id.clone()?,
        reference: mandate.reference.clone()?,
        tokens: serde_json::from_slice(&plain).ok()?,
    })
}

/// The payer authorised `schedule`'s mandate at their bank (`tokens` for
/// the consent `authorisation` names): the mandate established, the
/// schedule and `payment` (its instalment) under it, in one commit; then
/// the instalment taken under it. `false` if another request moved the
/// payment or the schedule first.
pub async fn establish(
    cx: &Context,
    payment: &Payment,
    schedule: &Schedule,
    authorisation: &PayerAuthorisation,
    tokens: &PayerTokens,
    now: OffsetDateTime,
) -> Result<bool, FlowError> {
    let id: MandateId = lendhub_system::new_hub_id(lendhub_domain::clock::unix_ms(now) as u64);
    let mandate = Mandate::establish(
        id,
        payment.owner.clone(),
        payment.account_id.clone(),
        &authorisation.bank,
        payment.id.clone(),
        now,
    )
    .at_bank(
        &authorisation.consent_id,
        terms(schedule).reference,
        seal(cx, tokens)?,
    )
    .limited_to(Limits::for_schedule(schedule));
    let under = payment.under_mandate(&mandate.id);
    let mut writes = WriteSet::default();
    writes
        .push(LendingWrite::UpdateSchedule(
            schedule.with_mandate(&mandate.id),
        ))
        .push(LendingWrite::UpdatePayment(under.clone()))
        .push(LendingWrite::InsertMandate(mandate.clone()));
    match cx.commit(writes).await {
        Ok(()) => collect(cx, &under, &mandate, now).await,
        Err(CommitError::Conflict) => Ok(false),
        Err(e) => Err(e.into()),
    }
}

/// `payment`, an instalment, taken under `mandate` at the payer's bank:
/// processing (then paid when the bank says so), failed (the bank rejected
/// it; the mandate revoked, or outside its limits), or pending and asked
/// again later when the bank could not be reached.
pub async fn collect(
    cx: &Context,
    payment: &Payment,
    mandate: &Mandate,
    now: OffsetDateTime,
) -> Result<bool, FlowError> {
    // Past its last day unpaid: it lapses rather than being taken late
    // (nor asked about for ever while its bank is down).
    if let Some(lapsed) = payment.expire(now) {
        return Ok(commit(
            cx,
            lapsed,
            WriteSet::default(),
            EventType::PaymentFailed,
            now,
        )
        .await?
        .is_some());
    }
    let bank = mandate.payer_bank.as_str();
    let fail = |reason: FailureReason, writes: WriteSet| async move {
        let Ok(failed) = payment.failed(reason, Some(bank)) else {
            return Ok(false);
        };
        Ok(commit(cx, failed, writes, EventType::PaymentFailed, now)
            .await?
            .is_some())
    };
    let held = at_bank(cx, mandate).filter(|_| mandate.is_active());
    let Some(held) = held else {
        // Withdrawn, or no consent lendhub can use: nothing is taken.
        let writes = revoked_writes(cx, mandate, now)?
            .map(|(_, w)| w)
            .unwrap_or_default();
        return fail(FailureReason::MandateRevoked, writes).await;
    };
    let reference = payment.reference.as_deref().unwrap_or(&held.reference);
    let order = PaymentOrder {
        id: payment.id.as_str(),
        amount: payment.amount,
        reference,
        due_on: payment.schedule.as_ref().map(|i| i.due_on),
    };
    let tokens = MandateTokens {
        cx,
        mandate: std::sync::Mutex::new(mandate.clone()),
    };
    let taken = cx
        .mandates
        .for_owner(&payment.owner)
        .collect(bank, &held, &order, &tokens)
        .await;
    // As it stands after any renewal of its tokens.
    let mandate = tokens.current();
    match taken {
        Ok(accepted) => {
            if let Progress::Failed(reason) = accepted.progress {
                return fail(reason, WriteSet::default()).await;
            }
            let Ok(processing) = payment.collected(bank, &accepted.domestic_payment_id, now) else {
                return Ok(false);
            };
            let processing = processing.paid_from(accepted.payer_account.clone());
            let Some(processing) = commit(
                cx,
                processing,
                WriteSet::default(),
                EventType::PaymentProcessing,
                now,
            )
            .await?
            else {
                return Ok(false);
            };
            if accepted.progress == Progress::Settled {
                settle(cx, &processing, now).await?;
            }
            Ok(true)
        }
        Err(CollectRefused::Revoked) => {
            let writes = revoked_writes(cx, &mandate, now)?
                .map(|(_, w)| w)
                .unwrap_or_default();
            fail(FailureReason::MandateRevoked, writes).await
        }
        // No money moved: the partner may send a link for it
        // (docs/decisions.md, "An instalment outside its mandate").
        Err(CollectRefused::OverLimits) => {
            fail(FailureReason::BankUnavailable, WriteSet::default()).await
        }
        Err(CollectRefused::Unavailable(e)) => {
            tracing::warn!(payment = %payment.id, bank, error = %e, "an instalment's bank could not be reached");
            let Ok(later) = payment.retry_later(now) else {
                return Ok(false);
            };
            Ok(commit_announcing(cx, later, WriteSet::default(), &[], now)
                .await?
                .is_some())
        }
        // Nothing was sent under tokens not kept; the next pass tries again.
        Err(CollectRefused::Unkept(e)) => Err(FlowError::Internal(e.to_string())),
    }
}

/// A mandate's renewed tokens, kept in a commit of their own the moment
/// the bank issues them.
struct MandateTokens<'a> {
    cx: &'a Context,
    mandate: std::sync::Mutex<Mandate>,
}

impl MandateTokens<'_> {
    fn current(&self) -> Mandate {
        self.mandate
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }
}

#[async_trait::async_trait]
impl KeepTokens for MandateTokens<'_> {
    async fn keep(&self, renewed: &PayerTokens) -> Result<(), TokensNotKept> {
        let not_kept = |why: String| TokensNotKept(why);
        let sealed = seal(self.cx, renewed).map_err(|e| not_kept(e.to_string()))?;
        let mut current = self.current();
        // Another instance may have written the mandate since it was read
        // (a bank that does not rotate renews for both): over the newest,
        // while it is active.
        for _ in 0..3 {
            let kept = current.with_tokens(sealed.clone());
            let mut writes = WriteSet::default();
            writes.push(LendingWrite::UpdateMandate(kept.clone()));
            match self.cx.commit(writes).await {
                Ok(()) => {
                    *self
                        .mandate
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner) = kept;
                    return Ok(());
                }
                Err(CommitError::Conflict) => {}
                Err(e) => return Err(not_kept(e.to_string())),
            }
            current = self
                .cx
                .servicing
                .mandate(&current.owner, &current.id)
                .await
                .map_err(|e| not_kept(e.to_string()))?
                .filter(Mandate::is_active)
                .ok_or_else(|| {
                    not_kept("the mandate ended while its tokens were renewed".into())
                })?;
        }
        Err(not_kept(
            "the mandate kept changing while its tokens were renewed".into(),
        ))
    }
}

/// Ends `mandate`'s consent at the payer's bank, as far as it can be
/// reached: the payer withdrew it with lendhub, which takes nothing more
/// under it either way.
pub async fn end_at_bank(cx: &Context, mandate: &Mandate) {
    let Some(consent_id) = &mandate.consent_id else {
        return;
    };
    let banks = cx.mandates.for_owner(&mandate.owner);
    if let Err(e) = banks.end_mandate(&mandate.payer_bank, consent_id).await {
        tracing::warn!(mandate = %mandate.id, error = %e, "the bank did not hear the mandate end");
    }
}
