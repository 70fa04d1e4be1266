//! Reading servicing accounts: one account with its balance, a page of
//! accounts, a page of one account's statement. Balances and statements
//! are derived from the loan's transfers in the double-entry ledger. The reader is a partner (its
//! own accounts, on its clock) or a borrower signed in at lendhub's
//! identity provider (their company's accounts in one environment,
//! whichever partner introduced them, each on its owner's clock).

use lendhub_domain::ids::{AccountId, HubId, LedgerEntryId};
use lendhub_domain::ledger::transfer::Transfer;
use lendhub_domain::paging::Page;
use lendhub_domain::servicing::account::Account;
use lendhub_domain::servicing::ledger;
use lendhub_domain::servicing::list_filters;
use lendhub_domain::servicing::statement::{self, Entry};
use lendhub_domain::tenant::Tenant;
use lendhub_store::{AccountPage, AccountQuery, LoanPage};
use lendhub_wire::list_query::ListRequest;
use time::OffsetDateTime;

use crate::flows::Context;
use crate::flows::error::FlowError;
use crate::views::account::AccountView;

/// Who reads.
pub enum Reader {
    /// A partner, its own accounts in one environment, at `now` on its clock.
    Partner { owner: Tenant, now: OffsetDateTime },
    /// A person's company in one environment (`Account::borrower`).
    Borrower { borrower: String },
}

/// One account as of now on its owner's clock, with its loan's transfers.
pub struct Read {
    pub account: Account,
    pub transfers: Vec<Transfer>,
    pub now: OffsetDateTime,
}

impl Reader {
    /// An account's view as this reader may see it: a borrower does not
    /// see which of the partner's sub-accounts or channels introduced it.
    fn shown(&self, view: AccountView) -> AccountView {
        match self {
            Reader::Partner { .. } => view,
            Reader::Borrower { .. } => view.for_borrower(),
        }
    }

    async fn now_for(&self, cx: &Context, account: &Account) -> Result<OffsetDateTime, FlowError> {
        match self {
            Reader::Partner { now, .. } => Ok(*now),
            Reader::Borrower { .. } => Ok(cx.now_for(&account.owner).await?),
        }
    }
}

/// One account the reader may read; `NotFound` otherwise.
pub async fn find(cx: &Context, reader: &Reader, raw_id: &str) -> Result<Account, FlowError> {
    let missing = FlowError::NotFound("account");
    let Some(id) = AccountId::parse(raw_id) else {
        return Err(missing);
    };
    match reader {
        Reader::Partner { owner, .. } => cx.lending.hub_account(owner, &id).await?,
        Reader::Borrower { borrower } => cx.servicing.company_account(borrower, &id).await?,
    }
    .ok_or(missing)
}

/// One account with its ledger and the moment its balance is read at.
pub async fn read(cx: &Context, reader: &Reader, raw_id: &str) -> Result<Read, FlowError> {
    let account = find(cx, reader, raw_id).await?;
    let transfers = cx.ledger.loan_transfers(&account.id).await?;
    let now = reader.now_for(cx, &account).await?;
    Ok(Read {
        account,
        transfers,
        now,
    })
}

/// One account's view with its repayment schedule.
pub async fn retrieve(
    cx: &Context,
    reader: &Reader,
    raw_id: &str,
) -> Result<AccountView, FlowError> {
    let Read {
        account,
        transfers,
        now,
    } = read(cx, reader, raw_id).await?;
    let view = AccountView::new(&account, &transfers, now)?;
    Ok(reader.shown(view.with_schedule(&ledger::schedule(&account))))
}

/// A page of the reader's accounts, each with its balance now: `status`,
/// and `sub_account_id` (partners only).
pub async fn list(
    cx: &Context,
    reader: &Reader,
    request: &ListRequest,
) -> Result<Page<AccountView>, FlowError> {
    let filters = list_filters::accounts(
        request.filter("status"),
        request.filter("sub_account_id"),
        matches!(reader, Reader::Borrower { .. }),
    )?;
    let missing = || FlowError::NotFound("account for the cursor");
    if request.cursors().any(|c| AccountId::parse(c).is_none()) {
        return Err(missing());
    }
    let query = AccountQuery {
        page: request.page.clone(),
        status: filters.status,
        sub_account_id: filters.sub_account_id,
    };
    let page = match reader {
        Reader::Partner { owner, .. } => cx.servicing.hub_accounts(owner, &query).await?,
        Reader::Borrower { borrower } => cx.servicing.company_accounts(borrower, &query).await?,
    };
    let page = match page {
        AccountPage::Page(page) => page,
        AccountPage::UnknownCursor => return Err(missing()),
    };
    let mut items = Vec::with_capacity(page.items.len());
    for account in &page.items {
        let now = reader.now_for(cx, account).await?;
        let transfers = cx.ledger.loan_transfers(&account.id).await?;
        items.push(reader.shown(AccountView::new(account, &transfers, now)?));
    }
    Ok(Page {
        items,
        has_more: page.has_more,
    })
}

/// A page of one account's statement, newest first, read from the
/// ledger's index of the loan's posted transfers (the same cost at any
/// size). A cursor must be an entry of this account, not merely of the
/// owner's: its id carries the millisecond it posted, where its transfer
/// is found.
pub async fn transactions(
    cx: &Context,
    reader: &Reader,
    raw_id: &str,
    request: &ListRequest,
) -> Result<Page<Entry>, FlowError> {
    let missing = || FlowError::NotFound("ledger entry for the cursor");
    let overflow = || FlowError::Internal(format!("an entry of {raw_id} overflows"));
    let account = find(cx, reader, raw_id).await?;
    let (anchor, newer) = request.page.anchor();
    let from = match anchor {
        None => LoanPage::Newest,
        Some(cursor) => {
            let cursor = LedgerEntryId::parse(cursor).ok_or_else(missing)?;
            let at_ms = i64::try_from(cursor.created_ms()).map_err(|_| missing())?;
            let candidates = cx.ledger.loan_posted_at(&account.id, at_ms).await?;
            let found = candidates
                .iter()
                .find(|t| statement::entry_id(t.id(), t.at()) == cursor)
                .ok_or_else(missing)?;
            let id = found.id().to_owned();
            if newer {
                LoanPage::Newer { at_ms, id }
            } else {
                LoanPage::Older { at_ms, id }
            }
        }
    };
    let fetched = cx
        .ledger
        .loan_posted(&account.id, &from, request.page.fetch())
        .await?;
    let mut entries = Vec::with_capacity(fetched.len());
    for t in &fetched {
        entries.extend(statement::entry(&account, t).ok_or_else(overflow)?);
    }
    Ok(request.page.page(entries))
}
