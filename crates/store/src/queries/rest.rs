//! The REST tier's contexts (`crate::context::rest`): applications and
//! decisions, servicing, and the marketplace and partner economics. Every
//! read is a JSON body (column 0) by the statements of `crate::sql`; lists
//! page through a `sql::Keyset`.

use async_trait::async_trait;
use lendhub_domain::billing::statement::agreement::Agreement;
use lendhub_domain::billing::statement::{Adjustment, Close, PayoutRecord, Statement};
use lendhub_domain::ids::{
    AccountId, ApplicationId, BankConnectionId, DecisionId, HubId, MandateId, MarketplaceAppId,
    PaymentId, PayoutId, ScheduleId, StatementId, SubAccountId, VerificationId,
};
use lendhub_domain::lending::application::{Application, Decision, UnderwritingAct};
use lendhub_domain::lending::bank_connection::BankConnection;
use lendhub_domain::lending::journey::Journey;
use lendhub_domain::lending::kyc::Verification;
use lendhub_domain::marketplace::{App, Review, Signal};
use lendhub_domain::partner::sub_account::{PayoutAccount, SubAccount};
use lendhub_domain::payout_rail::RailPayment;
use lendhub_domain::servicing::account::Account;
use lendhub_domain::servicing::collection::Payment;
use lendhub_domain::servicing::mandate::Mandate;
use lendhub_domain::servicing::schedule::Schedule;
use lendhub_domain::tenant::Tenant;
use serde::de::DeserializeOwned;

use crate::context::rest::*;
use crate::error::StoreError;
use crate::exec::{self, Backend, Exec, Param, Row, to_json};
use crate::paging::{Page, PageQuery};
use crate::sql::{self, Keyset, PageShape};
use crate::sqlite::row_keys;
use crate::{params, values};

/// The JSON bodies of the rows `statement` finds with `params`.
async fn bodies<B: Backend, T: DeserializeOwned>(
    b: &B,
    statement: &'static str,
    params: &[Param<'_>],
) -> Result<Vec<T>, StoreError> {
    b.all(statement, params, |r| r.json(0)).await
}

/// The JSON body of the one row `statement` finds with `params`, if any.
async fn body<B: Backend, T: DeserializeOwned>(
    b: &B,
    statement: &'static str,
    params: &[Param<'_>],
) -> Result<Option<T>, StoreError> {
    b.one(statement, params, |r| r.json(0)).await
}

/// Records due on their owners' clocks by `now_ms` (`sql::lending::DUE_*`
/// and its kin: a body, then the owner's clock offset), soonest first.
async fn due<B: Backend, T: DeserializeOwned, D: From<(T, i64)>>(
    b: &B,
    statement: &'static str,
    now_ms: i64,
    limit: u32,
) -> Result<Vec<D>, StoreError> {
    b.all(statement, &params![now_ms, limit], |r| {
        Ok(D::from((r.json(0)?, r.get(1)?)))
    })
    .await
}

/// One newest-first page of `keyset` for `owner` (`None` if the anchor,
/// looked up by `exists`, is not the owner's): `limit + 1` rows in index
/// order from the anchor.
async fn page<B: Backend, T: DeserializeOwned>(
    b: &B,
    keyset: &'static Keyset,
    exists: &'static str,
    owner: &str,
    q: &PageQuery,
    filters: &[Option<&str>],
    floor: Option<&str>,
) -> Result<Option<Page<T>>, StoreError> {
    let mut c = b.connection().await?;
    let (anchor, newer) = q.anchor();
    if let Some(id) = anchor
        && c.query_opt(exists, &params![id, owner]).await?.is_none()
    {
        return Ok(None);
    }
    let given: Vec<bool> = filters.iter().map(Option::is_some).collect();
    let shape = PageShape::new(newer, anchor.is_some(), floor.is_some(), &given);
    let mut bound = vec![Param::from(owner), Param::from(anchor)];
    bound.extend(filters.iter().map(|f| Param::from(*f)));
    bound.extend([Param::from(floor), Param::from(q.fetch())]);
    let fetched = c
        .query(keyset.sql(shape), &bound)
        .await?
        .iter()
        .map(|r| r.json(0))
        .collect::<Result<Vec<T>, _>>()?;
    Ok(Some(q.page(fetched)))
}

/// An underwriting-log row.
fn act(r: &Row) -> Result<UnderwritingAct, StoreError> {
    act_from_columns(
        r.get(0)?,
        r.get(1)?,
        r.get(2)?,
        r.get(3)?,
        r.get(4)?,
        r.get(5)?,
    )
}

#[async_trait]
impl<B: Backend> LendingStore for B {
    async fn model_roles(
        &self,
    ) -> Result<lendhub_domain::credit_model::registry::Roles, StoreError> {
        use lendhub_domain::credit_model::registry::{Role, Roles};
        let named: Vec<(String, lendhub_domain::credit_model::ModelRef)> = self
            .all(sql::lending::MODEL_ROLES, &[], |r| {
                Ok((r.get(0)?, r.json(1)?))
            })
            .await?;
        let mut roles = Roles::default();
        for (role, model) in named {
            match role.as_str() {
                r if r == Role::Champion.as_str() => roles.champion = Some(model),
                r if r == Role::Challenger.as_str() => roles.challenger = Some(model),
                _ => {}
            }
        }
        Ok(roles)
    }

    async fn agreement(
        &self,
        owner: &Tenant,
        application_id: &ApplicationId,
    ) -> Result<Option<lendhub_domain::lending::agreement::Signed>, StoreError> {
        body(
            self,
            sql::lending::AGREEMENT,
            &params![application_id.as_str(), owner],
        )
        .await
    }

    async fn shadow_scores(
        &self,
        limit: u32,
    ) -> Result<Vec<lendhub_domain::credit_model::registry::ShadowScore>, StoreError> {
        bodies(self, sql::lending::SHADOW_SCORES, &params![limit]).await
    }

    async fn decided_between(
        &self,
        from_ms: i64,
        to_ms: i64,
        after: Option<(i64, &DecisionId)>,
        limit: u32,
    ) -> Result<Vec<(i64, Decision)>, StoreError> {
        let (at, id) = after.map_or((from_ms - 1, ""), |(at, id)| (at, id.as_str()));
        let params = params![from_ms, to_ms, at, id, limit];
        self.all(sql::lending::DECIDED_BETWEEN, &params, |r| {
            Ok((r.get(0)?, r.json(1)?))
        })
        .await
    }

    async fn monitoring_run(&self, week: time::Date) -> Result<Option<MonitoringRun>, StoreError> {
        let week = week.to_string();
        self.one(sql::lending::MONITORING_RUN, &params![&week], |r| {
            let body: Option<String> = r.get(2)?;
            Ok(MonitoringRun {
                requested_at_ms: r.get(0)?,
                done_at_ms: r.get(1)?,
                report: body
                    .map(|b| serde_json::from_str(&b))
                    .transpose()
                    .map_err(|e| StoreError::Internal(format!("a monitoring report: {e}")))?,
            })
        })
        .await
    }

    async fn due_monitoring(
        &self,
        now_ms: i64,
        limit: u32,
    ) -> Result<Vec<(time::Date, i64)>, StoreError> {
        self.all(sql::lending::DUE_MONITORING, &params![now_ms, limit], |r| {
            Ok((super::ledger::day(&r.get::<String>(0)?)?, r.get(1)?))
        })
        .await
    }

    async fn monitoring_reports(
        &self,
        limit: u32,
    ) -> Result<Vec<lendhub_domain::credit_model::drift::Report>, StoreError> {
        bodies(self, sql::lending::MONITORING_REPORTS, &params![limit]).await
    }

    async fn hub_application(
        &self,
        owner: &Tenant,
        id: &ApplicationId,
    ) -> Result<Option<Application>, StoreError> {
        let (keyed, plain) = (row_keys::lending::APPLICATION, sql::lending::APPLICATION);
        let (statement, params) = B::DIALECT.by_row_key(keyed, plain, &params![id.as_str(), owner]);
        body(self, statement, &params).await
    }

    async fn hub_applications(
        &self,
        owner: &Tenant,
        q: &ApplicationQuery,
    ) -> Result<ApplicationPage, StoreError> {
        let search = q.search.as_deref().map(sql::contains);
        let filters = [
            q.status.map(|s| s.as_str()),
            q.reference.as_deref(),
            search.as_deref(),
        ];
        let exists = sql::lending::APPLICATION_EXISTS;
        let floor = q.after_id.as_deref();
        let page = page(
            self,
            &sql::APPLICATIONS,
            exists,
            owner.as_str(),
            &q.page,
            &filters,
            floor,
        );
        Ok(page
            .await?
            .map_or(ApplicationPage::UnknownCursor, ApplicationPage::Page))
    }

    async fn verification(
        &self,
        owner: &Tenant,
        id: &VerificationId,
    ) -> Result<Option<Verification>, StoreError> {
        body(
            self,
            sql::lending::VERIFICATION,
            &params![id.as_str(), owner],
        )
        .await
    }

    async fn hub_decision(
        &self,
        owner: &Tenant,
        id: &DecisionId,
    ) -> Result<Option<Decision>, StoreError> {
        body(self, sql::lending::DECISION, &params![id.as_str(), owner]).await
    }

    async fn hub_account(
        &self,
        owner: &Tenant,
        id: &AccountId,
    ) -> Result<Option<Account>, StoreError> {
        body(self, sql::lending::ACCOUNT, &params![id.as_str(), owner]).await
    }

    async fn application_version(
        &self,
        owner: &Tenant,
        id: &ApplicationId,
    ) -> Result<Option<i64>, StoreError> {
        let key = format!("{}\u{0}{id}", owner.as_str());
        exec::remembered(self, |m| &m.application_versions, &key, async {
            let (keyed, plain) = (
                row_keys::lending::APPLICATION_VERSION,
                sql::lending::APPLICATION_VERSION,
            );
            let (statement, params) =
                B::DIALECT.by_row_key(keyed, plain, &params![id.as_str(), owner]);
            let mut c = self.connection().await?;
            c.query_opt(statement, &params)
                .await?
                .map(|r| r.get::<i64>(0))
                .transpose()
        })
        .await
    }

    async fn application_any_owner(
        &self,
        id: &ApplicationId,
    ) -> Result<Option<Application>, StoreError> {
        let (keyed, plain) = (
            row_keys::lending::APPLICATION_ANY_OWNER,
            sql::lending::APPLICATION_ANY_OWNER,
        );
        let (statement, params) = B::DIALECT.by_row_key(keyed, plain, &params![id.as_str()]);
        body(self, statement, &params).await
    }

    async fn journey(&self, application_id: &ApplicationId) -> Result<Option<Journey>, StoreError> {
        let params = params![application_id.as_str()];
        body(self, sql::lending::JOURNEY, &params).await
    }

    async fn bank_connection(
        &self,
        id: &BankConnectionId,
    ) -> Result<Option<BankConnection>, StoreError> {
        body(self, sql::lending::BANK_CONNECTION, &params![id.as_str()]).await
    }

    async fn rail_payment(&self, end_to_end_id: &str) -> Result<Option<RailPayment>, StoreError> {
        body(self, sql::lending::RAIL_PAYMENT, &params![end_to_end_id]).await
    }

    async fn decision_any_owner(&self, id: &DecisionId) -> Result<Option<Decision>, StoreError> {
        body(
            self,
            sql::lending::DECISION_ANY_OWNER,
            &params![id.as_str()],
        )
        .await
    }

    async fn in_review(&self, limit: u32) -> Result<Vec<Application>, StoreError> {
        bodies(self, sql::lending::IN_REVIEW, &params![limit]).await
    }

    async fn underwriting_log(
        &self,
        decision_id: Option<&DecisionId>,
    ) -> Result<Vec<UnderwritingAct>, StoreError> {
        match decision_id {
            Some(id) => {
                self.all(sql::lending::ACTS_OF_DECISION, &params![id.as_str()], act)
                    .await
            }
            None => self.all(sql::lending::ACTS, &[], act).await,
        }
    }

    async fn latest_declined(
        &self,
        owner: &Tenant,
        company_number: &str,
    ) -> Result<Option<Application>, StoreError> {
        let params = params![owner, company_number];
        body(self, sql::lending::LATEST_DECLINED, &params).await
    }

    async fn hub_decisions(
        &self,
        owner: &Tenant,
        q: &DecisionQuery,
    ) -> Result<DecisionPage, StoreError> {
        let exists = sql::lending::DECISION_EXISTS;
        let floor = q.after_id.as_deref();
        let filters = [q.outcome];
        let page = page(
            self,
            &sql::DECISIONS,
            exists,
            owner.as_str(),
            &q.page,
            &filters,
            floor,
        );
        Ok(page
            .await?
            .map_or(DecisionPage::UnknownCursor, DecisionPage::Page))
    }

    async fn due_applications(
        &self,
        service_now_ms: i64,
        limit: u32,
    ) -> Result<Vec<DueApplication>, StoreError> {
        due(self, sql::lending::DUE_APPLICATIONS, service_now_ms, limit).await
    }
}

#[async_trait]
impl<B: Backend> ServicingStore for B {
    async fn hub_accounts(
        &self,
        owner: &Tenant,
        q: &AccountQuery,
    ) -> Result<AccountPage, StoreError> {
        let exists = sql::lending::ACCOUNT_EXISTS;
        let filters = [q.status, q.sub_account_id.as_deref()];
        let page = page(
            self,
            &sql::ACCOUNTS,
            exists,
            owner.as_str(),
            &q.page,
            &filters,
            None,
        );
        Ok(page
            .await?
            .map_or(AccountPage::UnknownCursor, AccountPage::Page))
    }

    async fn payment(&self, owner: &Tenant, id: &PaymentId) -> Result<Option<Payment>, StoreError> {
        body(self, sql::lending::PAYMENT, &params![id.as_str(), owner]).await
    }

    async fn payment_any_owner(&self, id: &PaymentId) -> Result<Option<Payment>, StoreError> {
        body(self, sql::lending::PAYMENT_ANY_OWNER, &params![id.as_str()]).await
    }

    async fn hub_payments(
        &self,
        owner: &Tenant,
        q: &PaymentQuery,
    ) -> Result<PaymentPage, StoreError> {
        let exists = sql::lending::PAYMENT_EXISTS;
        let filters = [q.account_id.as_deref(), q.status];
        let page = page(
            self,
            &sql::PAYMENTS,
            exists,
            owner.as_str(),
            &q.page,
            &filters,
            None,
        );
        Ok(page
            .await?
            .map_or(PaymentPage::UnknownCursor, PaymentPage::Page))
    }

    async fn due_payments(
        &self,
        service_now_ms: i64,
        limit: u32,
    ) -> Result<Vec<DuePayment>, StoreError> {
        due(self, sql::lending::DUE_PAYMENTS, service_now_ms, limit).await
    }

    async fn account_any_owner(&self, id: &AccountId) -> Result<Option<Account>, StoreError> {
        body(self, sql::lending::ACCOUNT_ANY_OWNER, &params![id.as_str()]).await
    }

    async fn due_accounts(
        &self,
        service_now_ms: i64,
        limit: u32,
    ) -> Result<Vec<DueAccount>, StoreError> {
        due(self, sql::lending::DUE_ACCOUNTS, service_now_ms, limit).await
    }

    async fn company_accounts(
        &self,
        borrower: &str,
        q: &AccountQuery,
    ) -> Result<AccountPage, StoreError> {
        let exists = sql::lending::COMPANY_ACCOUNT_EXISTS;
        let filters = [q.status];
        let page = page(
            self,
            &sql::COMPANY_ACCOUNTS,
            exists,
            borrower,
            &q.page,
            &filters,
            None,
        );
        Ok(page
            .await?
            .map_or(AccountPage::UnknownCursor, AccountPage::Page))
    }

    async fn company_account(
        &self,
        borrower: &str,
        id: &AccountId,
    ) -> Result<Option<Account>, StoreError> {
        let params = params![id.as_str(), borrower];
        body(self, sql::lending::COMPANY_ACCOUNT, &params).await
    }

    async fn schedule(
        &self,
        owner: &Tenant,
        id: &ScheduleId,
    ) -> Result<Option<Schedule>, StoreError> {
        body(self, sql::lending::SCHEDULE, &params![id.as_str(), owner]).await
    }

    async fn account_schedules(
        &self,
        owner: &Tenant,
        account_id: &AccountId,
    ) -> Result<Vec<Schedule>, StoreError> {
        let params = params![owner, account_id.as_str()];
        bodies(self, sql::lending::ACCOUNT_SCHEDULES, &params).await
    }

    async fn due_schedules(
        &self,
        service_now_ms: i64,
        limit: u32,
    ) -> Result<Vec<DueSchedule>, StoreError> {
        due(self, sql::lending::DUE_SCHEDULES, service_now_ms, limit).await
    }

    async fn mandate(&self, owner: &Tenant, id: &MandateId) -> Result<Option<Mandate>, StoreError> {
        body(self, sql::lending::MANDATE, &params![id.as_str(), owner]).await
    }

    async fn mandate_any_owner(&self, id: &MandateId) -> Result<Option<Mandate>, StoreError> {
        body(self, sql::lending::MANDATE_ANY_OWNER, &params![id.as_str()]).await
    }
}

#[async_trait]
impl<B: Backend> CommercialStore for B {
    async fn sub_account(
        &self,
        owner: &Tenant,
        id: &SubAccountId,
    ) -> Result<Option<SubAccount>, StoreError> {
        body(
            self,
            sql::commercial::SUB_ACCOUNT,
            &params![id.as_str(), owner],
        )
        .await
    }

    async fn sub_accounts(
        &self,
        owner: &Tenant,
        q: &PageQuery,
    ) -> Result<SubAccountPage, StoreError> {
        let exists = sql::commercial::SUB_ACCOUNT_EXISTS;
        let page = page(
            self,
            &sql::SUB_ACCOUNTS,
            exists,
            owner.as_str(),
            q,
            &[],
            None,
        );
        Ok(page.await?.into())
    }

    async fn introductions(
        &self,
        owner: &Tenant,
        q: &IntroductionQuery,
    ) -> Result<IntroductionPage, StoreError> {
        let exists = sql::commercial::INTRODUCTION_EXISTS;
        let filters = [q.sub_account_id.as_deref()];
        let page = page(
            self,
            &sql::INTRODUCTIONS,
            exists,
            owner.as_str(),
            &q.page,
            &filters,
            None,
        );
        Ok(page.await?.into())
    }

    async fn marketplace_app(
        &self,
        owner: &Tenant,
        id: &MarketplaceAppId,
    ) -> Result<Option<App>, StoreError> {
        body(self, sql::commercial::APP, &params![id.as_str(), owner]).await
    }

    async fn marketplace_app_any_owner(
        &self,
        id: &MarketplaceAppId,
    ) -> Result<Option<App>, StoreError> {
        body(self, sql::commercial::APP_ANY_OWNER, &params![id.as_str()]).await
    }

    async fn marketplace_apps_in_review(
        &self,
        review: Review,
        limit: u32,
    ) -> Result<Vec<App>, StoreError> {
        let params = params![review.as_str(), limit];
        bodies(self, sql::commercial::APPS_IN_REVIEW, &params).await
    }

    async fn review_marketplace_app(&self, app: &App) -> Result<bool, StoreError> {
        let plan = vec![exec::Statement::change(
            sql::commercial::REVIEW_APP,
            values![
                app.id.to_string(),
                app.review.as_str(),
                app.version,
                to_json(app)?,
                app.version - 1
            ],
        )];
        let done = self.write(plan).await?;
        Ok(done.first().is_some_and(|d| d.changed == 1))
    }

    async fn signals(
        &self,
        owner: &Tenant,
        application_id: &ApplicationId,
    ) -> Result<Vec<Signal>, StoreError> {
        let params = params![owner, application_id.as_str(), MAX_SIGNALS];
        bodies(self, sql::commercial::SIGNALS, &params).await
    }

    async fn partner_agreements(&self, client_id: &str) -> Result<Vec<Agreement>, StoreError> {
        bodies(
            self,
            sql::commercial::PARTNER_AGREEMENTS,
            &params![client_id],
        )
        .await
    }

    async fn owner_accounts(&self, owner: &Tenant) -> Result<Vec<Account>, StoreError> {
        bodies(self, sql::commercial::OWNER_ACCOUNTS, &params![owner]).await
    }

    async fn owner_sub_accounts(&self, owner: &Tenant) -> Result<Vec<SubAccount>, StoreError> {
        bodies(self, sql::commercial::OWNER_SUB_ACCOUNTS, &params![owner]).await
    }

    async fn billing_owners(&self, from_ms: i64, to_ms: i64) -> Result<Vec<Tenant>, StoreError> {
        let params = params![from_ms, to_ms];
        self.all(sql::commercial::BILLING_OWNERS, &params, |r| {
            Ok(Tenant::from_stored(r.get(0)?))
        })
        .await
    }

    async fn statement(
        &self,
        owner: &Tenant,
        id: &StatementId,
    ) -> Result<Option<Statement>, StoreError> {
        body(
            self,
            sql::commercial::STATEMENT,
            &params![id.as_str(), owner],
        )
        .await
    }

    async fn statement_for(
        &self,
        owner: &Tenant,
        period: &str,
    ) -> Result<Option<Statement>, StoreError> {
        body(
            self,
            sql::commercial::STATEMENT_FOR,
            &params![owner, period],
        )
        .await
    }

    async fn statements(
        &self,
        owner: &Tenant,
        q: &StatementQuery,
    ) -> Result<StatementPage, StoreError> {
        let exists = sql::commercial::STATEMENT_EXISTS;
        let filters = [q.period.as_deref()];
        let page = page(
            self,
            &sql::STATEMENTS,
            exists,
            owner.as_str(),
            &q.page,
            &filters,
            None,
        );
        Ok(page.await?.into())
    }

    async fn payouts(&self, owner: &Tenant, q: &PayoutQuery) -> Result<PayoutPage, StoreError> {
        let exists = sql::commercial::PAYOUT_EXISTS;
        let filters = [q.sub_account_id.as_deref()];
        let page = page(
            self,
            &sql::PAYOUTS,
            exists,
            owner.as_str(),
            &q.page,
            &filters,
            None,
        );
        Ok(page.await?.into())
    }

    async fn period_payouts(
        &self,
        owner: &Tenant,
        period: &str,
    ) -> Result<Vec<PayoutRecord>, StoreError> {
        bodies(
            self,
            sql::commercial::PERIOD_PAYOUTS,
            &params![owner, period],
        )
        .await
    }

    async fn adjustments(
        &self,
        owner: &Tenant,
        period: &str,
    ) -> Result<Vec<Adjustment>, StoreError> {
        bodies(self, sql::commercial::ADJUSTMENTS, &params![owner, period]).await
    }

    async fn waiting_close(
        &self,
        owner: &Tenant,
        period: &str,
    ) -> Result<Option<Close>, StoreError> {
        body(
            self,
            sql::commercial::WAITING_CLOSE,
            &params![owner, period],
        )
        .await
    }

    async fn due_closes(&self, now_ms: i64, limit: u32) -> Result<Vec<DueClose>, StoreError> {
        due(self, sql::commercial::DUE_CLOSES, now_ms, limit).await
    }

    async fn payout(
        &self,
        owner: &Tenant,
        id: &PayoutId,
    ) -> Result<Option<PayoutRecord>, StoreError> {
        body(self, sql::commercial::PAYOUT, &params![id.as_str(), owner]).await
    }

    async fn failed_payouts(
        &self,
        owner: &Tenant,
        sub_account_id: Option<&SubAccountId>,
    ) -> Result<Vec<PayoutRecord>, StoreError> {
        let payee = crate::unit::commercial::payee(sub_account_id);
        let params = params![owner, payee];
        bodies(self, sql::commercial::FAILED_PAYOUTS, &params).await
    }

    async fn partner_payout_account(
        &self,
        owner: &Tenant,
    ) -> Result<Option<PayoutAccount>, StoreError> {
        body(
            self,
            sql::commercial::PARTNER_PAYOUT_ACCOUNT,
            &params![owner],
        )
        .await
    }

    async fn due_payouts(&self, now_ms: i64, limit: u32) -> Result<Vec<DuePayout>, StoreError> {
        due(self, sql::commercial::DUE_PAYOUTS, now_ms, limit).await
    }
}
