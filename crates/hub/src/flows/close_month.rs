//! Closing a month: the statement computed from the owner's stored facts
//! (`lendhub_domain::billing::statement::close`), written with its events,
//! payouts and (once final) the revenue share they owe in one commit. Run by the sweep when a month is due on its
//! owner's clock, and by the operator's `lendhub billing close`.

use lendhub_domain::billing::statement::{
    self, Close, Loan, PayoutRecord, PayoutStatus, Period, Statement, Status, Terms, agreement,
};
use lendhub_domain::ids::HubId;
use lendhub_domain::ledger::movements;
use lendhub_domain::money::Money;
use lendhub_domain::sandbox::events::EventType;
use lendhub_domain::servicing::account::Account;
use lendhub_domain::tenant::{Tenant, TenantKind};
use lendhub_domain::working_days::WorkingDays;
use lendhub_store::{
    CommercialStore, CommercialWrite, CommitError, EventWrite, LedgerWrite, StoreError, UnitOfWork,
    WriteSet,
};
use time::OffsetDateTime;

use crate::flows::events::event;
use crate::views::statement::StatementView;

/// What closing a month did.
#[derive(Debug)]
pub enum Closed {
    /// The month is not over on the owner's clock.
    NotOver,
    /// Drafted, or drafted again with new figures (`invoice.draft`).
    Drafted(Statement),
    /// Finalized (`invoice.finalized`; each payout due over the rail).
    Finalized(Statement),
    /// Nothing to write: the stored statement already says this.
    Unchanged(Statement),
    /// The month was finalized, and its facts now give other figures: a
    /// finalized statement never changes, so this needs a correction.
    Differs {
        finalized: Statement,
        now: Box<Statement>,
    },
}

#[derive(Debug, thiserror::Error)]
pub enum CloseError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("the month was closed meanwhile; close it again")]
    Conflict,
    #[error("{0}")]
    Other(String),
}

/// The stores a close reads and writes.
pub struct Ledgers<'a> {
    pub commercial: &'a dyn CommercialStore,
    pub units: &'a dyn UnitOfWork,
    pub days: &'a WorkingDays,
}

/// The partner an owner is: its terms are agreed per partner, for both
/// environments.
fn client_id(owner: &Tenant) -> String {
    match owner.kind() {
        TenantKind::Partner { client_id, .. } => client_id.to_owned(),
        TenantKind::SandboxClient(id) => id.to_owned(),
    }
}

/// A funded loan as the statement sees it, from its account.
pub fn loan(a: &Account) -> Loan {
    Loan {
        account_id: a.id.clone(),
        company_number: a.company_number.clone(),
        sub_account_id: a.sub_account_id.clone(),
        partner_ref: a.partner_ref.clone(),
        applied_at: OffsetDateTime::from_unix_timestamp_nanos(
            i128::from(a.application_id.created_ms()) * 1_000_000,
        )
        .unwrap_or(a.opened_at),
        funded_at: a.opened_at,
        principal: a.terms.amount_pence,
        total_repayable: a.terms.total_repayable_pence,
        term_months: a.terms.term_months,
    }
}

/// The statement the owner's facts give for `period` at `now`, not written.
/// Under `terms` when given (a finalized month's own), otherwise under the
/// partner's agreement in effect on the month's first day.
pub async fn compute(
    books: &Ledgers<'_>,
    owner: &Tenant,
    period: Period,
    now: OffsetDateTime,
    terms: Option<&Terms>,
) -> Result<Statement, CloseError> {
    let terms = match terms {
        Some(t) => t.clone(),
        None => agreement::in_effect(
            &books
                .commercial
                .partner_agreements(&client_id(owner))
                .await?,
            period,
        ),
    };
    let loans: Vec<Loan> = books
        .commercial
        .owner_accounts(owner)
        .await?
        .iter()
        .map(loan)
        .collect();
    let subs = books.commercial.owner_sub_accounts(owner).await?;
    let share = |id: &lendhub_domain::ids::SubAccountId| {
        subs.iter()
            .find(|s| &s.id == id)
            .map_or(0, |s| s.revenue_share_bps)
    };
    let mut computed = statement::close(owner, period, &terms, &loans, &share, books.days)
        .map_err(|e| CloseError::Other(e.to_string()))?;
    if now.date() >= computed.invoice_date {
        computed.status = Status::Finalized;
    }
    let adjustments = books
        .commercial
        .adjustments(owner, &period.to_string())
        .await?;
    computed
        .with_adjustments(adjustments)
        .map_err(|e| CloseError::Other(e.to_string()))
}

/// Closes `owner`'s `period` at `now` (the owner's clock). `due` is the
/// waiting close the sweep read, moved on to the invoice date after a
/// draft and ended by the finalization, in the same commit.
pub async fn close(
    books: &Ledgers<'_>,
    owner: &Tenant,
    period: Period,
    now: OffsetDateTime,
    due: Option<&Close>,
) -> Result<Closed, CloseError> {
    if now < period.end() {
        return Ok(Closed::NotOver);
    }
    let stored = books
        .commercial
        .statement_for(owner, &period.to_string())
        .await?;
    let kept_terms = stored
        .as_ref()
        .filter(|s| s.status == Status::Finalized)
        .map(|s| &s.terms);
    let computed = compute(books, owner, period, now, kept_terms).await?;
    let mut writes = WriteSet::default();
    let next_due = (computed.status == Status::Draft).then(|| Close {
        owner: owner.clone(),
        period: period.to_string(),
        due_at_ms: lendhub_domain::clock::unix_ms(
            computed
                .invoice_date
                .with_time(time::Time::MIDNIGHT)
                .assume_utc(),
        ),
        version: 0,
    });
    if let Some(read) = due {
        writes.push(CommercialWrite::MoveClose {
            read: read.clone(),
            key: read.key(),
            next: next_due.map(|n| Close {
                version: read.version + 1,
                ..n
            }),
        });
    }
    let outcome = match stored {
        Some(finalized) if finalized.status == Status::Finalized => {
            if finalized == computed {
                Closed::Unchanged(finalized)
            } else {
                Closed::Differs {
                    finalized,
                    now: Box::new(computed),
                }
            }
        }
        Some(draft) if draft == computed => Closed::Unchanged(draft),
        earlier => {
            let render = |e: serde_json::Error| CloseError::Other(e.to_string());
            let view = StatementView::new(&computed);
            // Every statement is seen as a draft before it is final, even
            // one first closed after its invoice date.
            if earlier.is_none() || computed.status == Status::Draft {
                let mut draft_view = view.clone();
                draft_view.status = Status::Draft.as_str();
                writes.push(EventWrite::InsertEvent(
                    event(owner, EventType::InvoiceDraft, &draft_view, now).map_err(render)?,
                ));
            }
            let payouts = computed.payout_records(now);
            // A pending payout this draft no longer has is void: it was
            // never paid, and never will be.
            for stale in books
                .commercial
                .period_payouts(owner, &period.to_string())
                .await?
            {
                if stale.status == PayoutStatus::Pending
                    && !payouts.iter().any(|p| p.id == stale.id)
                {
                    writes.push(CommercialWrite::PutPayout(PayoutRecord {
                        status: PayoutStatus::Void,
                        ..stale
                    }));
                }
            }
            for p in &payouts {
                writes.push(CommercialWrite::PutPayout(p.clone()));
            }
            writes.push(CommercialWrite::PutStatement(computed.clone()));
            if computed.status == Status::Finalized {
                writes.push(EventWrite::InsertEvent(
                    event(owner, EventType::InvoiceFinalized, &view, now).map_err(render)?,
                ));
                // Each payout is owed from now (the ledger's revenue share
                // payable) and goes out over the rail on the pay date
                // (`flows::share_payout`).
                for p in &payouts {
                    let share = movements::revenue_share(
                        &format!("{}.share", p.id),
                        Money::pence(p.gross_pence),
                        now,
                    )
                    .map_err(|e| CloseError::Other(e.to_string()))?;
                    writes.push(LedgerWrite::Post(share));
                }
                Closed::Finalized(computed)
            } else {
                Closed::Drafted(computed)
            }
        }
    };
    if !writes.writes.is_empty() {
        books.units.commit(writes).await.map_err(|e| match e {
            CommitError::Conflict => CloseError::Conflict,
            other => CloseError::Other(other.to_string()),
        })?;
    }
    Ok(outcome)
}
