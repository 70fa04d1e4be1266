//! The REST tier's contexts on this backend (`crate::context::rest`).

use async_trait::async_trait;
use deadpool_postgres::Client;
use lendhub_domain::billing::statement::agreement::Agreement;
use lendhub_domain::billing::statement::{Adjustment, Close, PayoutRecord, Statement};
use lendhub_domain::lending::application::{Application, Decision, UnderwritingAct};
use lendhub_domain::lending::journey::Journey;
use lendhub_domain::lending::kyc::Verification;
use lendhub_domain::marketplace::{App, Review, Signal};
use lendhub_domain::partner::sub_account::SubAccount;
use lendhub_domain::servicing::account::Account;
use lendhub_domain::servicing::collection::Payment;
use lendhub_domain::servicing::ledger::Entry;
use lendhub_domain::servicing::mandate::Mandate;
use lendhub_domain::servicing::schedule::Schedule;
use lendhub_domain::tenant::Tenant;
use tokio_postgres::Row;
use tokio_postgres::types::ToSql;

use super::PgStore;
use super::errors::db;
use super::reads::{from_json, get};
use crate::error::StoreError;
use crate::paging::{Page, PageQuery};
use crate::sql::{self, Keyset, PageShape};
use crate::{
    AccountPage, AccountQuery, ApplicationPage, ApplicationQuery, CommercialStore, DecisionPage,
    DecisionQuery, DueAccount, DueApplication, DuePayment, DueSchedule, IntroductionPage,
    IntroductionQuery, LedgerPage, LendingStore, PaymentPage, PaymentQuery, ServicingStore,
    SubAccountPage,
};
use crate::{DueClose, PayoutPage, PayoutQuery, StatementPage, StatementQuery};

fn application_row(r: &Row) -> Result<Application, StoreError> {
    from_json(get(r, 0)?)
}

/// One newest-first page of `keyset` for `owner` (`None` if the anchor is
/// not the owner's): `limit + 1` rows in index order from the anchor.
async fn page<T: serde::de::DeserializeOwned>(
    c: &Client,
    keyset: &'static Keyset,
    exists: &'static str,
    owner: &str,
    q: &PageQuery,
    filters: &[Option<&str>],
    floor: Option<&str>,
) -> Result<Option<Page<T>>, StoreError> {
    let (anchor, newer) = q.anchor();
    if let Some(id) = anchor {
        let statement = c.prepare_cached(exists).await.map_err(db)?;
        let known = c.query_opt(&statement, &[&id, &owner]).await.map_err(db)?;
        if known.is_none() {
            return Ok(None);
        }
    }
    let given: Vec<bool> = filters.iter().map(Option::is_some).collect();
    let shape = PageShape::new(newer, anchor.is_some(), floor.is_some(), &given);
    let statement = c.prepare_cached(keyset.sql(shape)).await.map_err(db)?;
    let mut texts: Vec<Option<&str>> = vec![Some(owner), anchor];
    texts.extend_from_slice(filters);
    texts.push(floor);
    let fetch = q.fetch();
    let mut params: Vec<&(dyn ToSql + Sync)> =
        texts.iter().map(|t| t as &(dyn ToSql + Sync)).collect();
    params.push(&fetch);
    let fetched = c
        .query(&statement, &params)
        .await
        .map_err(db)?
        .iter()
        .map(|r| from_json(get(r, 0)?))
        .collect::<Result<Vec<T>, _>>()?;
    Ok(Some(q.page(fetched)))
}

impl PgStore {
    /// The records `query` finds due by `service_now_ms` on their owners'
    /// clocks (`DUE_APPLICATIONS` and its kin: a body, then the offset).
    /// Records due on their owners' clocks (`sql::lending::DUE_*`), each
    /// with its owner's clock offset.
    async fn due<T: serde::de::DeserializeOwned, D: From<(T, i64)>>(
        &self,
        query: &str,
        service_now_ms: i64,
        limit: u32,
    ) -> Result<Vec<D>, StoreError> {
        let c = self.conn().await?;
        let statement = c.prepare_cached(query).await.map_err(db)?;
        c.query(&statement, &[&service_now_ms, &i64::from(limit)])
            .await
            .map_err(db)?
            .iter()
            .map(|r| Ok(D::from((from_json(get(r, 0)?)?, get(r, 1)?))))
            .collect()
    }

    /// One page of `keyset` for `owner`, as `page` reads it.
    async fn keyset_page<T: serde::de::DeserializeOwned>(
        &self,
        keyset: &'static Keyset,
        exists: &'static str,
        owner: &Tenant,
        q: &PageQuery,
        filters: &[Option<&str>],
    ) -> Result<Option<Page<T>>, StoreError> {
        let c = self.conn().await?;
        page(&c, keyset, exists, owner.as_str(), q, filters, None).await
    }

    /// The JSON bodies of the rows `query` finds with `params`.
    async fn bodies_of<T: serde::de::DeserializeOwned>(
        &self,
        query: &str,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<Vec<T>, StoreError> {
        let c = self.conn().await?;
        let statement = c.prepare_cached(query).await.map_err(db)?;
        c.query(&statement, params)
            .await
            .map_err(db)?
            .iter()
            .map(|r| from_json(get(r, 0)?))
            .collect()
    }

    /// The JSON body of the one row `query` finds with `params`, if any.
    async fn body_of<T: serde::de::DeserializeOwned>(
        &self,
        query: &str,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<Option<T>, StoreError> {
        let c = self.conn().await?;
        let statement = c.prepare_cached(query).await.map_err(db)?;
        c.query_opt(&statement, params)
            .await
            .map_err(db)?
            .map(|r| from_json(get(&r, 0)?))
            .transpose()
    }

    /// The JSON bodies of the rows `query` finds by owner.
    async fn bodies<T: serde::de::DeserializeOwned>(
        &self,
        query: &str,
        owner: &Tenant,
    ) -> Result<Vec<T>, StoreError> {
        self.bodies_of(query, &[&owner.as_str()]).await
    }

    /// The JSON body of the one row `query` finds by id and owner.
    async fn body_by_owner<T: serde::de::DeserializeOwned>(
        &self,
        query: &str,
        id: &str,
        owner: &Tenant,
    ) -> Result<Option<T>, StoreError> {
        self.body_of(query, &[&id, &owner.as_str()]).await
    }

    /// The JSON body of the one row `query` finds by its single key.
    async fn body_by_key<T: serde::de::DeserializeOwned>(
        &self,
        query: &str,
        key: &str,
    ) -> Result<Option<T>, StoreError> {
        self.body_of(query, &[&key]).await
    }
}

#[async_trait]
impl LendingStore for PgStore {
    async fn hub_application(
        &self,
        owner: &Tenant,
        id: &str,
    ) -> Result<Option<Application>, StoreError> {
        let c = self.conn().await?;
        let statement = c
            .prepare_cached(sql::lending::APPLICATION)
            .await
            .map_err(db)?;
        c.query_opt(&statement, &[&id, &owner.as_str()])
            .await
            .map_err(db)?
            .as_ref()
            .map(application_row)
            .transpose()
    }

    async fn hub_applications(
        &self,
        owner: &Tenant,
        q: &ApplicationQuery,
    ) -> Result<ApplicationPage, StoreError> {
        let c = self.conn().await?;
        let filters = [q.status.map(|s| s.as_str()), q.reference.as_deref()];
        let exists = sql::lending::APPLICATION_EXISTS;
        let floor = q.after_id.as_deref();
        Ok(
            match page(
                &c,
                &sql::APPLICATIONS,
                exists,
                owner.as_str(),
                &q.page,
                &filters,
                floor,
            )
            .await?
            {
                Some(p) => ApplicationPage::Page(p),
                None => ApplicationPage::UnknownCursor,
            },
        )
    }

    async fn hub_decisions(
        &self,
        owner: &Tenant,
        q: &DecisionQuery,
    ) -> Result<DecisionPage, StoreError> {
        let c = self.conn().await?;
        let exists = sql::lending::DECISION_EXISTS;
        let floor = q.after_id.as_deref();
        Ok(
            match page(
                &c,
                &sql::DECISIONS,
                exists,
                owner.as_str(),
                &q.page,
                &[q.outcome],
                floor,
            )
            .await?
            {
                Some(p) => DecisionPage::Page(p),
                None => DecisionPage::UnknownCursor,
            },
        )
    }

    async fn verification(
        &self,
        owner: &Tenant,
        id: &str,
    ) -> Result<Option<Verification>, StoreError> {
        let c = self.conn().await?;
        let statement = c
            .prepare_cached(sql::lending::VERIFICATION)
            .await
            .map_err(db)?;
        c.query_opt(&statement, &[&id, &owner.as_str()])
            .await
            .map_err(db)?
            .map(|r| from_json(get(&r, 0)?))
            .transpose()
    }

    async fn hub_account(&self, owner: &Tenant, id: &str) -> Result<Option<Account>, StoreError> {
        let c = self.conn().await?;
        let statement = c.prepare_cached(sql::lending::ACCOUNT).await.map_err(db)?;
        c.query_opt(&statement, &[&id, &owner.as_str()])
            .await
            .map_err(db)?
            .map(|r| from_json(get(&r, 0)?))
            .transpose()
    }

    async fn application_version(
        &self,
        owner: &Tenant,
        id: &str,
    ) -> Result<Option<i64>, StoreError> {
        let c = self.conn().await?;
        let statement = c
            .prepare_cached(sql::lending::APPLICATION_VERSION)
            .await
            .map_err(db)?;
        c.query_opt(&statement, &[&id, &owner.as_str()])
            .await
            .map_err(db)?
            .map(|r| get::<i64>(&r, 0))
            .transpose()
    }

    async fn application_any_owner(&self, id: &str) -> Result<Option<Application>, StoreError> {
        self.body_by_key(sql::lending::APPLICATION_ANY_OWNER, id)
            .await
    }

    async fn journey(&self, application_id: &str) -> Result<Option<Journey>, StoreError> {
        self.body_by_key(sql::lending::JOURNEY, application_id)
            .await
    }

    async fn decision_any_owner(&self, id: &str) -> Result<Option<Decision>, StoreError> {
        let c = self.conn().await?;
        let statement = c
            .prepare_cached(sql::lending::DECISION_ANY_OWNER)
            .await
            .map_err(db)?;
        c.query_opt(&statement, &[&id])
            .await
            .map_err(db)?
            .map(|r| from_json(get(&r, 0)?))
            .transpose()
    }

    async fn in_review(&self, limit: u32) -> Result<Vec<Application>, StoreError> {
        let c = self.conn().await?;
        let statement = c
            .prepare_cached(sql::lending::IN_REVIEW)
            .await
            .map_err(db)?;
        c.query(&statement, &[&i64::from(limit)])
            .await
            .map_err(db)?
            .iter()
            .map(|r| from_json(get(r, 0)?))
            .collect()
    }

    async fn underwriting_log(
        &self,
        decision_id: Option<&str>,
    ) -> Result<Vec<UnderwritingAct>, StoreError> {
        let c = self.conn().await?;
        let rows = match decision_id {
            Some(id) => {
                let s = c
                    .prepare_cached(sql::lending::ACTS_OF_DECISION)
                    .await
                    .map_err(db)?;
                c.query(&s, &[&id]).await
            }
            None => {
                let s = c.prepare_cached(sql::lending::ACTS).await.map_err(db)?;
                c.query(&s, &[]).await
            }
        }
        .map_err(db)?;
        rows.iter()
            .map(|r| {
                crate::context::rest::act_from_columns(
                    get(r, 0)?,
                    get(r, 1)?,
                    get(r, 2)?,
                    get(r, 3)?,
                    get(r, 4)?,
                    get(r, 5)?,
                )
                .map_err(StoreError::Internal)
            })
            .collect()
    }

    async fn latest_declined(
        &self,
        owner: &Tenant,
        company_number: &str,
    ) -> Result<Option<Application>, StoreError> {
        let c = self.conn().await?;
        let statement = c
            .prepare_cached(sql::lending::LATEST_DECLINED)
            .await
            .map_err(db)?;
        c.query_opt(&statement, &[&owner.as_str(), &company_number])
            .await
            .map_err(db)?
            .map(|r| from_json(get(&r, 0)?))
            .transpose()
    }

    async fn hub_decision(&self, owner: &Tenant, id: &str) -> Result<Option<Decision>, StoreError> {
        let c = self.conn().await?;
        let statement = c.prepare_cached(sql::lending::DECISION).await.map_err(db)?;
        c.query_opt(&statement, &[&id, &owner.as_str()])
            .await
            .map_err(db)?
            .map(|r| from_json(get(&r, 0)?))
            .transpose()
    }

    async fn due_applications(
        &self,
        service_now_ms: i64,
        limit: u32,
    ) -> Result<Vec<DueApplication>, StoreError> {
        self.due(sql::lending::DUE_APPLICATIONS, service_now_ms, limit)
            .await
    }
}

#[async_trait]
impl ServicingStore for PgStore {
    async fn hub_accounts(
        &self,
        owner: &Tenant,
        q: &AccountQuery,
    ) -> Result<AccountPage, StoreError> {
        let c = self.conn().await?;
        let exists = sql::lending::ACCOUNT_EXISTS;
        Ok(
            match page(
                &c,
                &sql::ACCOUNTS,
                exists,
                owner.as_str(),
                &q.page,
                &[q.status, q.sub_account_id.as_deref()],
                None,
            )
            .await?
            {
                Some(p) => AccountPage::Page(p),
                None => AccountPage::UnknownCursor,
            },
        )
    }

    async fn ledger_page(
        &self,
        owner: &Tenant,
        account_id: &str,
        q: &PageQuery,
    ) -> Result<LedgerPage, StoreError> {
        let c = self.conn().await?;
        let exists = sql::lending::ENTRY_EXISTS;
        let filters = [Some(account_id)];
        Ok(
            match page(
                &c,
                &sql::LEDGER_ENTRIES,
                exists,
                owner.as_str(),
                q,
                &filters,
                None,
            )
            .await?
            {
                Some(p) => LedgerPage::Page(p),
                None => LedgerPage::UnknownCursor,
            },
        )
    }

    async fn payment(&self, owner: &Tenant, id: &str) -> Result<Option<Payment>, StoreError> {
        self.body_by_owner(sql::lending::PAYMENT, id, owner).await
    }

    async fn payment_any_owner(&self, id: &str) -> Result<Option<Payment>, StoreError> {
        self.body_by_key(sql::lending::PAYMENT_ANY_OWNER, id).await
    }

    async fn hub_payments(
        &self,
        owner: &Tenant,
        q: &PaymentQuery,
    ) -> Result<PaymentPage, StoreError> {
        let c = self.conn().await?;
        let exists = sql::lending::PAYMENT_EXISTS;
        let filters = [q.account_id.as_deref(), q.status];
        Ok(
            match page(
                &c,
                &sql::PAYMENTS,
                exists,
                owner.as_str(),
                &q.page,
                &filters,
                None,
            )
            .await?
            {
                Some(p) => PaymentPage::Page(p),
                None => PaymentPage::UnknownCursor,
            },
        )
    }

    async fn due_payments(
        &self,
        service_now_ms: i64,
        limit: u32,
    ) -> Result<Vec<DuePayment>, StoreError> {
        self.due(sql::lending::DUE_PAYMENTS, service_now_ms, limit)
            .await
    }

    async fn account_any_owner(&self, id: &str) -> Result<Option<Account>, StoreError> {
        self.body_by_key(sql::lending::ACCOUNT_ANY_OWNER, id).await
    }

    async fn due_accounts(
        &self,
        service_now_ms: i64,
        limit: u32,
    ) -> Result<Vec<DueAccount>, StoreError> {
        self.due(sql::lending::DUE_ACCOUNTS, service_now_ms, limit)
            .await
    }

    async fn ledger_entry(&self, owner: &Tenant, id: &str) -> Result<Option<Entry>, StoreError> {
        self.body_by_owner(sql::lending::ENTRY, id, owner).await
    }

    async fn ledger(&self, owner: &Tenant, account_id: &str) -> Result<Vec<Entry>, StoreError> {
        let c = self.conn().await?;
        let statement = c.prepare_cached(sql::lending::LEDGER).await.map_err(db)?;
        c.query(&statement, &[&owner.as_str(), &account_id])
            .await
            .map_err(db)?
            .iter()
            .map(|r| from_json(get(r, 0)?))
            .collect()
    }

    async fn company_accounts(
        &self,
        borrower: &str,
        q: &AccountQuery,
    ) -> Result<AccountPage, StoreError> {
        let c = self.conn().await?;
        let exists = sql::lending::COMPANY_ACCOUNT_EXISTS;
        let filters = [q.status];
        Ok(
            match page(
                &c,
                &sql::COMPANY_ACCOUNTS,
                exists,
                borrower,
                &q.page,
                &filters,
                None,
            )
            .await?
            {
                Some(p) => AccountPage::Page(p),
                None => AccountPage::UnknownCursor,
            },
        )
    }

    async fn company_account(
        &self,
        borrower: &str,
        id: &str,
    ) -> Result<Option<Account>, StoreError> {
        let c = self.conn().await?;
        let statement = c
            .prepare_cached(sql::lending::COMPANY_ACCOUNT)
            .await
            .map_err(db)?;
        c.query_opt(&statement, &[&id, &borrower])
            .await
            .map_err(db)?
            .map(|r| from_json(get(&r, 0)?))
            .transpose()
    }

    async fn schedule(&self, owner: &Tenant, id: &str) -> Result<Option<Schedule>, StoreError> {
        self.body_by_owner(sql::lending::SCHEDULE, id, owner).await
    }

    async fn account_schedules(
        &self,
        owner: &Tenant,
        account_id: &str,
    ) -> Result<Vec<Schedule>, StoreError> {
        self.bodies_of(
            sql::lending::ACCOUNT_SCHEDULES,
            &[&owner.as_str(), &account_id],
        )
        .await
    }

    async fn due_schedules(
        &self,
        service_now_ms: i64,
        limit: u32,
    ) -> Result<Vec<DueSchedule>, StoreError> {
        self.due(sql::lending::DUE_SCHEDULES, service_now_ms, limit)
            .await
    }

    async fn mandate(&self, owner: &Tenant, id: &str) -> Result<Option<Mandate>, StoreError> {
        self.body_by_owner(sql::lending::MANDATE, id, owner).await
    }

    async fn mandate_any_owner(&self, id: &str) -> Result<Option<Mandate>, StoreError> {
        self.body_by_key(sql::lending::MANDATE_ANY_OWNER, id).await
    }
}

#[async_trait]
impl CommercialStore for PgStore {
    async fn sub_account(
        &self,
        owner: &Tenant,
        id: &str,
    ) -> Result<Option<SubAccount>, StoreError> {
        self.body_by_owner(sql::commercial::SUB_ACCOUNT, id, owner)
            .await
    }

    async fn sub_accounts(
        &self,
        owner: &Tenant,
        q: &PageQuery,
    ) -> Result<SubAccountPage, StoreError> {
        let exists = sql::commercial::SUB_ACCOUNT_EXISTS;
        Ok(self
            .keyset_page(&sql::SUB_ACCOUNTS, exists, owner, q, &[])
            .await?
            .into())
    }

    async fn introductions(
        &self,
        owner: &Tenant,
        q: &IntroductionQuery,
    ) -> Result<IntroductionPage, StoreError> {
        let exists = sql::commercial::INTRODUCTION_EXISTS;
        let filters = [q.sub_account_id.as_deref()];
        Ok(self
            .keyset_page(&sql::INTRODUCTIONS, exists, owner, &q.page, &filters)
            .await?
            .into())
    }

    async fn marketplace_app(&self, owner: &Tenant, id: &str) -> Result<Option<App>, StoreError> {
        self.body_by_owner(sql::commercial::APP, id, owner).await
    }

    async fn marketplace_app_any_owner(&self, id: &str) -> Result<Option<App>, StoreError> {
        self.body_by_key(sql::commercial::APP_ANY_OWNER, id).await
    }

    async fn marketplace_apps_in_review(
        &self,
        review: Review,
        limit: u32,
    ) -> Result<Vec<App>, StoreError> {
        self.bodies_of(
            sql::commercial::APPS_IN_REVIEW,
            &[&review.as_str(), &i64::from(limit)],
        )
        .await
    }

    async fn review_marketplace_app(&self, app: &App) -> Result<bool, StoreError> {
        let c = self.conn().await?;
        let statement = c
            .prepare_cached(sql::commercial::REVIEW_APP)
            .await
            .map_err(db)?;
        let body = super::writes::json(app)?;
        let changed = c
            .execute(
                &statement,
                &[
                    &app.id.to_string(),
                    &app.review.as_str(),
                    &app.version,
                    &body,
                    &(app.version - 1),
                ],
            )
            .await
            .map_err(db)?;
        Ok(changed == 1)
    }

    async fn signals(
        &self,
        owner: &Tenant,
        application_id: &str,
    ) -> Result<Vec<Signal>, StoreError> {
        self.bodies_of(
            sql::commercial::SIGNALS,
            &[
                &owner.as_str(),
                &application_id,
                &i64::from(crate::MAX_SIGNALS),
            ],
        )
        .await
    }

    async fn partner_agreements(&self, client_id: &str) -> Result<Vec<Agreement>, StoreError> {
        self.bodies_of(sql::commercial::PARTNER_AGREEMENTS, &[&client_id])
            .await
    }

    async fn owner_accounts(&self, owner: &Tenant) -> Result<Vec<Account>, StoreError> {
        self.bodies(sql::commercial::OWNER_ACCOUNTS, owner).await
    }

    async fn owner_sub_accounts(&self, owner: &Tenant) -> Result<Vec<SubAccount>, StoreError> {
        self.bodies(sql::commercial::OWNER_SUB_ACCOUNTS, owner)
            .await
    }

    async fn billing_owners(&self, from_ms: i64, to_ms: i64) -> Result<Vec<Tenant>, StoreError> {
        let c = self.conn().await?;
        let statement = c
            .prepare_cached(sql::commercial::BILLING_OWNERS)
            .await
            .map_err(db)?;
        c.query(&statement, &[&from_ms, &to_ms])
            .await
            .map_err(db)?
            .iter()
            .map(|r| Ok(Tenant::from_stored(get(r, 0)?)))
            .collect()
    }

    async fn statement(&self, owner: &Tenant, id: &str) -> Result<Option<Statement>, StoreError> {
        self.body_by_owner(sql::commercial::STATEMENT, id, owner)
            .await
    }

    async fn statement_for(
        &self,
        owner: &Tenant,
        period: &str,
    ) -> Result<Option<Statement>, StoreError> {
        self.body_of(sql::commercial::STATEMENT_FOR, &[&owner.as_str(), &period])
            .await
    }

    async fn statements(
        &self,
        owner: &Tenant,
        q: &StatementQuery,
    ) -> Result<StatementPage, StoreError> {
        let exists = sql::commercial::STATEMENT_EXISTS;
        let filters = [q.period.as_deref()];
        Ok(self
            .keyset_page(&sql::STATEMENTS, exists, owner, &q.page, &filters)
            .await?
            .into())
    }

    async fn payouts(&self, owner: &Tenant, q: &PayoutQuery) -> Result<PayoutPage, StoreError> {
        let exists = sql::commercial::PAYOUT_EXISTS;
        let filters = [q.sub_account_id.as_deref()];
        Ok(self
            .keyset_page(&sql::PAYOUTS, exists, owner, &q.page, &filters)
            .await?
            .into())
    }

    async fn period_payouts(
        &self,
        owner: &Tenant,
        period: &str,
    ) -> Result<Vec<PayoutRecord>, StoreError> {
        self.bodies_of(sql::commercial::PERIOD_PAYOUTS, &[&owner.as_str(), &period])
            .await
    }

    async fn adjustments(
        &self,
        owner: &Tenant,
        period: &str,
    ) -> Result<Vec<Adjustment>, StoreError> {
        self.bodies_of(sql::commercial::ADJUSTMENTS, &[&owner.as_str(), &period])
            .await
    }

    async fn waiting_close(
        &self,
        owner: &Tenant,
        period: &str,
    ) -> Result<Option<Close>, StoreError> {
        self.body_of(sql::commercial::WAITING_CLOSE, &[&owner.as_str(), &period])
            .await
    }

    async fn due_closes(&self, now_ms: i64, limit: u32) -> Result<Vec<DueClose>, StoreError> {
        self.due(sql::commercial::DUE_CLOSES, now_ms, limit).await
    }
}
