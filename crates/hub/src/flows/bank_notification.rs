//! A bank's event notification (`POST /open-banking/events/{bank_id}`):
//! the bank signed that one of lendhub's payments changed. The token names
//! the bank's payment, not what became of it, so lendhub reads the payment
//! from the bank, finds its own by the `InstructionIdentification` it sent,
//! and takes the bank's answer as it takes one the sweep asked for
//! (`payments::heard_from_bank`). A notification repeated, late, or
//! crossing the sweep's own question changes nothing twice: every step is
//! a versioned move of the payment's state.

use lendhub_domain::ids::{HubId, PaymentId};
use lendhub_domain::open_banking::events::{DOMESTIC_PAYMENT, DOMESTIC_VRP};
use lendhub_domain::open_banking::pis::Progress;
use lendhub_domain::partner::credentials::Environment;
use lendhub_domain::servicing::collection::PaymentStatus;

use super::FlowError;
use crate::counterparties::{NotificationRefused, PerEnvironment};
use crate::flows::Context;
use crate::flows::payments;

/// Why a notification was not taken.
#[derive(Debug, thiserror::Error)]
pub enum Refused {
    #[error("no bank {0} is configured")]
    UnknownBank(String),
    #[error("{0}")]
    Invalid(String),
    #[error(transparent)]
    Flow(#[from] FlowError),
}

impl From<lendhub_store::StoreError> for Refused {
    fn from(e: lendhub_store::StoreError) -> Self {
        Refused::Flow(e.into())
    }
}

/// What a notification did.
#[derive(Debug, PartialEq, Eq)]
pub enum Heard {
    /// The payment moved as the bank now says.
    Moved,
    /// Nothing to do: the payment had moved already, the bank still has it
    /// in progress, or the resource is none of lendhub's payments.
    Unchanged,
}

/// The notification `token` `bank_id` posted, verified with the bank's
/// keys in whichever environment configures that bank, and acted on.
pub async fn heard(cx: &Context, bank_id: &str, token: &str) -> Result<Heard, Refused> {
    let mut known = false;
    for env in [Environment::Live, Environment::Test] {
        match cx.payments.get(env).notification(bank_id, token).await {
            Ok(notification) => {
                let subject = notification.subject();
                return act(
                    cx,
                    env,
                    bank_id,
                    &subject.resource_type,
                    &subject.resource_id,
                )
                .await;
            }
            Err(NotificationRefused::UnknownBank) => {}
            // The same bank may be configured in both environments with
            // other keys: tried in the other before it is refused.
            Err(NotificationRefused::Invalid(why)) => {
                known = true;
                tracing::warn!(
                    bank = bank_id,
                    ?env,
                    why,
                    "a bank notification did not verify"
                );
            }
            Err(NotificationRefused::Unavailable(e)) => {
                return Err(FlowError::Unavailable(e.0).into());
            }
        }
    }
    Err(if known {
        Refused::Invalid("the notification is not signed by the bank for lendhub".to_owned())
    } else {
        Refused::UnknownBank(bank_id.to_owned())
    })
}

async fn act(
    cx: &Context,
    env: Environment,
    bank_id: &str,
    resource_type: &str,
    resource_id: &str,
) -> Result<Heard, Refused> {
    let read = match resource_type {
        DOMESTIC_PAYMENT => {
            cx.payments
                .get(env)
                .payment_status(bank_id, resource_id)
                .await
        }
        DOMESTIC_VRP => {
            cx.mandates
                .get(env)
                .collection_status(bank_id, resource_id)
                .await
        }
        other => {
            tracing::info!(
                bank = bank_id,
                resource_type = other,
                "a bank notification lendhub does not act on"
            );
            return Ok(Heard::Unchanged);
        }
    };
    // Unanswered, the bank sends it again; the sweep asks meanwhile.
    let read = read.map_err(|e| FlowError::Unavailable(e.0))?;
    let Some(id) = PaymentId::parse(&read.instruction_id) else {
        return Ok(Heard::Unchanged);
    };
    let Some(payment) = cx.servicing.payment_any_owner(&id).await? else {
        return Ok(Heard::Unchanged);
    };
    // Only the bank that holds the payment speaks for it, and only in its
    // owner's environment.
    let ours = payment.payer_bank.as_deref() == Some(bank_id)
        && payment.bank_payment_id.as_deref() == Some(resource_id)
        && PerEnvironment::<()>::environment_of(&payment.owner) == env;
    if !ours || payment.status != PaymentStatus::Processing {
        return Ok(Heard::Unchanged);
    }
    let now = cx.now_for(&payment.owner).await?;
    let moved = payments::heard_from_bank(cx, &payment, read.progress, now).await?;
    // "Still in progress" only moves when it is next asked.
    Ok(if moved && read.progress != Progress::InProgress {
        Heard::Moved
    } else {
        Heard::Unchanged
    })
}
