//! Reading servicing accounts: one account with its balance, a page of
//! accounts, a page of one account's ledger. The reader is a partner (its
//! own accounts, on its clock) or a borrower signed in at lendhub's
//! identity provider (their company's accounts in one environment,
//! whichever partner introduced them, each on its owner's clock).

use lendhub_domain::ids::{AccountId, HubId, LedgerEntryId};
use lendhub_domain::paging::Page;
use lendhub_domain::servicing::account::Account;
use lendhub_domain::servicing::ledger::{self, Entry};
use lendhub_domain::servicing::list_filters;
use lendhub_domain::tenant::Tenant;
use lendhub_store::{AccountPage, AccountQuery, LedgerPage};
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

/// One account as of now on its owner's clock, with its ledger.
pub struct Read {
    pub account: Account,
    pub entries: Vec<Entry>,
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
    let entries = cx.servicing.ledger(&account.owner, &account.id).await?;
    let now = reader.now_for(cx, &account).await?;
    Ok(Read {
        account,
        entries,
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
        entries,
        now,
    } = read(cx, reader, raw_id).await?;
    let view = AccountView::new(&account, &entries, now)?;
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
        let entries = cx.servicing.ledger(&account.owner, &account.id).await?;
        items.push(reader.shown(AccountView::new(account, &entries, now)?));
    }
    Ok(Page {
        items,
        has_more: page.has_more,
    })
}

/// A page of one account's ledger, newest first. A cursor must be an
/// entry of this account, not merely of the owner's.
pub async fn transactions(
    cx: &Context,
    reader: &Reader,
    raw_id: &str,
    request: &ListRequest,
) -> Result<Page<Entry>, FlowError> {
    let missing = || FlowError::NotFound("ledger entry for the cursor");
    let Some(cursors) = request
        .cursors()
        .map(LedgerEntryId::parse)
        .collect::<Option<Vec<_>>>()
    else {
        return Err(missing());
    };
    let account = find(cx, reader, raw_id).await?;
    let owner = &account.owner;
    for cursor in &cursors {
        let entry = cx.servicing.ledger_entry(owner, cursor).await?;
        if entry.is_none_or(|e| e.account_id != account.id) {
            return Err(missing());
        }
    }
    match cx
        .servicing
        .ledger_page(owner, &account.id, &request.page)
        .await?
    {
        LedgerPage::Page(page) => Ok(page),
        LedgerPage::UnknownCursor => Err(missing()),
    }
}
