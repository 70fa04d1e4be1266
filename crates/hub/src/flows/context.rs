//! What the flows reach: the stores, the counterparties and the links they
//! read and commit through. A surface holds a [`Context`] to call flows;
//! its fields are the flows' own, so holding one reaches no store or
//! counterparty outside a flow.

use std::sync::Arc;

use lendhub_domain::clock::Clock;
use lendhub_domain::crypto::MasterKey;
use lendhub_domain::lending::agreement::Lender;
use lendhub_domain::sandbox::test_clock::ClientClock;
use lendhub_domain::tenant::Tenant;
use lendhub_domain::working_days::WorkingDays;
use lendhub_store::{
    BrandStore, CommercialStore, CommitError, EventStore, LedgerStore, LendingStore, SandboxStore,
    ServicingStore, StoreError, UnitOfWork, WriteSet,
};
use time::OffsetDateTime;
use tokio::sync::Notify;

use crate::counterparties::{
    AccountInformation, BankMandates, BankPayments, CompanyRegister, Counterparties, CreditBureau,
    PayoutRail, PerEnvironment, PersonRegister,
};
use crate::links::Links;

/// The flows' dependencies; cloned per request, so one `Arc`.
#[derive(Clone)]
pub struct Context(Arc<Parts>);

impl std::ops::Deref for Context {
    type Target = Parts;

    fn deref(&self) -> &Parts {
        &self.0
    }
}

/// A [`Context`]'s parts, which the server composes once.
pub struct Parts {
    pub(in crate::flows) lending: Arc<dyn LendingStore>,
    pub(in crate::flows) servicing: Arc<dyn ServicingStore>,
    pub(in crate::flows) commercial: Arc<dyn CommercialStore>,
    /// The double-entry ledger's reads (its writes go in a unit).
    pub(in crate::flows) ledger: Arc<dyn LedgerStore>,
    /// Events and the webhook endpoints they are delivered to.
    pub(in crate::flows) events: Arc<dyn EventStore>,
    /// Partners' brands on the pages and e-mails their customers see.
    pub(in crate::flows) brands: Arc<dyn BrandStore>,
    /// Seals the webhook signing secrets a flow creates.
    pub(in crate::flows) master_key: MasterKey,
    /// Where owners' test clocks are kept.
    pub(in crate::flows) test_clocks: Arc<dyn SandboxStore>,
    pub(in crate::flows) units: Arc<dyn UnitOfWork>,
    /// Wakes the delivery worker when a commit holds events.
    pub(in crate::flows) outbox_wake: Arc<Notify>,
    pub(in crate::flows) register: PerEnvironment<Arc<dyn CompanyRegister>>,
    pub(in crate::flows) people: PerEnvironment<Arc<dyn PersonRegister>>,
    pub(in crate::flows) bureau: PerEnvironment<Arc<dyn CreditBureau>>,
    /// Where each environment's payouts go.
    pub(in crate::flows) rails: PerEnvironment<Arc<dyn PayoutRail>>,
    /// The applicants' banks an account is read at (a white-label
    /// journey's bank connection).
    pub(in crate::flows) accounts: PerEnvironment<Arc<dyn AccountInformation>>,
    /// The payer's banks a payment link is paid at.
    pub(in crate::flows) payments: PerEnvironment<Arc<dyn BankPayments>>,
    /// The payers' banks a schedule's mandate is held at.
    pub(in crate::flows) mandates: PerEnvironment<Arc<dyn BankMandates>>,
    pub(in crate::flows) links: Links,
    pub(in crate::flows) clock: Arc<dyn Clock>,
    /// England and Wales working days: statements are invoiced on the 2nd
    /// of the month after.
    pub(in crate::flows) working_days: Arc<WorkingDays>,
    /// Who lends: a party to every agreement a flow signs.
    pub(in crate::flows) lender: Arc<Lender>,
}

/// The stores a [`Context`] is made of.
pub struct Stores {
    pub lending: Arc<dyn LendingStore>,
    pub servicing: Arc<dyn ServicingStore>,
    pub commercial: Arc<dyn CommercialStore>,
    pub ledger: Arc<dyn LedgerStore>,
    pub events: Arc<dyn EventStore>,
    pub brands: Arc<dyn BrandStore>,
    pub test_clocks: Arc<dyn SandboxStore>,
    pub units: Arc<dyn UnitOfWork>,
    pub outbox_wake: Arc<Notify>,
}

impl Context {
    pub fn new(
        stores: Stores,
        master_key: MasterKey,
        counterparties: &Counterparties,
        links: Links,
        clock: Arc<dyn Clock>,
        working_days: Arc<WorkingDays>,
        lender: Arc<Lender>,
    ) -> Self {
        Self(Arc::new(Parts {
            lending: stores.lending,
            servicing: stores.servicing,
            commercial: stores.commercial,
            ledger: stores.ledger,
            events: stores.events,
            brands: stores.brands,
            master_key,
            test_clocks: stores.test_clocks,
            units: stores.units,
            outbox_wake: stores.outbox_wake,
            register: counterparties.register.clone(),
            people: counterparties.people.clone(),
            bureau: counterparties.bureau.clone(),
            rails: counterparties.rails.clone(),
            accounts: counterparties.accounts.clone(),
            payments: counterparties.payments.clone(),
            mandates: counterparties.mandates.clone(),
            links,
            clock,
            working_days,
            lender,
        }))
    }

    /// Now on `owner`'s clock: the service clock, moved by the owner's test
    /// clock in the test environment. For work outside a partner's request
    /// (the hosted pages, operator acts, the sweep), which has no caller.
    pub async fn now_for(&self, owner: &Tenant) -> Result<OffsetDateTime, StoreError> {
        let offset = self.test_clocks.clock_offset(owner).await?;
        Ok(ClientClock::new(offset).now(self.clock.now()))
    }

    /// Commits `writes` as one unit and wakes the delivery worker for the
    /// events among them.
    pub async fn commit(&self, writes: WriteSet) -> Result<(), CommitError> {
        self.units.commit(writes).await?;
        self.outbox_wake.notify_one();
        Ok(())
    }

    pub fn links(&self) -> &Links {
        &self.links
    }

    /// Who lends, as the documents and the pages' footers name it.
    pub fn lender(&self) -> &Lender {
        &self.lender
    }
}
