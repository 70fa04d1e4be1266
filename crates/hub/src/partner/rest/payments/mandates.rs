//! Mandates (`mnd_…`): the payer's standing authority for a schedule's
//! collections, established by their first authorisation on the pay page
//! and revoked by them there (or by the test helper). The seed shows no
//! mandate fields beyond the id; docs/decisions.md records these.

use lendhub_domain::sandbox::events::EventType;
use lendhub_domain::servicing::mandate::Mandate;
use lendhub_store::{CommitError, EventWrite, LendingWrite, WriteSet};
use serde::Serialize;
use time::OffsetDateTime;
use utoipa::ToSchema;

use super::link_token;
use crate::partner::rest::events::event;
use crate::partner::state::PartnerState;

/// A mandate, as `mandate.revoked` and the test helper show it.
#[derive(Serialize, ToSchema)]
pub struct MandateView {
    #[schema(example = "mnd_01KQ3V1Y2C8WZ3R5T6Y7X819D0")]
    id: String,
    #[schema(example = "mandate")]
    object: &'static str,
    account_id: String,
    /// active or revoked.
    status: &'static str,
    /// The payer's bank, which holds the consent.
    payer_bank: String,
    /// The payment whose authorisation established it.
    established_by: String,
    /// The payer's page to see and revoke it (`{pay_url}/mandates/…`).
    url: String,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    revoked_at: Option<OffsetDateTime>,
}

impl MandateView {
    pub fn new(m: &Mandate, state: &PartnerState) -> Self {
        Self {
            id: m.id.to_string(),
            object: "mandate",
            account_id: m.account_id.to_string(),
            status: m.status.as_str(),
            payer_bank: m.payer_bank.clone(),
            established_by: m.established_by.to_string(),
            url: mandate_url(state, m),
            created_at: m.created_at,
            revoked_at: m.revoked_at,
        }
    }
}

/// The payer's page for a mandate: like a payment's link, an HMAC of its
/// id is the only credential.
pub fn mandate_url(state: &PartnerState, m: &Mandate) -> String {
    format!(
        "{}/mandates/{}.{}",
        state.urls.pay(),
        m.id,
        link_token(state, &m.id)
    )
}

/// The revoked mandate and the writes that record it with
/// `mandate.revoked`; `None` if it already was.
pub fn revoked_writes(
    state: &PartnerState,
    mandate: &Mandate,
    now: OffsetDateTime,
) -> Result<Option<(Mandate, WriteSet)>, serde_json::Error> {
    let Some(revoked) = mandate.revoked(now) else {
        return Ok(None);
    };
    let view = MandateView::new(&revoked, state);
    let announced = event(&revoked.owner, EventType::MandateRevoked, &view, now)?;
    let mut writes = WriteSet::default();
    writes
        .push(LendingWrite::UpdateMandate(revoked.clone()))
        .push(EventWrite::InsertEvent(announced));
    Ok(Some((revoked, writes)))
}

/// The payer revokes `mandate` (`mandate.revoked`): later collections under
/// it fail with `mandate_revoked`. The mandate as it now stands; `None` if
/// another request moved it first.
pub async fn revoke(
    state: &PartnerState,
    mandate: &Mandate,
    now: OffsetDateTime,
) -> Result<Option<Mandate>, String> {
    let Some((revoked, writes)) = revoked_writes(state, mandate, now).map_err(|e| e.to_string())?
    else {
        return Ok(Some(mandate.clone()));
    };
    match state.units.commit(writes).await {
        Ok(()) => {
            state.outbox_wake.notify_one();
            Ok(Some(revoked))
        }
        Err(CommitError::Conflict) => Ok(None),
        Err(e) => Err(e.to_string()),
    }
}
