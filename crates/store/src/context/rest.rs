//! The hub's REST tier's three contexts (issues #14–#17): lending,
//! servicing and commercial. A resource adds its methods and records here,
//! their implementation to `queries/rest.rs` (once, for both backends), its
//! SQL to `sql.rs`, and its cases to the conformance suite's module of the
//! same name (`docs/architecture.md`, "Recipe: a new REST resource").

use async_trait::async_trait;
use lendhub_domain::billing::statement;
use lendhub_domain::ids::{
    AccountId, ApplicationId, BankConnectionId, DecisionId, MandateId, MarketplaceAppId, PaymentId,
    PayoutId, ScheduleId, StatementId, SubAccountId, VerificationId,
};
use lendhub_domain::lending::application::{Application, Decision, Status, UnderwritingAct};
use lendhub_domain::lending::bank_connection::BankConnection;
use lendhub_domain::lending::introduction::Introduction;
use lendhub_domain::lending::journey::Journey;
use lendhub_domain::lending::kyc::Verification;
use lendhub_domain::marketplace;
use lendhub_domain::partner::sub_account::{PayoutAccount, SubAccount};
use lendhub_domain::payout_rail::RailPayment;
use lendhub_domain::servicing::account::Account;
use lendhub_domain::servicing::collection::Payment;
use lendhub_domain::servicing::mandate::Mandate;
use lendhub_domain::servicing::schedule::Schedule;
use lendhub_domain::tenant::Tenant;

use crate::error::StoreError;
use crate::paging::{Page, PageQuery};

/// A page of an owner's applications, newest first, optionally of one
/// status, one reference, and only those whose id sorts at or after `after_id`
/// (ids sort by creation time: the handler turns `created_after` into the
/// smallest id of the next millisecond).
#[derive(Clone, Debug, Default)]
pub struct ApplicationQuery {
    pub page: PageQuery,
    pub status: Option<Status>,
    pub reference: Option<String>,
    /// Any part of the id, reference, company number or company name, in
    /// any case (the dashboard's search).
    pub search: Option<String>,
    pub after_id: Option<String>,
}

/// A page of an owner's servicing accounts, newest first, optionally of one
/// status.
#[derive(Clone, Debug, Default)]
pub struct AccountQuery {
    pub page: PageQuery,
    pub status: Option<&'static str>,
    /// Only loans introduced through this sub-account (a partner's lists).
    pub sub_account_id: Option<String>,
}

#[derive(Clone, Debug)]
pub enum SubAccountPage {
    Page(Page<SubAccount>),
    /// The cursor names no sub-account of this owner.
    UnknownCursor,
}

/// The commercial context's row changes within a [`crate::WriteSet`].
#[derive(Clone, Debug)]
pub enum CommercialWrite {
    /// A partner's terms from a month on, replacing an agreement made
    /// earlier from the same month.
    AgreeTerms {
        client_id: String,
        agreement: statement::agreement::Agreement,
        agreed_at_ms: i64,
    },
    InsertSubAccount(SubAccount),
    /// A sub-account as changed (its payout account).
    UpdateSubAccount(SubAccount),
    /// Where the partner's own remittances are paid, in one environment,
    /// from `at` (replacing any account before).
    SetPartnerPayoutAccount {
        owner: Tenant,
        account: PayoutAccount,
        at: time::OffsetDateTime,
    },
    /// With the application it introduces (one per application).
    InsertIntroduction(Introduction),
    InsertApp(marketplace::App),
    /// With the webhook endpoint that carries its deliveries.
    InsertSubscription(marketplace::Subscription),
    InsertSignal(marketplace::Signal),
    /// Written while it is a draft; a finalized statement never changes.
    PutStatement(statement::Statement),
    InsertAdjustment(statement::Adjustment),
    /// Written by a close until the rail first moves it; a paid payout
    /// never changes.
    PutPayout(statement::PayoutRecord),
    /// A payout's move on the rail, one version on, if it is still at the
    /// version before: of two workers, one commits.
    MovePayout(statement::PayoutRecord),
    /// A month to close when it is due (nothing if it already waits).
    ScheduleClose(statement::Close),
    /// Moves a waiting close on to `next` (its new due time), or ends it
    /// (`None`), if it is still due when it was read (`read`): of two
    /// closes of one month, one commits.
    MoveClose {
        read: statement::Close,
        key: String,
        next: Option<statement::Close>,
    },
}

/// A page of an owner's statements, newest first, optionally of one period.
#[derive(Clone, Debug, Default)]
pub struct StatementQuery {
    pub page: PageQuery,
    pub period: Option<String>,
}

#[derive(Clone, Debug)]
pub enum StatementPage {
    Page(Page<statement::Statement>),
    UnknownCursor,
}

/// A page of an owner's payouts, newest first, optionally of one
/// sub-account.
#[derive(Clone, Debug, Default)]
pub struct PayoutQuery {
    pub page: PageQuery,
    pub sub_account_id: Option<String>,
}

#[derive(Clone, Debug)]
pub enum PayoutPage {
    Page(Page<statement::PayoutRecord>),
    UnknownCursor,
}

/// The most signals one application takes (`POST /marketplace/signals`
/// refuses more), and so the most the engine reads.
pub const MAX_SIGNALS: u32 = 100;

/// A page of an owner's introductions, newest first, optionally of one
/// sub-account.
#[derive(Clone, Debug, Default)]
pub struct IntroductionQuery {
    pub page: PageQuery,
    pub sub_account_id: Option<String>,
}

#[derive(Clone, Debug)]
pub enum IntroductionPage {
    Page(Page<Introduction>),
    /// The cursor names no introduction of this owner.
    UnknownCursor,
}

#[derive(Clone, Debug)]
pub enum AccountPage {
    Page(Page<Account>),
    /// The cursor names no account of this owner.
    UnknownCursor,
}

/// A page of an owner's payments, newest first, optionally of one account
/// and one status.
#[derive(Clone, Debug, Default)]
pub struct PaymentQuery {
    pub page: PageQuery,
    pub account_id: Option<String>,
    pub status: Option<&'static str>,
}

#[derive(Clone, Debug)]
pub enum PaymentPage {
    Page(Page<Payment>),
    /// The cursor names no payment of this owner.
    UnknownCursor,
}

/// An account whose `Account::next_review` has passed on its owner's clock.
#[derive(Clone, Debug)]
pub struct DueAccount {
    pub account: Account,
    pub clock_offset_ms: i64,
}

/// A record due on its owner's clock, from a backend's (record, offset) row.
/// A list's page as the store reads it (`None`: the cursor names nothing
/// of the owner's) into the context's page type.
macro_rules! from_page {
    ($page:ident, $record:ty) => {
        impl From<Option<Page<$record>>> for $page {
            fn from(page: Option<Page<$record>>) -> Self {
                match page {
                    Some(p) => Self::Page(p),
                    None => Self::UnknownCursor,
                }
            }
        }
    };
}
from_page!(SubAccountPage, SubAccount);
from_page!(IntroductionPage, Introduction);
from_page!(StatementPage, statement::Statement);
from_page!(PayoutPage, statement::PayoutRecord);

macro_rules! from_due_row {
    ($due:ident, $field:ident, $record:ty) => {
        impl From<($record, i64)> for $due {
            fn from(($field, clock_offset_ms): ($record, i64)) -> Self {
                Self {
                    $field,
                    clock_offset_ms,
                }
            }
        }
    };
}
from_due_row!(DueApplication, application, Application);
from_due_row!(DuePayment, payment, Payment);
from_due_row!(DueAccount, account, Account);
from_due_row!(DueSchedule, schedule, Schedule);

/// A month due to close on its owner's clock.
#[derive(Clone, Debug)]
pub struct DueClose {
    pub close: statement::Close,
    pub clock_offset_ms: i64,
}
from_due_row!(DueClose, close, statement::Close);

/// A payout due over the rail on its owner's clock.
#[derive(Clone, Debug)]
pub struct DuePayout {
    pub payout: statement::PayoutRecord,
    pub clock_offset_ms: i64,
}
from_due_row!(DuePayout, payout, statement::PayoutRecord);

/// A schedule whose next instalment is due on its owner's clock.
#[derive(Clone, Debug)]
pub struct DueSchedule {
    pub schedule: Schedule,
    pub clock_offset_ms: i64,
}

/// A payment whose `Payment::due_at` has passed on its owner's clock.
#[derive(Clone, Debug)]
pub struct DuePayment {
    pub payment: Payment,
    pub clock_offset_ms: i64,
}

/// A page of an owner's decisions, newest first, optionally of one outcome
/// and from an id floor (`decided_after`).
#[derive(Clone, Debug, Default)]
pub struct DecisionQuery {
    pub page: PageQuery,
    /// approved, referred or declined.
    pub outcome: Option<&'static str>,
    pub after_id: Option<String>,
}

#[derive(Clone, Debug)]
pub enum DecisionPage {
    Page(Page<Decision>),
    /// The cursor names no decision of this owner.
    UnknownCursor,
}

#[derive(Clone, Debug)]
pub enum ApplicationPage {
    Page(Page<Application>),
    /// The cursor names no application of this owner.
    UnknownCursor,
}

/// An application past its `due_at` on its owner's clock: an open one to
/// expire, or a test-environment referral to settle.
#[derive(Clone, Debug)]
pub struct DueApplication {
    pub application: Application,
    pub clock_offset_ms: i64,
}

/// The lending context's row changes within a [`crate::WriteSet`].
#[derive(Clone, Debug)]
pub enum LendingWrite {
    InsertApplication(Application),
    /// Succeeds only if the stored version is `application.version - 1`;
    /// otherwise `Conflict`.
    UpdateApplication(Application),
    InsertVerification(Verification),
    InsertDecision(Decision),
    /// A decision decided anew, accepted or released: always beside the
    /// `UpdateApplication` of its application, whose version check orders
    /// concurrent changes to either. `Conflict` if there is no such decision.
    UpdateDecision(Decision),
    /// Appends to the underwriting log (never changed or removed).
    RecordAct(UnderwritingAct),
    /// The servicing account a funded loan opens (one per application),
    /// in the commit that posts its drawdown.
    OpenAccount(Account),
    /// A reviewed account (`Account::reviewed`); `Conflict` unless it is
    /// still in status `from`.
    UpdateAccount {
        account: Account,
        from: lendhub_domain::servicing::account::AccountStatus,
    },
    InsertPayment(Payment),
    /// Succeeds only if the stored version is `payment.version - 1`;
    /// otherwise `Conflict`.
    UpdatePayment(Payment),
    InsertSchedule(Schedule),
    /// Succeeds only if the stored version is `schedule.version - 1`;
    /// otherwise `Conflict`.
    UpdateSchedule(Schedule),
    InsertMandate(Mandate),
    /// Succeeds only if the stored version is `mandate.version - 1`;
    /// otherwise `Conflict`.
    UpdateMandate(Mandate),
    /// The handoff link by e-mail, to the applicant of an application with
    /// no `redirect_uri` (issue #44 item 19), in the commit that creates it.
    MailApplicant(crate::public::MailRecord),
    /// The handoff link's first use; `Conflict` if the application already
    /// has a journey (the link is single-use).
    StartJourney(Journey),
    /// Succeeds only if the stored version is `journey.version - 1`;
    /// otherwise `Conflict`.
    UpdateJourney(Journey),
    InsertBankConnection(BankConnection),
    /// An outbound payment, with the commit that first sends it; once.
    RecordRailPayment(RailPayment),
    /// The operator names the model of a role (`None`: no model has it).
    SetModelRole {
        role: lendhub_domain::credit_model::registry::Role,
        model: Option<lendhub_domain::credit_model::ModelRef>,
        at: time::OffsetDateTime,
    },
    /// A challenger's shadow score, in the commit of the decision it shadows.
    InsertShadowScore(lendhub_domain::credit_model::registry::ShadowScore),
    /// Monitor the week starting `week` now (again, if it ran):
    /// `lendhub models monitor`.
    RequestMonitoring {
        week: time::Date,
        at_ms: i64,
    },
    /// Monitor the week starting `week` at `due_ms`, unless it is already
    /// scheduled.
    ScheduleMonitoring {
        week: time::Date,
        due_ms: i64,
    },
    /// The run that answered the request made at `requested_at_ms`.
    Monitored {
        report: lendhub_domain::credit_model::drift::Report,
        requested_at_ms: i64,
        at_ms: i64,
    },
    /// The week's drift alert for a model in an environment; `Conflict` if
    /// it was raised already.
    RaiseDriftAlert {
        week: time::Date,
        environment: lendhub_domain::partner::credentials::Environment,
        model: lendhub_domain::credit_model::ModelRef,
        at_ms: i64,
    },
    /// Succeeds only if the stored version is `connection.version - 1`;
    /// otherwise `Conflict`.
    UpdateBankConnection(BankConnection),
    /// The agreement as signed, in the commit of the signature; kept
    /// unchanged (the database refuses to alter or delete it).
    RecordAgreement {
        owner: Tenant,
        agreement: lendhub_domain::lending::agreement::Signed,
    },
}

/// A week's model monitoring, asked for or scheduled.
#[derive(Clone, Debug, PartialEq)]
pub struct MonitoringRun {
    pub requested_at_ms: i64,
    pub done_at_ms: Option<i64>,
    pub report: Option<lendhub_domain::credit_model::drift::Report>,
}

/// An underwriting-log row from its columns, in either backend.
pub(crate) fn act_from_columns(
    decision_id: String,
    owner: String,
    act: String,
    actor: String,
    note: String,
    at_ms: i64,
) -> Result<UnderwritingAct, StoreError> {
    use lendhub_domain::ids::HubId;
    Ok(UnderwritingAct {
        decision_id: DecisionId::parse(&decision_id).ok_or_else(|| {
            StoreError::Internal(format!("a malformed decision id {decision_id} in the log"))
        })?,
        owner: Tenant::from_stored(owner),
        act: lendhub_domain::lending::application::Act::parse(&act)
            .ok_or_else(|| StoreError::Internal(format!("an unknown act {act} in the log")))?,
        actor,
        note,
        at: lendhub_domain::clock::from_unix_ms(at_ms),
    })
}

/// Applications, decisions and the hosted journey (issue #15).
#[async_trait]
pub trait LendingStore: Send + Sync {
    /// The credit model's roles as the operator set them.
    async fn model_roles(
        &self,
    ) -> Result<lendhub_domain::credit_model::registry::Roles, StoreError>;

    /// The agreement signed last for `owner`'s application, as signed.
    async fn agreement(
        &self,
        owner: &Tenant,
        application_id: &ApplicationId,
    ) -> Result<Option<lendhub_domain::lending::agreement::Signed>, StoreError>;

    /// The newest `limit` shadow scores, newest first.
    async fn shadow_scores(
        &self,
        limit: u32,
    ) -> Result<Vec<lendhub_domain::credit_model::registry::ShadowScore>, StoreError>;

    /// Up to `limit` decisions made in `[from_ms, to_ms)`, any partner's,
    /// oldest first, after the one made at `after` (its time and id), with
    /// the time each was made.
    async fn decided_between(
        &self,
        from_ms: i64,
        to_ms: i64,
        after: Option<(i64, &DecisionId)>,
        limit: u32,
    ) -> Result<Vec<(i64, Decision)>, StoreError>;

    /// A week's monitoring run, asked for or scheduled.
    async fn monitoring_run(&self, week: time::Date) -> Result<Option<MonitoringRun>, StoreError>;

    /// The weeks whose monitoring is due by `now_ms`, with when each was
    /// asked for.
    async fn due_monitoring(
        &self,
        now_ms: i64,
        limit: u32,
    ) -> Result<Vec<(time::Date, i64)>, StoreError>;

    /// The newest `limit` weeks' reports, newest first.
    async fn monitoring_reports(
        &self,
        limit: u32,
    ) -> Result<Vec<lendhub_domain::credit_model::drift::Report>, StoreError>;

    async fn hub_application(
        &self,
        owner: &Tenant,
        id: &ApplicationId,
    ) -> Result<Option<Application>, StoreError>;

    async fn hub_applications(
        &self,
        owner: &Tenant,
        query: &ApplicationQuery,
    ) -> Result<ApplicationPage, StoreError>;

    async fn verification(
        &self,
        owner: &Tenant,
        id: &VerificationId,
    ) -> Result<Option<Verification>, StoreError>;

    async fn hub_decision(
        &self,
        owner: &Tenant,
        id: &DecisionId,
    ) -> Result<Option<Decision>, StoreError>;

    /// A servicing account of the owner's.
    async fn hub_account(
        &self,
        owner: &Tenant,
        id: &AccountId,
    ) -> Result<Option<Account>, StoreError>;

    /// The version of an application of the owner's: a probe cheaper than
    /// reading it, for callers that keep it rendered. Its version moves
    /// with every change to it or to its decision (`UpdateDecision` always
    /// travels with its application's update).
    async fn application_version(
        &self,
        owner: &Tenant,
        id: &ApplicationId,
    ) -> Result<Option<i64>, StoreError>;

    /// Any partner's application: the hosted journey's, whose link names
    /// only the application.
    async fn application_any_owner(
        &self,
        id: &ApplicationId,
    ) -> Result<Option<Application>, StoreError>;

    /// The hosted journey of an application, if its link was ever used.
    async fn journey(&self, application_id: &ApplicationId) -> Result<Option<Journey>, StoreError>;

    /// Any partner's bank connection: the open-banking callback's state
    /// names only the connection.
    async fn bank_connection(
        &self,
        id: &BankConnectionId,
    ) -> Result<Option<BankConnection>, StoreError>;

    /// Any partner's outbound payment, by its end-to-end id: the payout
    /// rail's webhook names only that.
    async fn rail_payment(&self, end_to_end_id: &str) -> Result<Option<RailPayment>, StoreError>;

    /// Any partner's decision: the operator's view.
    async fn decision_any_owner(&self, id: &DecisionId) -> Result<Option<Decision>, StoreError>;

    /// The underwriting queue: applications `in_review`, oldest first.
    async fn in_review(&self, limit: u32) -> Result<Vec<Application>, StoreError>;

    /// The underwriting log, oldest first; of one decision if named.
    async fn underwriting_log(
        &self,
        decision_id: Option<&DecisionId>,
    ) -> Result<Vec<UnderwritingAct>, StoreError>;

    /// The owner's newest declined application for `company_number`, whose
    /// decline starts the company's cooling-off.
    async fn latest_declined(
        &self,
        owner: &Tenant,
        company_number: &str,
    ) -> Result<Option<Application>, StoreError>;

    async fn hub_decisions(
        &self,
        owner: &Tenant,
        query: &DecisionQuery,
    ) -> Result<DecisionPage, StoreError>;

    /// Applications whose `Application::due_at` has passed on their owner's
    /// clock (`due_at <= service_now_ms + offset`), soonest first.
    async fn due_applications(
        &self,
        service_now_ms: i64,
        limit: u32,
    ) -> Result<Vec<DueApplication>, StoreError>;
}

/// Servicing accounts, the ledger, payment links and schedules (issue #16).
/// Its writes travel as `LendingWrite`s: an account opens in the commit
/// that funds its loan.
#[async_trait]
pub trait ServicingStore: Send + Sync {
    async fn hub_accounts(
        &self,
        owner: &Tenant,
        query: &AccountQuery,
    ) -> Result<AccountPage, StoreError>;

    async fn payment(&self, owner: &Tenant, id: &PaymentId) -> Result<Option<Payment>, StoreError>;

    /// Any partner's payment: the hosted pay page's, whose link names only
    /// the payment.
    async fn payment_any_owner(&self, id: &PaymentId) -> Result<Option<Payment>, StoreError>;

    async fn hub_payments(
        &self,
        owner: &Tenant,
        query: &PaymentQuery,
    ) -> Result<PaymentPage, StoreError>;

    /// Payments whose `Payment::due_at` has passed on their owner's clock,
    /// soonest first.
    async fn due_payments(
        &self,
        service_now_ms: i64,
        limit: u32,
    ) -> Result<Vec<DuePayment>, StoreError>;

    /// Any partner's account: the operator's view.
    async fn account_any_owner(&self, id: &AccountId) -> Result<Option<Account>, StoreError>;

    /// Accounts whose `next_review` has passed on their owner's clock.
    async fn due_accounts(
        &self,
        service_now_ms: i64,
        limit: u32,
    ) -> Result<Vec<DueAccount>, StoreError>;

    /// A borrowing company's accounts in one environment, whoever
    /// introduced them (`Account::borrower`): a person's own.
    async fn company_accounts(
        &self,
        borrower: &str,
        query: &AccountQuery,
    ) -> Result<AccountPage, StoreError>;

    /// One account of a borrowing company's.
    async fn company_account(
        &self,
        borrower: &str,
        id: &AccountId,
    ) -> Result<Option<Account>, StoreError>;

    async fn schedule(
        &self,
        owner: &Tenant,
        id: &ScheduleId,
    ) -> Result<Option<Schedule>, StoreError>;

    /// One account's payment schedules, newest first.
    async fn account_schedules(
        &self,
        owner: &Tenant,
        account_id: &AccountId,
    ) -> Result<Vec<Schedule>, StoreError>;

    /// Schedules whose next instalment is due on their owner's clock.
    async fn due_schedules(
        &self,
        service_now_ms: i64,
        limit: u32,
    ) -> Result<Vec<DueSchedule>, StoreError>;

    async fn mandate(&self, owner: &Tenant, id: &MandateId) -> Result<Option<Mandate>, StoreError>;

    /// Any partner's mandate: the pay page's, whose link names only it.
    async fn mandate_any_owner(&self, id: &MandateId) -> Result<Option<Mandate>, StoreError>;
}

/// The marketplace and partner economics (issue #17).
#[async_trait]
pub trait CommercialStore: Send + Sync {
    async fn sub_account(
        &self,
        owner: &Tenant,
        id: &SubAccountId,
    ) -> Result<Option<SubAccount>, StoreError>;

    /// A page of an owner's sub-accounts, newest first.
    async fn sub_accounts(
        &self,
        owner: &Tenant,
        page: &PageQuery,
    ) -> Result<SubAccountPage, StoreError>;

    async fn introductions(
        &self,
        owner: &Tenant,
        query: &IntroductionQuery,
    ) -> Result<IntroductionPage, StoreError>;

    async fn marketplace_app(
        &self,
        owner: &Tenant,
        id: &MarketplaceAppId,
    ) -> Result<Option<marketplace::App>, StoreError>;

    /// Any owner's app: the operator's review.
    async fn marketplace_app_any_owner(
        &self,
        id: &MarketplaceAppId,
    ) -> Result<Option<marketplace::App>, StoreError>;

    /// Apps in one review state, oldest first: the operator's queue.
    async fn marketplace_apps_in_review(
        &self,
        review: marketplace::Review,
        limit: u32,
    ) -> Result<Vec<marketplace::App>, StoreError>;

    /// Records the operator's review (`App::review`), over the version it
    /// was made from: `false` when another review came first.
    async fn review_marketplace_app(&self, app: &marketplace::App) -> Result<bool, StoreError>;

    /// An application's signals in the order they arrived, at most
    /// [`MAX_SIGNALS`].
    async fn signals(
        &self,
        owner: &Tenant,
        application_id: &ApplicationId,
    ) -> Result<Vec<marketplace::Signal>, StoreError>;
    /// A partner's agreements, oldest first (`CommercialWrite::AgreeTerms`).
    async fn partner_agreements(
        &self,
        client_id: &str,
    ) -> Result<Vec<statement::agreement::Agreement>, StoreError>;

    /// Every account the owner ever opened, oldest first.
    async fn owner_accounts(&self, owner: &Tenant) -> Result<Vec<Account>, StoreError>;

    /// Every sub-account of the owner.
    async fn owner_sub_accounts(&self, owner: &Tenant) -> Result<Vec<SubAccount>, StoreError>;

    /// Owners that opened an account in `[from_ms, to_ms)` on their clock.
    async fn billing_owners(&self, from_ms: i64, to_ms: i64) -> Result<Vec<Tenant>, StoreError>;

    async fn statement(
        &self,
        owner: &Tenant,
        id: &StatementId,
    ) -> Result<Option<statement::Statement>, StoreError>;

    async fn statement_for(
        &self,
        owner: &Tenant,
        period: &str,
    ) -> Result<Option<statement::Statement>, StoreError>;

    async fn statements(
        &self,
        owner: &Tenant,
        query: &StatementQuery,
    ) -> Result<StatementPage, StoreError>;

    async fn payouts(&self, owner: &Tenant, query: &PayoutQuery) -> Result<PayoutPage, StoreError>;

    /// An owner's payouts for a month (`YYYY-MM`).
    async fn period_payouts(
        &self,
        owner: &Tenant,
        period: &str,
    ) -> Result<Vec<statement::PayoutRecord>, StoreError>;

    /// The corrections the owner's statement for `period` settles.
    async fn adjustments(
        &self,
        owner: &Tenant,
        period: &str,
    ) -> Result<Vec<statement::Adjustment>, StoreError>;

    /// The owner's month waiting to close, if it is.
    async fn waiting_close(
        &self,
        owner: &Tenant,
        period: &str,
    ) -> Result<Option<statement::Close>, StoreError>;

    /// Months due to close on their owner's clock (`now_ms` the service
    /// clock's), soonest first.
    async fn due_closes(&self, now_ms: i64, limit: u32) -> Result<Vec<DueClose>, StoreError>;

    async fn payout(
        &self,
        owner: &Tenant,
        id: &PayoutId,
    ) -> Result<Option<statement::PayoutRecord>, StoreError>;

    /// Payouts due over the rail on their owner's clock, soonest first.
    async fn due_payouts(&self, now_ms: i64, limit: u32) -> Result<Vec<DuePayout>, StoreError>;

    /// A payee's failed payouts, oldest period first: a sub-account's, or
    /// (`None`) the partner's own remittances.
    async fn failed_payouts(
        &self,
        owner: &Tenant,
        sub_account_id: Option<&SubAccountId>,
    ) -> Result<Vec<statement::PayoutRecord>, StoreError>;

    /// Where the partner's own remittances are paid, if the lender's
    /// operator has recorded it.
    async fn partner_payout_account(
        &self,
        owner: &Tenant,
    ) -> Result<Option<PayoutAccount>, StoreError>;
}
