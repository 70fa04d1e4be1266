//! A payment schedule and its upcoming collections, as the API shows it.

use lendhub_domain::servicing::collection::{Payment, PaymentStatus};
use lendhub_domain::servicing::schedule::Schedule;
use lendhub_domain::tenant::TenantKind;
use serde::Serialize;
use time::OffsetDateTime;
use utoipa::ToSchema;

use lendhub_store::{ServicingStore, StoreError};

/// The collection a schedule makes next.
#[derive(Serialize, ToSchema)]
pub struct NextCollectionView {
    /// The instalment's payment once initiated (on its due date); null
    /// before.
    payment_id: Option<String>,
    /// YYYY-MM-DD.
    due_date: String,
}

/// An instalment still to be initiated.
#[derive(Serialize, ToSchema)]
pub struct UpcomingView {
    /// YYYY-MM-DD.
    due_date: String,
    /// The instalment; the final one of a fixed schedule sweeps any
    /// rounding remainder, so it may differ by that.
    amount_pence: i64,
}

/// A payment schedule.
#[derive(Serialize, ToSchema)]
pub struct ScheduleView {
    #[schema(example = "sch_01KQ3V1Y2C8WZ3R5T6Y7X819D0")]
    id: String,
    #[schema(example = "payment_schedule")]
    object: &'static str,
    account_id: String,
    /// active, completed (the final instalment settled), ended (nothing
    /// more to collect: the account was repaid or closed first, or the
    /// final instalment failed) or cancelled (an open-ended schedule,
    /// tombstoned).
    status: &'static str,
    /// weekly or monthly.
    cadence: &'static str,
    /// Per instalment.
    amount_pence: i64,
    #[schema(example = "GBP")]
    currency: &'static str,
    /// Your reference of the loan (the application's `reference`).
    reference: Option<String>,
    /// YYYY-MM-DD.
    start_date: String,
    /// Instalments in all; null when open-ended.
    count: Option<u32>,
    /// Instalments not yet initiated; null when open-ended.
    remaining: Option<u32>,
    /// The collection to watch next: the newest instalment while it is still
    /// in flight (pending or processing), otherwise the next due date to
    /// come; null when none.
    next_collection: Option<NextCollectionView>,
    /// Due dates still to come (at most 12).
    upcoming: Vec<UpcomingView>,
    /// The payer's mandate (`mnd_…`), once their first authorisation
    /// established it.
    mandate_id: Option<String>,
    livemode: bool,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    created_at: OffsetDateTime,
    /// When it completed, ended or was cancelled.
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    finished_at: Option<OffsetDateTime>,
}

impl ScheduleView {
    /// `last` is the schedule's newest child payment, if it has one.
    pub fn new(s: &Schedule, last: Option<&Payment>) -> Self {
        let in_flight =
            last.filter(|p| matches!(p.status, PaymentStatus::Pending | PaymentStatus::Processing));
        let next_collection = match (in_flight, s.next_instalment()) {
            (Some(p), _) => p.schedule.as_ref().map(|i| NextCollectionView {
                payment_id: Some(p.id.to_string()),
                due_date: i.due_on.to_string(),
            }),
            (None, Some((_, on))) => Some(NextCollectionView {
                payment_id: None,
                due_date: on.to_string(),
            }),
            (None, None) => None,
        };
        let upcoming = match s.next_instalment() {
            None => Vec::new(),
            Some((first, _)) => {
                let end = s
                    .count
                    .unwrap_or(u32::MAX)
                    .min(first.saturating_add(UPCOMING));
                (first..end)
                    .map(|n| UpcomingView {
                        due_date: s.due_on(n).to_string(),
                        amount_pence: s.amount.as_pence(),
                    })
                    .collect()
            }
        };
        Self {
            id: s.id.to_string(),
            object: "payment_schedule",
            account_id: s.account_id.to_string(),
            status: s.status.as_str(),
            cadence: s.cadence.as_str(),
            amount_pence: s.amount.as_pence(),
            currency: "GBP",
            reference: s.reference.clone(),
            start_date: s.start_date.to_string(),
            count: s.count,
            remaining: s.remaining(),
            next_collection,
            upcoming,
            mandate_id: s.mandate_id.as_ref().map(ToString::to_string),
            livemode: matches!(s.owner.kind(), TenantKind::Partner { livemode: true, .. }),
            created_at: s.created_at,
            finished_at: s.finished_at,
        }
    }

    /// The view with its newest child read from the store.
    pub async fn load(servicing: &dyn ServicingStore, s: &Schedule) -> Result<Self, StoreError> {
        let last = match &s.last_payment_id {
            Some(id) => servicing.payment(&s.owner, id).await?,
            None => None,
        };
        Ok(Self::new(s, last.as_ref()))
    }
}

/// How many upcoming due dates a schedule shows.
pub(crate) const UPCOMING: u32 = 12;
