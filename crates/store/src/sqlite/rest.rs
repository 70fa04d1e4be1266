//! The REST tier's contexts on this backend (`crate::context::rest`).

use std::sync::LazyLock;

use async_trait::async_trait;
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
use rusqlite::{Connection, OptionalExtension, params};

use super::row_keys::{self, row_key};
use super::{SqliteStore, dialect, rows};
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

fn application_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Application> {
    let body: String = r.get(0)?;
    rows::from_json(&body)
}

fn application(c: &Connection, owner: &Tenant, id: &str) -> rusqlite::Result<Option<Application>> {
    c.prepare_cached(shared!(row_keys::lending::APPLICATION))?
        .query_row(params![row_key(id), id, owner.as_str()], application_row)
        .optional()
}

/// Each keyset's statements in SQLite's dialect, made once: the statement
/// for `shape` of `keyset`. A keyset missing from the list is dialected on
/// each use (correct, only slower), so adding one cannot pick another's SQL.
fn dialected(
    keyset: &'static Keyset,
    shape: PageShape,
    index: usize,
) -> std::borrow::Cow<'static, str> {
    static MADE: LazyLock<Vec<(&'static Keyset, Vec<String>)>> = LazyLock::new(|| {
        sql::KEYSETS
            .iter()
            .map(|k| (*k, k.shapes().map(|shape| dialect(k.sql(shape))).collect()))
            .collect()
    });
    match MADE.iter().find(|(k, _)| std::ptr::eq(*k, keyset)) {
        Some((_, statements)) => std::borrow::Cow::Borrowed(statements[index].as_str()),
        None => std::borrow::Cow::Owned(dialect(keyset.sql(shape))),
    }
}

/// One newest-first page of `keyset` for `owner` (`None` if the anchor is
/// not the owner's): `limit + 1` rows in index order from the anchor.
fn page<T: serde::de::DeserializeOwned>(
    c: &Connection,
    keyset: &'static Keyset,
    exists: &'static str,
    owner: &str,
    q: &PageQuery,
    filters: &[Option<&str>],
    floor: Option<&str>,
) -> rusqlite::Result<Option<Page<T>>> {
    let (anchor, newer) = q.anchor();
    if let Some(id) = anchor {
        let known = c
            .prepare_cached(&dialect(exists))?
            .query_row([id, owner], |_| Ok(()))
            .optional()?;
        if known.is_none() {
            return Ok(None);
        }
    }
    let given: Vec<bool> = filters.iter().map(Option::is_some).collect();
    let shape = PageShape::new(newer, anchor.is_some(), floor.is_some(), &given);
    let index = keyset.shapes().position(|s| s == shape).unwrap_or(0);
    let mut params: Vec<Option<&str>> = vec![Some(owner), anchor];
    params.extend_from_slice(filters);
    params.push(floor);
    let fetch = q.fetch();
    let bound = params
        .iter()
        .map(|p| p as &dyn rusqlite::ToSql)
        .chain(std::iter::once(&fetch as &dyn rusqlite::ToSql));
    let fetched = c
        .prepare_cached(&dialected(keyset, shape, index))?
        .query_map(rusqlite::params_from_iter(bound), |r| {
            let body: String = r.get(0)?;
            rows::from_json(&body)
        })?
        .collect::<Result<Vec<T>, _>>()?;
    Ok(Some(q.page(fetched)))
}

fn applications(
    c: &Connection,
    owner: &Tenant,
    q: &ApplicationQuery,
) -> rusqlite::Result<ApplicationPage> {
    let filters = [q.status.map(|s| s.as_str()), q.reference.as_deref()];
    let exists = sql::lending::APPLICATION_EXISTS;
    let floor = q.after_id.as_deref();
    Ok(
        match page(
            c,
            &sql::APPLICATIONS,
            exists,
            owner.as_str(),
            &q.page,
            &filters,
            floor,
        )? {
            Some(p) => ApplicationPage::Page(p),
            None => ApplicationPage::UnknownCursor,
        },
    )
}

fn decisions(c: &Connection, owner: &Tenant, q: &DecisionQuery) -> rusqlite::Result<DecisionPage> {
    let exists = sql::lending::DECISION_EXISTS;
    let floor = q.after_id.as_deref();
    Ok(
        match page(
            c,
            &sql::DECISIONS,
            exists,
            owner.as_str(),
            &q.page,
            &[q.outcome],
            floor,
        )? {
            Some(p) => DecisionPage::Page(p),
            None => DecisionPage::UnknownCursor,
        },
    )
}

fn verification(
    c: &Connection,
    owner: &Tenant,
    id: &str,
) -> rusqlite::Result<Option<Verification>> {
    c.prepare_cached(shared!(sql::lending::VERIFICATION))?
        .query_row([id, owner.as_str()], |r| {
            let body: String = r.get(0)?;
            rows::from_json(&body)
        })
        .optional()
}

fn decision(c: &Connection, owner: &Tenant, id: &str) -> rusqlite::Result<Option<Decision>> {
    c.prepare_cached(shared!(sql::lending::DECISION))?
        .query_row([id, owner.as_str()], |r| {
            let body: String = r.get(0)?;
            rows::from_json(&body)
        })
        .optional()
}

/// The records `statement` finds due by `now_ms` on their owners' clocks
/// (`DUE_APPLICATIONS` and its kin: a body, then the offset).
/// Records due on their owners' clocks (`sql::lending::DUE_*`), each with
/// its owner's clock offset.
fn due<T: serde::de::DeserializeOwned, D: From<(T, i64)>>(
    c: &Connection,
    statement: &str,
    now_ms: i64,
    limit: u32,
) -> rusqlite::Result<Vec<D>> {
    c.prepare_cached(statement)?
        .query_map(params![now_ms, limit], |r| {
            Ok(D::from((
                rows::from_json(&r.get::<_, String>(0)?)?,
                r.get(1)?,
            )))
        })?
        .collect()
}

/// The JSON bodies of the rows `statement` finds with `params`.
fn body_rows<T: serde::de::DeserializeOwned>(
    c: &Connection,
    statement: &str,
    params: impl rusqlite::Params,
) -> rusqlite::Result<Vec<T>> {
    c.prepare_cached(statement)?
        .query_map(params, |r| rows::from_json(&r.get::<_, String>(0)?))?
        .collect()
}

/// The JSON body of the one row `statement` finds with `params`, if any.
fn body_row<T: serde::de::DeserializeOwned>(
    c: &Connection,
    statement: &str,
    params: impl rusqlite::Params,
) -> rusqlite::Result<Option<T>> {
    c.prepare_cached(statement)?
        .query_row(params, |r| rows::from_json(&r.get::<_, String>(0)?))
        .optional()
}

#[async_trait]
impl LendingStore for SqliteStore {
    async fn hub_application(
        &self,
        owner: &Tenant,
        id: &str,
    ) -> Result<Option<Application>, StoreError> {
        self.read(|c| application(c, owner, id))
    }

    async fn hub_applications(
        &self,
        owner: &Tenant,
        query: &ApplicationQuery,
    ) -> Result<ApplicationPage, StoreError> {
        self.read(|c| applications(c, owner, query))
    }

    async fn verification(
        &self,
        owner: &Tenant,
        id: &str,
    ) -> Result<Option<Verification>, StoreError> {
        self.read(|c| verification(c, owner, id))
    }

    async fn hub_decision(&self, owner: &Tenant, id: &str) -> Result<Option<Decision>, StoreError> {
        self.read(|c| decision(c, owner, id))
    }

    async fn hub_account(&self, owner: &Tenant, id: &str) -> Result<Option<Account>, StoreError> {
        self.read(|c| {
            c.prepare_cached(shared!(sql::lending::ACCOUNT))?
                .query_row([id, owner.as_str()], |r| {
                    rows::from_json(&r.get::<_, String>(0)?)
                })
                .optional()
        })
    }

    async fn application_version(
        &self,
        owner: &Tenant,
        id: &str,
    ) -> Result<Option<i64>, StoreError> {
        let key = format!("{}\u{0}{id}", owner.as_str());
        self.read_remembered(&self.memos.application_versions, &key, |c| {
            c.prepare_cached(shared!(row_keys::lending::APPLICATION_VERSION))?
                .query_row(params![row_key(id), id, owner.as_str()], |r| {
                    r.get::<_, i64>(0)
                })
                .optional()
        })
    }

    async fn application_any_owner(&self, id: &str) -> Result<Option<Application>, StoreError> {
        self.read(|c| {
            c.prepare_cached(shared!(row_keys::lending::APPLICATION_ANY_OWNER))?
                .query_row(params![row_key(id), id], |r| {
                    rows::from_json(&r.get::<_, String>(0)?)
                })
                .optional()
        })
    }

    async fn journey(&self, application_id: &str) -> Result<Option<Journey>, StoreError> {
        self.read(|c| {
            c.prepare_cached(shared!(sql::lending::JOURNEY))?
                .query_row([application_id], |r| {
                    rows::from_json(&r.get::<_, String>(0)?)
                })
                .optional()
        })
    }

    async fn decision_any_owner(&self, id: &str) -> Result<Option<Decision>, StoreError> {
        self.read(|c| {
            c.prepare_cached(shared!(sql::lending::DECISION_ANY_OWNER))?
                .query_row([id], |r| rows::from_json(&r.get::<_, String>(0)?))
                .optional()
        })
    }

    async fn in_review(&self, limit: u32) -> Result<Vec<Application>, StoreError> {
        self.read(|c| {
            c.prepare_cached(shared!(sql::lending::IN_REVIEW))?
                .query_map([limit], application_row)?
                .collect()
        })
    }

    async fn underwriting_log(
        &self,
        decision_id: Option<&str>,
    ) -> Result<Vec<UnderwritingAct>, StoreError> {
        let row = |r: &rusqlite::Row<'_>| {
            crate::context::rest::act_from_columns(
                r.get(0)?,
                r.get(1)?,
                r.get(2)?,
                r.get(3)?,
                r.get(4)?,
                r.get(5)?,
            )
            .map_err(|e| rusqlite::Error::ToSqlConversionFailure(e.into()))
        };
        self.read(|c| match decision_id {
            Some(id) => c
                .prepare_cached(shared!(sql::lending::ACTS_OF_DECISION))?
                .query_map([id], row)?
                .collect(),
            None => c
                .prepare_cached(shared!(sql::lending::ACTS))?
                .query_map([], row)?
                .collect(),
        })
    }

    async fn latest_declined(
        &self,
        owner: &Tenant,
        company_number: &str,
    ) -> Result<Option<Application>, StoreError> {
        self.read(|c| {
            c.prepare_cached(shared!(sql::lending::LATEST_DECLINED))?
                .query_row([owner.as_str(), company_number], application_row)
                .optional()
        })
    }

    async fn hub_decisions(
        &self,
        owner: &Tenant,
        query: &DecisionQuery,
    ) -> Result<DecisionPage, StoreError> {
        self.read(|c| decisions(c, owner, query))
    }

    async fn due_applications(
        &self,
        service_now_ms: i64,
        limit: u32,
    ) -> Result<Vec<DueApplication>, StoreError> {
        self.read(|c| {
            due(
                c,
                shared!(sql::lending::DUE_APPLICATIONS),
                service_now_ms,
                limit,
            )
        })
    }
}

#[async_trait]
impl ServicingStore for SqliteStore {
    async fn hub_accounts(
        &self,
        owner: &Tenant,
        q: &AccountQuery,
    ) -> Result<AccountPage, StoreError> {
        self.read(|c| {
            Ok(
                match page(
                    c,
                    &sql::ACCOUNTS,
                    sql::lending::ACCOUNT_EXISTS,
                    owner.as_str(),
                    &q.page,
                    &[q.status, q.sub_account_id.as_deref()],
                    None,
                )? {
                    Some(p) => AccountPage::Page(p),
                    None => AccountPage::UnknownCursor,
                },
            )
        })
    }

    async fn ledger_page(
        &self,
        owner: &Tenant,
        account_id: &str,
        q: &PageQuery,
    ) -> Result<LedgerPage, StoreError> {
        self.read(|c| {
            Ok(
                match page(
                    c,
                    &sql::LEDGER_ENTRIES,
                    sql::lending::ENTRY_EXISTS,
                    owner.as_str(),
                    q,
                    &[Some(account_id)],
                    None,
                )? {
                    Some(p) => LedgerPage::Page(p),
                    None => LedgerPage::UnknownCursor,
                },
            )
        })
    }

    async fn payment(&self, owner: &Tenant, id: &str) -> Result<Option<Payment>, StoreError> {
        self.read(|c| {
            c.prepare_cached(shared!(sql::lending::PAYMENT))?
                .query_row([id, owner.as_str()], |r| {
                    rows::from_json(&r.get::<_, String>(0)?)
                })
                .optional()
        })
    }

    async fn payment_any_owner(&self, id: &str) -> Result<Option<Payment>, StoreError> {
        self.read(|c| {
            c.prepare_cached(shared!(sql::lending::PAYMENT_ANY_OWNER))?
                .query_row([id], |r| rows::from_json(&r.get::<_, String>(0)?))
                .optional()
        })
    }

    async fn hub_payments(
        &self,
        owner: &Tenant,
        q: &PaymentQuery,
    ) -> Result<PaymentPage, StoreError> {
        self.read(|c| {
            Ok(
                match page(
                    c,
                    &sql::PAYMENTS,
                    sql::lending::PAYMENT_EXISTS,
                    owner.as_str(),
                    &q.page,
                    &[q.account_id.as_deref(), q.status],
                    None,
                )? {
                    Some(p) => PaymentPage::Page(p),
                    None => PaymentPage::UnknownCursor,
                },
            )
        })
    }

    async fn due_payments(
        &self,
        service_now_ms: i64,
        limit: u32,
    ) -> Result<Vec<DuePayment>, StoreError> {
        self.read(|c| {
            due(
                c,
                shared!(sql::lending::DUE_PAYMENTS),
                service_now_ms,
                limit,
            )
        })
    }

    async fn account_any_owner(&self, id: &str) -> Result<Option<Account>, StoreError> {
        self.read(|c| {
            c.prepare_cached(shared!(sql::lending::ACCOUNT_ANY_OWNER))?
                .query_row([id], |r| rows::from_json(&r.get::<_, String>(0)?))
                .optional()
        })
    }

    async fn due_accounts(
        &self,
        service_now_ms: i64,
        limit: u32,
    ) -> Result<Vec<DueAccount>, StoreError> {
        self.read(|c| {
            due(
                c,
                shared!(sql::lending::DUE_ACCOUNTS),
                service_now_ms,
                limit,
            )
        })
    }

    async fn ledger_entry(&self, owner: &Tenant, id: &str) -> Result<Option<Entry>, StoreError> {
        self.read(|c| {
            c.prepare_cached(shared!(sql::lending::ENTRY))?
                .query_row([id, owner.as_str()], |r| {
                    rows::from_json(&r.get::<_, String>(0)?)
                })
                .optional()
        })
    }

    async fn ledger(&self, owner: &Tenant, account_id: &str) -> Result<Vec<Entry>, StoreError> {
        self.read(|c| {
            c.prepare_cached(shared!(sql::lending::LEDGER))?
                .query_map([owner.as_str(), account_id], |r| {
                    rows::from_json(&r.get::<_, String>(0)?)
                })?
                .collect()
        })
    }

    async fn company_accounts(
        &self,
        borrower: &str,
        q: &AccountQuery,
    ) -> Result<AccountPage, StoreError> {
        self.read(|c| {
            Ok(
                match page(
                    c,
                    &sql::COMPANY_ACCOUNTS,
                    sql::lending::COMPANY_ACCOUNT_EXISTS,
                    borrower,
                    &q.page,
                    &[q.status],
                    None,
                )? {
                    Some(p) => AccountPage::Page(p),
                    None => AccountPage::UnknownCursor,
                },
            )
        })
    }

    async fn company_account(
        &self,
        borrower: &str,
        id: &str,
    ) -> Result<Option<Account>, StoreError> {
        self.read(|c| {
            c.prepare_cached(shared!(sql::lending::COMPANY_ACCOUNT))?
                .query_row([id, borrower], |r| rows::from_json(&r.get::<_, String>(0)?))
                .optional()
        })
    }

    async fn schedule(&self, owner: &Tenant, id: &str) -> Result<Option<Schedule>, StoreError> {
        self.read(|c| {
            c.prepare_cached(shared!(sql::lending::SCHEDULE))?
                .query_row([id, owner.as_str()], |r| {
                    rows::from_json(&r.get::<_, String>(0)?)
                })
                .optional()
        })
    }

    async fn account_schedules(
        &self,
        owner: &Tenant,
        account_id: &str,
    ) -> Result<Vec<Schedule>, StoreError> {
        self.read(|c| {
            c.prepare_cached(shared!(sql::lending::ACCOUNT_SCHEDULES))?
                .query_map([owner.as_str(), account_id], |r| {
                    rows::from_json(&r.get::<_, String>(0)?)
                })?
                .collect()
        })
    }

    async fn due_schedules(
        &self,
        service_now_ms: i64,
        limit: u32,
    ) -> Result<Vec<DueSchedule>, StoreError> {
        self.read(|c| {
            due(
                c,
                shared!(sql::lending::DUE_SCHEDULES),
                service_now_ms,
                limit,
            )
        })
    }

    async fn mandate(&self, owner: &Tenant, id: &str) -> Result<Option<Mandate>, StoreError> {
        self.read(|c| {
            c.prepare_cached(shared!(sql::lending::MANDATE))?
                .query_row([id, owner.as_str()], |r| {
                    rows::from_json(&r.get::<_, String>(0)?)
                })
                .optional()
        })
    }

    async fn mandate_any_owner(&self, id: &str) -> Result<Option<Mandate>, StoreError> {
        self.read(|c| {
            c.prepare_cached(shared!(sql::lending::MANDATE_ANY_OWNER))?
                .query_row([id], |r| rows::from_json(&r.get::<_, String>(0)?))
                .optional()
        })
    }
}

#[async_trait]
impl CommercialStore for SqliteStore {
    async fn sub_account(
        &self,
        owner: &Tenant,
        id: &str,
    ) -> Result<Option<SubAccount>, StoreError> {
        self.read(|c| {
            body_row(
                c,
                shared!(sql::commercial::SUB_ACCOUNT),
                [id, owner.as_str()],
            )
        })
    }

    async fn sub_accounts(
        &self,
        owner: &Tenant,
        q: &PageQuery,
    ) -> Result<SubAccountPage, StoreError> {
        let exists = sql::commercial::SUB_ACCOUNT_EXISTS;
        self.read(|c| Ok(page(c, &sql::SUB_ACCOUNTS, exists, owner.as_str(), q, &[], None)?.into()))
    }

    async fn introductions(
        &self,
        owner: &Tenant,
        q: &IntroductionQuery,
    ) -> Result<IntroductionPage, StoreError> {
        let exists = sql::commercial::INTRODUCTION_EXISTS;
        let filters = [q.sub_account_id.as_deref()];
        self.read(|c| {
            Ok(page(
                c,
                &sql::INTRODUCTIONS,
                exists,
                owner.as_str(),
                &q.page,
                &filters,
                None,
            )?
            .into())
        })
    }
    async fn marketplace_app(&self, owner: &Tenant, id: &str) -> Result<Option<App>, StoreError> {
        self.read(|c| body_row(c, shared!(sql::commercial::APP), [id, owner.as_str()]))
    }

    async fn marketplace_app_any_owner(&self, id: &str) -> Result<Option<App>, StoreError> {
        self.read(|c| body_row(c, shared!(sql::commercial::APP_ANY_OWNER), [id]))
    }

    async fn marketplace_apps_in_review(
        &self,
        review: Review,
        limit: u32,
    ) -> Result<Vec<App>, StoreError> {
        self.read(|c| {
            body_rows(
                c,
                shared!(sql::commercial::APPS_IN_REVIEW),
                params![review.as_str(), limit],
            )
        })
    }

    async fn review_marketplace_app(&self, app: &App) -> Result<bool, StoreError> {
        let app = app.clone();
        self.write(move |c| {
            let changed = c
                .prepare_cached(shared!(sql::commercial::REVIEW_APP))?
                .execute(params![
                    app.id.to_string(),
                    app.review.as_str(),
                    app.version,
                    rows::to_json(&app)?,
                    app.version - 1
                ])?;
            Ok(changed == 1)
        })
        .await
    }

    async fn signals(
        &self,
        owner: &Tenant,
        application_id: &str,
    ) -> Result<Vec<Signal>, StoreError> {
        self.read(|c| {
            body_rows(
                c,
                shared!(sql::commercial::SIGNALS),
                params![owner.as_str(), application_id, crate::MAX_SIGNALS],
            )
        })
    }

    async fn partner_agreements(&self, client_id: &str) -> Result<Vec<Agreement>, StoreError> {
        self.read(|c| body_rows(c, shared!(sql::commercial::PARTNER_AGREEMENTS), [client_id]))
    }

    async fn owner_accounts(&self, owner: &Tenant) -> Result<Vec<Account>, StoreError> {
        self.read(|c| {
            body_rows(
                c,
                shared!(sql::commercial::OWNER_ACCOUNTS),
                [owner.as_str()],
            )
        })
    }

    async fn owner_sub_accounts(&self, owner: &Tenant) -> Result<Vec<SubAccount>, StoreError> {
        self.read(|c| {
            body_rows(
                c,
                shared!(sql::commercial::OWNER_SUB_ACCOUNTS),
                [owner.as_str()],
            )
        })
    }

    async fn billing_owners(&self, from_ms: i64, to_ms: i64) -> Result<Vec<Tenant>, StoreError> {
        self.read(|c| {
            c.prepare_cached(shared!(sql::commercial::BILLING_OWNERS))?
                .query_map(params![from_ms, to_ms], |r| {
                    Ok(Tenant::from_stored(r.get::<_, String>(0)?))
                })?
                .collect()
        })
    }

    async fn statement(&self, owner: &Tenant, id: &str) -> Result<Option<Statement>, StoreError> {
        self.read(|c| body_row(c, shared!(sql::commercial::STATEMENT), [id, owner.as_str()]))
    }

    async fn statement_for(
        &self,
        owner: &Tenant,
        period: &str,
    ) -> Result<Option<Statement>, StoreError> {
        self.read(|c| {
            body_row(
                c,
                shared!(sql::commercial::STATEMENT_FOR),
                [owner.as_str(), period],
            )
        })
    }

    async fn statements(
        &self,
        owner: &Tenant,
        q: &StatementQuery,
    ) -> Result<StatementPage, StoreError> {
        let exists = sql::commercial::STATEMENT_EXISTS;
        let filters = [q.period.as_deref()];
        self.read(|c| {
            Ok(page(
                c,
                &sql::STATEMENTS,
                exists,
                owner.as_str(),
                &q.page,
                &filters,
                None,
            )?
            .into())
        })
    }

    async fn payouts(&self, owner: &Tenant, q: &PayoutQuery) -> Result<PayoutPage, StoreError> {
        let exists = sql::commercial::PAYOUT_EXISTS;
        let filters = [q.sub_account_id.as_deref()];
        self.read(|c| {
            Ok(page(
                c,
                &sql::PAYOUTS,
                exists,
                owner.as_str(),
                &q.page,
                &filters,
                None,
            )?
            .into())
        })
    }

    async fn period_payouts(
        &self,
        owner: &Tenant,
        period: &str,
    ) -> Result<Vec<PayoutRecord>, StoreError> {
        self.read(|c| {
            body_rows(
                c,
                shared!(sql::commercial::PERIOD_PAYOUTS),
                [owner.as_str(), period],
            )
        })
    }

    async fn adjustments(
        &self,
        owner: &Tenant,
        period: &str,
    ) -> Result<Vec<Adjustment>, StoreError> {
        self.read(|c| {
            body_rows(
                c,
                shared!(sql::commercial::ADJUSTMENTS),
                [owner.as_str(), period],
            )
        })
    }

    async fn waiting_close(
        &self,
        owner: &Tenant,
        period: &str,
    ) -> Result<Option<Close>, StoreError> {
        self.read(|c| {
            body_row(
                c,
                shared!(sql::commercial::WAITING_CLOSE),
                [owner.as_str(), period],
            )
        })
    }

    async fn due_closes(&self, now_ms: i64, limit: u32) -> Result<Vec<DueClose>, StoreError> {
        self.read(|c| due(c, shared!(sql::commercial::DUE_CLOSES), now_ms, limit))
    }
}
