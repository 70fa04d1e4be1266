//! The counterparties the hub reaches beyond its own database, one trait
//! each, with the built-in deterministic simulator as the default adapter
//! (`docs/guide/src/simulators.md` lists their magic values).

mod account_information;
mod companies_house;
mod credit_reports;
mod hop;
mod keyed_api;
mod message_signing;
mod open_banking;
mod payment_initiation;
mod payments_api;
mod payout_rail;
mod person_checks;
mod recurring_payments;

use std::sync::Arc;

use async_trait::async_trait;
use lendhub_domain::ledger::reconciliation::{BankAccount, BankMovement};
use lendhub_domain::lending::kyc::{Person, ProviderCheck};
use lendhub_domain::lending::register::RegisteredEntity;
use lendhub_domain::lending::underwriting::{Banking, CreditFile};
use lendhub_domain::partner::credentials::Environment;
use lendhub_domain::tenant::{Tenant, TenantKind};
use time::OffsetDateTime;

pub use account_information::OpenBankingAis;
pub use companies_house::{CompaniesHouse, Quota};
pub use credit_reports::CreditReports;
pub use message_signing::MessageSigner;
pub use open_banking::BankConnection;
pub use payment_initiation::OpenBankingPis;
pub use payout_rail::{ClearBank, FundingAccount};
pub use person_checks::PersonChecks;
pub use recurring_payments::OpenBankingVrp;

/// The HTTP client an adapter reaches its counterparty with: each request
/// (connecting, and answering) bounded by `timeout`, lendhub named as the
/// user agent, and no redirect followed: a counterparty's API answers where
/// it is asked, and a redirect elsewhere is not a server-to-server answer.
fn http_client(timeout: std::time::Duration) -> Result<reqwest::Client, reqwest::Error> {
    reqwest::Client::builder()
        .timeout(timeout)
        .connect_timeout(timeout)
        .user_agent(concat!("lendhub/", env!("CARGO_PKG_VERSION")))
        .redirect(reqwest::redirect::Policy::none())
        .build()
}

/// The register could not be asked (a real adapter's outage): the request
/// answers 503 and may be retried.
#[derive(Debug, thiserror::Error)]
#[error("the company register is unavailable: {0}")]
pub struct RegisterUnavailable(pub String);

/// The company register: Companies House (`CompaniesHouse`), the real one
/// or the model register (`lendhub_models::register`).
#[async_trait]
pub trait CompanyRegister: Send + Sync {
    /// The entity a well-formed number resolves to; `None` if none.
    async fn lookup(&self, number: &str) -> Result<Option<RegisteredEntity>, RegisterUnavailable>;
}

/// The person register (KYC/AML: identity, sanctions and PEP lists, and the
/// company's officers) could not be asked.
#[derive(Debug, thiserror::Error)]
#[error("the person register is unavailable: {0}")]
pub struct PeopleUnavailable(pub String);

/// Identity and AML checks of a person (a KYC provider): over lendhub's
/// person-checks API ([`PersonChecks`]), the model provider's or a real
/// one's.
#[async_trait]
pub trait PersonRegister: Send + Sync {
    /// What the register finds for `person`, under its id for the check;
    /// directorship only when a company is named.
    async fn check(
        &self,
        person: &Person,
        company_number: Option<&str>,
    ) -> Result<ProviderCheck, PeopleUnavailable>;
}

/// The bank could not be reached through open banking.
#[derive(Debug, thiserror::Error)]
#[error("the bank is unavailable: {0}")]
pub struct BankUnavailable(pub String);

/// The test banks a white-label submission names (`bank`), answered in
/// process: what each one's account shows. The hosted journey reads a real
/// account instead ([`AccountInformation`]); a white-label partner's own
/// bank connection is still to come (issue #46).
#[async_trait]
pub trait OpenBanking: Send + Sync {
    /// What the test bank `bank`'s account shows; `None` for a bank it does
    /// not know.
    async fn summary(&self, bank: &str) -> Result<Option<Banking>, BankUnavailable>;
}

/// Where the payer authorises lendhub to read their account: the bank's
/// consent, and the page to send them to.
#[derive(Clone, Debug)]
pub struct AccessRequest {
    pub consent_id: String,
    pub authorise_url: String,
}

/// The account the payer shared, as lendhub reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConnectedAccount {
    pub consent_id: String,
    /// The sort code and account number (14 digits): where a loan is paid.
    pub payout: String,
    pub name: Option<String>,
    pub balance_pence: Option<i64>,
    pub banking: Banking,
}

/// Why the shared account could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadRefused {
    /// The consent does not hold: the code was spent or expired, or the
    /// payer revoked the consent or it expired at the bank.
    #[error("the bank no longer honours the consent")]
    Consent,
    /// The payer shared no open sterling account lendhub could pay into.
    #[error("no account lendhub can read and pay into was shared")]
    NoUsableAccount,
    #[error(transparent)]
    Unavailable(#[from] BankUnavailable),
}

/// Open-banking account information (AIS): the payer authorises lendhub
/// at their bank, and lendhub reads the account they shared
/// ([`OpenBankingAis`], against a real bank or the model bank).
#[async_trait]
pub trait AccountInformation: Send + Sync {
    /// The banks a payer may connect, as (id, name shown to them).
    fn banks(&self) -> Vec<(String, String)>;

    /// The origins of the banks' authorisation pages (those it could
    /// discover): a page whose form sends the payer there must allow them.
    async fn authorisation_origins(&self) -> Vec<String>;

    /// Asks `bank` for an account-access consent; the payer authorises it
    /// at the URL returned, which sends them back with `state`.
    async fn request_access(
        &self,
        bank: &str,
        state: &str,
        nonce: &str,
    ) -> Result<AccessRequest, BankUnavailable>;

    /// Exchanges the authorization `code` the payer came back with and
    /// reads the account they shared.
    async fn read_account(
        &self,
        bank: &str,
        code: &str,
        nonce: &str,
    ) -> Result<ConnectedAccount, ReadRefused>;
}

/// The built-in test banks (`docs/guide/src/simulators.md`).
pub struct SyntheticBanks;

/// The test banks and what their accounts show.
pub const TEST_BANKS: [(&str, Banking); 4] = [
    (
        "test_bank_strong",
        Banking::steady(12, 8_000_000, 5_000_000),
    ),
    ("test_bank_low", Banking::steady(12, 2_000_000, 1_950_000)),
    ("test_bank_thin", Banking::steady(2, 3_000_000, 2_000_000)),
    // As strong as test_bank_strong, but the account has since been closed:
    // the disbursement is rejected (`account_closed`).
    (
        "test_bank_closed",
        Banking::steady(12, 8_000_000, 5_000_000),
    ),
];

/// The payout rail could not be reached, or answered nothing lendhub can
/// act on; the payment stays where it was and is tried again.
#[derive(Debug, thiserror::Error)]
#[error("the payout rail is unavailable: {0}")]
pub struct RailUnavailable(pub String);

/// One outbound Faster Payment out of the lender's funding account.
#[derive(Clone, Debug)]
pub struct Payout<'a> {
    /// Unique per payment, at most 35 characters: the rail's end-to-end id
    /// and duplicate check, the same on every try.
    pub end_to_end_id: &'a str,
    pub amount: lendhub_domain::money::Money,
    /// Sort code then account number.
    pub payee: &'a str,
    /// The account holder's name, as the payee's bank holds it.
    pub payee_name: &'a str,
    /// What the payee's statement shows (18 characters at most are sent).
    pub reference: &'a str,
}

/// What the rail said to a payment sent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Sent {
    /// Taken for processing: its end comes later, by webhook or status.
    Accepted,
    /// Refused outright, with the rail's answer (`InvalidAccount`, …).
    Refused { code: String },
}

/// What the rail says of a payment, asked by its end-to-end id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RailStatus {
    /// Never received: safe to send again under the same id.
    Unknown,
    InProgress,
    Ended(lendhub_domain::payout_rail::Outcome),
}

/// A webhook the rail posted, verified.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RailWebhook {
    /// Answered back, signed, to acknowledge it.
    pub nonce: i64,
    /// The outbound payment it ended (by end-to-end id), if it is about one.
    pub about: Option<(String, lendhub_domain::payout_rail::Outcome)>,
}

/// Why a webhook was not taken.
#[derive(Debug, thiserror::Error)]
pub enum WebhookRefused {
    #[error("the DigitalSignature does not verify with the rail's key")]
    Signature,
    #[error("not a webhook lendhub reads: {0}")]
    Body(String),
}

/// The lender's payout rail: Faster Payments out of its funding account,
/// as its clearing bank offers them (`payout_rail::ClearBank`, the model
/// bank's or ClearBank's own).
#[async_trait]
pub trait PayoutRail: Send + Sync {
    /// Sends `payout`; sending the same end-to-end id again is the same
    /// payment, never a second one.
    async fn send(&self, payout: &Payout<'_>) -> Result<Sent, RailUnavailable>;
    /// What became of the payment sent under `end_to_end_id`.
    async fn status(&self, end_to_end_id: &str) -> Result<RailStatus, RailUnavailable>;
    /// The lender's `account` as the bank's statement shows it: every
    /// movement whose time falls in `[from, to)`, settled or not; `None`
    /// when lendhub is not configured to read that account.
    async fn statement(
        &self,
        account: BankAccount,
        from: OffsetDateTime,
        to: OffsetDateTime,
    ) -> Result<Option<Vec<BankMovement>>, RailUnavailable>;
    /// The movement on `account` known by `end_to_end_id`, whenever it
    /// was made, if the bank shows one.
    async fn movement(
        &self,
        account: BankAccount,
        end_to_end_id: &str,
    ) -> Result<Option<BankMovement>, RailUnavailable>;
    /// A webhook's body and `DigitalSignature`, checked and read.
    fn read_webhook(&self, body: &[u8], signature: &str) -> Result<RailWebhook, WebhookRefused>;
    /// lendhub's answer to a webhook: its body and `DigitalSignature`.
    fn answer(&self, nonce: i64) -> Result<(Vec<u8>, String), RailUnavailable>;
}

#[async_trait]
impl OpenBanking for SyntheticBanks {
    async fn summary(&self, bank: &str) -> Result<Option<Banking>, BankUnavailable> {
        Ok(TEST_BANKS
            .iter()
            .find(|(name, _)| *name == bank)
            .map(|(_, b)| *b))
    }
}

/// The credit bureau could not be asked.
#[derive(Debug, thiserror::Error)]
#[error("the credit bureau is unavailable: {0}")]
pub struct BureauUnavailable(pub String);

/// A company's credit file (a credit reference agency): over lendhub's
/// credit-report API ([`CreditReports`]), the model bureau's or a real
/// one's.
#[async_trait]
pub trait CreditBureau: Send + Sync {
    async fn credit_file(&self, company_number: &str) -> Result<CreditFile, BureauUnavailable>;
}

/// The lender's account that open-banking payments are made to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CollectionAccount {
    /// As the payer's bank shows the payee (Confirmation of Payee).
    pub name: String,
    /// Six-digit sort code then eight-digit account number.
    pub sort_code_account_number: String,
}

/// One payment a payer makes from their bank to the lender.
#[derive(Clone, Debug)]
pub struct PaymentOrder<'a> {
    /// Unique per payment: its instruction and end-to-end identification
    /// at the bank, and its idempotency key there.
    pub id: &'a str,
    pub amount: lendhub_domain::money::Money,
    /// What the payer's statement shows (18 characters at most are sent).
    pub reference: &'a str,
    /// An instalment's due date, on its owner's clock (sent with a VRP
    /// payment as supplementary data).
    pub due_on: Option<time::Date>,
}

/// A payment the payer's bank accepted, and how far it has gone.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BankPayment {
    pub domestic_payment_id: String,
    pub progress: lendhub_domain::open_banking::pis::Progress,
    /// The account that paid (sort code then account number), when the
    /// bank said (`Data.Refund.Account`): where a refund goes.
    pub payer_account: Option<String>,
    /// Its `InstructionIdentification`: lendhub's payment id.
    pub instruction_id: String,
}

/// Why a bank's event notification was not taken.
#[derive(Debug, thiserror::Error)]
pub enum NotificationRefused {
    /// No bank of that id in this environment.
    #[error("no such bank")]
    UnknownBank,
    /// Not signed by the bank for lendhub, or not the standard's token.
    #[error("not the bank's notification: {0}")]
    Invalid(String),
    /// The bank's keys could not be read to check it.
    #[error(transparent)]
    Unavailable(#[from] BankUnavailable),
}

/// Why an authorised payment was not submitted.
#[derive(Debug, thiserror::Error)]
pub enum SubmitRefused {
    /// The code was spent or expired, named another consent, or the
    /// consent no longer holds: the payer must authorise again.
    #[error("the bank no longer honours the payment consent")]
    Consent,
    #[error(transparent)]
    Unavailable(#[from] BankUnavailable),
}

/// Open-banking payment initiation (PIS): the payer authorises a payment
/// to the lender at their bank, lendhub submits it and follows it until the
/// bank settles or rejects it ([`OpenBankingPis`], against a real bank or
/// the model bank).
#[async_trait]
pub trait BankPayments: Send + Sync {
    /// The banks a payer may pay from, as (id, name shown to them).
    fn banks(&self) -> Vec<(String, String)>;

    /// The origins of the banks' authorisation pages: the pay page's form
    /// sends the payer there.
    async fn authorisation_origins(&self) -> Vec<String>;

    /// A payment consent for `order` at `bank`, and where to send the payer
    /// to authorise it; the bank sends them back with `state`.
    async fn request_payment(
        &self,
        bank: &str,
        order: &PaymentOrder,
        state_and_nonce: (&str, &str),
    ) -> Result<AccessRequest, BankUnavailable>;

    /// The payment submitted under `consent_id`, which the payer authorised
    /// (their `code`, checked against `nonce`).
    async fn submit_payment(
        &self,
        bank: &str,
        order: &PaymentOrder,
        consent_id: &str,
        code_and_nonce: (&str, &str),
    ) -> Result<BankPayment, SubmitRefused>;

    /// Where a submitted payment stands now.
    async fn payment_status(
        &self,
        bank: &str,
        domestic_payment_id: &str,
    ) -> Result<BankPayment, BankUnavailable>;

    /// The event notification `token` `bank` posted, checked as the
    /// standard says (the bank's signature, issuer and audience).
    async fn notification(
        &self,
        bank: &str,
        token: &str,
    ) -> Result<lendhub_domain::open_banking::events::Notification, NotificationRefused>;
}

/// What a payer's mandate lets the lender take, as their bank's VRP
/// consent states it.
#[derive(Clone, Debug)]
pub struct MandateTerms<'a> {
    pub most_per_payment: lendhub_domain::money::Money,
    pub most_per_period: lendhub_domain::money::Money,
    pub period: lendhub_domain::open_banking::vrp::PeriodType,
    /// What the payer's statement shows for every payment under it.
    pub reference: &'a str,
}

/// The payer's tokens for a mandate's consent: an access token and the
/// refresh token that renews it. Secrets: stored sealed, never printed.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct PayerTokens {
    pub access_token: lendhub_domain::secret::Secret<String>,
    pub refresh_token: Option<lendhub_domain::secret::Secret<String>>,
    #[serde(with = "time::serde::rfc3339")]
    pub access_expires_at: time::OffsetDateTime,
}

/// A mandate as its bank knows it: the consent, the reference every
/// payment under it repeats, and the payer's tokens.
#[derive(Clone, Debug)]
pub struct MandateAtBank {
    pub consent_id: String,
    pub reference: String,
    pub tokens: PayerTokens,
}

/// Why an instalment was not paid under a mandate.
#[derive(Debug, thiserror::Error)]
pub enum CollectRefused {
    /// The payer revoked the consent at their bank, or it lapsed.
    #[error("the bank no longer honours the mandate")]
    Revoked,
    /// Over what the consent lets one payment or one period take.
    #[error("the payment is outside the mandate's limits")]
    OverLimits,
    #[error(transparent)]
    Unavailable(#[from] BankUnavailable),
    /// The bank renewed the payer's tokens and they could not be kept, so
    /// they were not used either.
    #[error("the payer's renewed tokens could not be kept: {0}")]
    Unkept(#[from] TokensNotKept),
}

/// Keeps the payer's tokens the moment their bank renews them, before they
/// are used: a bank may rotate the refresh token, so a renewal lost (to a
/// crash, or a write that lost a race) would be the mandate lost.
#[async_trait]
pub trait KeepTokens: Send + Sync {
    async fn keep(&self, renewed: &PayerTokens) -> Result<(), TokensNotKept>;
}

/// Why renewed tokens were not kept: they could not be sealed or written.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct TokensNotKept(pub String);

/// Mandates over open-banking variable recurring payments (VRP): the
/// payer authorises a standing consent at their bank once, and each
/// instalment is then paid under it without them ([`OpenBankingVrp`]).
#[async_trait]
pub trait BankMandates: Send + Sync {
    /// A VRP consent for `terms` at `bank`, and where to send the payer to
    /// authorise it; the bank sends them back with `state`.
    async fn request_mandate(
        &self,
        bank: &str,
        terms: &MandateTerms,
        state_and_nonce: (&str, &str),
    ) -> Result<AccessRequest, BankUnavailable>;

    /// The payer's tokens for `consent_id`, which they authorised (their
    /// `code`, checked against `nonce`).
    async fn authorise_mandate(
        &self,
        bank: &str,
        consent_id: &str,
        code_and_nonce: (&str, &str),
    ) -> Result<PayerTokens, SubmitRefused>;

    /// `order` paid under `mandate`: the bank's payment. The payer's
    /// tokens are renewed when they have lapsed or the bank no longer takes
    /// them, each renewal handed to `keep` before it is used. `Revoked`
    /// only when the bank says the consent no longer stands.
    async fn collect(
        &self,
        bank: &str,
        mandate: &MandateAtBank,
        order: &PaymentOrder,
        keep: &dyn KeepTokens,
    ) -> Result<BankPayment, CollectRefused>;

    /// Where a payment made under a mandate stands now.
    async fn collection_status(
        &self,
        bank: &str,
        domestic_vrp_id: &str,
    ) -> Result<BankPayment, BankUnavailable>;

    /// Ends the consent at the bank (the payer withdrew the mandate with
    /// lendhub); one already gone is ended.
    async fn end_mandate(&self, bank: &str, consent_id: &str) -> Result<(), BankUnavailable>;
}

/// One for each environment: a live partner's requests reach the live
/// one; test partners and sandbox clients the test one.
#[derive(Clone)]
pub struct PerEnvironment<T> {
    pub live: T,
    pub test: T,
}

impl<T> PerEnvironment<T> {
    /// Each environment's made from its `T`, or the first failure.
    pub fn try_map<U, E>(self, f: impl Fn(T) -> Result<U, E>) -> Result<PerEnvironment<U>, E> {
        Ok(PerEnvironment {
            live: f(self.live)?,
            test: f(self.test)?,
        })
    }

    pub fn get(&self, env: Environment) -> &T {
        match env {
            Environment::Live => &self.live,
            Environment::Test => &self.test,
        }
    }

    /// The one that serves `owner`'s environment.
    pub fn for_owner(&self, owner: &Tenant) -> &T {
        self.get(Self::environment_of(owner))
    }

    /// The environment `owner` lives in: live partners in live, test
    /// partners and sandbox clients in test.
    pub fn environment_of(owner: &Tenant) -> Environment {
        match owner.kind() {
            TenantKind::Partner { livemode: true, .. } => Environment::Live,
            _ => Environment::Test,
        }
    }
}

/// The kinds of counterparty an environment reaches through stand-ins.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StandIns {
    /// Served by lendhub's model servers over the real protocol, because
    /// the environment configures no real service (`company register`,
    /// `bank`).
    pub models: Vec<&'static str>,
    /// Still answered in process, with no protocol.
    pub in_process: Vec<&'static str>,
}

/// The kinds still simulated in process, in the test environment only: the
/// test banks a white-label submission may name (`bank`), whose cash
/// flows are made up.
const TEST_ONLY_IN_PROCESS: [&str; 1] = ["white-label test banks"];

/// Each environment's banks, over the same connections: read on the hosted
/// journey (account information), paid at on the pay page (payment
/// initiation).
pub struct BankAdapters {
    pub accounts: PerEnvironment<Arc<dyn AccountInformation>>,
    pub payments: PerEnvironment<Arc<dyn BankPayments>>,
    pub mandates: PerEnvironment<Arc<dyn BankMandates>>,
}

/// Each environment's identity provider and credit bureau.
pub struct Checks {
    pub people: PerEnvironment<Arc<dyn PersonRegister>>,
    pub bureau: PerEnvironment<Arc<dyn CreditBureau>>,
}

/// The counterparties the hub speaks to, as the server configured them.
pub struct Counterparties {
    /// What each environment reaches that is not the real service: the
    /// kinds served by lendhub's model servers, and those still simulated
    /// in process. The dashboard shows them.
    pub stand_ins: PerEnvironment<StandIns>,
    pub register: PerEnvironment<Arc<dyn CompanyRegister>>,
    /// The banks an applicant connects in the hosted journey.
    pub accounts: PerEnvironment<Arc<dyn AccountInformation>>,
    /// The banks a payer pays a payment link from.
    pub payments: PerEnvironment<Arc<dyn BankPayments>>,
    pub people: PerEnvironment<Arc<dyn PersonRegister>>,
    pub banks: Arc<dyn OpenBanking>,
    pub bureau: PerEnvironment<Arc<dyn CreditBureau>>,
    /// Where each environment's payouts are sent.
    pub rails: PerEnvironment<Arc<dyn PayoutRail>>,
    /// The payers' banks schedules' instalments are taken from.
    pub mandates: PerEnvironment<Arc<dyn BankMandates>>,
}

impl Counterparties {
    /// Each environment's company register, banks, identity provider,
    /// credit bureau and payout rail, as configured; the white-label
    /// submissions' test banks are still answered in process.
    pub fn new(
        register: PerEnvironment<Arc<dyn CompanyRegister>>,
        rails: PerEnvironment<Arc<dyn PayoutRail>>,
        BankAdapters {
            accounts,
            payments,
            mandates,
        }: BankAdapters,
        Checks { people, bureau }: Checks,
        models: PerEnvironment<Vec<&'static str>>,
    ) -> Self {
        hop::describe();
        crate::flows::reconcile::describe();
        crate::flows::monitor_models::describe();
        Self {
            // Live refuses the test banks (docs/decisions.md).
            stand_ins: PerEnvironment {
                live: StandIns {
                    models: models.live,
                    in_process: Vec::new(),
                },
                test: StandIns {
                    models: models.test,
                    in_process: TEST_ONLY_IN_PROCESS.to_vec(),
                },
            },
            register,
            accounts,
            payments,
            people,
            banks: Arc::new(SyntheticBanks),
            bureau,
            rails,
            mandates,
        }
    }
}
